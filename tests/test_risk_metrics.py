"""Risk figures against hand computations and independent counts (pandas, pycanon)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.engines import DuckDBEngine
from hidekit.errors import ColumnNotFound, OptionError
from hidekit.risk import measure_risk, report_from_sizes

from conftest import ADULT_KEYS

# (sex, age): cells (M,30)=3, (F,30)=1, (F,40)=2, (M,40)=1, (missing,40)=1
HAND = pd.DataFrame(
    {
        "sex": ["M", "M", "M", "F", "F", "F", "M", None],
        "age": [30, 30, 30, 30, 40, 40, 40, 40],
    }
)


def test_hand_table_figures():
    r = measure_risk(HAND, ["sex", "age"], cell_min=3).overall
    assert (r.records, r.cells, r.k, r.uniques) == (8, 5, 1, 3)
    assert r.at_risk == 5  # 1 + 2 + 1 + 1: every cell below 3
    assert r.rp == pytest.approx(5 / 8)
    assert r.cr == pytest.approx(5 / 8)
    assert r.prosecutor_highest == 1.0
    assert r.prosecutor_average == pytest.approx(5 / 8)
    assert r.prosecutor_above_threshold == pytest.approx(r.rp)  # default τ = 1/cell_min
    assert r.class_sizes == [
        {"size": 1, "classes": 3, "records": 3},
        {"size": 2, "classes": 1, "records": 2},
        {"size": 3, "classes": 1, "records": 3},
    ]


def test_missing_is_its_own_category():
    r = measure_risk(HAND, ["sex"], cell_min=2).overall
    assert r.cells == 3  # M, F, missing
    assert r.uniques == 1 and r.at_risk == 1


def test_threshold_changes_only_the_share_above():
    r = measure_risk(HAND, ["sex", "age"], cell_min=3, threshold=0.4).overall
    # 1/size > 0.4 -> size 1 or 2: 3 + 2 records
    assert r.prosecutor_above_threshold == pytest.approx(5 / 8)
    r = measure_risk(HAND, ["sex", "age"], cell_min=3, threshold=0.6).overall
    assert r.prosecutor_above_threshold == pytest.approx(3 / 8)  # only uniques


def test_by_subgroup_counts_cells_within_group():
    res = measure_risk(HAND, ["age"], by="sex", cell_min=2)
    groups = {g.group: g for g in res.groups}
    assert set(groups) == {"F", "M", None}
    assert (groups["F"].records, groups["F"].cells, groups["F"].uniques) == (3, 2, 1)
    assert (groups["M"].records, groups["M"].cells, groups["M"].k) == (4, 2, 1)
    assert groups[None].records == 1


def test_one_record_and_all_unique():
    one = measure_risk(pd.DataFrame({"a": [1]}), ["a"]).overall
    assert (one.records, one.cells, one.k, one.uniques, one.rp, one.cr) == (1, 1, 1, 1, 1.0, 1.0)
    uniq = measure_risk(pd.DataFrame({"a": range(50), "b": 0}), ["a", "b"]).overall
    assert uniq.uniques == 50 and uniq.rp == 1.0 and uniq.cr == 1.0


def test_bad_inputs():
    with pytest.raises(ColumnNotFound, match="'nope'"):
        measure_risk(HAND, ["sex", "nope"])
    with pytest.raises(OptionError, match="threshold"):
        measure_risk(HAND, ["sex"], threshold=1.5)
    with pytest.raises(OptionError, match="cell-min"):
        measure_risk(HAND, ["sex"], cell_min=0)
    with pytest.raises(OptionError, match="also a key"):
        measure_risk(HAND, ["sex"], by="sex")


def test_adult_equals_pandas_groupby(adult_frame):
    r = measure_risk(adult_frame, ADULT_KEYS, cell_min=3).overall
    sizes = adult_frame.groupby(ADULT_KEYS, dropna=False).size().to_numpy()
    assert r.records == len(adult_frame) == 30162
    assert r.cells == len(sizes)
    assert r.k == sizes.min()
    assert r.uniques == int((sizes == 1).sum())
    assert r.at_risk == int(sizes[sizes < 3].sum())


def test_adult_k_equals_pycanon(adult_frame):
    pycanon = pytest.importorskip("pycanon")
    from pycanon import anonymity

    for keys in (["sex", "race"], ["sex", "age", "race"], ADULT_KEYS[:5]):
        ours = measure_risk(adult_frame, keys).overall.k
        assert ours == anonymity.k_anonymity(adult_frame, keys), keys
    assert pycanon  # imported for the comparison


def test_report_from_sizes_matches_engine(adult_frame):
    eng = DuckDBEngine(adult_frame)
    sizes = eng.class_sizes(["sex", "age"])
    direct = report_from_sizes(["sex", "age"], sizes, 5)
    stats = eng.stats(["sex", "age"], 5)
    assert (direct.cells, direct.k, direct.uniques, direct.at_risk) == (
        stats.cells,
        stats.k,
        stats.uniques,
        stats.at_risk,
    )
    assert np.isclose(direct.rp, stats.rp)
