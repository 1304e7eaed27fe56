"""A whole release plan on Spark gives the files the local engine gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]

KEY = bytes(range(7, 39))  # a test key: 32 bytes, all different


def _audit(folder: Path) -> list[dict]:
    """Audit lines without their timings (the one field that differs from run to run)."""
    lines = (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]


def test_the_demo_plan_gives_identical_files_on_both_engines(spark, tmp_path):
    from hidekit.demo.steps import DEMO_PLAN
    from hidekit.demo.survey import generate_survey
    from hidekit.io import write_table
    from hidekit.jobs.files import read_crosswalk
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    write_table(generate_survey(400, 7), tmp_path / "survey.csv")
    results = {}
    for engine in ("duckdb", "spark"):
        plan = load_plan(DEMO_PLAN, output=tmp_path / engine, key=KEY)
        plan.input = tmp_path / "survey.csv"
        results[engine] = run_plan(plan, engine=engine, scan=False)
    local, remote = tmp_path / "duckdb", tmp_path / "spark"
    # every step of the demo plan ran: encode, remove, jitter, bin, safe_harbor, map_values,
    # topcode and suppress (which blanked cells, so the test covers a real search)
    assert [s.use for s in results["spark"].steps] == [s.use for s in results["duckdb"].steps]
    assert sum(results["duckdb"].steps[-1].cells_changed.values()) > 0
    assert (remote / "survey.csv").read_bytes() == (local / "survey.csv").read_bytes()
    assert (remote / "survey.csv").stat().st_mode == (local / "survey.csv").stat().st_mode
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["survey.csv", "duckdb", "duckdb.private", "spark", "spark.private"]
    )  # no temporary folder left beside the release
    assert _audit(remote) == _audit(local)
    crosswalks = [
        read_crosswalk(next((tmp_path / f"{e}.private").glob("crosswalk*")), key_file=KEY)
        for e in ("duckdb", "spark")
    ]
    assert crosswalks[0].equals(crosswalks[1])


def test_a_plan_with_mondrian_and_suppression_gives_identical_files(spark, tmp_path):
    """The demo plan with a Mondrian step (keyed shuffle) before local suppression: the two steps
    Spark runs with its own code (count tables on the driver, records on the executors)."""
    from hidekit.demo.steps import DEMO_PLAN
    from hidekit.demo.survey import generate_survey
    from hidekit.io import write_table
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    write_table(generate_survey(300, 11), tmp_path / "survey.csv")
    text = Path(DEMO_PLAN).read_text(encoding="utf-8")
    mondrian = '[[steps]]\nuse = "mondrian"\nkeys = ["age", "state"]\nk = 3\n\n# 4.'
    assert "# 4." in text
    (tmp_path / "plan.toml").write_text(text.replace("# 4.", mondrian, 1), encoding="utf-8")
    results = {}
    for engine in ("duckdb", "spark"):
        plan = load_plan(tmp_path / "plan.toml", output=tmp_path / engine, key=KEY)
        plan.input = tmp_path / "survey.csv"
        results[engine] = run_plan(plan, engine=engine, scan=False)
    uses = [s.use for s in results["spark"].steps]
    assert uses[-2:] == ["mondrian", "suppress"]
    assert uses == [s.use for s in results["duckdb"].steps]
    local, remote = tmp_path / "duckdb", tmp_path / "spark"
    assert (remote / "survey.csv").read_bytes() == (local / "survey.csv").read_bytes()
    assert _audit(remote) == _audit(local)
    assert results["spark"].steps[-2].cells_changed  # Mondrian generalized (and moved) cells


def test_the_scan_and_the_loss_are_the_same_on_both_engines(spark, tmp_path, monkeypatch):
    """With the PII scan on (its seeded sample taken by row number on Spark) and the information
    loss counted on Spark: the same flags and figures as the default engine, a sample smaller
    than the table; only the columns a step changed are compared record by record."""
    from hidekit.demo.steps import DEMO_PLAN
    from hidekit.demo.survey import generate_survey
    from hidekit.io import write_table
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan, tables

    write_table(generate_survey(500, 3), tmp_path / "survey.csv")
    compared: list[str] = []
    real = tables.spark_information_loss

    def spy(old, new, columns):
        compared.extend(columns)
        return real(old, new, columns)

    monkeypatch.setattr(tables, "spark_information_loss", spy)
    results = {}
    old = tables.DEFAULT_SAMPLE
    tables.DEFAULT_SAMPLE = 123  # the scan reads a sample, not the whole table
    try:
        for engine in ("duckdb", "spark"):
            plan = load_plan(DEMO_PLAN, output=tmp_path / engine, key=KEY)
            plan.input = tmp_path / "survey.csv"
            results[engine] = run_plan(plan, engine=engine, scan=True)
    finally:
        tables.DEFAULT_SAMPLE = old
    local, remote = results["duckdb"], results["spark"]
    assert remote.loss == local.loss and any(v.generalized for v in local.loss)
    stepped = {c for s in local.steps for c in s.cells_changed}
    assert compared and set(compared) <= stepped and len(compared) < len(local.loss)
    # the others lost nothing, or only the cells a suppression blanked (its own count)
    assert any(v.suppressed for v in local.loss if v.column not in compared)
    assert not any(v.generalized for v in local.loss if v.column not in compared)
    assert remote.scan_flagged == local.scan_flagged
    assert (tmp_path / "spark" / "survey.csv").read_bytes() == (
        tmp_path / "duckdb" / "survey.csv"
    ).read_bytes()


def test_spark_reads_and_writes_a_csv_as_hidekit_does(spark, tmp_path):
    """Spark's reader under hidekit's rules gives read_table's types and values; its writer gives
    write_table's bytes (quotes, line breaks in a cell, formulas neutralized, missing cells)."""
    import pandas as pd

    from hidekit.engines.spark_io import read_csv_spark, write_csv_spark
    from hidekit.io import read_table, write_table

    text = (
        "zip;n;x;word;mixed;blank\n"
        '"01234";1;1.5;"a;b";3;\n'
        '"02000";;2;"=SUM(A1)";x;""\n'
        '"12345";-3;.5e1;"two\nlines";4;\n'
        '"00001";+7;;"say ""hi""";5.5;\n'
    )
    for enc in ("utf-8", "cp1252"):
        src = tmp_path / f"in-{enc}.csv"
        src.write_bytes(text.replace("word", "wörd").encode(enc))
        table, ds = read_csv_spark(src, spark=spark)
        want = read_table(src)
        got = table.to_pandas()
        pd.testing.assert_frame_equal(got, want.frame)
        assert ds.options == want.options
        pd.testing.assert_series_equal(ds.frame.dtypes, want.frame.dtypes)
        write_csv_spark(table, tmp_path / "spark.csv", ds.options["sep"])
        write_table(want, tmp_path / "local.csv")
        assert (tmp_path / "spark.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
        assert not list(tmp_path.glob(".hidekit-*"))  # Spark's parts folder is gone


def test_a_record_longer_than_the_header_is_refused_on_spark_too(spark, tmp_path):
    """Spark drops fields beyond the header without a word; read_table refuses the file. Both
    engines refuse it, quoted or not; a short record is missing values on both."""
    import pandas as pd

    from hidekit.engines.spark_io import read_csv_spark
    from hidekit.errors import InputError
    from hidekit.io import read_table

    for name, text in [
        ("plain.csv", "a,b,c\n1,x,u\n2,y,v,EXTRA\n3,z,w\n"),
        ("quoted.csv", 'a,b,c\n1,"x\ny",u\n2,y,v,"EXTRA"\n'),
    ]:
        src = tmp_path / name
        src.write_text(text)
        with pytest.raises(InputError):
            read_table(src)
        with pytest.raises(InputError, match="a record has 4 fields where the header has 3"):
            read_csv_spark(src, spark=spark)
    short = tmp_path / "short.csv"
    short.write_text('a,b,c\n1,x,u\n3,z\n"4","q\nr",w\n')
    table, _ = read_csv_spark(short, spark=spark)
    pd.testing.assert_frame_equal(table.to_pandas(), read_table(short).frame)


def test_a_csv_split_into_many_blocks_keeps_its_record_order(spark, tmp_path):
    """A file without quotes is split into blocks read in parallel: the row numbers still follow
    the file (blocks ordered by where they start, each one's records by their place in it)."""
    import numpy as np
    import pandas as pd

    from hidekit.engines.spark_io import read_csv_spark
    from hidekit.io import read_table

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "id": np.arange(3000),
            "x": rng.normal(size=3000).round(4),
            "w": rng.choice(["a", "b"], 3000),
        }
    )
    frame.to_csv(tmp_path / "big.csv", index=False)
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "4096")  # about 12 blocks
    try:
        table, _ = read_csv_spark(tmp_path / "big.csv", spark=spark)
        assert table.sdf.rdd.getNumPartitions() > 4
        got = table.to_pandas()
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    pd.testing.assert_frame_equal(got, read_table(tmp_path / "big.csv").frame)


