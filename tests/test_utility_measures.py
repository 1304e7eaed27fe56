"""Utility measures checked against hand computations and HIDE's Figure 3 shape."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.anonymize import Hierarchy, mondrian
from hidekit.anonymize.utility import (
    average_class_size,
    coverage,
    discernibility,
    precision_curve,
    query_counts,
    query_precision,
    utility,
    utility_report,
)
from hidekit.errors import InputError, OptionError

ORIG = pd.DataFrame(
    {
        "age": [25, 28, 28, 26],
        "gender": ["Male", "Female", "Male", "Female"],
        "zipcode": [53710, 53712, 53711, 53712],
    }
)
REL = pd.DataFrame(
    {
        "age": ["[25-28]", "[26-28]", "[25-28]", "[26-28]"],
        "gender": ["Male", "Female", "Male", "Female"],
        "zipcode": ["[53710-53711]", "53712", "[53710-53711]", "53712"],
    }
)
KEYS = ["age", "gender", "zipcode"]


def test_class_measures_by_hand():
    assert discernibility([2, 2]) == 8
    assert discernibility([3, 5]) == 34
    assert average_class_size([2, 2], 2) == 1.0
    assert average_class_size([3, 5], 2) == 2.0


def test_ncp_by_hand():
    u = utility(ORIG, REL, KEYS, k=2, n_queries=50)
    assert u["ncp_by_key"]["age"] == pytest.approx((1 + 2 / 3 + 1 + 2 / 3) / 4)
    assert u["ncp_by_key"]["zipcode"] == pytest.approx((0.5 + 0 + 0.5 + 0) / 4)
    assert u["ncp_by_key"]["gender"] == 0.0
    assert u["ncp"] == pytest.approx(((5 / 6) + 0.25) / 3)
    assert (u["records"], u["classes"], u["k"], u["discernibility"]) == (4, 2, 2, 8)
    assert u["average_class_size"] == 1.0


def test_categorical_sets_star_and_hierarchy_labels():
    orig = pd.Series(["a", "b", "c", "d"], name="x")
    cov = coverage(orig, pd.Series(["{a,b}", "*", "c", "{a,b}"]))
    assert cov.ncp(orig).tolist() == pytest.approx([1 / 3, 1.0, 0.0, 1 / 3])
    h = Hierarchy.from_rows(
        [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]]
    )
    cov = coverage(orig, pd.Series(["ab", "cd", "*", "a"]), h)
    assert [cov.sets[i] for i in cov.label] == [{"a", "b"}, {"c", "d"}, {"a", "b", "c", "d"}, {"a"}]
    removed = coverage(orig, None, n_released=4)  # full de-identification: whole domain
    assert removed.ncp(orig).tolist() == [1.0] * 4
    with pytest.raises(InputError, match="cannot read the generalized value 'zz'"):
        coverage(orig, pd.Series(["zz"]))
    with pytest.raises(InputError, match="cannot read"):
        coverage(pd.Series([1, 2], name="n"), pd.Series(["about 2"]))


def test_query_counts_by_hand():
    rel = REL.assign(age="[25-28]")
    truth, returned = query_counts(ORIG, rel, "age", lo=[24, 26, 30, -np.inf], hi=[27, 28, 40, 26])
    assert truth.tolist() == [2, 0, 0, 1]  # 25,26 | none (strict) | none | 25
    assert returned.tolist() == [4, 4, 0, 4]
    truth, returned = query_counts(ORIG, REL, "zipcode", lo=[53711.5], hi=[53713])
    assert (truth.tolist(), returned.tolist()) == ([2], [2])
    truth, returned = query_counts(ORIG, REL, "gender", equals=["Male", "Female"])
    assert (truth.tolist(), returned.tolist()) == ([2, 2], [2, 2])


def test_partial_is_exact_and_full_returns_everything(adult_frame):
    sample = adult_frame.sample(2000, random_state=0).reset_index(drop=True)
    assert query_precision(sample, sample, "age", 500) == 1.0
    full = sample.drop(columns=["age"])
    p_full = query_precision(sample, full, "age", 500, seed=3)
    rng = np.random.default_rng(3)  # same queries, by hand: truly matching / all records
    ages = sample["age"].to_numpy()
    b = rng.integers(ages.min() - 1, ages.max() + 2, size=(500, 2))
    lo, hi = b.min(axis=1), b.max(axis=1)
    share = np.array([((ages > a) & (ages < z)).sum() for a, z in zip(lo, hi, strict=True)]) / len(
        ages
    )
    answered = (ages.min() < hi) & (ages.max() > lo)  # the release returns nothing otherwise
    assert p_full == pytest.approx(share[answered].mean())
    with pytest.raises(OptionError):
        query_precision(sample, sample, "age", 10, kind="both")


def test_perfect_recall_and_precision_falls_with_k_like_hide_figure3(adult_frame):
    sample = adult_frame.sample(3000, random_state=2).reset_index(drop=True)
    keys = ["sex", "age", "race", "marital-status"]
    rel = mondrian(sample, keys, 10).released
    rng = np.random.default_rng(0)
    b = np.sort(rng.integers(16, 92, size=(300, 2)), axis=1)
    truth, returned = query_counts(sample, rel, "age", lo=b[:, 0], hi=b[:, 1])
    assert (truth <= returned).all() and (returned > truth).any()
    rows = precision_curve(sample, keys, "age", [2, 10, 50], n_queries=1000, kind="one-sided")
    stat = [r["statistical"] for r in rows]
    assert stat[0] > stat[1] > stat[2]
    assert all(r["full"] < r["statistical"] < r["partial"] == 1.0 for r in rows)


def test_utility_refuses_different_record_sets_and_reports(tmp_path):
    with pytest.raises(InputError, match="same records"):
        utility(ORIG, REL.iloc[:3], KEYS)
    u = utility(ORIG, REL, KEYS, n_queries=100)
    curve = {
        "attribute": "age",
        "rows": [{"k": 2, "statistical": 0.7, "full": 0.4, "partial": 1.0}],
    }
    html = utility_report(u, curve).html()
    assert html.count("hk-mark") >= 3 and "Figure 3" in html
