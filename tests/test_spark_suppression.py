"""Local suppression on Spark blanks the very cells the default engine blanks.

The cases include the ones where the search tops groups up with donors taken out of larger
classes, where the last all-blank cell is filled, sdcMicro's wildcard rule, and missing values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.engines import make_engine
from hidekit.engines.spark_steps import SparkTable
from hidekit.transforms.suppression import LocalSuppression, local_suppression


def _donor_frame() -> pd.DataFrame:
    """Three records of (x, 1) are two short of k = 5; blanking b, they take the two earliest
    records of (x, 2), a class of nine spread over the table (its rank decides who is taken)."""
    rows = [("x", "1")] * 3 + [("x", "2")] * 9 + [("y", "1")] * 6 + [("y", "2")] * 7
    rows += [("z", "3")] * 2 + [("z", "1")] * 8
    np.random.default_rng(5).shuffle(rows)
    return pd.DataFrame(rows, columns=["a", "b"]).astype(object)


def _small_frames() -> list[tuple[pd.DataFrame, list[str], int, str]]:
    rng = np.random.default_rng(1)
    out = [(_donor_frame(), ["a", "b"], 5, "category")]
    for i in range(6):
        n = int(rng.integers(20, 200))
        codes = {c: rng.integers(0, int(rng.integers(2, 6)), n) for c in "abc"}
        frame = pd.DataFrame({c: [f"v{x}" for x in v] for c, v in codes.items()}, dtype=object)
        frame = frame.where(rng.random(frame.shape) >= 0.1, None)
        frame["other"] = np.arange(n)
        out.append(
            (frame, ["a", "b", "c"], int(rng.integers(2, 6)), ("category", "wildcard")[i % 2])
        )
    return out


def _adult_cases(adult_frame) -> list[tuple[pd.DataFrame, list[str], int, str]]:
    sample = adult_frame.sample(3000, random_state=3).reset_index(drop=True)
    four = ["age", "education", "marital-status", "race"]
    return [
        (sample, four, 3, "category"),
        (sample, ["age", "sex", "race"], 10, "category"),
        (sample, four, 5, "wildcard"),
    ]


def test_donors_are_the_earliest_records_of_their_class():
    """By hand: (x, 1) has 3 records, k = 5; blanking b it needs 2 donors, the two earliest of
    (x, 2) (rows 3 and 8 of the shuffled table). (z, 3)'s 2 records end all blank, so the last
    fill moves 3 records of (z, 1) (8, the largest spare) there: 5 + 5 blanks of b, 5 of a."""
    frame = _donor_frame()
    r = local_suppression(frame, ["a", "b"], 5)
    x2 = np.flatnonzero((frame["a"] == "x") & (frame["b"] == "2"))
    assert x2[:2].tolist() == [3, 8]
    assert r.frame.loc[x2, "b"].isna().tolist() == [True, True] + [False] * 7
    assert r.suppressed == {"a": 5, "b": 10}
    sizes = r.frame.value_counts(dropna=False)
    assert sizes.min() == 5 and sizes[("z", "1")] == 5


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("rows_flagged", [True, False])
def test_spark_blanks_the_cells_the_local_engine_blanks(
    spark, adult_frame, rows_flagged, monkeypatch
):
    """Both ways of marking the records: split classes' flags by row number (one pass), or
    the records read twice (a window over the split classes, a join of the marks)."""
    from hidekit.transforms import spark_suppression

    paths = []
    for name in ("_flag_rows", "_join_marks"):
        real = getattr(spark_suppression, name)
        monkeypatch.setattr(
            spark_suppression, name, lambda *a, real=real, name=name: paths.append(name) or real(*a)
        )
    if not rows_flagged:
        monkeypatch.setattr(spark_suppression, "ROWS_FLAGGED", -1)
    for frame, keys, k, missing in _adult_cases(adult_frame) + _small_frames():
        local = LocalSuppression(keys, k, missing=missing)
        expected = local.fit_transform(frame)
        step = LocalSuppression(keys, k, missing=missing)
        table = SparkTable.from_pandas(frame, spark).apply(step)
        got = table.to_pandas()
        pd.testing.assert_frame_equal(got, expected, obj=f"{keys} k={k} {missing}")
        assert step.suppressed_ == local.suppressed_
        assert table.cells == {c: n for c, n in local.suppressed_.items() if n}
        if missing == "category":  # the promise itself, counted by the engine
            assert make_engine(got).is_k_anonymous(keys, k)
    assert paths and set(paths) == {"_flag_rows" if rows_flagged else "_join_marks"}
