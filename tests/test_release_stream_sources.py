"""A release plan run by chunks from Parquet, Stata, SPSS and SAS files (``release.stream_readers``)
gives the in-memory release byte for byte, with chunks smaller than the file; labels travel; the
readers never hold more records than a chunk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hidekit.demo.survey import generate_survey
from hidekit.io import Dataset, read_table, write_table
from hidekit.jobs.files import new_key_file, read_crosswalk
from hidekit.jobs.release_job import run_plan

ROOT = Path(__file__).resolve().parents[1]


def _audit(folder: Path) -> list[dict]:
    lines = [json.loads(x) for x in (folder / "audit.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("seconds", None)
        line.get("parameters", {}).pop("path", None)
    return lines


def _plan(tmp_path: Path, data: str, steps: str = "") -> Path:
    new_key_file(tmp_path / "k.key")
    plan = (ROOT / "examples" / "demo-plan.toml").read_text()
    plan = plan.replace("../demo-output/survey.csv", data)
    plan = plan.replace("../demo-output/demo.key", "k.key")
    plan = plan.replace('folder = "../demo-output/release"', 'folder = "release"')
    if steps:
        plan = plan[: plan.index("[[steps]]")] + steps
    path = tmp_path / "plan.toml"
    path.write_text(plan)
    return path


def _plain_plan(tmp_path: Path, data: str, direct: list, keys: list, steps: str) -> Path:
    new_key_file(tmp_path / "k.key")
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'[input]\npath = "{data}"\n[output]\nfolder = "release"\n[roles]\n'
        f"direct = {json.dumps(direct)}\nkeys = {json.dumps(keys)}\n[risk]\nk = 3\nrp = 0.0\n"
        '[secrets]\nkey_file = "k.key"\n' + steps
    )
    return plan


def _same_release(plan: Path, tmp_path: Path, chunks: list[int], monkeypatch=None) -> list:
    """``plan`` in memory and by each chunk size: the same data file, audit and crosswalk."""
    mem = run_plan(plan, output=tmp_path / "mem")
    assert mem.chunks == 0
    data = mem.files["data"]
    results = [mem]
    for n in chunks:
        res = run_plan(plan, output=tmp_path / f"c{n}", chunk_rows=n)
        assert res.chunks == -(-mem.records // n)  # it did run by chunks
        assert (tmp_path / f"c{n}" / data).read_bytes() == (tmp_path / "mem" / data).read_bytes()
        assert _audit(tmp_path / f"c{n}") == _audit(tmp_path / "mem")
        assert res.loss == mem.loss and res.after == mem.after and res.before == mem.before
        if (tmp_path / "mem.private").exists():
            a = read_crosswalk(
                tmp_path / "mem.private" / "crosswalk.hkcw", key_file=tmp_path / "k.key"
            )
            b = read_crosswalk(
                tmp_path / f"c{n}.private" / "crosswalk.hkcw", key_file=tmp_path / "k.key"
            )
            pd.testing.assert_frame_equal(a, b)
        results.append(res)
    return results


def _survey(records: int) -> pd.DataFrame:
    frame = generate_survey(records, 5)
    frame.loc[frame.index % 7 == 3, "income"] = None  # whole numbers with gaps: floats in pandas
    frame.loc[frame.index % 11 == 5, "marital_status"] = None
    frame.loc[frame.index % 13 == 2, "latitude"] = None  # points without coordinates
    return frame


def test_demo_plan_from_parquet_by_chunks_is_the_in_memory_release(tmp_path):
    frame = _survey(1500)
    frame["income"] = frame["income"].astype("Int64")  # an Int64 column with gaps
    # row groups of 128 records: a chunk spans groups, a forked half starts inside one
    frame.to_parquet(tmp_path / "survey.parquet", index=False, row_group_size=128)
    plan = _plan(tmp_path, "survey.parquet")
    mem, *_ = _same_release(plan, tmp_path, [7, 500, 1499])
    assert mem.files["data"] == "survey.parquet"
    assert any(s.cells_changed for s in mem.steps if s.use == "suppress")
    out = pd.read_parquet(tmp_path / "c7" / "survey.parquet")
    assert len(out) == 1500 and out["income"].isna().sum() == 214


def test_parquet_of_a_non_pandas_writer_by_chunks(tmp_path):
    # written by Arrow alone (no pandas metadata): int64 with gaps read as float64 in every chunk
    rng = np.random.default_rng(3)
    n = 2000
    ages = pa.array(rng.integers(18, 90, n), mask=np.arange(n) % 9 == 0)
    table = pa.table(
        {
            "id": pa.array(np.arange(n) * 3),
            "age": ages,
            "sex": pa.array(rng.choice(["F", "M"], n)),
            "score": pa.array(rng.normal(size=n).round(2)),
        }
    )
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=300)
    steps = """
