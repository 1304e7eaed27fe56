"""Cells counted on a CSV's distinct lines equal cells counted on its columns and read_table's."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.engines import duckdb_engine, make_engine
from hidekit.engines.duckdb_engine import DuckDBEngine
from hidekit.engines.file_engine import FileEngine, _decode
from hidekit.io import line_cells as line_cells_module
from hidekit.io import read_table
from hidekit.io.direct import DirectSource, direct_source, stream_cells
from hidekit.io.line_cells import chao1, line_cells

ADULT = Path(__file__).parent / "fixtures" / "adult" / "adult.csv"
ADULT_KEYS = ["sex", "age", "race", "marital-status", "education", "native-country"]


def source_of(path: Path) -> DirectSource:
    source = direct_source(path)
    assert source is not None
    return source


def rows(frame: pd.DataFrame) -> list[tuple]:
    """Cells as sortable tuples of typed values (repr keeps 5 and "5" apart)."""
    return sorted(
        tuple("<NA>" if pd.isna(v) else repr(v) for v in row)
        for row in frame.itertuples(index=False)
    )


def by_lines(path: Path, keys: list[str]) -> pd.DataFrame:
    found = line_cells(duckdb.connect(), source_of(path), keys, force=True)
    assert found is not None
    return _decode(*found)[[*keys, "_n"]]


def by_columns(path: Path, keys: list[str]) -> pd.DataFrame:
    return _decode(*stream_cells(duckdb.connect(), source_of(path), keys))[[*keys, "_n"]]


def test_adult_cells_by_lines_equal_by_columns_and_read_table():
    keys = ADULT_KEYS
    got = by_lines(ADULT, keys)
    assert rows(got) == rows(by_columns(ADULT, keys))
    ref = DuckDBEngine(read_table(ADULT).frame).cell_counts(keys)
    assert rows(got) == rows(ref[[*keys, "_n"]])
    assert got["_n"].sum() == 30162


def test_a_file_of_few_distinct_lines_is_counted_by_lines(tmp_path, monkeypatch):
    """The sample's verdict: few distinct lines take the line reading, a record id does not."""
    monkeypatch.setattr(duckdb_engine, "DIRECT_FROM_BYTES", 0)
    path = tmp_path / "few.csv"
    path.write_text("a,b,c\n" + "1,x,u\n2,y,u\n1,x,u\n" * 50)
    assert line_cells(duckdb.connect(), source_of(path), ["a", "b"]) is not None
    eng = make_engine(path)
    assert isinstance(eng, FileEngine)
    assert sorted(eng.class_sizes(["a", "b"])) == [50, 100]
    ids = tmp_path / "ids.csv"
    ids.write_text("id,a\n" + "".join(f"{i},{i % 2}\n" for i in range(300)))
    assert line_cells(duckdb.connect(), source_of(ids), ["a"]) is None


def test_a_sample_of_distinct_lines_estimates_more_lines_than_the_cap(tmp_path, monkeypatch):
    """Keys that are (nearly) every column, yet every line distinct: the sample's estimate of the
    file's distinct lines is far over the cap, so the file is not grouped by line at all."""
    path = tmp_path / "unique.csv"
    path.write_text("a,b\n" + "".join(f"{i},{i % 7}\n" for i in range(3000)))
    assert chao1([1] * 3000) == 3000 + 3000 * 2999 / 2
    grouped: list[str] = []
    monkeypatch.setattr(line_cells_module, "_line_relation", lambda *a: grouped.append("group"))
    assert line_cells(duckdb.connect(), source_of(path), ["a", "b"]) is None
    assert grouped == []  # refused on the sample, before any grouping


def test_chao1_by_hand():
    # 3 values seen once, 1 twice, 1 four times: 5 + 3 * 2 / (2 * 2)
    assert chao1([1, 1, 1, 2, 4]) == 5 + 1.5
    assert chao1([3, 3]) == 2


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("quoted line break", 'a,b\n1,"x\ny"\n2,z\n'),
        ("control byte", "a,b\n1,x\x01y\n2,z\n"),
        ("short line", "a,b,c\n1,2,3\n1,2\n"),
        ("long line", "a,b\n1,2\n1,2,3\n"),
        ("text after a closing quote", 'a,b\n1,"x"y\n'),
    ],
)
def test_lines_that_are_not_one_record_are_left_to_the_column_reading(tmp_path, name, text):
    path = tmp_path / "odd.csv"
    path.write_text(text)
    assert line_cells(duckdb.connect(), source_of(path), ["a", "b"], force=True) is None, name


def test_blank_lines_and_crlf_are_read_as_read_table_reads_them(tmp_path):
    path = tmp_path / "crlf.csv"
    path.write_bytes(b'a,b\r\n1,x\r\n\r\n1,x\r\n2,""\r\n')
    got = by_lines(path, ["a", "b"])
    assert rows(got) == rows(by_columns(path, ["a", "b"]))
    assert rows(got) == rows(DuckDBEngine(read_table(path).frame).cell_counts(["a", "b"]))


VALUES = st.sampled_from(
    ["", "5", " 5", "+5", "05", "1.5", "1.50", "x", "a,b", 'say "hi"', " ", "é", "NA", "-0"]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(VALUES, VALUES, VALUES), min_size=1, max_size=30))
def test_any_table_by_lines_equals_by_columns(tmp_path, records):
    """Quoting, delimiters inside values, empty cells, numbers written several ways: the distinct
    lines split by Python's csv give the cells DuckDB's column reading gives."""
    path = tmp_path / "any.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "c"])
        writer.writerows(records)
    for keys in (["a", "b", "c"], ["c", "a"]):
        assert rows(by_lines(path, keys)) == rows(by_columns(path, keys))
