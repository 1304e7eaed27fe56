"""hidekit's population risk equals sdcMicro's and ARX's figures on shared data (to 1e-6 relative).

Reads ``../shared/oracles`` and ``../shared/data`` beside the repo (``HIDEKIT_SHARED`` overrides the
folder, e.g. when running from a worktree); skips with the reason when they are absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hidekit.engines import make_engine
from hidekit.risk import measure_risk
from hidekit.risk.suda import suda2

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HIDEKIT_SHARED", ROOT.parent / "shared"))
SDC = SHARED / "oracles" / "sdcmicro"
CASES = {
    "testdata": (["urbrur", "water", "sex", "age", "relat"], "sampling_weight", "testdata.csv"),
    "free1": (["REGION", "SEX", "AGE"], "WEIGHT", "free1.csv"),
    "free1_4": (["REGION", "SEX", "AGE", "MARSTAT"], "WEIGHT", "free1.csv"),
}
REL = 1e-6


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not found (oracle tests read ../shared beside the repo)")
    return path


def _case(name):
    keys, weight, data = CASES[name]
    frame = pd.read_csv(_need(SHARED / "data" / "sdcmicro" / data))
    records = pd.read_csv(_need(SDC / "records" / f"{name}.csv"))
    summary = json.loads(_need(SDC / "summaries" / f"{name}.json").read_text())
    return keys, weight, frame, records, summary


@pytest.mark.parametrize("name", list(CASES))
def test_sdcmicro_fk_Fk_risk_and_globals(name):
    keys, weight, frame, records, summary = _case(name)
    result = measure_risk(frame, keys, weights=weight, missing="any")
    per = result.records.per_record()
    assert (per["fk"].to_numpy() == records["fk"].to_numpy()).all()
    np.testing.assert_allclose(per["Fk"], records["Fk"], rtol=REL)
    np.testing.assert_allclose(per["risk"], records["risk"], rtol=REL)
    mr = summary["measure_risk"]
    w = result.to_dict()["weighted"]
    assert w["missing_rule"] == "any"
    assert w["global_risk"] == pytest.approx(mr["global_risk"], rel=REL)
    assert w["expected_reidentifications"] == pytest.approx(mr["global_risk_ER"], rel=REL)
    assert w["sample_uniques"] == summary["freqCalc"]["n1"]
    assert w["sample_pairs"] == summary["freqCalc"]["n2"]
    for tau in ("0.01", "0.05", "0.1"):
        above = measure_risk(frame, keys, weights=weight, risk_threshold=float(tau))
        assert above.records.summary.above_threshold == mr[f"n_risk_gt_{tau}"]


def test_sdcmicro_household_risk():
    keys, weight, frame, records, summary = _case("testdata")
    result = measure_risk(frame, keys, weights=weight, household="ori_hid", missing="any")
    np.testing.assert_allclose(result.records.household, records["hier_risk"], rtol=REL)
    hh = summary["measure_risk_hier"]
    got = result.to_dict()["weighted"]["household"]
    assert got["expected_reidentifications"] == pytest.approx(hh["hier_risk_ER"], rel=REL)
    assert got["global_risk"] == pytest.approx(hh["hier_risk"], rel=REL)


@pytest.mark.parametrize("name", list(CASES))
def test_sdcmicro_suda2_scores_dis_and_contributions(name):
    keys, _, frame, records, summary = _case(name)
    result = suda2(make_engine(frame).record_codes(keys), keys)
    np.testing.assert_array_equal(result.score, records["suda"])
    np.testing.assert_allclose(result.dis, records["dis"], rtol=REL)
    expected = summary["suda2"]["attribute_contributions"]
    got = result.attribute_contributions()
    for key in keys:
        assert got[key] == pytest.approx(expected[key], rel=REL)
    levels = pd.read_csv(SDC / "records" / f"{name}_suda2_attribute_level_contributions.csv")
    mine = result.level_contributions(frame[keys])
    both = mine.merge(levels, on=["variable", "attribute"], how="outer", indicator=True)
    assert (both["_merge"] == "both").all()
    np.testing.assert_allclose(both["contribution_x"], both["contribution_y"], rtol=REL)


def _arx():
    return json.loads(_need(SHARED / "oracles" / "arx" / "risk_adult.json").read_text())


def test_adult_fixture_is_the_shared_adult():
    shared = _need(SHARED / "data" / "adult" / "adult.csv")
    assert shared.read_bytes() == (ROOT / "tests" / "fixtures" / "adult" / "adult.csv").read_bytes()


@pytest.mark.parametrize("analysis", [0, 1])
@pytest.mark.parametrize("model", [0, 1])
def test_arx_population_uniqueness_and_sample_risks_on_adult(adult_frame, analysis, model):
    a = _arx()["analyses"][analysis]
    pm = a["by_population_model"][model]
    keys = a["quasi_identifiers"]
    result = measure_risk(
        adult_frame, keys, population=pm["population_size"], threshold=0.2
    ).to_dict()
    pu = pm["population_uniqueness"]
    for name in ("pitman", "zayatz", "dankar"):
        assert result["population"][name] == pytest.approx(pu[name]["num_uniques"], rel=REL)
    assert pu["snb"]["available"] is False and result["population"]["snb"] is None
    assert result["population"]["unavailable"]["snb"]
    assert result["dankar_model"] == pu["dankar_selected_model"].lower()
    assert result["population"]["sampling_fraction"] == pytest.approx(pm["sampling_fraction"])
    sample = pm["sample_based_reidentification_risk"]
    assert result["cells"] == pm["equivalence_classes"]["num_classes"]
    assert result["prosecutor_highest"] == pytest.approx(sample["highest_risk"])
    assert result["prosecutor_average"] == pytest.approx(sample["average_risk"], rel=REL)
    assert result["uniques"] == pm["sample_uniqueness"]["num_unique_records"]
    at_risk = pm["risk_summary_threshold_0.2"]["prosecutor"]["records_at_risk"]
    assert result["prosecutor_above_threshold"] == pytest.approx(at_risk, rel=REL)
