"""Information lost beside risk in ``anonymize`` (Mondrian and the optimal lattice) and
``suppress`` (issue 16): the share of cells generalized or suppressed per variable, in --json and
in the HTML report's verdict, with a warning above --max-loss (``hidekit.transforms.loss``, the same
function the release plan uses)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.anonymize import mondrian
from hidekit.cli.main import app
from hidekit.errors import OptionError
from hidekit.transforms.suppression import local_suppression

ADULT = Path(__file__).parent / "fixtures" / "adult"
runner = CliRunner()

# Four people, ages two by two: k = 2 must generalize every age into a range of two, and sex
# (all "F") stays as it is.
TINY = pd.DataFrame({"sex": ["F"] * 4, "age": [30, 31, 40, 41], "x": ["a", "b", "c", "d"]})


def test_mondrian_states_the_cells_it_generalized_by_hand():
    res = mondrian(TINY, ["sex", "age"], 2, shuffle=False)
    loss = {v.column: v for v in res.loss}
    assert set(res.released["age"].astype(str)) != {"30", "31", "40", "41"}  # ranges now
    assert (loss["age"].generalized, loss["age"].suppressed, loss["age"].share) == (4, 0, 1.0)
    assert loss["sex"].share == 0.0 and loss["x"].share == 0.0
    info = res.to_dict()["information_loss"]
    assert info["max_loss"] == 0.2
    assert info["warnings"] == ["age: 100% of cells lost (0 suppressed, 4 generalized) > 20%"]
    # k = 1 changes nothing: no loss, no warning
    none = mondrian(TINY, ["sex", "age"], 1, shuffle=False).to_dict()["information_loss"]
    assert none["warnings"] == [] and all(v["share"] == 0 for v in none["variables"])


def test_mondrian_loss_follows_the_shuffle_against_an_independent_count():
    frame = pd.read_csv(ADULT / "adult.csv", sep=";").head(3000)
    keys = ["sex", "age", "race", "education"]
    res = mondrian(frame, keys, 5, key=b"k" * 32)
    src = frame.iloc[res.source_rows].reset_index(drop=True)
    for v in res.loss:  # released row i came from source row i: count differing cells by hand
        changed = sum(
            str(a) != str(b) for a, b in zip(src[v.column], res.released[v.column], strict=True)
        )
        assert v.generalized + v.suppressed == changed, v.column
    by = {v.column: v.share for v in res.loss}
    assert by["age"] > 0 and by["salary-class"] == 0.0  # a column not a key loses nothing


def test_mondrian_refuses_a_bad_max_loss():
    with pytest.raises(OptionError, match="max_loss"):
        mondrian(TINY, ["age"], 2, max_loss=1.5)


def test_anonymize_cli_json_report_and_warning(tmp_path):
    data = tmp_path / "tiny.csv"
    TINY.to_csv(data, index=False)
    out, report = tmp_path / "o.csv", tmp_path / "r.html"
    args = ["anonymize", str(data), "--keys", "sex,age", "--k", "2", "--out", str(out)]
    res = runner.invoke(app, [*args, "--report", str(report), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)["information_loss"]
    assert {v["column"]: v["share"] for v in info["variables"]} == {"sex": 0, "age": 1, "x": 0}
    html = report.read_text(encoding="utf-8")
    assert '<p class="warn">' in html and "high information loss" in html
    assert "Information lost" in html  # the per-variable table
    res = runner.invoke(app, args)
    assert res.exit_code == 0
    assert "warning: information loss: age: 100% of cells lost" in res.stderr
    assert "information lost: at most 100.0%" in res.stdout
    # a limit above the loss: no warning, a green verdict
    res = runner.invoke(app, [*args, "--max-loss", "1", "--report", str(tmp_path / "g.html")])
    assert res.exit_code == 0 and "warning" not in res.stderr
    assert '<p class="ok">' in (tmp_path / "g.html").read_text(encoding="utf-8")


def test_suppress_states_the_share_of_cells_blanked_by_hand():
    # one record unique on (sex, age): blanking its age (a wildcard, sdcMicro's rule) joins it
    # to the two other men, so one cell is lost and nothing else
    frame = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "age": [30, 30, 40, 40, 50]})
    res = local_suppression(frame, ["sex", "age"], 2, max_loss=0.1, missing="wildcard")
    assert res.total == 1
    loss = {v.column: v for v in res.loss}
    blanked = res.frame.isna().sum()
    for c in ("sex", "age"):
        assert loss[c].suppressed == int(blanked[c]) and loss[c].generalized == 0
        assert loss[c].share == pytest.approx(int(blanked[c]) / 5)
    info = res.to_dict()["information_loss"]
    assert len(info["warnings"]) == 1 and "20% of cells lost (1 suppressed" in info["warnings"][0]


def test_suppress_loss_matches_the_release_plans_function():
    from hidekit.transforms.loss import information_loss

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"a": rng.integers(0, 6, 400), "b": rng.integers(0, 9, 400), "c": rng.integers(0, 3, 400)}
    )
    res = local_suppression(frame, ["a", "b", "c"], 3)
    shared = information_loss(frame, res.frame, ["a", "b", "c"])
    assert [v.to_dict() for v in res.loss] == [v.to_dict() for v in shared]
    assert res.total > 0


def test_suppress_cli_json_and_warning(tmp_path):
    data = tmp_path / "d.csv"
    pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "age": [30, 30, 40, 40, 50]}).to_csv(
        data, index=False
    )
    args = [
        "suppress",
        str(data),
        "--keys",
        "sex,age",
        "--k",
        "2",
        "--out",
        str(tmp_path / "o.csv"),
        "--missing",
        "wildcard",
    ]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)["information_loss"]
    assert sum(v["suppressed"] for v in info["variables"]) == 1
    assert info["warnings"] == []  # 20 % of ages is not above the default 20 %
    res = runner.invoke(app, [*args, "--max-loss", "0.1"])
    assert "warning: information loss: age: 20% of cells lost (1 suppressed" in res.stderr
    res = runner.invoke(app, [*args, "--max-loss", "0.5"])
    assert res.exit_code == 0 and "warning" not in res.stderr
    assert "information lost: at most 20.0%" in res.stdout
    res = runner.invoke(app, [*args, "--max-loss", "2"])
    assert res.exit_code == 2 and res.stderr.startswith("error: ")


def test_optimal_states_cells_lost_per_key_in_json_and_report(tmp_path):
    keys = ["sex", "age", "race"]
    out, report = tmp_path / "r.csv", tmp_path / "r.html"
    hier = []
    for q in keys:
        hier += ["--hierarchy", f"{q}={ADULT / f'adult_hierarchy_{q}.csv'}"]
    res = runner.invoke(
        app,
        ["anonymize", str(ADULT / "adult.csv"), "--method", "optimal", "--keys", ",".join(keys)]
        + hier
        + ["--k", "10", "--out", str(out), "--report", str(report), "--json"],
    )
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    lost = {v["column"]: v for v in body["cells_lost"]["variables"]}
    original = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    released = pd.read_csv(out, sep=";", dtype=str)
    for q in keys:  # an independent count: cells that now read "*" or another label
        star = int((released[q] == "*").sum())
        other = int(((released[q] != "*") & (released[q] != original[q])).sum())
        assert (lost[q]["suppressed"], lost[q]["generalized"]) == (star, other), q
    html = report.read_text(encoding="utf-8")
    assert "Information lost" in html
    assert ("high information loss" in html) == bool(body["cells_lost"]["warnings"])
