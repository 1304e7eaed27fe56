"""Small, dependency-free SVG charts for self-contained offline reports.

Each function returns an ``<svg>`` string with ``class="hk-chart"`` and one element of class
``hk-mark`` per drawn point/bar, so a test (or a browser) can check that a plot was drawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from html import escape

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
W, H = 640, 340
M = {"l": 60, "r": 20, "t": 44, "b": 70}


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    out, v = [], start
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def _fmt(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.3g}"


def _frame(title, xlabel, ylabel, body, legend):
    parts = [
        f'<svg class="hk-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" '
        f'width="{W}" height="{H}" role="img" aria-label="{escape(title)}">',
        f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>',
        body,
        f'<text x="{W / 2}" y="{H - 8}" text-anchor="middle" font-size="12">{escape(xlabel)}</text>',
        f'<text transform="translate(14,{H / 2}) rotate(-90)" text-anchor="middle" font-size="12">{escape(ylabel)}</text>',
        legend,
        "</svg>",
    ]
    return "\n".join(parts)


def _axes(ylo, yhi, xlabels: Sequence[str] | None, xs_px: Sequence[float] | None, yfmt=_fmt):
    pw, ph = W - M["l"] - M["r"], H - M["t"] - M["b"]
    out = [
        f'<rect x="{M["l"]}" y="{M["t"]}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>'
    ]
    for t in _ticks(ylo, yhi):
        if t < ylo - 1e-12 or t > yhi + 1e-12:
            continue
        y = M["t"] + ph - (t - ylo) / (yhi - ylo) * ph
        out.append(
            f'<line x1="{M["l"]}" x2="{M["l"] + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
        )
        out.append(
            f'<text x="{M["l"] - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{yfmt(t)}</text>'
        )
    if xlabels and xs_px:
        every = max(1, math.ceil(len(xlabels) / 16))
        slot = pw / max(len(xlabels), 1) * every
        tilt = max(len(str(lab)) for lab in xlabels) * 6.2 > slot  # long labels: slant them
        for i, (lab, x) in enumerate(zip(xlabels, xs_px, strict=False)):
            if i % every:
                continue
            y = M["t"] + ph + 16
            if tilt:
                out.append(
                    f'<text x="{x:.1f}" y="{y}" text-anchor="end" font-size="11" '
                    f'transform="rotate(-30 {x:.1f} {y})">{escape(str(lab))}</text>'
                )
            else:
                out.append(
                    f'<text x="{x:.1f}" y="{y}" text-anchor="middle" font-size="11">{escape(str(lab))}</text>'
                )
    return "\n".join(out)


def _legend(names: Sequence[str]) -> str:
    """One row of swatches in the top margin, right-aligned: never over the data."""
    out = []
    widths = [22 + 7 * len(str(n)) for n in names]
    x = W - M["r"] - sum(widths)
    for i, name in enumerate(names):
        c = PALETTE[i % len(PALETTE)]
        out.append(
            f'<rect x="{x:.0f}" y="{M["t"] - 16}" width="12" height="12" fill="{c}"/>'
            f'<text x="{x + 16:.0f}" y="{M["t"] - 6}" font-size="11">{escape(str(name))}</text>'
        )
        x += widths[i]
    return "\n".join(out)


def line_chart(
    x: Sequence,
    series: Mapping[str, Sequence[float]],
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    ymin: float | None = None,
    ymax: float | None = None,
    hlines: dict[str, float] | None = None,
) -> str:
    """Lines over a shared categorical or numeric x axis (e.g. RP and CR by selection step)."""
    xs = list(x)
    vals = [v for s in series.values() for v in s if v is not None and math.isfinite(v)]
    vals += list((hlines or {}).values())
    lo = min(vals, default=0.0) if ymin is None else ymin
    hi = max(vals, default=1.0) if ymax is None else ymax
    if hi <= lo:
        hi = lo + 1.0
    pw, ph = W - M["l"] - M["r"], H - M["t"] - M["b"]
    n = max(len(xs), 1)
    px = [M["l"] + (i + 0.5) * pw / n for i in range(len(xs))]

    def py(v):
        return M["t"] + ph - (v - lo) / (hi - lo) * ph

    body = [_axes(lo, hi, [str(v) for v in xs], px)]
    for i, (name, ys) in enumerate(series.items()):
        c = PALETTE[i % len(PALETTE)]
        pts = [(px[j], py(v)) for j, v in enumerate(ys) if v is not None and math.isfinite(v)]
        if pts:
            d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            body.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"/>')
        for a, b in pts:
            body.append(
                f'<circle class="hk-mark" cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{c}"><title>{escape(name)}</title></circle>'
            )
    for name, v in (hlines or {}).items():
        y = py(v)
        # above its line, unless that puts it in the top margin beside the legend: then below
        label_y = y - 4 if y - 4 - 11 >= M["t"] else y + 13
        body.append(
            f'<line x1="{M["l"]}" x2="{W - M["r"]}" y1="{y:.1f}" y2="{y:.1f}" stroke="#555" stroke-dasharray="5,4"/>'
            f'<text class="hk-hline-label" x="{W - M["r"] - 4}" y="{label_y:.1f}" text-anchor="end" font-size="11">{escape(name)}</text>'
        )
    return _frame(title, xlabel, ylabel, "\n".join(body), _legend(list(series)))


def bar_chart(
    labels: Sequence,
    series: Mapping[str, Sequence[float]],
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    log: bool = False,
) -> str:
    """Grouped bars (e.g. class-size histogram before and after a release)."""
    labels = [str(v) for v in labels]
    names = list(series)
    vals = [v for s in series.values() for v in s]
    tr = (lambda v: math.log10(v + 1)) if log else (lambda v: v)
    hi = max((tr(v) for v in vals), default=1.0) or 1.0
    pw, ph = W - M["l"] - M["r"], H - M["t"] - M["b"]
    n = max(len(labels), 1)
    slot = pw / n
    bw = slot * 0.8 / max(len(names), 1)
    body = [
        _axes(
            0.0,
            hi,
            labels,
            [M["l"] + (i + 0.5) * slot for i in range(len(labels))],
            yfmt=(lambda t: _fmt(10**t - 1)) if log else _fmt,
        )
    ]
    for si, name in enumerate(names):
        c = PALETTE[si % len(PALETTE)]
        for i, v in enumerate(series[name]):
            h = tr(v) / hi * ph
            x = M["l"] + i * slot + slot * 0.1 + si * bw
            body.append(
                f'<rect class="hk-mark" x="{x:.1f}" y="{M["t"] + ph - h:.1f}" width="{bw:.1f}" '
                f'height="{h:.1f}" fill="{c}"><title>{escape(name)} {escape(labels[i])}: {_fmt(v)}</title></rect>'
            )
    return _frame(title, xlabel, ylabel, "\n".join(body), _legend(names) if len(names) > 1 else "")


def histogram(
    values: Iterable[float],
    *,
    bins: int = 30,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "count",
    marks: dict[str, float] | None = None,
) -> str:
    """Histogram of a distribution (e.g. Monte Carlo draws) with vertical marker lines."""
    vals = [float(v) for v in values if v is not None and math.isfinite(v)]
    marks = marks or {}
    allv = vals + list(marks.values())
    lo, hi = (min(allv), max(allv)) if allv else (0.0, 1.0)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    counts = [0] * bins
    for v in vals:
        counts[min(int((v - lo) / width), bins - 1)] += 1
    top = max(counts, default=1) or 1
    pw, ph = W - M["l"] - M["r"], H - M["t"] - M["b"]

    def px(v):
        return M["l"] + (v - lo) / (hi - lo) * pw

    body = [_axes(0, top, None, None)]
    for i, c in enumerate(counts):
        h = c / top * ph
        body.append(
            f'<rect class="hk-mark" x="{px(lo + i * width):.1f}" y="{M["t"] + ph - h:.1f}" '
            f'width="{max(pw / bins - 1, 1):.1f}" height="{h:.1f}" fill="{PALETTE[0]}"/>'
        )
    for t in _ticks(lo, hi, 6):
        if lo <= t <= hi:
            body.append(
                f'<text x="{px(t):.1f}" y="{M["t"] + ph + 16}" text-anchor="middle" font-size="11">{_fmt(t)}</text>'
            )
    for j, (name, v) in enumerate(marks.items()):
        colour = PALETTE[(j + 1) % len(PALETTE)]
        near_right = px(v) > W - M["r"] - 160  # keep the label inside the plot
        tx, anchor = (px(v) - 4, "end") if near_right else (px(v) + 4, "start")
        body.append(
            f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{M["t"]}" y2="{M["t"] + ph}" stroke="{colour}" stroke-width="2" stroke-dasharray="6,3"/>'
            f'<text x="{tx:.1f}" y="{M["t"] + 14 + 14 * j}" text-anchor="{anchor}" font-size="11" fill="{colour}">{escape(name)} = {_fmt(v)}</text>'
        )
    return _frame(title, xlabel, ylabel, "\n".join(body), "")
