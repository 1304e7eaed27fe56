"""The release step of ``make demo``: run examples/demo-plan.toml's steps on the demo survey."""

from __future__ import annotations

from pathlib import Path

DEMO_PLAN = Path(__file__).resolve().parents[3] / "examples" / "demo-plan.toml"
DEMO_PASSPHRASE = (
    "demo-only-passphrase"  # the demo's crosswalk; never use a fixed one for real data
)


def step_release(out: Path, ctx: dict) -> str:
    from hidekit.release import load_plan, run_plan

    plan = load_plan(DEMO_PLAN, output=Path(out) / "release")
    plan.input = Path(ctx["survey"])
    plan.overwrite = True
    res = run_plan(plan, passphrase=DEMO_PASSPHRASE)
    sup = next((s for s in res.steps if s.use == "suppress"), None)
    cells = sum(sup.cells_changed.values()) if sup else 0
    return (
        f"release plan ({len(res.steps)} steps): k {res.before.k} -> {res.after.k}, "
        f"RP {res.before.rp:.3f} -> {res.after.rp:.3f}, {cells:,} cells suppressed -> "
        f"{plan.output} ({', '.join(res.files.values())})"
    )