[[steps]]
use = "encode"
columns = ["id"]

[[steps]]
use = "bin"
columns = ["age"]
width = 10

[[steps]]
use = "suppress"
keys = ["sex", "age"]
k = 3
"""
    plan = _plain_plan(tmp_path, "t.parquet", ["id"], ["sex", "age"], steps)
    _same_release(plan, tmp_path, [64, 1999])


def _labelled_survey(records: int) -> Dataset:
    """The survey as a statistical file holds it: numbers as floats, the urban/rural flag coded
    1/2 with value labels (jitter reads them), variable labels on a few columns."""
    frame = _survey(records)
    frame["urban_rural"] = frame["urban_rural"].map({"urban": 1.0, "rural": 2.0})
    for c in ("record_id", "age", "income"):
        frame[c] = frame[c].astype("float64")
    return Dataset(
        frame,
        "stata",
        variable_labels={"age": "Age in years", "income": "Yearly income"},
        value_labels={"urban_rural": {1.0: "urban", 2.0: "rural"}},
    )


@pytest.mark.parametrize("suffix", [".dta", ".sav"])
def test_demo_plan_from_a_statistical_file_by_chunks(tmp_path, suffix):
    write_table(_labelled_survey(1500), tmp_path / f"survey{suffix}")
    plan = _plan(tmp_path, f"survey{suffix}")
    mem, small, _ = _same_release(plan, tmp_path, [7, 1499])
    jitter = next(s for s in mem.steps if s.use == "jitter")
    assert jitter.cells_changed  # points moved
    back = read_table(tmp_path / "c7" / f"survey{suffix}")
    assert back.variable_labels.get("income") == "Yearly income"
    assert back.value_labels.get("urban_rural") == {1.0: "urban", 2.0: "rural"}


def test_jitter_reads_value_labels_by_chunks(tmp_path):
    # urban/rural coded 1/2: only the value labels say which is urban (2 km, not 5): with the
    # labels lost, the chunked run would draw other distances than the in-memory run
    write_table(_labelled_survey(800), tmp_path / "survey.dta")
    steps = """
[[steps]]
use = "jitter"
lat = "latitude"
lon = "longitude"
urban = "urban_rural"

[[steps]]
use = "remove"
columns = ["name", "ssn", "phone", "email", "street_address", "birth_date", "city", "zip",
           "record_id"]
"""
    plan = _plan(tmp_path, "survey.dta", steps)
    text = plan.read_text().replace("k = 3 ", "k = 1 ")
    plan.write_text(text)
    _same_release(plan, tmp_path, [50])


def test_sas_transport_file_by_chunks(tmp_path):
    frame = _labelled_survey(600).frame
    frame = frame[["record_id", "sex", "age", "state", "race", "marital_status", "income"]]
    write_table(Dataset(frame, "sas", variable_labels={"age": "Age"}), tmp_path / "s.xpt")
    steps = """
[[steps]]
use = "encode"
columns = ["record_id"]

