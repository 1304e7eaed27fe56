"""Every registered step on Spark gives the frame the local engine gives (``spark_steps``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.registry import TRANSFORMS
from hidekit.testing.contracts import check_spark_transform
from hidekit.testing.examples import contract_frame, resolve, step_example

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


@pytest.mark.parametrize("name", TRANSFORMS.names())
def test_every_step_gives_the_local_output_on_spark(name, spark, tmp_path):
    cls = TRANSFORMS[name]
    good, _ = step_example(name, cls)
    params = resolve(good, tmp_path)
    check_spark_transform(cls, params, spark=spark)
    check_spark_transform(cls, params, contract_frame(missing=0.1), spark=spark)


def test_the_check_catches_a_step_whose_scope_is_wrong(spark):
    """A step declared ``values`` whose output depends on the record order is caught."""
    from hidekit.transforms.base import Transform

    class RowNumber(Transform):
        spark_scope = "values"

        def __init__(self, columns=("age",)):
            self.columns = list(columns)

        def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
            return frame.assign(age=np.arange(len(frame)))

    with pytest.raises(AssertionError, match="on Spark"):
        check_spark_transform(RowNumber, {"columns": ["age"]}, spark=spark)


def test_fit_counts_is_the_fit_on_the_full_table():
    """Fitting on distinct rows and their counts learns what fitting on every record learns."""
    from hidekit.transforms.topcode import TopCode

    frame = contract_frame()
    counts = frame.groupby("income", dropna=False).size()
    distinct = counts.index.to_frame(index=False)
    by_counts = TopCode(["income"], top_percentile=90).fit_counts(distinct, counts.to_numpy())
    full = TopCode(["income"], top_percentile=90).fit(frame)
    assert by_counts.thresholds_ == full.thresholds_


@pytest.mark.parametrize("cluster", [None, "village"])
def test_jitter_on_spark_gives_the_local_points_however_partitioned(cluster, spark):
    """Keyed jitter on a table scattered over many partitions, in shuffled order: the very points
    of the default engine (draws come from the key and the cluster, not the partition), and the
    same warning and decisions."""
    from hidekit.engines.spark_steps import SparkTable
    from hidekit.transforms.geo import Jitter

    frame = contract_frame(missing=0.1)
    frame.loc[::9, "latitude"] = np.nan
    params = {"lat": "latitude", "lon": "longitude", "urban": "urban", "cluster": cluster}
    local_step = Jitter(**params, key=b"k" * 32)
    local = local_step.fit_transform(frame)
    assert local_step.warnings_  # the missing coordinates are counted
    table = SparkTable.from_pandas(frame, spark)
    table.sdf = table.sdf.repartition(7).orderBy(table.sdf.columns[-1], ascending=False)
    step = Jitter(**params, key=b"k" * 32)
    got = table.apply(step).to_pandas()
    pd.testing.assert_frame_equal(got, local)
    assert (step.warnings_, step.decisions_) == (local_step.warnings_, local_step.decisions_)


def test_jitter_on_spark_names_the_first_coordinate_out_of_range(spark):
    from hidekit.engines.spark_steps import SparkTable
    from hidekit.errors import InputError
    from hidekit.transforms.geo import Jitter

    frame = pd.DataFrame({"latitude": [10.0, 95.0, -99.0], "longitude": [0.0, 0.0, 0.0]})
    with pytest.raises(InputError) as local:
        Jitter(key=b"k" * 32).fit_transform(frame)
    with pytest.raises(InputError) as got:
        SparkTable.from_pandas(frame, spark).apply(Jitter(key=b"k" * 32))
    assert str(got.value) == str(local.value)


@pytest.mark.parametrize("shared", [False, True])
def test_encode_on_spark_gives_the_local_codes_and_crosswalk(shared, spark, tmp_path, monkeypatch):
    """Codes computed per value from the key on a scattered, shuffled table: the default
    engine's records, crosswalk and changed cells; the crosswalk never comes to the driver whole
    and its file, encrypted by pieces, reads back as the default engine's. When values share their
    hash's prefix (``shared``: all of them), the column is ranked the other way, same codes."""
    import os

    from pyspark.sql import functions as F

    from hidekit.engines.spark_steps import SparkTable
    from hidekit.jobs.files import read_crosswalk, write_crosswalk
    from hidekit.release.tables import cells_changed
    from hidekit.transforms import spark_encode
    from hidekit.transforms.identifiers import Encode
    from hidekit.transforms.spark_encode import SparkCrosswalk

    ranked = []
    fallback = spark_encode._encode_column_ranked
    monkeypatch.setattr(
        spark_encode, "_encode_column_ranked", lambda *a: ranked.append(a[1]) or fallback(*a)
    )
    if shared:
        monkeypatch.setattr(
            spark_encode, "_prefix", lambda text, _: F.when(text.isNotNull(), F.lit(0).cast("long"))
        )

    key = bytes(range(40, 72))
    rng = np.random.default_rng(5)
    pid = [f"{i:05d}" for i in rng.integers(0, 400, 300)]
    pid[::17] = [None] * len(pid[::17])
    small = pd.Series(rng.integers(1, 10, 300), dtype="int64")  # width 1: some keep their value
    frame = pd.DataFrame({"pid": pid, "n": small, "other": np.arange(300)})
    local_step = Encode(["pid", "n"], key=key)
    local = local_step.fit_transform(frame)
    table = SparkTable.from_pandas(frame, spark)
    table.sdf = table.sdf.repartition(7).orderBy(table.sdf.columns[-1], ascending=False)
    step = Encode(["pid", "n"], key=key)
    got = table.apply(step)
    assert isinstance(step.crosswalk_, SparkCrosswalk)  # the keyed path ran, not the fallback
    assert ranked == (["pid", "n"] if shared else [])
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    assert got.cells == cells_changed(frame, local) and got.cells["n"] < 300
    pd.testing.assert_frame_equal(step.crosswalk_.to_pandas(), local_step.crosswalk_)
    path = tmp_path / "crosswalk.hkcw"
    write_crosswalk(step.crosswalk_, path, key_file=key)
    assert os.stat(path).st_mode & 0o777 == 0o600
    pd.testing.assert_frame_equal(read_crosswalk(path, key_file=key), local_step.crosswalk_)


