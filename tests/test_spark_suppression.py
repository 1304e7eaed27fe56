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
from hidekit.transforms.suppression import LocalSuppression

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def _small_frames() -> list[tuple[pd.DataFrame, list[str], int, str]]:
    rng = np.random.default_rng(1)
    out = []
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


def test_spark_blanks_the_cells_the_local_engine_blanks(spark, adult_frame):
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
