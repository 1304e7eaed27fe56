"""l-diversity and t-closeness: hand-worked classes, and pycanon as an independent implementation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.anonymize import DiversityRule, is_l_diverse, l_diversity, recursive_c_for, t_closeness
from hidekit.anonymize.diversity import group_diverse
from hidekit.errors import OptionError

# one class with sensitive counts (3, 2, 1), another with (2, 2)
FRAME = pd.DataFrame(
    {
        "q": ["a"] * 6 + ["b"] * 4,
        "s": ["x", "x", "x", "y", "y", "z", "x", "x", "y", "y"],
        "v": [1, 1, 1, 2, 2, 3, 1, 1, 2, 2],
    }
)


def test_distinct_and_entropy_by_hand():
    d = l_diversity(FRAME, ["q"], "s")
    assert d["distinct_l"] == 2 and d["classes"] == 2
    h_a = -(3 / 6 * math.log(3 / 6) + 2 / 6 * math.log(2 / 6) + 1 / 6 * math.log(1 / 6))
    assert d["entropy_l"] == pytest.approx(min(math.exp(h_a), 2.0))  # class b: exactly 2
    assert is_l_diverse(FRAME, ["q"], "s", 2, "entropy")
    assert not is_l_diverse(FRAME, ["q"], "s", 3, "distinct")


def test_recursive_c_l_by_hand():
    # class a: r1 = 3, r2 + r3 = 3 -> needs 3 < c * 3; class b: 2 < c * 2. Both: c > 1
    assert is_l_diverse(FRAME, ["q"], "s", 2, "recursive", c=1.01)
    assert not is_l_diverse(FRAME, ["q"], "s", 2, "recursive", c=1.0)
    assert recursive_c_for(FRAME, ["q"], "s", 2) == pytest.approx(1.0)
    # l = 3: class b has only two values -> never
    assert not is_l_diverse(FRAME, ["q"], "s", 3, "recursive", c=100)
    assert recursive_c_for(FRAME, ["q"], "s", 3) == math.inf


def test_weighted_triplets_equal_expanded_records():
    rule = DiversityRule(2, "entropy")
    group = np.array([0, 0, 1, 1])
    value = np.array([0, 1, 0, 1])
    weight = np.array([9, 1, 5, 5])
    expanded = group_diverse(np.repeat(group, weight), np.repeat(value, weight), None, 2, rule)
    assert (
        group_diverse(group, value, weight, 2, rule).tolist() == expanded.tolist() == [False, True]
    )


def test_t_closeness_by_hand():
    # table distribution of v: 1: 5/10, 2: 4/10, 3: 1/10; class a: 3/6, 2/6, 1/6; class b: 2/4, 2/4, 0
    equal_a = 0.5 * (abs(3 / 6 - 0.5) + abs(2 / 6 - 0.4) + abs(1 / 6 - 0.1))
    equal_b = 0.5 * (abs(0.5 - 0.5) + abs(0.5 - 0.4) + abs(0 - 0.1))
    assert t_closeness(FRAME, ["q"], "v", "equal") == pytest.approx(max(equal_a, equal_b))
    ordered_b = (abs(0.0) + abs(0.0 + 0.1)) / 2  # cumulative differences 0, 0.1, 0
    ordered_a = (abs(0.0) + abs(2 / 6 - 0.4)) / 2
    assert t_closeness(FRAME, ["q"], "v", "ordered") == pytest.approx(max(ordered_a, ordered_b))
    assert t_closeness(FRAME, [], "v") == 0.0  # one class: the table itself
    with pytest.raises(OptionError):
        t_closeness(FRAME, ["q"], "v", "cosine")


@st.composite
def classes(draw):
    n = draw(st.integers(2, 40))
    return pd.DataFrame(
        {
            "q": draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)),
            "s": draw(st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=n, max_size=n)),
            "v": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
        }
    )


@settings(max_examples=40, deadline=None)
@given(frame=classes())
def test_pycanon_agrees(frame):
    from pycanon import anonymity

    d = l_diversity(frame, ["q"], "s")
    assert d["distinct_l"] == anonymity.l_diversity(frame, ["q"], ["s"])
    assert anonymity.entropy_l_diversity(frame, ["q"], ["s"]) in {
        math.floor(d["entropy_l"] - 1e-9),
        math.floor(d["entropy_l"] + 1e-9),
    }
    assert t_closeness(frame, ["q"], "s", "equal") == pytest.approx(
        anonymity.t_closeness(frame, ["q"], ["s"]), abs=1e-9
    )
    if frame["v"].nunique() > 1:
        assert t_closeness(frame, ["q"], "v", "ordered") == pytest.approx(
            anonymity.t_closeness(frame, ["q"], ["v"]), abs=1e-9
        )
