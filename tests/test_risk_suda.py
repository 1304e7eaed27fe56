"""SUDA2 against a hand-worked table and a brute force over every subset (the definition)."""

from __future__ import annotations

from itertools import combinations
from math import factorial
from unittest.mock import patch

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import OptionError
from hidekit.risk import suda_search
from hidekit.risk.suda import dis_scores, msu_weights, suda2

# x, y, z: r0 has MSU {x,z}; r1 {z}; r2 {x,y}; r3 {y}  (weights: size 1 → 2! = 2, size 2 → 1)
HAND = np.array([[1, 1, 1], [1, 1, 2], [2, 1, 1], [2, 2, 1]])


def test_hand_table_scores_and_contributions():
    r = suda2(HAND, ["x", "y", "z"])
    assert r.score.tolist() == [1, 2, 1, 2]
    assert r.msu_counts.tolist() == [2, 2, 0]
    assert r.contributions[0].tolist() == [1.0, 0.0, 1.0]  # {x,z}: each variable in the MSU
    assert r.contributions[1].tolist() == [0.0, 0.0, 1.0]
    got = r.attribute_contributions()
    assert got == pytest.approx({"x": 100 * 2 / 6, "y": 100 * 3 / 6, "z": 100 * 3 / 6})
    assert r.dis.tolist() == [1.0, 1.0, 1.0, 1.0]  # no sample pairs: nothing to be confused with


def test_missing_value_is_never_part_of_an_msu():
    codes = HAND.copy()
    codes[3, 1] = -1  # r3's unique y is now missing
    r = suda2(codes, ["x", "y", "z"])
    assert r.score[3] == 0  # (2, ?, 1) has no unique subset without y: (2,·,1) is shared with r2


def test_original_and_corrected_weights():
    assert msu_weights(5, 5).tolist() == [24, 6, 2, 1, 1]  # (m - k)!
    assert msu_weights(5, 3).tolist() == [4 * 3 * 2, 3 * 2, 2]  # Elliot: ∏_{j=k}^{M} (m - j)
    m = 4
    expected = [(2 ** (m - k) - 1) * factorial(k) * factorial(m - k) / factorial(m) for k in (1, 2)]
    assert msu_weights(m, 2, "corrected").tolist() == pytest.approx(expected)
    with pytest.raises(OptionError):
        msu_weights(4, 2, "elliot")


def test_dis_hand_value():
    # two scored records (1 and 8), 4 records in pairs, d = 0.01, m = 8 → Q = 1
    dis = dis_scores(np.array([1.0, 8.0, 0.0]), pairs=4, m=8, dis_fraction=0.01)
    adjust = 1 / 1 + 1 / 8
    odds = 4 * 0.99 / 0.01
    assert dis.tolist() == pytest.approx(
        [1 / (1 + odds / (1 * adjust)), 1 / (1 + odds / (8 * adjust)), 0.0]
    )


def test_bad_options():
    with pytest.raises(OptionError):
        suda2(HAND, ["x", "y", "z"], max_size=4)
    with pytest.raises(OptionError):
        suda2(HAND, ["x", "y", "z"], dis_fraction=1.5)


def brute_force(codes: np.ndarray, max_size: int):
    """Every subset of every record, straight from the definition."""
    n, m = codes.shape
    weights = msu_weights(max(m, 3), max_size)
    frame = pd.DataFrame(codes)
    score = np.zeros(n)
    for size in range(1, max_size + 1):
        for subset in combinations(range(m), size):
            counts = frame.groupby(list(subset))[subset[0]].transform("size").to_numpy()
            for i in range(n):
                if (codes[i, list(subset)] < 0).any() or counts[i] != 1:
                    continue
                minimal = True
                for smaller in combinations(subset, size - 1):
                    if not smaller:
                        continue
                    mask = (codes[:, list(smaller)] == codes[i, list(smaller)]).all(axis=1)
                    if mask.sum() == 1:
                        minimal = False
                        break
                if minimal:
                    score[i] += weights[size - 1]
    return score


@given(
    st.integers(2, 25).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-1, 2), min_size=4, max_size=4), min_size=n, max_size=n
        )
    ),
    st.integers(1, 4),
)
def test_scores_equal_the_brute_force(rows, max_size):
    codes = np.array(rows)
    r = suda2(codes, list("abcd"), max_size=max_size)
    np.testing.assert_allclose(r.score, brute_force(codes, max_size))
    assert ((r.dis >= 0) & (r.dis <= 1)).all()


