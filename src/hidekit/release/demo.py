"""The release step of ``make demo``: run examples/demo-plan.toml's steps on the demo survey.

The demo makes its own secret key (``demo-output/demo.key``, owner-only, beside the release and
never inside it): the key encrypts the crosswalk and keys every random choice. The crosswalk goes
to ``demo-output/release.private/``; nothing in ``demo-output/release/`` can undo the masking.
"""

from __future__ import annotations

from pathlib import Path

DEMO_PLAN = Path(__file__).resolve().parents[3] / "examples" / "demo-plan.toml"


def step_release(out: Path, ctx: dict) -> str:
    from hidekit.release import load_plan, run_plan
    from hidekit.secrets import DEMO_KEY, demo_key

    plan = load_plan(DEMO_PLAN, output=Path(out) / "release", key=demo_key(out))
    plan.input = Path(ctx["survey"])
    plan.overwrite = True
    res = run_plan(plan)
    sup = next((s for s in res.steps if s.use == "suppress"), None)
    cells = sum(sup.cells_changed.values()) if sup else 0
    return (
        f"release plan ({len(res.steps)} steps): k {res.before.k} -> {res.after.k}, "
        f"RP {res.before.rp:.3f} -> {res.after.rp:.3f}, {cells:,} cells suppressed -> "
        f"{plan.output} ({', '.join(v for k, v in res.files.items() if k != 'crosswalk')}); "
        f"crosswalk -> {plan.private_folder()} (keyed by {Path(out) / DEMO_KEY})"
    )
