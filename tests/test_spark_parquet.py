"""A Parquet input read by Spark itself and the release written from Spark: the records and
types ``read_table`` gives, the bytes ``to_parquet`` writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]

KEY = bytes(range(9, 41))  # a test key: 32 bytes, all different


def _audit(folder: Path) -> list[dict]:
    lines = (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]


def test_the_demo_plan_from_parquet_gives_identical_files_on_both_engines(
    spark, tmp_path, monkeypatch
):
    from hidekit.demo.steps import DEMO_PLAN
    from hidekit.demo.survey import generate_survey
    from hidekit.engines import spark_parquet
    from hidekit.jobs.files import read_crosswalk
    from hidekit.jobs.release_job import read_plan_input, run_plan
    from hidekit.release import load_plan
    from hidekit.release.tables import EngineDataset

    generate_survey(400, 5).to_parquet(tmp_path / "survey.parquet", index=False)
    monkeypatch.setattr(spark_parquet, "_BATCH_ROWS", 64)  # the release in several batches
    results = {}
    for engine in ("duckdb", "spark"):
        plan = load_plan(DEMO_PLAN, output=tmp_path / engine, key=KEY)
        plan.input = tmp_path / "survey.parquet"
        if engine == "spark":  # the records are read by Spark, not sent from the driver
            assert isinstance(read_plan_input(plan, "spark"), EngineDataset)
        results[engine] = run_plan(plan, engine=engine, scan=False)
    local, remote = tmp_path / "duckdb", tmp_path / "spark"
    assert sum(results["duckdb"].steps[-1].cells_changed.values()) > 0
    released = (remote / "survey.parquet").read_bytes()
    assert released == (local / "survey.parquet").read_bytes()
    assert len(pd.read_parquet(remote / "survey.parquet")) == 400
    assert _audit(remote) == _audit(local)
    crosswalks = [
        read_crosswalk(next((tmp_path / f"{e}.private").glob("crosswalk*")), key_file=KEY)
        for e in ("duckdb", "spark")
    ]
    assert crosswalks[0].equals(crosswalks[1])


def test_a_parquet_file_of_many_row_groups_keeps_its_order_and_types(spark, tmp_path):
    """Spark reads the row groups' blocks largest first: the row numbers still follow the file;
    whole numbers with a gap are floats, as pandas reads them; pandas' own Int64 stays Int64."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from hidekit.engines.spark_parquet import parquet_tables_spark, read_parquet_spark
    from hidekit.io import read_table

    rng = np.random.default_rng(3)
    n = 5000
    gappy = pd.array(rng.integers(0, 9, n), dtype="Int64")
    gappy[4321] = pd.NA
    frame = pd.DataFrame(
        {
            "id": np.arange(n) * 7,
            "x": rng.normal(size=n).round(4),
            "w": rng.choice(["a", "b", None], n),
            "g": gappy,
            "flag": rng.integers(0, 2, n).astype(bool),
        }
    )
    table = pa.Table.from_pandas(frame, preserve_index=False)
    plain = table.replace_schema_metadata(None)  # no pandas metadata: "g" read as float64
    pq.write_table(plain, tmp_path / "plain.parquet", row_group_size=400)
    frame.to_parquet(tmp_path / "pandas.parquet", index=False, row_group_size=400)
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "8192")
    try:
        for name in ("plain.parquet", "pandas.parquet"):
            read = read_parquet_spark(tmp_path / name, spark=spark)
            assert read is not None
            got, ds = read
            assert got.sdf.rdd.getNumPartitions() > 3
            want = read_table(tmp_path / name).frame
            assert dict(ds.frame.dtypes) == dict(want.dtypes)
            pd.testing.assert_frame_equal(got.to_pandas(), want)
            chunks = list(parquet_tables_spark(got))
            # each batch is the Arrow table the chunk writer makes of the local frame's records
            whole = pa.Table.from_pandas(want, preserve_index=False)
            assert all(c.schema.equals(whole.schema, check_metadata=True) for c in chunks)
            assert pa.concat_tables(chunks).equals(whole)
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    assert read_table(tmp_path / "plain.parquet").frame["g"].dtype == np.float64
    assert read_table(tmp_path / "pandas.parquet").frame["g"].dtype == pd.Int64Dtype()


def test_a_parquet_file_spark_would_read_apart_is_left_to_the_driver(spark, tmp_path):
    from hidekit.engines.spark_parquet import read_parquet_spark

    dates = pd.DataFrame({"d": pd.to_datetime(["2020-01-02", "2021-03-04"]), "v": [1, 2]})
    dates.to_parquet(tmp_path / "dates.parquet", index=False)
    pd.DataFrame({"v": pd.Series([], dtype="int64")}).to_parquet(tmp_path / "empty.parquet")
    assert read_parquet_spark(tmp_path / "dates.parquet", spark=spark) is None
    assert read_parquet_spark(tmp_path / "empty.parquet", spark=spark) is None