def test_spark_types_numbers_as_read_table_does_at_the_edges(spark, tmp_path):
    """Whole numbers past 64 bits and digits or spaces to_numeric cannot read stay text on both
    engines (Spark's cast would have made them missing); a wide number among decimals is a float."""
    import pandas as pd

    from hidekit.engines.spark_io import read_csv_spark
    from hidekit.io import read_table

    src = tmp_path / "edges.csv"
    src.write_text(
        "id,wide,arabic,nbsp,ends,mixed\n"
        "1,9223372036854775808,\u0663,\xa05,9223372036854775807,123456789012345678901234\n"
        "2,5,5,5,-9223372036854775808,1.5\n"
    )
    table, _ = read_csv_spark(src, spark=spark)
    want = read_table(src).frame
    pd.testing.assert_frame_equal(table.to_pandas(), want)
    assert [str(t) for t in want.dtypes] == [
        "Int64",
        "object",
        "object",
        "object",
        "Int64",
        "float64",
    ]


def test_a_word_after_the_first_records_still_makes_a_column_text(spark, tmp_path):
    """The first records decide only the columns where they hold a word; a word, a leading zero
    or a decimal that comes later still types its column as ``read_table`` does."""
    import pandas as pd

    from hidekit.engines.spark_io import _SAMPLE, read_csv_spark
    from hidekit.io import read_table

    n = _SAMPLE + 500
    frame = pd.DataFrame(
        {
            "late_word": [str(i) for i in range(n)],
            "late_zero": [str(i + 1) for i in range(n)],
            "late_decimal": [str(i) for i in range(n)],
            "ints": [str(i) for i in range(n)],
            "early_word": ["x"] + [str(i) for i in range(1, n)],
        }
    )
    frame.loc[n - 3, "late_word"] = "n/a"
    frame.loc[n - 2, "late_zero"] = "007"
    frame.loc[n - 1, "late_decimal"] = "2.5"
    src = tmp_path / "late.csv"
    frame.to_csv(src, index=False)
    table, _ = read_csv_spark(src, spark=spark)
    want = read_table(src).frame
    assert [str(t) for t in want.dtypes] == ["object", "object", "float64", "Int64", "object"]
    pd.testing.assert_frame_equal(table.to_pandas(), want)
