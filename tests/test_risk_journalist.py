"""El Emam's journalist and marketer risk against a population table or the weights' population."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.risk import measure_risk
from hidekit.risk.journalist import journalist_marketer

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HIDEKIT_SHARED", ROOT.parent / "shared"))

# sample classes (a, x): 1 record, (a, y): 2, (b, x): 3; population 4, 2, 10 (+ one class unseen)
SAMPLE = pd.DataFrame(
    {"g": ["a", "a", "a", "b", "b", "b"], "v": [1, 2, 2, 1, 1, 1], "w": [4.0, 1, 1, 3, 3, 4]}
)
TABLE = pd.DataFrame({"g": ["a", "a", "b", "b"], "v": [1, 2, 1, 2], "people": [4, 2, 10, 7]})


def test_hand_computed_figures():
    r = journalist_marketer(np.array([1, 2, 3]), np.array([4, 2, 10]), 0.2, "hand")
    assert r.journalist_highest == pytest.approx(1 / 2)
    assert r.classes_over_population == pytest.approx(3 / 16)
    # expected correct matches: 1/4 + 2/2 + 3/10 = 1.55 over n = 6 records
    assert r.expected_matches == pytest.approx(1.55)
    assert r.marketer == pytest.approx(1.55 / 6)
    assert r.journalist_average == pytest.approx(max(3 / 16, 1.55 / 6))
    # 1/F > 0.2 for F = 4 and F = 2: the 1 + 2 records of those classes
    assert r.journalist_above_threshold == pytest.approx(3 / 6)


def test_against_a_table_through_measure_risk(tmp_path):
    path = tmp_path / "pop.csv"
    TABLE.to_csv(path, index=False)
    d = measure_risk(SAMPLE, ["g", "v"], threshold=0.2, population_table=path).to_dict()
    j, m = d["journalist"], d["marketer"]
    assert j["highest"] == pytest.approx(0.5)
    assert m["expected_matches"] == pytest.approx(1.55)
    assert m["success_rate"] == pytest.approx(1.55 / 6)
    assert j["records_above_threshold"] == pytest.approx(0.5)
    assert "pop.csv" in j["source"] and "'people'" in j["source"]


def test_table_values_match_across_types():
    # the table's v as text and float still meets the sample's integers; key order is free
    table = TABLE.assign(v=TABLE["v"].astype(float))[["people", "v", "g"]]
    d = measure_risk(SAMPLE, ["g", "v"], population_table=table, population_count="people")
    assert d.to_dict()["marketer"]["expected_matches"] == pytest.approx(1.55)
    text = TABLE.assign(v=TABLE["v"].astype(str))
    d = measure_risk(SAMPLE, ["g", "v"], population_table=text).to_dict()
    assert d["marketer"]["expected_matches"] == pytest.approx(1.55)


def test_estimated_population_from_weights():
    # F from the weights: (a,1) 4, (a,2) 2, (b,1) 10: the same population as the table
    d = measure_risk(SAMPLE, ["g", "v"], weights="w", threshold=0.2).to_dict()
    assert d["marketer"]["expected_matches"] == pytest.approx(1.55)
    assert d["journalist"]["classes_over_population"] == pytest.approx(3 / 16)
    assert d["journalist"]["records_above_threshold"] == pytest.approx(0.5)
    assert "weights" in d["journalist"]["source"]
    assert "journalist" not in measure_risk(SAMPLE, ["g", "v"]).to_dict()


def test_sample_as_its_own_population_equals_arx_on_adult(adult_frame):
    """Without a population table ARX's journalist risk is its prosecutor risk: a table of the
    sample's own counts must give ARX's journalist and marketer figures."""
    path = SHARED / "oracles" / "arx" / "risk_adult.json"
    if not path.exists():
        pytest.skip(f"{path} not found (oracle tests read ../shared beside the repo)")
    for a in json.loads(path.read_text())["analyses"]:
        keys = a["quasi_identifiers"]
        pm = a["by_population_model"][0]
        own = adult_frame.groupby(keys, dropna=False).size().rename("n").reset_index()
        d = measure_risk(adult_frame, keys, threshold=0.2, population_table=own).to_dict()
        arx = pm["risk_summary_threshold_0.2"]
        assert d["journalist"]["highest"] == pytest.approx(arx["journalist"]["highest_risk"])
        assert d["journalist"]["average"] == pytest.approx(arx["journalist"]["success_rate"])
        assert d["journalist"]["records_above_threshold"] == pytest.approx(
            arx["journalist"]["records_at_risk"]
        )
        assert d["marketer"]["success_rate"] == pytest.approx(arx["marketer_success_rate"])


@pytest.mark.parametrize(
    ("table", "count", "message"),
    [
        (TABLE.iloc[1:], None, r"no count for 1 key combination\(s\) of the sample, e.g. g=a, v=1"),
        (TABLE.assign(people=[4, 1, 10, 7]), None, "below the sample count"),
        (TABLE.assign(people=["4", "two", "10", "7"]), None, "must hold numbers"),
        (TABLE.assign(people=[4, None, 10, 7]), None, "missing in 1 row"),
        (pd.concat([TABLE, TABLE.iloc[:1]]), None, "repeated key combination"),
        (TABLE.drop(columns="v"), None, "no column 'v'"),
        (TABLE, "count", "no count column 'count'"),
    ],
)
def test_bad_tables_are_one_line_errors(table, count, message):
    with pytest.raises(InputError, match=message) as err:
        measure_risk(SAMPLE, ["g", "v"], population_table=table, population_count=count)
    assert "\n" not in str(err.value)


def test_two_candidate_count_columns_need_a_name():
    with pytest.raises(OptionError, match="--population-count"):
        measure_risk(SAMPLE, ["g", "v"], population_table=TABLE.assign(other=1))


def test_cli_json_and_error(tmp_path):
    data, pop = tmp_path / "s.csv", tmp_path / "pop.parquet"
    SAMPLE.to_csv(data, index=False)
    TABLE.to_parquet(pop)
    args = ["risk", str(data), "--keys", "g,v", "--population-table", str(pop)]
    res = runner.invoke(app, [*args, "--population-count", "people", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["marketer"]["expected_matches"] == pytest.approx(1.55)
    assert d["journalist"]["highest"] == pytest.approx(0.5)
    html = tmp_path / "r.html"
    res = runner.invoke(app, [*args, "--report", str(html)])
    assert res.exit_code == 0 and "marketer" in res.output
    assert "Journalist and marketer risk" in html.read_text()
    TABLE.iloc[1:].to_parquet(pop)
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(0, 6)), min_size=1, max_size=12))
def test_journalist_never_above_prosecutor_and_records_agree_with_classes(classes):
    f = np.array([c[0] for c in classes], dtype=float)
    F = f + np.array([c[1] for c in classes])
    by_class = journalist_marketer(f, F, 0.2, "x")
    rows_f, rows_F = np.repeat(f, f.astype(int)), np.repeat(F, f.astype(int))
    by_record = journalist_marketer(rows_f, rows_F, 0.2, "x", per_record=True)
    for name in (
        "journalist_average",
        "marketer",
        "expected_matches",
        "journalist_above_threshold",
    ):
        assert getattr(by_record, name) == pytest.approx(getattr(by_class, name))
    assert by_class.journalist_highest <= 1 / f.min() + 1e-12
    assert by_class.marketer <= len(f) / f.sum() + 1e-12  # prosecutor's average
    assert 0 < by_class.marketer <= by_class.journalist_average <= 1
