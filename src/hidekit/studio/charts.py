"""Inline SVG for the studio's pages, drawn by ``hidekit.report.svg`` like every report."""

from __future__ import annotations

import zlib

import pandas as pd
from markupsafe import Markup

from hidekit.report.svg import bar_chart
from hidekit.risk.metrics import RiskReport

SIZES_SHOWN = 10  # class sizes 1..10 one bar each, larger ones together


def cell_text(value: object) -> str:
    """A cell as the pages show it: missing values say so (they are a category of their own)."""
    try:
        missing = value is None or bool(pd.isna(value))
    except (TypeError, ValueError):
        missing = False
    return "(missing)" if missing else str(value)


def class_size_chart(report: RiskReport) -> Markup:
    """Records by the size of their class: the bars left of the cell minimum are at risk."""
    bars = [0] * (SIZES_SHOWN + 1)
    for row in report.class_sizes:
        bars[min(int(row["size"]), SIZES_SHOWN + 1) - 1] += int(row["records"])
    labels = [str(s) for s in range(1, SIZES_SHOWN + 1)] + [f"{SIZES_SHOWN + 1}+"]
    svg = bar_chart(
        labels,
        {"records": bars},
        title="Records by class size",
        xlabel="class size",
        ylabel="records",
        log=True,
    )
    return Markup(svg)  # noqa: S704 - built by hidekit.report.svg, which escapes every text


# Light backgrounds, one per PHI type, stable across runs (a hash of the label picks one).
LABEL_COLORS = (
    "#ffd8a8",
    "#b2f2bb",
    "#a5d8ff",
    "#fcc2d7",
    "#d0bfff",
    "#ffec99",
    "#99e9f2",
    "#ffc9c9",
    "#c0eb75",
    "#eebefa",
    "#e9ecef",
    "#96f2d7",
)


def label_color(label: str) -> str:
    return LABEL_COLORS[zlib.crc32(label.encode("utf-8")) % len(LABEL_COLORS)]
