"""``make demo``: the main job on the built-in synthetic survey, step by step.

Each step takes the output folder and a shared context dict and returns a one-line summary.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hidekit.demo.survey import KEYS, generate_survey
from hidekit.io import write_table

Step = Callable[[Path, dict], str]


def step_generate(out: Path, ctx: dict) -> str:
    frame = generate_survey(ctx.get("records", 5000), ctx.get("seed", 7))
    frame["age_group"] = (frame["age"] // 10 * 10).astype(str) + "s"
    path = write_table(frame, out / "survey.csv")
    ctx["survey"] = path
    ctx["frame"] = frame
    return f"synthetic survey: {len(frame):,} records, {frame.shape[1]} columns -> {path}"


def step_risk(out: Path, ctx: dict) -> str:
    from hidekit.risk import measure_risk
    from hidekit.risk.report import risk_report

    result = measure_risk(ctx["frame"], KEYS, cell_min=3, by="urban_rural")
    risk_report(result, "Demo: risk of the raw survey").save(out / "risk.html")
    r = result.overall
    return (
        f"risk of {', '.join(KEYS)}: k={r.k}, uniques={r.uniques:,}, RP={r.rp:.3f}, "
        f"CR={r.cr:.3f} -> {out / 'risk.html'}"
    )


def step_select(out: Path, ctx: dict) -> str:
    from hidekit.selection import select_variables
    from hidekit.selection.report import selection_report

    keys = ["race", "marital_status", "education", "urban_rural", "state", "visit_date"]
    res = select_variables(
        ctx["frame"], keys, force=["sex", "age_group"], method="forward", stop=0.05
    )
    selection_report([res], 0.05, "Demo: forward selection, RP limit 5%").save(
        out / "selection.html"
    )
    return (
        f"forward selection (RP ≤ 0.05, forced sex, age_group): {' '.join(res.selected)} "
        f"(RP {res.final['rp']:.3f}) -> {out / 'selection.html'}"
    )


def _lazy(module: str, name: str) -> Step:
    """A step from another capability, imported only when the demo runs it."""

    def run(out: Path, ctx: dict) -> str:
        import importlib

        return getattr(importlib.import_module(module), name)(out, ctx)

    run.__name__ = name
    return run


STEPS: list[Step] = [
    step_generate,
    _lazy("hidekit.scan", "step_scan"),
    step_risk,
    step_select,
    _lazy("hidekit.anonymize.demo", "step_anonymize"),
    _lazy("hidekit.release.demo", "step_release"),
    _lazy("hidekit.text.detector", "step_text_detect"),
    _lazy("hidekit.text.operators", "step_text_anonymize"),
    _lazy("hidekit.evaluation.text_risk_demo", "step_text_risk"),
    _lazy("hidekit.linking.pipeline", "step_link"),
]


def run_demo(
    out: Path,
    records: int = 5000,
    seed: int = 7,
    echo: Callable[[str], None] = print,
    overwrite: bool = False,
) -> dict:
    """Run every step into a new folder built atomically: ``out`` appears only when the whole
    demo succeeded, and an existing ``out`` is replaced only with ``overwrite`` and only when
    hidekit wrote it (``hidekit.io.atomic``)."""
    from hidekit.io.atomic import atomic_dir

    out = Path(out)
    ctx: dict = {"records": records, "seed": seed}
    with atomic_dir(out, overwrite=overwrite) as tmp:
        for step in STEPS:
            echo(step(tmp, ctx).replace(str(tmp), str(out)))
        _name_final_folder(tmp, out)
    return ctx


def _name_final_folder(tmp: Path, out: Path) -> None:
    """The steps ran in the temporary folder; where their JSON and HTML outputs name it (input
    paths in ``scan.json`` and the audit), name the folder the demo ends up in instead."""
    for path in tmp.rglob("*"):
        if path.suffix in (".json", ".jsonl", ".html") and path.is_file():
            text = path.read_text(encoding="utf-8")
            if str(tmp) in text:
                path.write_text(text.replace(str(tmp), str(out)), encoding="utf-8")
