"""The engine interface: incremental counting equals a fresh group-by; DuckDB equals Spark."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.engines import DuckDBEngine, make_engine
from hidekit.engines.base import CellStats
from hidekit.errors import ColumnNotFound, OptionError

ODD = pd.DataFrame(
    {
        "age group/band": ["20-29", "20-29", "30-39", None, "30-39", "20-29"],
        'quoted "name"': [1, 1, 2, 2, 2, 1],
        "zip code": ["021", "021", "021", "100", "100", "100"],
    }
)


def _pandas_stats(frame, keys, cell_min):
    if not keys:
        return CellStats.from_sizes((), np.array([len(frame)]), cell_min)
    sizes = frame.groupby(list(keys), dropna=False).size().to_numpy()
    return CellStats.from_sizes(keys, sizes, cell_min)


def test_odd_column_names_work():
    eng = DuckDBEngine(ODD)
    counts = eng.cell_counts(list(ODD.columns))
    assert counts["_n"].sum() == 6
    stats = eng.stats(list(ODD.columns), 2)
    assert stats == _pandas_stats(ODD, list(ODD.columns), 2)


def test_record_cell_sizes_in_row_order():
    eng = DuckDBEngine(ODD)
    assert eng.record_cell_sizes(["zip code"]).tolist() == [3, 3, 3, 3, 3, 3]
    assert eng.record_cell_sizes(['quoted "name"', "zip code"]).tolist() == [2, 2, 1, 2, 2, 1]


def test_unknown_and_duplicate_keys():
    eng = DuckDBEngine(ODD)
    with pytest.raises(ColumnNotFound):
        eng.stats(["nope"])
    with pytest.raises(OptionError):
        eng.stats(["zip code", "zip code"])


frames = st.integers(1, 60).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            c: st.lists(st.one_of(st.none(), st.integers(0, card)), min_size=n, max_size=n)
            for c, card in (("a", 2), ("b", 4), ("c", 9), ("d", 30))
        }
    )
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 5))
def test_incremental_counts_equal_groupby(data, cell_min):
    frame = pd.DataFrame(data)
    eng = DuckDBEngine(frame)
    # forward-style: base + one candidate; backward-style: all but one; and the empty set
    keysets = [["a", "b"], ["a", "b", "c"], ["a", "b", "d"], ["b", "c", "d"], ["a", "c", "d"], []]
    for ks, got in zip(keysets, eng.keyset_stats(keysets, cell_min), strict=True):
        assert got == _pandas_stats(frame, ks, cell_min), ks


@settings(max_examples=40, deadline=None)
@given(frames)
def test_adding_a_key_never_lowers_risk(data):
    eng = DuckDBEngine(pd.DataFrame(data))
    small, big = eng.keyset_stats([["a"], ["a", "c"]], 3)
    assert big.cells >= small.cells
    assert big.at_risk >= small.at_risk
    assert big.k <= small.k
    assert 0 <= big.rp <= 1 and 0 < big.cr <= 1


def test_wide_key_sets_do_not_overflow():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({f"v{i}": rng.integers(0, 1000, 400) for i in range(9)})  # 1000^9 > 2^62
    eng = DuckDBEngine(frame)
    keys = list(frame.columns)
    got = eng.keyset_stats([keys, keys[:-1]], 3)
    assert got[0] == _pandas_stats(frame, keys, 3)
    assert got[1] == _pandas_stats(frame, keys[:-1], 3)


def test_split_gives_one_engine_per_value():
    parts = dict(DuckDBEngine(ODD).split("zip code"))
    assert set(parts) == {"021", "100"}
    assert parts["021"].n_records == 3


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_equals_duckdb_on_adult(spark, adult_frame):
    from hidekit.engines.spark_engine import SparkEngine

    sample = adult_frame.sample(4000, random_state=3)
    duck, sp = DuckDBEngine(sample), SparkEngine(sample, spark)
    keys = ["sex", "age", "race", "marital-status", "education"]
    keysets = [keys, keys[:2], keys[:3], ["sex", "education"], []]
    for cm in (2, 3, 5):
        assert sp.keyset_stats(keysets, cm) == duck.keyset_stats(keysets, cm)
    assert sp.record_cell_sizes(keys[:3]).tolist() == duck.record_cell_sizes(keys[:3]).tolist()
    left = duck.cell_counts(["sex", "race"]).sort_values(["sex", "race"]).reset_index(drop=True)
    right = sp.cell_counts(["sex", "race"]).sort_values(["sex", "race"]).reset_index(drop=True)
    assert left["_n"].tolist() == right["_n"].tolist()
    assert [v for v, _ in sp.split("sex")] == [v for v, _ in duck.split("sex")]


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_missing_values_group_like_duckdb(spark):
    from hidekit.engines.spark_engine import SparkEngine

    frame = pd.DataFrame({"a": ["x", None, None, "y", "x"], "b": [1, 2, 2, None, 1]})
    assert SparkEngine(frame, spark).stats(["a", "b"], 2) == DuckDBEngine(frame).stats(
        ["a", "b"], 2
    )


def test_make_engine_rejects_unknown_engine():
    with pytest.raises(OptionError, match="unknown engine"):
        make_engine(ODD, "sqlite")
