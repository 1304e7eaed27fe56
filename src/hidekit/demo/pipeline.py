"""``make demo``: the main job on the built-in synthetic survey, step by step (the steps, in
order, are ``hidekit.demo.steps.STEPS``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hidekit.demo.steps import STEPS


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
