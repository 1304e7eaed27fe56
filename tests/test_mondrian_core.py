"""Strict Mondrian: HIDE's Table 1, hand-computed cuts, a plain recursive reference, modes, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.anonymize import Hierarchy, Mondrian, mondrian
from hidekit.anonymize.mondrian_cuts import encode_key
from hidekit.errors import InputError, OptionError
from hidekit.transforms.base import get_transform

TABLE1 = pd.DataFrame(
    {
        "name": ["Henry", "Irene", "Dan", "Erica"],
        "age": [25, 28, 28, 26],
        "gender": ["Male", "Female", "Male", "Female"],
        "zipcode": [53710, 53712, 53711, 53712],
        "diagnosis": ["Influenza", "Lymphoma", "Bronchitis", "Influenza"],
    }
)
T1_KEYS = ["age", "gender", "zipcode"]


def test_hide_table1_is_2_anonymous_and_2_diverse():
    from pycanon import anonymity

    res = mondrian(
        TABLE1, T1_KEYS, k=2, l=2, sensitive="diagnosis", identifiers=["name"], shuffle=False
    )
    rel = res.released
    assert "name" not in rel.columns and len(rel) == 4
    assert anonymity.k_anonymity(rel, T1_KEYS) == 2
    assert anonymity.l_diversity(rel, T1_KEYS, ["diagnosis"]) == 2
    # the paper's classes: {Henry, Dan} and {Irene, Erica}, gender kept, Henry/Dan's zip a range
    assert list(rel["gender"]) == ["Male", "Female", "Male", "Female"]
    assert list(rel["zipcode"]) == ["[53710-53711]", "53712", "[53710-53711]", "53712"]
    assert rel.loc[0, "age"] == rel.loc[2, "age"] == "[25-28]"
    assert rel.loc[1, "age"] == rel.loc[3, "age"] == "[26-28]"  # tighter than the paper's [25-28]
    assert res.stats["k"] == 2 and res.stats["l_diverse"] and res.stats["classes"] == 2


def test_one_numeric_key_is_cut_at_medians_into_pairs():
    frame = pd.DataFrame({"age": [8, 1, 7, 2, 6, 3, 5, 4]})
    rel = mondrian(frame, ["age"], k=2, shuffle=False).released
    assert list(rel["age"]) == [
        "[7-8]",
        "[1-2]",
        "[7-8]",
        "[1-2]",
        "[5-6]",
        "[3-4]",
        "[5-6]",
        "[3-4]",
    ]


def test_ties_keep_equal_values_together_and_the_more_balanced_cut_wins():
    # codes 1,1,1,2,2,3 (n=6, k=2): median value 2 goes left (3|3) rather than right (3|3 too):
    # cut A (<2) gives 3|3, cut B (<=2) gives 5|1 (not allowed) -> A
    frame = pd.DataFrame({"x": [1, 1, 1, 2, 2, 3]})
    rel = mondrian(frame, ["x"], k=2, shuffle=False).released
    assert list(rel["x"]) == ["1", "1", "1", "[2-3]", "[2-3]", "[2-3]"]


def test_widest_normalized_range_is_cut_first():
    # at the root both keys span their whole range (tie: the first key, x, is cut); inside
    # x in 0..3 the normalized range of x is 3/13 and of y 5/5, so y is cut there, not x
    frame = pd.DataFrame({"x": [0, 1, 2, 3, 10, 11, 12, 13], "y": [0, 5, 0, 5, 0, 5, 0, 5]})
    rel = mondrian(frame, ["x", "y"], k=2, shuffle=False).released
    assert rel["x"].tolist() == [
        "[0-2]",
        "[1-3]",
        "[0-2]",
        "[1-3]",
        "[10-12]",
        "[11-13]",
        "[10-12]",
        "[11-13]",
    ]
    assert rel["y"].tolist() == ["0", "5"] * 4


def _reference(frame, keys, k, sens=None, l=None):  # noqa: E741
    """Plain recursive strict Mondrian, one class at a time (the rules of mondrian.py)."""
    dims = [encode_key(frame[c], c) for c in keys]
    codes = [d.codes for d in dims]
    s = None if sens is None else pd.factorize(frame[sens])[0]

    def spread(idx, j):
        return float(
            dims[j].spread(np.array([codes[j][idx].min()]), np.array([codes[j][idx].max()]))[0]
        )

    def ok(side):
        return len(side) >= k and (l is None or len(set(s[side])) >= l)

    def cut(idx, j):
        c = codes[j][idx]
        u, cnt = np.unique(c, return_counts=True)
        cum = np.cumsum(cnt)
        r = int(np.argmax(2 * cum >= len(idx)))
        best = None
        for t, has in ((u[r - 1] if r > 0 else None, r > 0), (u[r], r < len(u) - 1)):
            if not has:
                continue
            left, right = idx[c <= t], idx[c > t]
            if ok(left) and ok(right):
                bal = min(len(left), len(right))
                if best is None or bal > best[0]:
                    best = (bal, left, right)
        return best

    def split(idx):
        sp = [spread(idx, j) for j in range(len(dims))]
        for j in sorted(range(len(dims)), key=lambda j: -sp[j]):
            if sp[j] > 0:
                b = cut(idx, j)
                if b:
                    return split(b[1]) + split(b[2])
        return [frozenset(idx.tolist())]

    return set(split(np.arange(len(frame))))


def _classes(record_class):
    return {frozenset(np.flatnonzero(record_class == c).tolist()) for c in np.unique(record_class)}


@pytest.mark.parametrize("seed", range(6))
def test_vectorized_cutter_matches_the_plain_recursive_reference(seed):
    rng = np.random.default_rng(seed)
    n = 300
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": rng.normal(50, 15, n).round(1),
            "city": rng.choice(list("abcdefg"), n),
            "dx": rng.choice(["flu", "asthma", "copd", "cancer"], n),
        }
    )
    keys = ["age", "income", "city"]
    for k, l in ((3, None), (5, 2), (2, 3)):  # noqa: E741
        m = Mondrian(keys, k, l=l, sensitive="dx" if l else None).fit(frame)
        assert _classes(m.record_class_) == _reference(frame, keys, k, "dx" if l else None, l)


def test_adult_k5_checked_by_pycanon(adult_frame):
    from pycanon import anonymity

    keys = ["sex", "age", "race", "marital-status", "education"]
    sample = adult_frame.sample(4000, random_state=3).reset_index(drop=True)
    res = mondrian(sample, keys, k=5, l=2, sensitive="salary-class")
    assert anonymity.k_anonymity(res.released, keys) >= 5
    assert anonymity.l_diversity(res.released, keys, ["salary-class"]) >= 2
    assert res.stats["k"] >= 5 and len(res.released) == len(sample)


def test_hierarchy_labels_are_nodes_covering_the_values(fixtures, adult_frame):
    path = fixtures / "adult" / "adult_hierarchy_education.csv"
    h = Hierarchy.read(path)
    sample = adult_frame.sample(3000, random_state=1).reset_index(drop=True)
    res = mondrian(sample, ["age", "education"], k=10, hierarchies={"education": path})
    labels = set(res.released["education"])
    nodes = {v for row in h.rows for v in row}
    assert labels <= nodes and len(labels) > 1
    src = sample.loc[res.source_rows, "education"].to_numpy()
    for rel_v, orig_v in zip(res.released["education"], src, strict=True):
        assert orig_v in h.leaf_labels(rel_v)
    assert res.stats["k"] >= 10


def test_user_order_decides_categorical_cuts():
    frame = pd.DataFrame({"grade": ["low", "mid", "high", "low", "high"]})
    rel = mondrian(frame, ["grade"], k=2, order={"grade": ["low", "mid", "high"]}, shuffle=False)
    assert set(rel.released["grade"]) == {"low", "{mid,high}"}
    rel = mondrian(frame, ["grade"], k=2, shuffle=False)  # default: sorted text: high, low, mid
    assert set(rel.released["grade"]) == {"high", "{low,mid}"}


def test_modes_full_partial_statistical():
    full = mondrian(TABLE1, T1_KEYS, 2, mode="full", identifiers=["name"]).released
    part = mondrian(
        TABLE1, T1_KEYS, 2, mode="partial", identifiers=["name"], shuffle=False
    ).released
    stat = mondrian(TABLE1, T1_KEYS, 2, mode="statistical", identifiers=["name"]).released
    assert list(full.columns) == ["diagnosis"]
    assert list(part.columns) == T1_KEYS + ["diagnosis"] and part["age"].tolist() == [
        25,
        28,
        28,
        26,
    ]
    assert list(stat.columns) == T1_KEYS + ["diagnosis"]


def test_shuffle_is_keyed_and_can_be_turned_off():
    frame = pd.DataFrame({"x": np.arange(40), "y": np.arange(40) % 7})
    key1, key2 = b"k" * 32, b"j" * 32
    a = mondrian(frame, ["x"], 4, key=key1)
    b = mondrian(frame, ["x"], 4, key=key1)
    c = mondrian(frame, ["x"], 4, key=key2)
    fresh = [mondrian(frame, ["x"], 4).released["y"].tolist() for _ in range(2)]
    assert (
        fresh[0] != fresh[1]
    )  # no key: a new order every run (a collision is vanishingly unlikely)
    with pytest.raises(OptionError, match="insecure_seed"):
        mondrian(frame, ["x"], 4, seed=1)
    assert "seed" not in a.params and a.params["randomness"] == "keyed"
    keep = mondrian(frame, ["x"], 4, shuffle=False)
    pd.testing.assert_frame_equal(a.released, b.released)
    assert not a.released["y"].equals(c.released["y"])
    assert keep.released["y"].tolist() == frame["y"].tolist()
    assert sorted(a.source_rows.tolist()) == list(range(40))
    assert a.released["y"].tolist() == frame["y"].to_numpy()[a.source_rows].tolist()


def test_registered_transform_and_fit_transform():
    cls = get_transform("mondrian")
    assert cls is Mondrian
    frame = pd.DataFrame({"x": [1, 2, 3, 4], "y": list("abcd")})
    out = cls(["x"], 2, shuffle=False).fit_transform(frame)
    assert out["x"].tolist() == ["[1-2]", "[1-2]", "[3-4]", "[3-4]"] and out["y"].tolist() == list(
        "abcd"
    )
    assert frame["x"].tolist() == [1, 2, 3, 4]  # input untouched
    with pytest.raises(InputError):
        cls(["x"], 2).fit(frame).transform(frame.iloc[:3])


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"k": 5}, InputError, "larger than the number of records"),
        ({"k": 0}, OptionError, "at least 1"),
        ({"k": 2, "l": 2, "sensitive": "one"}, InputError, "does not meet distinct 2-diversity"),
        ({"k": 2, "l": 2}, OptionError, "sensitive column"),
        ({"k": 2, "l": 2, "sensitive": "age"}, OptionError, "both a key and"),
        ({"k": 2, "mode": "half"}, OptionError, "unknown mode"),
        ({"k": 2, "engine": "pandas"}, OptionError, "unknown engine"),
        ({"k": 2, "l": 2, "sensitive": "diagnosis", "l_kind": "recursive"}, OptionError, "c > 0"),
        (
            {"k": 2, "l": 2, "sensitive": "diagnosis", "l_kind": "maximal"},
            OptionError,
            "unknown l-diversity",
        ),
        ({"k": 2, "order": {"diagnosis": ["a"]}}, OptionError, "not a key"),
    ],
)
def test_bad_input_gives_one_clear_error(kwargs, error, text):
    frame = TABLE1.assign(one="same")
    with pytest.raises(error, match=text):
        mondrian(frame, T1_KEYS, **kwargs)


def test_missing_values_in_keys_are_refused_with_the_count():
    frame = TABLE1.assign(age=[25, None, 28, 26])
    with pytest.raises(InputError, match=r"key 'age' has 1 missing value"):
        mondrian(frame, T1_KEYS, 2)
    missing_cat = TABLE1.assign(gender=["Male", None, "Male", "Female"])
    with pytest.raises(InputError, match=r"key 'gender' has 1 missing"):
        mondrian(missing_cat, T1_KEYS, 2)


def test_hierarchy_that_misses_a_value_is_refused():
    h = Hierarchy.from_rows([["Male", "*"]])
    with pytest.raises(InputError, match="does not list 1 value"):
        mondrian(TABLE1, T1_KEYS, 2, hierarchies={"gender": h})


def test_t_closeness_is_reported_as_a_check_on_the_result():
    from hidekit.anonymize import t_closeness

    frame = TABLE1.assign(cost=[10, 40, 20, 30])
    res = mondrian(frame, T1_KEYS, 2, sensitive="cost", identifiers=["name"], shuffle=False)
    # age is cut first (ties go to the first key): classes {Henry, Erica} with costs {10, 30}
    # and {Irene, Dan} with {40, 20}, against the table's {10, 20, 30, 40}. Equal distance:
    # 1/2 (|1/2 - 1/4| + |0 - 1/4| + …) = 1/2; ordered: cumulative differences 1/4, 0, 1/4
    # over m - 1 = 3 -> 1/6
    assert res.released["age"].tolist() == ["[25-26]", "28", "28", "[25-26]"]
    assert res.stats["t_closeness_equal"] == pytest.approx(0.5)
    assert res.stats["t_closeness_ordered"] == pytest.approx(1 / 6)
    assert res.stats["t_closeness_ordered"] == pytest.approx(
        t_closeness(res.released, T1_KEYS, "cost", "ordered")
    )
    assert "l_diverse" not in res.stats and res.stats["distinct_l"] == 2