@pytest.mark.parametrize("suffix_table", [0, 32])  # every record at each top split / cells
@pytest.mark.parametrize("small", [0, 3, 62])  # groups split by moving records / as bit masks
@given(
    st.integers(2, 60).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-1, 3), min_size=5, max_size=5), min_size=n, max_size=n
        )
    ),
    st.integers(1, 5),
)
def test_both_group_searches_equal_the_brute_force(small, suffix_table, rows, max_size):
    codes = np.array(rows)
    with (
        patch.object(suda_search, "SMALL_GROUP", small),
        patch.object(suda_search, "SUFFIX_TABLE", suffix_table),
    ):
        r = suda2(codes, list("abcde"), max_size=max_size)
    np.testing.assert_allclose(r.score, brute_force(codes, max_size))


def test_a_search_that_outgrows_its_room_runs_again():
    rng = np.random.default_rng(3)
    codes = rng.integers(-1, 4, size=(80, 6))
    with patch.object(suda_search, "ROOM_PER_RECORD", 0):  # room for 16 sets: far too little
        r = suda2(codes, list("abcdef"))
    np.testing.assert_allclose(r.score, brute_force(codes, 6))


def brute_msus(codes: np.ndarray, max_size: int) -> list[list[tuple[int, ...]]]:
    """Each record's MSUs, straight from the definition: a set of its present values that no
    other record shares, with no smaller such set inside it."""
    n, m = codes.shape
    unique_sets: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    for size in range(1, max_size + 1):
        for subset in combinations(range(m), size):
            sub = codes[:, list(subset)]
            _, inverse, counts = np.unique(sub, axis=0, return_inverse=True, return_counts=True)
            for i in np.flatnonzero(counts[inverse.reshape(-1)] == 1):
                if (sub[i] >= 0).all() and not any(set(u) <= set(subset) for u in unique_sets[i]):
                    unique_sets[i].append(subset)
    return unique_sets


@given(
    st.integers(3, 8).flatmap(
        lambda m: st.lists(
            st.lists(st.integers(-1, 1) | st.integers(0, 5), min_size=m, max_size=m),
            min_size=2,
            max_size=200,
        )
    ),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_msus_and_shares_equal_the_definition(rows, data):
    """Groups above and below the bit-mask size, constant columns inside groups (the search
    skips a column that does not split its group): MSU counts per size and each key's share."""
    codes = np.array(rows)
    m = codes.shape[1]
    max_size = data.draw(st.integers(1, m))
    r = suda2(codes, [f"k{j}" for j in range(m)], max_size=max_size)
    msus = brute_msus(codes, max_size)
    sizes = np.bincount([len(u) for found in msus for u in found], minlength=max_size + 1)
    np.testing.assert_array_equal(r.msu_counts, sizes[1:])
    weights = msu_weights(max(m, 3), max_size)
    for i, found in enumerate(msus):
        raw = np.zeros(m)
        for u in found:
            raw[list(u)] += weights[len(u) - 1]
        total = sum(weights[len(u) - 1] for u in found)
        assert r.score[i] == pytest.approx(total)
        np.testing.assert_allclose(r.contributions[i], raw / total if total else raw)


@pytest.mark.parametrize("small", [3, 62])  # subtrees shared split by moving records / as bits
@given(
    st.integers(2, 60).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-1, 3), min_size=5, max_size=5), min_size=n, max_size=n
        )
    ),
    st.integers(1, 5),
    st.integers(2, 3),
)
def test_a_search_shared_among_threads_equals_the_brute_force(small, rows, max_size, threads):
    codes = np.array(rows)
    with (
        patch.object(suda_search, "SMALL_GROUP", small),
        patch.object(suda_search, "SHARE_WORK", 0),  # share every split with two parts or more
        patch.object(suda_search, "THREADS", threads),
    ):
        r = suda2(codes, list("abcde"), max_size=max_size)
    np.testing.assert_allclose(r.score, brute_force(codes, max_size))


def test_threads_change_nothing_found():
    """Scores, shares and MSU counts from 1 and from 2-3 threads are the same numbers, bit for
    bit, run after run (a record's unique sets are found by one thread per split, in order)."""
    rng = np.random.default_rng(11)
    codes = np.column_stack([rng.integers(0, c, 4000) for c in (40, 12, 9, 6, 4, 3, 2)])
    codes[rng.random(codes.shape) < 0.01] = -1
    keys = [f"k{j}" for j in range(codes.shape[1])]
    with patch.object(suda_search, "THREADS", 1):
        one = suda2(codes, keys)
    assert one.msu_counts.sum() > 1000  # a search with work to share
    for threads in (2, 3, 2):
        with (
            patch.object(suda_search, "SHARE_WORK", 0),
            patch.object(suda_search, "THREADS", threads),
        ):
            shared = suda2(codes, keys)
        assert np.array_equal(shared.score, one.score)
        assert np.array_equal(shared.contributions, one.contributions)
        assert np.array_equal(shared.msu_counts, one.msu_counts)
