"""The release report: risk before and after, class sizes, and what each step did."""

from __future__ import annotations

from hidekit.report import Report, bar_chart, line_chart
from hidekit.risk.report import size_buckets
from hidekit.transforms.loss import loss_section, loss_verdict

FIGURES = ["records", "cells", "k", "uniques", "at_risk", "rp", "cr"]


def release_report(result) -> Report:
    """The release's HTML report: verdict and information lost, risk before and after, the
    steps, how the data were read, warnings."""
    plan = result.plan
    rep = Report(
        f"Release of {plan.input.name}",
        f"plan {plan.path.name} · keys: {', '.join(plan.keys)} · limit k ≥ {plan.k}"
        + (f", RP ≤ {plan.rp}" if plan.rp is not None else "")
        + " · missing values are a category of their own",
    )
    _verdict(rep, result)
    _risk_figures(rep, result)
    _steps(rep, result)
    return rep


def _verdict(rep: Report, result) -> None:
    """Refused or released (with the information lost), and where the randomness came from."""
    plan = result.plan
    ok = not result.problems
    if not ok:
        text, warn = "Release refused: " + "; ".join(result.problems), False
    else:
        text, warn = loss_verdict(
            result.loss,
            plan.max_loss,
            "The release meets the plan's risk limit and no direct identifier remains",
        )
    rep.verdict(ok, text, warn=warn)
    if result.loss:
        loss_section(rep, result.loss, plan.max_loss)
    if result.insecure:
        rep.paragraph(
            "INSECURE: at least one step drew its randomness from a plain seed (insecure_seed). "
            "Anyone who learns the seed can re-run the draws and undo the masking. Do not "
            "release this output.",
            "bad",
        )
    rep.paragraph(
        "Random choices of the steps: "
        + (
            "keyed by a secret key (not recorded here)."
            if result.plan.key is not None
            else "fresh randomness from the operating system (not reproducible)."
        ),
        "note",
    )


def _risk_figures(rep: Report, result) -> None:
    """Risk figures before and after, records by class size, RP after each step."""
    plan, after = result.plan, result.after
    rep.heading("Risk before and after")
    rows = [
        {
            "figure": f,
            "before": getattr(result.before, f),
            "after": getattr(after, f) if after else None,
        }
        for f in FIGURES
    ]
    rep.table(rows, ["figure", "before", "after"])
    if result.individual_before is not None:
        individual_risk_table(rep, result)
    labels, before = size_buckets(result.before)
    series = {"before": before}
    if after:
        series["after"] = size_buckets(after)[1]
    rep.figure(
        bar_chart(
            labels, series, title="Records by class size", xlabel="class size", ylabel="records"
        ),
        "How many records sit in classes of each size; small classes are the risky ones.",
    )
    if result.steps:
        names = ["input"] + [f"{s.step}. {s.use}" for s in result.steps]
        rp = [result.before.rp] + [s.risk_after.get("rp") for s in result.steps]
        rep.figure(
            line_chart(
                names,
                {"RP": rp},
                title="Risk proportion after each step",
                ylabel="RP",
                ymin=0.0,
                hlines={"limit": float(plan.rp)} if plan.rp is not None else None,
            )
        )


def _steps(rep: Report, result) -> None:
    """The steps with their parameters and effects, how the data were read, warnings."""
    rep.heading("Steps")
    rep.table(
        [
            {
                "step": s.step,
                "use": s.use,
                "parameters": ", ".join(f"{k}={v}" for k, v in s.parameters.items()),
                "cells changed": ", ".join(f"{c}: {n:,}" for c, n in s.cells_changed.items())
                or "–",
                "removed": s.removed or "–",
                "k after": s.risk_after.get("k"),
                "RP after": s.risk_after.get("rp"),
                "seconds": s.seconds,
            }
            for s in result.steps
        ]
    )
    readings = [(s.step, what, d) for s in result.steps for what, d in s.decisions.items()]
    if readings:
        rep.heading("How the data were read")
        rep.table(
            [
                {
                    "step": i,
                    "what": what,
                    "column": d.get("column"),
                    "read from": d.get("read_from"),
                    "codes": ", ".join(f"{c} → {v}" for c, v in d.get("codes", {}).items()),
                }
                for i, what, d in readings
            ]
        )
    warnings = [(s.step, w) for s in result.steps for w in s.warnings]
    if warnings:
        rep.heading("Warnings")
        rep.table([{"step": i, "warning": w} for i, w in warnings])
    if result.scan_flagged:
        rep.paragraph(
            "Columns the PII scan still flags as direct identifiers (each treated by an "
            "identifier step or reviewed): " + ", ".join(result.scan_flagged),
            "note",
        )


INDIVIDUAL = [
    ("global risk (mean individual risk)", "global_risk"),
    ("expected re-identifications", "expected_reidentifications"),
    ("records above the risk threshold", "above_threshold"),
    ("share above the risk threshold", "share_above_threshold"),
    ("highest individual risk", "max_risk"),
]


def individual_risk_table(rep: Report, result) -> None:
    """Individual risk against the population before and after, beside the plan's limits."""
    limits = result.plan.population
    before, after = result.individual_before, result.individual_after
    scope = "household" if before.household_summary is not None else "record"
    b = before.household_summary or before.summary
    a = (after.household_summary or after.summary) if after else None
    limit_of = {
        "global_risk": limits.global_risk,
        "expected_reidentifications": limits.expected_reidentifications,
        "share_above_threshold": limits.share_above_threshold,
    }
    rows = [
        {
            "figure": label,
            "before": getattr(b, name),
            "after": getattr(a, name) if a else None,
            "limit": limit_of.get(name),
        }
        for label, name in INDIVIDUAL
    ]
    rep.heading("Individual risk against the population")
    rep.paragraph(
        f"Per {scope}: {before.to_dict()['model']}; risk threshold {limits.risk_threshold:g}; "
        f"{before.figures.missing_note}.",
        "note",
    )
    rep.table(rows, ["figure", "before", "after", "limit"])
