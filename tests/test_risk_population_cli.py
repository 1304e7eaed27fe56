"""``hidekit risk`` with weights, households, SUDA and population: the JSON and CSV contract."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.risk.loglinear import expected_inverse, loglinear_estimate

runner = CliRunner()


def _survey(tmp_path, n=400, seed=3):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "region": rng.integers(0, 4, n),
            "sex": rng.integers(0, 2, n),
            "age": rng.integers(0, 12, n),
            "hh": np.repeat(np.arange(n // 4), 4),
            "w": rng.uniform(20, 80, n).round(1),
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_json_and_per_record_contract(tmp_path):
    path, frame = _survey(tmp_path)
    per = tmp_path / "per.csv"
    args = ["risk", str(path), "--keys", "region,sex,age", "--weights", "w", "--household", "hh"]
    res = runner.invoke(app, [*args, "--suda", "--per-record", str(per), "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    for old in ("records", "cells", "k", "uniques", "rp", "cr", "class_sizes"):
        assert old in d  # today's fields stay
    assert set(d["weighted"]) >= {"global_risk", "expected_reidentifications"}
    assert d["weighted"]["missing_rule"] == "category"
    e = d["estimate"]
    assert set(e) >= {"model", "expected_reidentifications", "ci"}
    assert e["ci"][0] <= e["expected_reidentifications"] <= e["ci"][1]
    rows = pd.read_csv(per)
    assert len(rows) == len(frame)
    assert {"fk", "Fk", "risk", "suda", "dis"} <= set(rows.columns)
    assert rows["risk"].sum() == pytest.approx(d["weighted"]["expected_reidentifications"])
    # input order: the first record's fk is the size of its own key combination
    first = frame.iloc[0]
    same = (frame[["region", "sex", "age"]] == first[["region", "sex", "age"]]).all(axis=1)
    assert rows.loc[0, "fk"] == same.sum()


def test_population_section_and_errors(tmp_path):
    path, frame = _survey(tmp_path)
    res = runner.invoke(
        app, ["risk", str(path), "--keys", "region,sex,age", "--population", "40000", "--json"]
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert set(d["population"]) >= {"pitman", "zayatz", "snb", "dankar"}
    assert d["dankar_model"] in {"pitman", "zayatz", "snb", "none"}
    small = runner.invoke(app, ["risk", str(path), "--keys", "region", "--population", "10"])
    assert small.exit_code == 2 and "smaller than the sample" in small.stderr
    text = runner.invoke(app, ["risk", str(path), "--keys", "region", "--weights", "sex"])
    assert text.exit_code == 2 and "zero, negative" in text.stderr
    assert len(text.stderr.strip().splitlines()) == 1
    no_w = runner.invoke(app, ["risk", str(path), "--keys", "region", "--per-record", "x.csv"])
    assert no_w.exit_code == 2


def test_per_record_never_overwrites_the_input(tmp_path):
    path, _ = _survey(tmp_path)
    before = path.read_bytes()
    res = runner.invoke(
        app, ["risk", str(path), "--keys", "region", "--weights", "w", "--per-record", str(path)]
    )
    assert res.exit_code == 2 and path.read_bytes() == before


def test_report_shows_individual_risk_and_suda(tmp_path):
    path, _ = _survey(tmp_path)
    report = tmp_path / "r.html"
    args = ["risk", str(path), "--keys", "region,sex,age", "--weights", "w", "--suda"]
    res = runner.invoke(app, [*args, "--report", str(report)])
    assert res.exit_code == 0, res.output
    html = report.read_text()
    for text in ("Individual risk", "DIS-SUDA scores", "Variables driving", "Recommended estimate"):
        assert text in html


def test_expected_inverse_matches_the_poisson_series():
    from scipy.stats import poisson

    g = np.arange(0, 3000)
    for f, nu in [(1, 0.5), (2, 3.0), (4, 40.0)]:
        series = (poisson.pmf(g, nu) / (f + g)).sum()
        assert expected_inverse(np.array([f]), np.array([nu]))[0] == pytest.approx(series)


def _population(n_pop, dependent, seed):
    rng = np.random.default_rng(seed)
    pop = np.column_stack([rng.integers(0, c, n_pop) for c in (5, 8, 4, 6)])
    if dependent:
        pop[:, 1] = (pop[:, 0] * 2 + rng.integers(0, 2, n_pop)) % 8
    return pop


def test_loglinear_estimate_against_a_known_population():
    """Samples from populations built here: the right model's interval holds the truth, and a
    model that ignores a strong interaction is flagged by its fit check."""
    for dependent, model in ((False, "main"), (True, "two-way")):
        pop = _population(40_000, dependent, seed=5)
        take = np.random.default_rng(6).random(len(pop)) < 0.03
        _, inv, cnt = np.unique(pop, axis=0, return_inverse=True, return_counts=True)
        truth = (1.0 / cnt[inv.reshape(-1)][take]).sum()
        e = loglinear_estimate(pop[take], take.mean(), model=model, bootstrap=400)
        assert e.fits
        assert abs(e.expected_reidentifications - truth) <= 0.1 * truth
        assert e.ci[0] * 0.97 <= truth <= e.ci[1] * 1.03
    wrong = loglinear_estimate(pop[take], take.mean(), model="main")
    assert not wrong.fits