def test_encode_on_spark_keeps_its_secret_out_of_the_printed_plan(spark, capsys):
    """The secret prefix stands in the query plan as a literal; what Spark prints of the plan
    (explain, logs, event logs) shows it redacted."""
    from hidekit.engines.spark_steps import SparkTable
    from hidekit.transforms.identifiers import Encode

    key = bytes(range(7, 39))
    frame = pd.DataFrame({"pid": [f"p{i}" for i in range(40)], "other": np.arange(40)})
    step = Encode(["pid"], key=key)
    got = SparkTable.from_pandas(frame, spark).apply(step)
    secret = step.code_prefix("pid")
    assert len(secret) == 64
    plan = got.sdf._jdf.queryExecution().toString()
    got.sdf.explain(True)
    printed = capsys.readouterr().out
    assert "redacted" in plan + printed
    assert secret not in plan and secret not in printed and secret.upper() not in printed


def test_suppress_risk_on_spark_gives_the_local_blanks(spark):
    """Without weights, the class table counted by Spark and the blanks joined back: the
    default engine's records, counts and warning, on a scattered, shuffled table."""
    from hidekit.engines.spark_steps import SparkTable
    from hidekit.risk.suppression import RiskSuppression

    rng = np.random.default_rng(8)
    frame = pd.DataFrame(
        {
            "a": pd.Series(rng.integers(0, 6, 200), dtype="Int64"),
            "b": rng.choice(["x", "y", "z", None], 200).astype(object),
            "c": rng.integers(0, 4, 200),
        }
    )
    params = {"keys": ["a", "b", "c"], "columns": ["b", "a"], "threshold": 0.3}
    local_step = RiskSuppression(**params)
    local = local_step.fit_transform(frame)
    assert local_step.suppressed_["b"] > 0 and local_step.suppressed_.get("a")
    table = SparkTable.from_pandas(frame, spark)
    table.sdf = table.sdf.repartition(5).orderBy(table.sdf.columns[-1], ascending=False)
    step = RiskSuppression(**params)
    got = table.apply(step)
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    assert got.cells == local_step.suppressed_
    assert (step.above_before_, step.above_after_, step.warnings_) == (
        local_step.above_before_,
        local_step.above_after_,
        local_step.warnings_,
    )
