"""Readable output of a selection: the paper's step tables, summary, and RP/CR plot."""

from __future__ import annotations

from hidekit.report import Report, line_chart
from hidekit.selection.stepwise import SelectionResult


def step_rows(result: SelectionResult) -> list[dict]:
    return [
        {
            "step": s.label,
            "action": s.action,
            "variable": s.variable,
            "varlist": " ".join(s.variables),
            "alpha": s.alpha,
            "rp": s.rp,
            "cr": s.cr,
            "ratio": s.ratio,
            **({"global_risk": s.global_risk} if s.global_risk is not None else {}),
        }
        for s in result.taken
    ]


def rp_cr_chart(result: SelectionResult, stop: float | None = None) -> str:
    labels = ["start"] + [s.label for s in result.taken]
    rp = [result.start["rp"]] + [s.rp for s in result.taken]
    cr = [result.start["cr"]] + [s.cr for s in result.taken]
    series = {"RP": rp, "CR": cr}
    title = f"RP and CR by step ({result.method})"
    if result.measure == "global_risk":
        series["global risk"] = [result.start["global_risk"]] + [
            s.global_risk for s in result.taken
        ]
        title = f"RP, CR and global risk by step ({result.method})"
    if result.group is not None:
        title += f" — group {result.group}"
    return line_chart(
        labels,
        series,
        title=title,
        xlabel="step",
        ylabel="share",
        ymin=0.0,
        hlines={"stop": stop} if stop is not None else None,
    )


def selection_report(
    results: list[SelectionResult], stop: float | None = None, title: str = "Variable selection"
) -> Report:
    first = results[0]
    rep = Report(
        title,
        f"method {first.method} · criterion {first.criterion} · "
        f"cell-min {first.cell_min} · missing values are a category of their own",
    )
    for res in results:
        name = "All records" if res.group is None else f"Subgroup {res.group}"
        rep.heading(name)
        risk = f", global risk {res.final['global_risk']:.4f}" if "global_risk" in res.final else ""
        rep.paragraph(
            f"Selected: {' '.join(res.selected)} — RP {res.final['rp']:.3f}, "
            f"CR {res.final['cr']:.3f}{risk}. {_sentence(res.stop_reason)}"
        )
        if res.above_limit:
            rep.verdict(False, f"Warning: {res.limit_warning()}.")
        rep.figure(rp_cr_chart(res, stop))
        rep.table(step_rows(res), caption="Summary of steps")
        for s in res.steps:
            rep.table(
                [
                    {
                        "variable": c.variable,
                        "alpha": c.alpha,
                        "rp": c.rp,
                        "cr": c.cr,
                        "ratio": c.ratio,
                        **({"global_risk": c.global_risk} if c.global_risk is not None else {}),
                    }
                    for c in s.candidates
                ],
                caption=f"Step {s.label}: {'add' if s.action == 'add' else 'remove'} "
                f"{s.variable}{'' if s.taken else ' (not taken: stopped)'} — "
                f"varlist {' '.join(s.before)}",
            )
    return rep


def _sentence(reason: str) -> str:
    """A stop reason (written lower case for the CLI's ``stopped:`` line) as a sentence."""
    reason = reason.strip().rstrip(".")
    return f"{reason[:1].upper()}{reason[1:]}." if reason else ""
