"""The optimal search starts from an engine's cells as codes (``Engine.cell_codes``): every engine
must give the same cells, and so the same optimum, whether the records sit in a frame, in a file
DuckDB reads itself, or in Spark."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from hidekit.anonymize.optimal import optimal_generalization
from hidekit.engines import DuckDBEngine
from hidekit.engines.base import COUNT_COLUMN, Engine
from hidekit.engines.file_engine import FileEngine
from hidekit.io.direct import direct_source

from conftest import ADULT_KEYS

ADULT = Path(__file__).parent / "fixtures" / "adult"
HIER = {q: str(ADULT / f"adult_hierarchy_{q}.csv") for q in ADULT_KEYS}


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)


def _decoded(engine: Engine, keys: list[str]) -> pd.DataFrame:
    """The cells of ``cell_codes`` back as values, sorted: comparable across engines."""
    values, codes, counts = engine.cell_codes(keys)
    out = pd.DataFrame({k: values[j].to_numpy(dtype=object)[codes[j]] for j, k in enumerate(keys)})
    out = out.fillna("<missing>").astype(str)
    out[COUNT_COLUMN] = counts
    return out.sort_values(keys).reset_index(drop=True)


def test_cell_codes_agree_between_frame_file_and_the_default(adult, tmp_path):
    keys = ["sex", "age", "race", "occupation"]
    frame = adult.head(3000).copy()
    frame.loc[5, "race"] = None  # missing is a value of its own
    path = tmp_path / "part.csv"
    frame.to_csv(path, sep=";", index=False)
    in_memory = DuckDBEngine(frame)
    on_file = FileEngine(direct_source(path, sep=";"), sep=";")
    expected = frame[keys].fillna("<missing>").value_counts().rename(COUNT_COLUMN).reset_index()
    expected = expected.sort_values(keys).reset_index(drop=True)
    for got in (
        _decoded(in_memory, keys),
        _decoded(on_file, keys),
        # the base class's default: factorized cell_counts
        _decoded(_Default(in_memory), keys),
    ):
        assert got[COUNT_COLUMN].sum() == 3000
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)


class _Default(DuckDBEngine):
    """The in-memory engine without its own ``cell_codes``: the interface's default."""

    def __init__(self, inner: DuckDBEngine):
        super().__init__(inner.frame)

    def cell_codes(self, keys):
        return Engine.cell_codes(self, keys)


def test_the_file_engine_finds_the_frames_optimum(adult, tmp_path):
    path = tmp_path / "adult.csv"
    adult.to_csv(path, sep=";", index=False)
    options = dict(k=5, suppression=0.05, metric="loss")
    from_frame = optimal_generalization(adult, ADULT_KEYS, HIER, **options)
    from_file = optimal_generalization(
        FileEngine(direct_source(path, sep=";"), sep=";"), ADULT_KEYS, HIER, **options
    )
    assert from_file.transformation == from_frame.transformation
    assert from_file.information_loss == from_frame.information_loss
    assert from_file.suppressed == from_frame.suppressed == 1458  # ARX's figure (the oracle)


def test_spark_gives_the_same_optimum_as_the_local_engine(adult, spark):
    from hidekit.engines.spark_engine import SparkEngine

    frame = adult.head(4000).reset_index(drop=True)
    keys = [q for q in ADULT_KEYS if q != "occupation"]
    options = dict(k=5, l=2, sensitive="occupation", suppression=0.05, metric="loss")
    local = optimal_generalization(frame, keys, {q: HIER[q] for q in keys}, **options)
    on_spark = optimal_generalization(
        SparkEngine(frame, spark=spark), keys, {q: HIER[q] for q in keys}, **options
    )
    assert local.found and on_spark.found
    assert on_spark.transformation == local.transformation
    assert on_spark.information_loss == local.information_loss
    assert (on_spark.suppressed, on_spark.classes) == (local.suppressed, local.classes)


def test_row_order_does_not_change_the_loss_by_a_bit(adult):
    """Engines count cells in their own order; the loss (cut at 10 decimals per key, as ARX)
    must not depend on it: the same records shuffled give the same loss to the bit."""
    options = dict(k=5, suppression=0.05, metric="loss")
    keys = ADULT_KEYS[:6]
    hier = {q: HIER[q] for q in keys}
    first = optimal_generalization(adult, keys, hier, **options)
    for seed in (1, 2, 3):
        shuffled = adult.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        again = optimal_generalization(shuffled, keys, hier, **options)
        assert again.transformation == first.transformation
        assert again.information_loss == first.information_loss
        assert again.loss_per_key == first.loss_per_key
