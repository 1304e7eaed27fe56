"""Backward selection says when its result is above the stop limit (issue 16 item 5): in the
result, on the command line and in the report. Hand table as in test_selection (cell_min 2)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.selection import select_variables
from hidekit.selection.report import selection_report

HAND = pd.DataFrame(
    {"A": list("aaaabbbb"), "B": list("xxyyxxyy"), "C": list("pppppppq"), "D": range(8)}
)


def test_backward_result_above_the_limit_is_flagged():
    # backward stops before RP falls below 0.2: {A, B, C} keeps RP 2/8 = 0.25 > 0.2
    r = select_variables(HAND, ["A", "B", "C", "D"], method="backward", stop=0.2, cell_min=2)
    assert r.selected == ["A", "B", "C"] and r.final["rp"] == pytest.approx(0.25)
    assert r.above_limit
    assert "RP 0.250, above the stop limit 0.2" in r.limit_warning()
    d = r.to_dict(detail=False)
    assert d["above_limit"] is True and d["stop"] == 0.2 and "above the stop limit" in d["warning"]
    html = selection_report([r], 0.2).html()
    assert '<p class="bad">Warning: the selected set has RP 0.250' in html


def test_forward_result_under_the_limit_is_not_flagged():
    r = select_variables(HAND, ["A", "B", "C", "D"], method="forward", stop=0.2, cell_min=2)
    assert r.final["rp"] == 0.0 and not r.above_limit and r.limit_warning() is None
    assert r.to_dict(detail=False)["warning"] is None
    assert "Warning" not in selection_report([r], 0.2).html()


def test_cli_prints_the_warning(tmp_path):
    data = tmp_path / "hand.csv"
    HAND.to_csv(data, index=False)
    args = ["select", str(data), "--keys", "A,B,C,D", "--method", "backward", "--stop", "0.2"]
    res = CliRunner().invoke(app, [*args, "--cell-min", "2"])
    assert res.exit_code == 0, res.output
    assert "warning: the selected set has RP 0.250, above the stop limit 0.2" in res.stderr
    res = CliRunner().invoke(app, [*args, "--cell-min", "2", "--json"])
    assert json.loads(res.stdout)["above_limit"] is True
