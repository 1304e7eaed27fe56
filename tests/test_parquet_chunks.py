"""Parquet output by chunks (issue 17): ``io.parquet_chunks`` writes the file ``to_parquet`` writes
for the whole table, byte for byte (row groups across chunk ends included), and ``anonymize``,
``suppress`` and ``anonymize --method optimal`` released to Parquet by chunks give the in-memory
run's file; chunks typed apart are written whole."""

from __future__ import annotations

import filecmp
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import hidekit.jobs.table as job_table
from hidekit import jobs
from hidekit.io.parquet_chunks import ChunksTypedApart, chunked_parquet
from hidekit.jobs import SecretOptions

ADULT = Path(__file__).parent / "fixtures" / "adult"
N = 500


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["Male", "Female"], n),
            "education": rng.choice(["Bachelors", "Masters", "11th", "HS-grad"], n),
            "income": np.round(rng.normal(3e4, 1e4, n), 2),
            "visits": pd.array(rng.choice([1, 2, None], n), dtype="Int64"),
            "dx": rng.choice(["flu", "cold", "hiv", None], n),
        }
    )


@pytest.mark.parametrize("rows", [7, 100, 499])
def test_chunks_write_the_whole_tables_bytes(tmp_path, rows):
    """Row groups of 64 records, chunks of ``rows``: the file pyarrow writes for the whole
    table with the same row groups, as to_parquet writes it (snappy, pandas metadata)."""
    frame = _table(N, 0)
    whole = tmp_path / "whole.parquet"
    frame.to_parquet(whole, index=False, row_group_size=64)
    out = tmp_path / f"chunks-{rows}.parquet"
    with chunked_parquet(out, row_group=64) as parquet:
        for start in range(0, N, rows):
            parquet.write(frame.iloc[start : start + rows])
    assert pq.ParquetFile(out).metadata.num_row_groups == -(-N // 64)
    assert filecmp.cmp(whole, out, shallow=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out), frame)


@pytest.mark.parametrize("missing", [slice(0, 10), slice(20, 40), slice(30, 40)])
def test_a_text_column_missing_in_a_whole_chunk_takes_the_files_type(tmp_path, missing):
    """A chunk whose text column is all missing (Arrow's null type in that chunk alone): first,
    in the middle, last; row groups of 16 across chunks of 10: the whole table's bytes. Missing
    in every record of the first row group, the column cannot be typed in time: refused."""
    frame = _table(40, 1)
    frame.loc[frame.index[missing], "dx"] = None
    whole = tmp_path / "whole.parquet"
    frame.to_parquet(whole, index=False, row_group_size=16)
    out = tmp_path / "chunks.parquet"
    with chunked_parquet(out, row_group=16) as parquet:
        for start in range(0, 40, 10):
            parquet.write(frame.iloc[start : start + 10])
    assert filecmp.cmp(whole, out, shallow=False)
    late = _table(40, 1)
    late.loc[:19, "dx"] = None
    with pytest.raises(ChunksTypedApart), chunked_parquet(out, row_group=16) as parquet:
        for start in range(0, 40, 10):
            parquet.write(late.iloc[start : start + 10])


def test_chunks_typed_apart_leave_nothing(tmp_path):
    """A column of numbers in one chunk and of text in the next: no file, the error said."""
    frame = _table(40, 1)
    other = frame.iloc[20:].assign(income=frame["income"].iloc[20:].astype(str))
    out = tmp_path / "apart.parquet"
    with pytest.raises(ChunksTypedApart, match="income"), chunked_parquet(out) as parquet:
        parquet.write(frame.iloc[:20])
        parquet.write(other)
    assert list(tmp_path.iterdir()) == []


