"""Column-at-a-time fast paths give what the per-value code gives (issue 17: the release plan at
scale spent most of its time in per-value Python loops)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import InputError
from hidekit.io.readers import read_table, refuse_nested_columns
from hidekit.transforms.crosswalk import _json_rows, _jsonable, decrypt_frame, encrypt_frame
from hidekit.transforms.generalize import value_key
from hidekit.transforms.loss import same_cells


def _per_value(a: pd.Series, b: pd.Series) -> list[bool]:
    return [value_key(x) == value_key(y) for x, y in zip(a, b, strict=True)]


cells = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, 2.0, float("nan")]),
    st.sampled_from(["1", "2", "1.0", "0.5", "a", ""]),
)


def _text(v) -> str | None:
    return None if v is None or v != v else str(v)


def _number(v) -> float | None:
    return v if isinstance(v, (int, float)) else None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(cells, cells), min_size=1, max_size=12), st.booleans())
def test_same_cells_text_against_numbers_is_the_per_value_comparison(pairs, flip):
    """A text column against a number column (the plan's bin / topcode / dates case), each
    column's text keys computed once per distinct value."""
    a = pd.Series([_text(p[0]) for p in pairs], dtype=object)
    b = pd.to_numeric(pd.Series([_number(p[1]) for p in pairs], dtype=object))
    a, b = (b, a) if flip else (a, b)
    assert same_cells(a, b).tolist() == _per_value(a, b)


def test_same_cells_integer_codes_against_their_text():
    a = pd.Series([1, 2, 3, None], dtype="Int64")
    b = pd.Series(["1", "2.0", "3", None])
    assert same_cells(a, b).tolist() == [True, False, True, True]


def test_nested_cells_are_refused_and_flat_ones_pass_without_a_per_value_check():
    refuse_nested_columns(pd.DataFrame({"t": ["a", None, "b"], "b": [b"x", b"y", None]}), "t")
    for bad in (["a", ["b"]], [1, {"k": 2}], [np.array([1, 2]), None]):
        with pytest.raises(InputError, match="lists or maps"):
            refuse_nested_columns(pd.DataFrame({"c": pd.Series(bad, dtype=object)}), "t")
    with pytest.raises(InputError, match="lists or maps"):
        read_table(pd.DataFrame({"c": pd.Series([(1, 2), "x"], dtype=object)}))


def test_crosswalk_rows_are_built_by_column_as_they_were_by_value():
    frame = pd.DataFrame(
        {
            "text": ["x", "y", "z"],
            "gaps": ["x", None, "z"],
            "int": [1, 2, 3],
            "float": [1.5, np.nan, 2.0],
            "bool": [True, False, True],
            "date": pd.to_datetime(["2020-01-01", None, "2021-01-01"]),
            "nullable": pd.array([1, None, 3], dtype="Int64"),
        }
    )
    by_value = [[_jsonable(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    assert json.dumps(_json_rows(frame)) == json.dumps(by_value)
    back = decrypt_frame(encrypt_frame(frame, passphrase="pw"), passphrase="pw")
    assert back["gaps"].tolist() == ["x", None, "z"]
    assert back["float"].tolist() == [1.5, None, 2.0] and back["int"].tolist() == [1, 2, 3]
    assert _json_rows(pd.DataFrame(index=range(2))) == [[], []]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 40),
    st.integers(1, 5),
    st.integers(-1, 6),
    st.sampled_from([np.int64, np.int32, np.int8]),
    st.integers(0, 2**32 - 1),
)
def test_unique_rows_is_numpys_unique_along_rows(n, width, high, dtype, seed):
    from hidekit.engines.codes import unique_rows

    rows = np.random.default_rng(seed).integers(-1, high + 1, size=(n, width)).astype(dtype)
    if n:
        _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
        got = unique_rows(rows)
        assert np.array_equal(got[0], inverse.ravel()) and np.array_equal(got[1], counts)


def test_unique_rows_too_wide_for_one_integer_sorts_the_rows():
    from hidekit.engines.codes import unique_rows

    rows = np.array([[2**40, 0, 2**40], [0, 2**40, 0], [2**40, 0, 2**40]], dtype=np.int64)
    inverse, counts = unique_rows(rows)
    assert inverse.tolist() == [1, 0, 1] and counts.tolist() == [1, 2]


def test_unique_rows_sparse_ids_follow_the_same_order():
    from hidekit.engines.codes import unique_rows

    rows = np.random.default_rng(3).integers(-1, 10_000, size=(500, 3))
    rows[::7] = rows[0]  # repeats
    _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    got = unique_rows(rows)
    assert np.array_equal(got[0], inverse.ravel()) and np.array_equal(got[1], counts)


def test_plan_table_risk_over_the_key_columns_equals_the_whole_frames():
    from hidekit.release.tables import LocalTable
    from hidekit.risk import measure_risk

    from conftest import ADULT

    frame = read_table(ADULT).frame
    keys = ["sex", "age", "race"]
    got = LocalTable(frame).risk(keys, 3)
    whole = measure_risk(frame, keys, cell_min=3).overall
    assert (got.k, got.cells, got.uniques, got.at_risk, got.rp) == (
        whole.k,
        whole.cells,
        whole.uniques,
        whole.at_risk,
        whole.rp,
    )
    with pytest.raises(InputError, match="'nope'.*available: .*'workclass'"):
        LocalTable(frame).risk(["sex", "nope"], 3)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", None]), st.sampled_from([1, 2, 3])),
        min_size=1,
        max_size=40,
    )
)
def test_cells_changed_weighted_by_counts_is_the_per_record_count(rows):
    """A values step's changed cells counted on its distinct rows, weighted by their counts (the
    Spark plan's way), equal the count over every record."""
    from hidekit.release.tables import cells_changed

    before = pd.DataFrame(rows, columns=["x", "n"])
    before["x"] = before["x"].astype(object)

    def step(frame: pd.DataFrame) -> pd.DataFrame:  # a record's output from its own values
        return frame.assign(x=frame["x"].where(frame["n"] > 1, "z"), n=frame["n"].astype(str))

    counts = before.groupby(["x", "n"], dropna=False).size()
    distinct = counts.index.to_frame(index=False)
    distinct["x"] = distinct["x"].astype(object).where(distinct["x"].notna(), None)
    weighted = cells_changed(distinct, step(distinct), counts.to_numpy())
    assert weighted == cells_changed(before, step(before))
