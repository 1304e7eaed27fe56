"""Chart geometry that a reader would notice: labels never sit on the legend."""

from __future__ import annotations

import re

import pytest

from hidekit.report.svg import M, line_chart


def _label_y(svg: str) -> float:
    return float(re.search(r'class="hk-hline-label" x="[^"]+" y="([^"]+)"', svg).group(1))


@pytest.mark.parametrize("limit", [0.3, 0.29, 0.2, 0.05])
def test_limit_label_stays_inside_the_plot(limit):
    # a limit at the top of the scale used to put its label in the legend's row
    svg = line_chart(
        ["start", "F1"], {"RP": [0.0, 0.02], "CR": [0.0, 0.13]}, hlines={"stop": limit}
    )
    y = _label_y(svg)
    assert y - 11 >= M["t"], "label text reaches into the legend's margin"


def test_limit_label_sits_just_above_a_low_line():
    svg = line_chart(["a", "b"], {"RP": [0.0, 1.0]}, hlines={"stop": 0.5}, ymin=0, ymax=1)
    line_y = float(
        re.search(r'<line x1="[^"]+" x2="[^"]+" y1="([^"]+)"[^>]*stroke-dasharray', svg).group(1)
    )
    assert line_y - 5 < _label_y(svg) < line_y  # above its own line, close to it
