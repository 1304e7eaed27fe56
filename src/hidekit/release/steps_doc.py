"""The reference of plan steps, generated from the step registry so it cannot drift: each
registered step with its summary (the class docstring) and every parameter (name, default, the
one-line ``param_docs`` entry). ``hidekit plan-steps --out docs/plan-steps.md`` writes it; a test
checks the file in the repository is what the registry says today.
"""

from __future__ import annotations

import inspect

from hidekit.release.plan import load_transforms, step_parameters
from hidekit.transforms.base import REGISTRY

HEADER = """# Plan steps

Every step a release plan (`[[steps]]`, see [release plans](release.md)) can `use`, with every
parameter. Generated from the step registry by `hidekit plan-steps --out docs/plan-steps.md`; do
not edit by hand (a test checks it is current). An unknown parameter in a plan is an error naming
the known ones; paths (`path`, `boundaries`, `population`) are relative to the plan file.
"""


def _default(p: inspect.Parameter) -> str:
    if p.default is inspect.Parameter.empty:
        return "required"
    v = p.default
    if v is None or v == ():
        return "–"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def step_docs() -> list[dict]:
    """Per registered step (by name): its summary and its parameters with default and meaning."""
    load_transforms()
    out = []
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        doc = inspect.getdoc(cls) or ""
        summary = " ".join(doc.split("\n\n")[0].split()).replace("``", "`")
        docs = getattr(cls, "param_docs", {}) or {}
        params = [
            {"name": p.name, "default": _default(p), "doc": docs.get(p.name, "")}
            for p in step_parameters(cls)
        ]
        out.append({"use": name, "summary": summary, "parameters": params})
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def plan_steps_markdown() -> str:
    """docs/plan-steps.md as the registry describes the steps."""
    parts = [HEADER]
    for step in step_docs():
        parts.append(f"\n## `{step['use']}`\n\n{step['summary']}\n")
        parts.append("\n| parameter | default | meaning |\n|---|---|---|\n")
        parts.extend(
            f"| `{p['name']}` | {_cell(p['default'])} | {_cell(p['doc']) or '(undocumented)'} |\n"
            for p in step["parameters"]
        )
    return "".join(parts)
