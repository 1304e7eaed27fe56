"""Weighted class figures, Benedetti–Franconi risk and household risk against hand computations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hidekit.engines import DuckDBEngine
from hidekit.errors import InputError, OptionError
from hidekit.risk import measure_risk
from hidekit.risk.individual import household_risk, individual_risk
from hidekit.risk.weighted import class_figures, counts_missing_matches_any

# (a, b, w): a missing value in rows 1 and 3
HAND = pd.DataFrame(
    {
        "a": [1, 1, 2, None, 1],
        "b": [1, None, 1, None, 1],
        "w": [10.0, 20.0, 5.0, 1.0, 30.0],
        "hh": [1, 1, 2, 2, 3],
    }
)


def test_fk_Fk_missing_as_its_own_category():
    f = class_figures(DuckDBEngine(HAND), ["a", "b"], "w")
    assert f.fk.tolist() == [2, 1, 1, 1, 2]
    assert f.Fk.tolist() == [40.0, 20.0, 5.0, 1.0, 40.0]
    assert f.missing == "category" and "own" in f.missing_note


def test_fk_Fk_missing_matches_any_value_as_sdcmicro_counts():
    f = class_figures(DuckDBEngine(HAND), ["a", "b"], "w", missing="any")
    # row 0 (1,1): rows 0, 4 and (1,NA); not the all-missing row 3 (sdcMicro's quirk)
    # row 1 (1,NA): rows 0, 4, itself and the all-missing row 3; row 2 (2,1): itself only
    # row 3 (NA,NA): every record
    assert f.fk.tolist() == [3, 4, 1, 5, 3]
    assert f.Fk.tolist() == [60.0, 61.0, 5.0, 66.0, 60.0]
    assert "sdcMicro" in f.missing_note


def test_one_key_missing_matches_any_counts_the_missing_rows_too():
    codes = np.array([[0], [0], [1], [-1]])
    fk, Fk = counts_missing_matches_any(codes, np.array([1.0, 2.0, 3.0, 4.0]))
    assert fk.tolist() == [3, 3, 2, 4]
    assert Fk.tolist() == [7.0, 7.0, 7.0, 10.0]


def test_benedetti_franconi_hand_values():
    fk = np.array([1, 2, 4, 3, 1])
    Fk = np.array([10.0, 10.0, 10.0, 3.0, 1.0])
    r = individual_risk(fk, Fk)
    assert r[0] == pytest.approx((0.1 / 0.9) * math.log(10))
    assert r[1] == pytest.approx(0.25 - 0.0625 * math.log(5))
    assert r[2] == pytest.approx(0.4 / (4 - 0.6))
    assert r[3] == pytest.approx(1 / 3)  # the class is the whole population
    assert r[4] == 1.0


def test_household_risk_hand_values():
    r = household_risk(np.array([0.1, 0.2, 0.5, 1.0, 0.3]), np.array(["A", "A", "B", "C", "C"]))
    assert r.tolist() == pytest.approx([0.28, 0.28, 0.5, 1.0, 1.0])


def test_without_weights_risk_is_one_over_fk():
    result = measure_risk(HAND, ["a", "b"], household="hh")
    assert result.records.risk.tolist() == pytest.approx([0.5, 1, 1, 1, 0.5])
    assert result.records.household.tolist() == pytest.approx([1, 1, 1, 1, 0.5])
    assert result.to_dict()["weighted"]["weights"] is False


def test_global_risk_expected_and_threshold():
    result = measure_risk(HAND, ["a", "b"], weights="w", risk_threshold=0.2).records
    r = result.risk
    assert result.summary.global_risk == pytest.approx(r.mean())
    assert result.summary.expected_reidentifications == pytest.approx(r.sum())
    assert result.summary.above_threshold == int((r > 0.2).sum())
    per = result.per_record()
    assert list(per.columns)[:3] == ["fk", "Fk", "risk"] and len(per) == 5
    assert "risk_loglinear" in per.columns  # weights give the sampling fraction


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0, -2.0, 3.0, 4.0, 5.0], "zero, negative"),
        ([1.0, 0.0, 3.0, 4.0, 5.0], "zero, negative"),
        ([1.0, None, 3.0, 4.0, 5.0], "missing"),
        (["1", "x", "3", "4", "5"], "must hold numbers"),
        ([1.0, 0.5, 3.0, 4.0, 5.0], "below 1"),
    ],
)
def test_bad_weights_are_one_line_errors(weights, message):
    frame = HAND.assign(w=weights)
    with pytest.raises(InputError, match=message) as err:
        measure_risk(frame, ["a", "b"], weights="w")
    assert "\n" not in str(err.value)


def test_weight_column_as_numeric_text_is_read():
    frame = HAND.assign(w=[" 10", "20", "5", "1", "30"])
    result = measure_risk(frame, ["a", "b"], weights="w")
    assert result.records.figures.Fk.tolist() == [40.0, 20.0, 5.0, 1.0, 40.0]


def test_bad_household_and_options():
    with pytest.raises(OptionError, match="also a key"):
        measure_risk(HAND, ["a", "hh"], household="hh")
    with pytest.raises(InputError, match="household id"):
        measure_risk(HAND.assign(hh=[1, None, 2, 2, 3]), ["a", "b"], household="hh")
    with pytest.raises(OptionError, match="unknown missing rule"):
        measure_risk(HAND, ["a", "b"], weights="w", missing="drop")


def test_household_id_that_splits_a_household_key_is_warned():
    n = 60
    frame = pd.DataFrame(
        {
            "hh": np.repeat(np.arange(n // 3), 3),
            "region": np.repeat(np.arange(n // 3) % 4, 3),
            "age": np.arange(n) % 7,
        }
    )
    assert not measure_risk(frame, ["region", "age"], household="hh").warnings
    frame.loc[1, "region"] = 3  # household 0 now spans two regions
    warnings = measure_risk(frame, ["region", "age"], household="hh").warnings
    assert len(warnings) == 1 and "'region'" in warnings[0] and "varies within 1" in warnings[0]


def test_spark_gives_the_same_weighted_figures(spark):
    from hidekit.engines.spark_engine import SparkEngine

    for rule in ("category", "any"):
        d = class_figures(DuckDBEngine(HAND), ["a", "b"], "w", missing=rule)
        s = class_figures(SparkEngine(HAND, spark), ["a", "b"], "w", missing=rule)
        assert s.fk.tolist() == d.fk.tolist()
        np.testing.assert_allclose(s.Fk, d.Fk)


# --- properties ----------------------------------------------------------------------------
tables = st.integers(3, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.floats(1.0, 500.0), min_size=n, max_size=n),
    )
)


def _frame(t):
    a, b, c, w = t
    return pd.DataFrame({"a": a, "b": b, "c": c, "w": w})


@given(tables)
def test_risk_is_a_probability(t):
    r = measure_risk(_frame(t), ["a", "b"], weights="w", household="c").records
    assert ((r.risk >= 0) & (r.risk <= 1)).all()
    assert ((r.household >= 0) & (r.household <= 1 + 1e-12)).all()


@given(tables)
def test_adding_a_key_never_lowers_a_records_risk(t):
    """Holds for the BF model with weights ≥ 1: a sub-class has fk' ≤ fk and Fk' ≤ Fk - (fk - fk').
    (Not under sdcMicro's missing rule, whose complete records skip all-missing ones.)"""
    frame = _frame(t)
    fewer = measure_risk(frame, ["a", "b"], weights="w").records.risk
    more = measure_risk(frame, ["a", "b", "c"], weights="w").records.risk
    assert (more >= fewer - 1e-12).all()


@given(tables, st.floats(1.0, 1000.0))
def test_scaling_weights_leaves_sample_figures_unchanged(t, c):
    frame = _frame(t)
    base = measure_risk(frame, ["a", "b", "c"], weights="w", suda=True)
    scaled = measure_risk(frame.assign(w=frame["w"] * c), ["a", "b", "c"], weights="w", suda=True)
    assert scaled.overall.to_dict() == base.overall.to_dict()
    assert (scaled.records.figures.fk == base.records.figures.fk).all()
    np.testing.assert_allclose(scaled.records.figures.Fk, base.records.figures.Fk * c)
    assert (scaled.records.suda.score == base.records.suda.score).all()
