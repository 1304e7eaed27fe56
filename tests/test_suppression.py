"""Local suppression: k reached (checked with the engine), few cells, importance, order kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.engines import make_engine
from hidekit.errors import InputError, OptionError, PolicyError
from hidekit.transforms.suppression import LocalSuppression, local_suppression, record_k

KEYS5 = ["sex", "age", "race", "marital-status", "education"]


def test_hand_example_one_cell_each():
    # five records share (F, 30); (F, 31) and (F, 32) are unique. Blanking both ages puts them
    # in one cell (F, missing) of 2 = k: two cells, the least possible.
    f = pd.DataFrame({"sex": ["F"] * 5 + ["F", "F"], "age": [30] * 5 + [31, 32]})
    r = local_suppression(f, ["sex", "age"], k=2)
    assert r.suppressed == {"sex": 0, "age": 2}
    assert r.frame["age"].isna().tolist() == [False] * 5 + [True, True]
    assert str(r.frame["age"].dtype) == "Int64"  # integers stay integers, with gaps
    assert make_engine(r.frame).is_k_anonymous(["sex", "age"], 2)


def test_wildcard_rule_needs_fewer_cells_than_category():
    f = pd.DataFrame({"sex": ["F"] * 5 + ["M"], "age": [30] * 5 + [31]})
    cat = local_suppression(f, ["sex", "age"], k=3)
    wild = local_suppression(f, ["sex", "age"], k=3, missing="wildcard")
    # wildcard: (M, blank) matches nobody else, (blank, blank) matches all six: 2 cells.
    assert wild.total == 2 and wild.k_after >= 3
    assert record_k(wild.frame, ["sex", "age"], "wildcard").min() >= 3
    # category: the lone record needs a blank cell of >= 3 records: 2 donors from the big cell
    assert cat.total == 6 and make_engine(cat.frame).is_k_anonymous(["sex", "age"], 3)


def test_importance_keeps_important_variables(adult_frame):
    small = adult_frame.head(3000)
    r = local_suppression(small, KEYS5, k=3, importance=["age", "education"])
    assert r.importance[:2] == ["age", "education"]
    assert (
        r.suppressed["age"]
        <= r.suppressed["sex"] + r.suppressed["race"] + r.suppressed["marital-status"]
    )
    default = local_suppression(small, KEYS5, k=3)
    assert default.suppressed["age"] > r.suppressed["age"]


def test_adult_reaches_k5_keeps_order_and_counts(adult_frame):
    r = local_suppression(adult_frame, KEYS5, k=5)
    assert make_engine(r.frame).is_k_anonymous(KEYS5, 5)
    assert r.at_risk_before == 7528 and r.k_before == 1 and r.k_after >= 5
    assert r.records_touched >= r.at_risk_before  # every record at risk must change
    blank = r.frame[KEYS5].isna() & adult_frame[KEYS5].notna()
    assert blank.sum().to_dict() == r.suppressed
    others = [c for c in adult_frame.columns if c not in KEYS5]
    pd.testing.assert_frame_equal(r.frame[others], adult_frame[others])
    again = local_suppression(adult_frame, KEYS5, k=5)
    pd.testing.assert_frame_equal(r.frame, again.frame)


def test_adult_wildcard_beats_sdcmicro_cell_count(adult_frame):
    r = local_suppression(adult_frame, KEYS5, k=5, missing="wildcard")
    assert r.total <= 7883  # sdcMicro localSuppression on the same keys and k
    assert record_k(r.frame, KEYS5, "wildcard").min() >= 5


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.integers(0, 6), st.sampled_from(["x", "y", None])),
        min_size=6,
        max_size=80,
    ),
    st.integers(2, 5),
    st.sampled_from(["category", "wildcard"]),
)
def test_after_suppression_the_key_set_is_k_anonymous(rows, k, missing):
    f = pd.DataFrame(rows, columns=["s", "a", "e"]).assign(row=range(len(rows)))
    keys = ["s", "a", "e"]
    r = local_suppression(f, keys, k=k, missing=missing)
    if missing == "category":
        assert make_engine(r.frame).is_k_anonymous(keys, k)
    assert record_k(r.frame, keys, missing).min() >= k
    assert r.frame["row"].tolist() == list(range(len(rows)))
    # only key cells are blanked, never filled
    was = f[keys].isna().to_numpy()
    now = r.frame[keys].isna().to_numpy()
    assert (now | ~was).all()
    assert int((now & ~was).sum()) == r.total


def test_bad_input():
    f = pd.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(InputError, match="not in the data"):
        local_suppression(f, ["b"], 2)
    with pytest.raises(OptionError, match="k must be at least 1"):
        local_suppression(f, ["a"], 0)
    with pytest.raises(OptionError, match="missing must be one of"):
        local_suppression(f, ["a"], 2, missing="maybe")
    with pytest.raises(OptionError, match="not keys"):
        local_suppression(f, ["a"], 2, importance=["zzz"])
    with pytest.raises(PolicyError, match="cannot be 5-anonymous"):
        local_suppression(f, ["a"], 5)


def test_transform_reports_counts():
    f = pd.DataFrame({"sex": ["F"] * 5 + ["F", "F"], "age": [30] * 5 + [31, 32]})
    t = LocalSuppression(["sex", "age"], k=2)
    out = t.fit_transform(f)
    assert t.suppressed_ == {"sex": 0, "age": 2}
    assert np.array_equal(out["age"].isna().to_numpy(), t.transform(f)["age"].isna().to_numpy())
