"""HTML report of a risk measurement: the figures and the class-size distribution as a plot."""

from __future__ import annotations

from hidekit.report import Report, bar_chart
from hidekit.risk.metrics import RiskReport, RiskResult

FIGURES = [
    "records",
    "cells",
    "k",
    "uniques",
    "at_risk",
    "rp",
    "cr",
    "prosecutor_highest",
    "prosecutor_average",
    "prosecutor_above_threshold",
]


def size_buckets(r: RiskReport) -> tuple[list[str], list[int]]:
    """Records by class size, grouped 1, 2, …, 9, 10-19, 20-49, 50+ for a readable histogram."""
    edges = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 9), (10, 19), (20, 49), (50, None)]
    labels, counts = [], []
    for lo, hi in edges:
        n = sum(
            x["records"]
            for x in r.class_sizes
            if x["size"] >= lo and (hi is None or x["size"] <= hi)
        )
        labels.append(f"{lo}" if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}"))
        counts.append(n)
    return labels, counts


def risk_report(result: RiskResult, title: str = "Re-identification risk") -> Report:
    r = result.overall
    rep = Report(title, f"keys: {', '.join(r.keys)} · cell-min {r.cell_min} · {r.note}")
    rep.heading("Figures")
    rep.table([{"figure": f, "value": getattr(r, f)} for f in FIGURES])
    labels, counts = size_buckets(r)
    rep.figure(
        bar_chart(
            labels,
            {"records": counts},
            title="Records by class size",
            xlabel="class size",
            ylabel="records",
        )
    )
    if result.by:
        rep.heading(f"By {result.by}")
        rep.table(
            [{result.by: g.group, **{f: getattr(g, f) for f in FIGURES}} for g in result.groups]
        )
    return rep
