"""The HTML report of an optimal search: the lattice as ARX draws it (one row of nodes per
generalization height, anonymous or not, loss by colour, the optimum ringed), the class sizes of
the release, and the information lost beside the risk left."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from hidekit.anonymize.optimal.api import OptimalResult
from hidekit.anonymize.optimal.lattice import ANONYMOUS, NOT_ANONYMOUS
from hidekit.report.html import Report
from hidekit.report.svg import bar_chart
from hidekit.transforms.loss import DEFAULT_MAX_LOSS, VariableLoss, loss_section, loss_verdict

MAX_DRAWN = 20_000  # nodes; a larger lattice is drawn as counts per height
SIZE_BINS = [(1, 1), (2, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, 999), (1000, None)]


def _colour(value: float, lo: float, hi: float) -> str:
    """Loss from light (little) to dark (much) green."""
    x = 0.0 if hi <= lo else (value - lo) / (hi - lo)
    g = int(200 - 120 * x)
    return f"rgb({int(170 - 150 * x)},{g},{int(120 - 90 * x)})"


def lattice_svg(result: OptimalResult) -> str:
    view = result.lattice
    if view is None:
        return ""
    heights = view.levels.sum(axis=1)
    top = int(heights.max()) if len(heights) else 0
    if len(heights) > MAX_DRAWN:
        rows = [
            {
                "height": h,
                "anonymous": int(((heights == h) & (view.state == ANONYMOUS)).sum()),
                "not anonymous": int(((heights == h) & (view.state == NOT_ANONYMOUS)).sum()),
            }
            for h in range(top + 1)
        ]
        return bar_chart(
            [r["height"] for r in rows],
            {k: [r[k] for r in rows] for k in ("anonymous", "not anonymous")},
            title=f"Lattice of {len(heights):,} nodes, by height",
            xlabel="sum of levels",
            ylabel="nodes",
        )
    width, row_h, pad = 900, 34, 40
    widest = max(int((heights == h).sum()) for h in range(top + 1))
    r = max(1.5, min(7.0, (width - 2 * pad) / max(widest, 1) / 2.4))
    values = view.values
    lo = min(values.values()) if values else 0.0
    hi = max(values.values()) if values else 1.0
    svg_h = pad * 2 + row_h * top + 20
    parts = [
        f'<svg class="hk-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {svg_h}" '
        f'width="{width}" height="{svg_h}" role="img" aria-label="generalization lattice">'
    ]
    for h in range(top + 1):
        nodes = np.nonzero(heights == h)[0]
        y = svg_h - pad - h * row_h
        parts.append(f'<text x="4" y="{y + 4}" font-size="10" fill="#666">{h}</text>')
        step = (width - 2 * pad) / (len(nodes) + 1)
        for i, node in enumerate(nodes.tolist()):
            x = pad + (i + 1) * step
            state = view.state[node]
            if node in values:
                fill = _colour(values[node], lo, hi)
            elif state == ANONYMOUS:
                fill = "#cfe8cf"
            elif state == NOT_ANONYMOUS:
                fill = "#e8b4b4"
            else:
                fill = "#e6e6e6"
            label = ",".join(str(v) for v in view.levels[node].tolist())
            tip = f"[{label}] " + (
                f"loss {values[node]:.6g}"
                if node in values
                else {ANONYMOUS: "anonymous", NOT_ANONYMOUS: "not anonymous"}.get(
                    int(state), "pruned by the loss bound"
                )
            )
            ring = ' stroke="#000" stroke-width="3"' if node == view.optimum else ""
            rad = r * 2.2 if node == view.optimum else r
            parts.append(
                f'<circle class="hk-mark" cx="{x:.1f}" cy="{y:.1f}" r="{rad:.1f}" '
                f'fill="{fill}"{ring}><title>{escape(tip)}</title></circle>'
            )
    parts.append(
        f'<text x="{width - pad}" y="16" text-anchor="end" font-size="11">'
        "green: anonymous (darker = more loss) · red: not anonymous · grey: not needed "
        "(loss bound above the optimum) · ringed: optimum</text></svg>"
    )
    return "\n".join(parts)


def class_size_rows(sizes: np.ndarray) -> list[dict]:
    rows = []
    for lo, hi in SIZE_BINS:
        mask = (sizes >= lo) & (sizes <= hi) if hi is not None else sizes >= lo
        label = f"{lo}" if lo == hi else (f"{lo}–{hi}" if hi is not None else f"{lo}+")
        rows.append(
            {"class size": label, "classes": int(mask.sum()), "records": int(sizes[mask].sum())}
        )
    return rows


def optimal_report(
    result: OptimalResult,
    title: str,
    loss: Sequence[VariableLoss] = (),
    max_loss: float = DEFAULT_MAX_LOSS,
) -> Report:
    """The lattice search's report; ``loss`` (cells generalized or suppressed per key, from
    ``hidekit.transforms.loss``) puts the information lost per variable beside the risk."""
    rep = Report(title, subtitle=", ".join(result.models) + f"; metric {result.metric}")
    levels = result.transformation
    if levels is None:  # not found
        rep.verdict(False, result.notes[-1] if result.notes else "no transformation found")
        return rep
    proven = "proven optimal" if result.proven_optimal else "heuristic, not proven optimal"
    n = result.records
    met = (
        f"Optimum found ({proven}): information loss {result.information_loss:.6g} "
        f"({result.metric}); {result.suppressed:,} of {n:,} records suppressed; "
        f"smallest class {result.smallest_class:,}"
    )
    text, warn = loss_verdict(loss, max_loss, met) if loss else (met + ".", False)
    rep.verdict(True, text, warn=warn)
    if loss:
        loss_section(rep, loss, max_loss)
    rep.heading("Risk left beside information lost")
    kept = n - result.suppressed
    rep.table(
        [
            {"figure": "records released (not suppressed)", "value": kept},
            {"figure": "records suppressed", "value": result.suppressed},
            {"figure": "equivalence classes", "value": result.classes},
            {
                "figure": "highest prosecutor risk (1 / smallest class)",
                "value": 1 / max(result.smallest_class, 1),
            },
            {
                "figure": "average prosecutor risk (classes / records released)",
                "value": result.classes / max(kept, 1),
            },
            {"figure": f"information loss ({result.metric})", "value": result.information_loss},
        ]
    )
    rep.heading("Chosen levels")
    rep.table(
        [
            {
                "key": q.name,
                "level": levels[q.name],
                "of": q.height,
                "values released": q.card(levels[q.name]),
                "loss": result.loss_per_key.get(q.name),
            }
            for q in result.qis
        ]
    )
    rep.heading("Lattice")
    rep.paragraph(
        f"{result.lattice_size:,} transformations; {result.transformations_checked:,} checked. "
        "Hover a node for its levels and loss.",
        cls="meta",
    )
    rep.figure(lattice_svg(result))
    rep.heading("Class sizes of the release")
    rows = class_size_rows(result.class_sizes)
    rep.figure(
        bar_chart(
            [r["class size"] for r in rows],
            {"classes": [r["classes"] for r in rows]},
            title="Equivalence classes by size",
            xlabel="class size (records)",
            ylabel="classes",
        )
    )
    rep.table(rows)
    for note in result.notes:
        rep.paragraph(note, cls="note")
    return rep