[[steps]]
use = "bin"
columns = ["age"]
edges = [30, 40, 50, 60, 70, 80, 90]

[[steps]]
use = "suppress"
keys = ["sex", "age", "state", "race", "marital_status"]
k = 3
"""
    keys = ["sex", "age", "state", "race", "marital_status"]
    plan = _plain_plan(tmp_path, "s.xpt", ["record_id"], keys, steps)
    _same_release(plan, tmp_path, [41])


class _Refusing:
    """A reader's batches, refusing any of more than ``most`` records (memory bounded by design:
    nothing upstream may hand over more than a chunk)."""

    def __init__(self, most: int):
        self.most, self.seen, self.largest = most, 0, 0

    def check(self, batch) -> None:
        if batch.num_rows > self.most:
            raise AssertionError(f"a batch of {batch.num_rows} records (chunks of {self.most})")
        self.seen += batch.num_rows
        self.largest = max(self.largest, batch.num_rows)


@pytest.mark.parametrize("kind", ["parquet", "stata"])
def test_reading_by_chunks_never_holds_more_than_a_chunk(tmp_path, monkeypatch, kind):
    # every record the release reads comes through the reader's batches, and pyreadstat /
    # Parquet are asked for no more than a chunk at once: a file 40 times the chunk is
    # released with no batch (nor pyreadstat chunk, nor Parquet read) above 50 records
    import hidekit.io.frame_chunks as frame_chunks
    from hidekit.release import stream, stream_readers

    if kind == "parquet":
        _survey(2000).to_parquet(tmp_path / "survey.parquet", index=False, row_group_size=128)
        data = "survey.parquet"
    else:
        write_table(_labelled_survey(2000), tmp_path / "survey.dta")
        data = "survey.dta"
    guard = _Refusing(50)
    asked: list[int] = []
    real_stat = frame_chunks.stat_frames

    def stat_frames(path, fmt, rows, *args, **kwargs):
        asked.append(int(rows))
        for frame in real_stat(path, fmt, rows, *args, **kwargs):
            assert len(frame) <= rows
            yield frame

    monkeypatch.setattr(frame_chunks, "stat_frames", stat_frames)
    for cls in (stream_readers.ParquetReader, stream_readers.StatReader):
        real = cls.batches

        def batches(self, con, columns, rows, first=0, stop=None, _real=real):
            asked.append(int(rows))
            for batch in _real(self, con, columns, rows, first, stop):
                guard.check(batch)
                yield batch

        monkeypatch.setattr(cls, "batches", batches)
    real_iter = pq.ParquetFile.iter_batches

    def iter_batches(self, batch_size=65536, **kwargs):
        asked.append(int(batch_size))
        return real_iter(self, batch_size=batch_size, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", iter_batches)
    monkeypatch.setattr(stream_readers, "_HEAD_ROWS", 50)
    monkeypatch.setattr(stream, "WORKERS", 1)  # every read in this process, where it is watched
    plan = _plan(tmp_path, data)
    res = run_plan(plan, output=tmp_path / "c", chunk_rows=50)
    assert res.chunks == 40
    assert guard.largest == 50 and guard.seen == 2 * 2000  # the fitting scan and the chunk pass
    assert asked and max(asked) == 50


def test_parquet_batches_from_a_record_inside_a_row_group(tmp_path):
    from hidekit.io.frame_chunks import parquet_batches

    frame = pd.DataFrame({"a": np.arange(1000), "b": [str(i) for i in range(1000)]})
    frame.to_parquet(tmp_path / "f.parquet", index=False, row_group_size=97)
    for first, stop in [(0, None), (150, 700), (96, 97), (97, 98), (999, None), (500, 500)]:
        got = [b for b in parquet_batches(tmp_path / "f.parquet", 33, ["a"], first, stop)]
        values = [v for b in got for v in b.column("a").to_pylist()]
        assert values == list(range(first, 1000 if stop is None else stop))
        assert all(b.num_rows <= 33 for b in got)