def _refusing(monkeypatch, *targets):
    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run fell back to memory")

    for module, name in targets:
        monkeypatch.setattr(module, name, refuse)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_jobs_release_parquet_by_chunks_as_in_memory(tmp_path, suffix, monkeypatch):
    import hidekit.jobs.optimal as job_optimal
    import hidekit.transforms.suppression as suppression

    data = tmp_path / f"in{suffix}"
    frame = _table(N, 2)
    frame.to_csv(data, index=False) if suffix == ".csv" else frame.to_parquet(data, index=False)
    (tmp_path / "key").write_bytes(b"k" * 32)
    secrets = SecretOptions(key_file=str(tmp_path / "key"))
    hier = {k: str(ADULT / f"adult_hierarchy_{k}.csv") for k in ("age", "sex")}
    runs = {
        "mondrian": lambda out, **kw: jobs.anonymize(
            data, out, keys=["age", "sex"], k=4, secrets=secrets, identifiers=["name"], **kw
        ),
        "suppress": lambda out, **kw: jobs.suppress(
            data, out, keys=["age", "education"], k=3, **kw
        ),
        "optimal": lambda out, **kw: jobs.anonymize_optimal(
            data, out, keys=["age", "sex"], hierarchies=hier, k=5, suppression=0.05, **kw
        ),
    }
    wholes = {name: tmp_path / f"{name}-whole.parquet" for name in runs}
    figures = {name: run(wholes[name]).figures for name, run in runs.items()}
    _refusing(
        monkeypatch,
        (job_table, "_anonymize_in_memory"),
        (suppression, "local_suppression"),
        (job_optimal, "_release_whole"),
    )
    for name, run in runs.items():
        for rows in (37, N - 1):
            out = tmp_path / f"{name}-{rows}.parquet"
            got = run(out, chunk_rows=rows).figures
            assert filecmp.cmp(wholes[name], out, shallow=False), (name, rows)
            drop = ("output", "seconds", "stats")
            assert {k: v for k, v in got.items() if k not in drop} == {
                k: v for k, v in figures[name].items() if k not in drop
            }, name
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_release_with_a_text_column_missing_in_a_chunk(tmp_path):
    """Local suppression by chunks to Parquet where one chunk's text column is all missing:
    the in-memory file."""
    frame = _table(60, 3)
    frame.loc[:29, "dx"] = None
    data = tmp_path / "in.csv"
    frame.to_csv(data, index=False)
    kw = {"keys": ["age", "sex"], "k": 2}
    jobs.suppress(data, tmp_path / "whole.parquet", **kw)
    jobs.suppress(data, tmp_path / "chunks.parquet", chunk_rows=30, **kw)
    assert filecmp.cmp(tmp_path / "whole.parquet", tmp_path / "chunks.parquet", shallow=False)


def test_a_parquet_file_of_many_records_goes_by_chunks_whatever_its_size(tmp_path, monkeypatch):
    """Parquet is compressed: a file of STREAM_ROWS records or more (here 400 of 500) runs by
    chunks without --chunk-rows, one below stays in memory; both give the same file."""
    import hidekit.jobs.frame_stream as frame_stream

    data = tmp_path / "in.parquet"
    _table(N, 4).to_parquet(data, index=False)
    kw = {"keys": ["age", "education"], "k": 3}
    monkeypatch.setattr(frame_stream, "STREAM_ROWS", N + 1)
    jobs.suppress(data, tmp_path / "whole.csv", **kw)
    monkeypatch.setattr(frame_stream, "STREAM_ROWS", 400)
    import hidekit.transforms.suppression as suppression

    _refusing(monkeypatch, (suppression, "local_suppression"))
    jobs.suppress(data, tmp_path / "chunks.csv", **kw)
    assert filecmp.cmp(tmp_path / "whole.csv", tmp_path / "chunks.csv", shallow=False)


def test_parquet_chunks_of_some_columns_are_those_of_the_whole_read(tmp_path):
    """The count pass reads the keys only: typed as read_table types them in the whole file
    (a whole-number column with a gap in one chunk read as floats in every chunk)."""
    import pyarrow as pa

    from hidekit.io import read_table
    from hidekit.io.frame_chunks import parquet_frames

    frame = _table(N, 5).assign(visits=lambda f: f["visits"].astype("float"))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    at = table.schema.get_field_index("visits")
    gaps = pa.array(frame["visits"].astype("Int64"), pa.int64())
    path = tmp_path / "some.parquet"
    pq.write_table(table.set_column(at, "visits", gaps), path, row_group_size=64)
    cols = ["visits", "sex"]
    chunks = list(parquet_frames(path, 50, cols))
    assert list(chunks[0].columns) == cols and len(chunks) == -(-N // 50)
    whole = read_table(path).frame[cols]
    assert whole["visits"].dtype == np.float64
    pd.testing.assert_frame_equal(pd.concat(chunks, ignore_index=True), whole)
