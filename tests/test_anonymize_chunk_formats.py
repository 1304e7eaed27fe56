"""``hidekit anonymize`` (Mondrian) and ``hidekit suppress`` by chunks from Parquet, Stata and SPSS
files (issue 17): the typed chunks are counted, cut and released as a CSV's are, and give the
in-memory run's file byte for byte and its figures, which the chunked runs never compute."""

from __future__ import annotations

import filecmp
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hidekit.jobs.table as job_table
import hidekit.transforms.suppression as suppression
from chunk_files import write_frame
from hidekit import jobs
from hidekit.jobs import SecretOptions

N = 400
MONDRIAN = {
    "k5, shuffled": {"keys": ["age", "sex", "education"], "k": 5},
    "l-diverse": {"keys": ["age", "education"], "k": 3, "l": 2, "sensitive": "dx"},
    "in order, identifiers": {
        "keys": ["age", "sex"],
        "k": 4,
        "shuffle": False,
        "identifiers": ["name"],
    },
    "partial": {"keys": ["age", "sex"], "k": 4, "mode": "partial", "sensitive": "dx"},
}
SUPPRESS = {
    "three keys": {"keys": ["age", "sex", "education"], "k": 3},
    "wildcard": {"keys": ["age", "dx"], "k": 2, "missing": "wildcard"},
}


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    visits = rng.integers(0, 9, n).astype(float)
    visits[rng.random(n) < 0.01] = np.nan  # missing in a few chunks only
    return pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n).astype(float),
            "sex": rng.choice(["F", "M"], n),
            "education": rng.choice(["Bachelors", "Masters", "11th", "HS-grad"], n),
            "income": np.round(rng.normal(3e4, 1e4, n), 2),
            "visits": visits,
            "dx": rng.choice(["flu", "cold", "hiv", "ok"], n),
            "note": rng.choice(["1.5", "2", "x, y", 'say "hi"', "=1+2"], n),
        }
    )


@pytest.fixture(scope="module", params=[".parquet", ".dta", ".sav"])
def data(request, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("chunk-formats")
    path = folder / f"in{request.param}"
    frame = _table(N, 0)
    write_frame(frame, path, row_group_size=50)
    (folder / "key").write_bytes(b"k" * 32)
    return path


def _figures(result) -> dict:
    out = dict(result.figures)
    out.pop("output")
    if "stats" in out:
        out["stats"] = {k: v for k, v in out["stats"].items() if k != "seconds"}
    return out


@pytest.mark.parametrize("case", sorted(MONDRIAN))
def test_mondrian_by_chunks_gives_the_in_memory_release(data, case, monkeypatch):
    kw = MONDRIAN[case]
    secrets = SecretOptions(key_file=str(data.parent / "key"))
    whole_out = data.parent / f"m-{case}-whole.csv"
    whole = jobs.anonymize(data, whole_out, secrets=secrets, **kw)

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run fell back to memory")

    monkeypatch.setattr(job_table, "_anonymize_in_memory", refuse)
    for rows in (13, N - 1):
        out = data.parent / f"m-{case}-{rows}.csv"
        chunked = jobs.anonymize(data, out, secrets=secrets, chunk_rows=rows, **kw)
        assert filecmp.cmp(whole_out, out, shallow=False), rows
        assert _figures(chunked) == _figures(whole)
        assert chunked.warnings == whole.warnings
    assert [p.name for p in data.parent.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("case", sorted(SUPPRESS))
def test_suppression_by_chunks_gives_the_in_memory_release(data, case, monkeypatch):
    kw = SUPPRESS[case]
    whole_out = data.parent / f"s-{case}-whole.csv"
    whole = jobs.suppress(data, whole_out, **kw)
    assert whole.figures["total_suppressed"] > 0

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run fell back to memory")

    monkeypatch.setattr(suppression, "local_suppression", refuse)
    for rows in (13, N - 1):
        out = data.parent / f"s-{case}-{rows}.csv"
        chunked = jobs.suppress(data, out, chunk_rows=rows, **kw)
        assert filecmp.cmp(whole_out, out, shallow=False), rows
        assert _figures(chunked) == _figures(whole)


def test_a_text_column_empty_in_whole_chunks(tmp_path):
    """A Parquet text column missing in every record of a chunk: the same file and figures by
    chunks as in memory."""
    frame = _table(60, 1)
    frame.loc[:29, "note"] = None
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.set_column(table.schema.get_field_index("note"), "note", pa.array(frame["note"]))
    path = tmp_path / "gap.parquet"
    pq.write_table(table, path, row_group_size=30)
    whole = jobs.suppress(path, tmp_path / "whole.csv", keys=["age", "note"], k=2)
    chunked = jobs.suppress(
        path, tmp_path / "chunked.csv", keys=["age", "note"], k=2, chunk_rows=30
    )
    assert filecmp.cmp(tmp_path / "whole.csv", tmp_path / "chunked.csv", shallow=False)
    assert _figures(chunked) == _figures(whole)
