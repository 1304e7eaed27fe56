"""Files read by DuckDB itself (``FileEngine``) answer exactly as the table ``read_table`` reads.

Every figure is compared with the in-memory engine over ``read_table``'s frame: the path users had
before, whose reading semantics (numbers inferred, the empty cell missing, leading zeros kept as
text) are the reference.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from hidekit.engines import duckdb_engine, make_engine
from hidekit.engines.duckdb_engine import DuckDBEngine
from hidekit.engines.file_engine import FileEngine
from hidekit.errors import InputError
from hidekit.io import read_table
from hidekit.io.direct import direct_source, encode_query, stream_codes
from hidekit.risk import measure_risk

FIXTURES = Path(__file__).parent / "fixtures"
ADULT = FIXTURES / "adult" / "adult.csv"
ADULT_KEYS = ["sex", "age", "race", "marital-status", "education", "native-country"]
SURVEY = FIXTURES / "survey" / "survey.csv"
SURVEY_KEYS = ["region", "urban", "sex", "agegroup", "hhsize"]

# numbers padded with spaces or written two ways are one value once inferred; "007" keeps its
# column as text; "" and a missing cell are both missing; a quoted delimiter is text
EDGES = (
    'id,num,zip,word,flt,txt\n1, 5,007,"a,b",1.0,x\n2,5,7,,1,\n3,+5,07,"a,b",1.50,""\n'
    "4,,0,c,.5,y\n5,6,7,c,1.5,x\n"
)


@pytest.fixture(autouse=True)
def direct_for_small_files(monkeypatch):
    """The fixtures are small: read them directly as a large file would be."""
    monkeypatch.setattr(duckdb_engine, "DIRECT_FROM_BYTES", 0)


def pair(path: Path, sep: str | None = None) -> tuple[FileEngine, DuckDBEngine]:
    eng = make_engine(path, sep=sep)
    assert isinstance(eng, FileEngine)
    return eng, DuckDBEngine(read_table(path, sep=sep).frame)


def same_cells(a: pd.DataFrame, b: pd.DataFrame, keys: list[str]) -> None:
    """Same cells with the same values and sizes (row order free)."""

    def norm(f: pd.DataFrame) -> list[tuple]:
        return sorted(
            tuple("<NA>" if pd.isna(v) else repr(v) for v in row)
            for row in f[[*keys, "_n"]].itertuples(index=False)
        )

    assert norm(a) == norm(b)


def same_partition(a: np.ndarray, b: np.ndarray) -> None:
    """Two code vectors that are equal exactly where the other is (numbering free)."""
    assert np.array_equal(pd.factorize(a)[0], pd.factorize(b)[0])


@pytest.mark.parametrize(("path", "keys"), [(ADULT, ADULT_KEYS), (SURVEY, SURVEY_KEYS)])
def test_fixture_answers_equal_read_table(path, keys):
    eng, ref = pair(path)
    assert eng.columns == ref.columns
    assert np.array_equal(np.sort(eng.class_sizes(keys)), np.sort(ref.class_sizes(keys)))
    same_cells(eng.cell_counts(keys), ref.cell_counts(keys), keys)
    sets = [[], keys[:2], keys[:3], keys, keys[1:2]]  # summed from the cells of all the keys
    assert eng.keyset_stats(sets, 5) == ref.keyset_stats(sets, 5)
    assert eng.keyset_stats([[]], 3) == ref.keyset_stats([[]], 3)
    assert np.array_equal(eng.record_cell_sizes(keys), ref.record_cell_sizes(keys))
    got, want = eng.record_codes(keys), ref.record_codes(keys)
    for j in range(len(keys)):
        same_partition(got[:, j], want[:, j])
        assert np.array_equal(got[:, j] < 0, want[:, j] < 0)
    assert eng.n_records == ref.n_records


def test_edge_values_read_as_read_table_reads_them(tmp_path):
    path = tmp_path / "edges.csv"
    path.write_text(EDGES)
    eng, ref = pair(path)
    keys = ["num", "zip", "word", "flt", "txt"]
    for k in keys:
        same_cells(eng.cell_counts([k]), ref.cell_counts([k]), [k])
    same_cells(eng.cell_counts(keys), ref.cell_counts(keys), keys)
    # " 5", "5" and "+5" are one number; "1.0" and "1" too
    assert sorted(eng.class_sizes(["num"])) == [1, 1, 3]
    assert sorted(eng.class_sizes(["flt"])) == [1, 2, 2]
    assert np.array_equal(eng.numeric_column("num"), ref.numeric_column("num"), equal_nan=True)
    with pytest.raises(InputError, match="must hold numbers"):
        eng.numeric_column("word")
    assert eng.record_codes(["num"])[3, 0] == -1  # the empty cell is missing


def test_semicolons_and_explicit_separator(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("a;b\n1;x\n1;y\n2;x\n")
    eng, ref = pair(path)
    assert eng.source.options["sep"] == ";"
    same_cells(eng.cell_counts(["a", "b"]), ref.cell_counts(["a", "b"]), ["a", "b"])
    eng2, ref2 = pair(path, sep=";")
    assert np.array_equal(np.sort(eng2.class_sizes(["a"])), np.sort(ref2.class_sizes(["a"])))


def test_short_line_falls_back_to_read_table(tmp_path):
    path = tmp_path / "short.csv"  # pandas pads a short line with missing values
    path.write_text("a,b,c\n1,2,3\n1,2\n1,2,3\n")
    eng, ref = pair(path)
    assert sorted(eng.class_sizes(["a", "b", "c"])) == [1, 2]
    same_cells(eng.cell_counts(["c"]), ref.cell_counts(["c"]), ["c"])


def test_long_line_is_a_one_line_error(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("a,b\n1,2\n1,2,3\n")
    eng = make_engine(path)
    with pytest.raises(InputError) as exc:
        eng.class_sizes(["a"])
    assert "\n" not in str(exc.value)


def test_other_encodings_are_read_as_read_table_reads_them(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("name,n\ncafé,1\nthé,2\ncafé,3\n".encode("cp1252"))
    eng = make_engine(path)
    ref = DuckDBEngine(read_table(path).frame)
    same_cells(eng.cell_counts(["name"]), ref.cell_counts(["name"]), ["name"])


def test_headers_pandas_would_rename_are_left_to_read_table(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("a,b,\n1,2,3\n")
    assert direct_source(path) is None
    assert make_engine(path).columns == ["a", "b", "Unnamed: 2"]
    path = tmp_path / "dup.csv"
    path.write_text("a,a,\n1,2,3\n")
    assert direct_source(path) is None
    with pytest.raises(InputError, match="repeats column name"):  # not renamed to "a.1"
        make_engine(path)


def test_parquet_answers_equal_read_table(tmp_path):
    frame = read_table(ADULT).frame
    frame.loc[::7, "age"] = pd.NA
    path = tmp_path / "adult.parquet"
    frame.to_parquet(path, index=False)
    eng, ref = pair(path)
    keys = ["sex", "age", "race"]
    same_cells(eng.cell_counts(keys), ref.cell_counts(keys), keys)
    assert np.array_equal(eng.record_cell_sizes(keys), ref.record_cell_sizes(keys))


def test_chunks_smaller_than_the_file_give_the_whole_file(tmp_path):
    """Memory-bounded reading: the file is read in batches far smaller than itself, and the codes
    put together equal the codes of one read."""
    source = direct_source(ADULT)
    assert source is not None
    con = duckdb.connect()
    sizes = [b.num_rows for b in con.sql(f"SELECT sex FROM {source.relation}").to_arrow_reader(997)]
    assert len(sizes) > 10 and max(sizes) <= 997 and sum(sizes) == 30162
    small = stream_codes(con, source, ADULT_KEYS, batch_rows=997)
    whole = stream_codes(con, source, ADULT_KEYS, batch_rows=1 << 20)
    frame = read_table(ADULT).frame
    for k in ADULT_KEYS:
        assert np.array_equal(
            small[k].values.take(small[k].codes), whole[k].values.take(whole[k].codes)
        )
        assert list(small[k].values.take(small[k].codes).astype(str)) == list(frame[k].astype(str))
    codes, extra = encode_query(
        con,
        f"SELECT sex, 1 AS one FROM {source.relation}",
        ["sex"],
        True,
        keep=("one",),
        batch_rows=997,
    )
    assert extra["one"].sum() == 30162 and len(codes["sex"].codes) == 30162


def close(a, b) -> bool:
    """Equal, floats within 1e-3 relative (the log-linear interval sees codes numbered otherwise)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-3, atol=0))
    return a == b


def test_small_files_are_read_by_read_table(monkeypatch):
    monkeypatch.setattr(duckdb_engine, "DIRECT_FROM_BYTES", ADULT.stat().st_size + 1)
    assert not isinstance(make_engine(ADULT), FileEngine)


def test_measure_risk_from_a_path_equals_from_a_table():
    keys = SURVEY_KEYS[:3]
    a = measure_risk(str(SURVEY), keys, by="agegroup", weights="weight").to_dict()
    b = measure_risk(read_table(SURVEY), keys, by="agegroup", weights="weight").to_dict()
    assert close(a, b)
    a.pop("estimate"), b.pop("estimate")
    assert a == b  # everything but the fitted model bit for bit


@pytest.mark.parametrize(
    "name", ["pii_Stata14.dta", "pii_spss.sav", "pii.sas7bdat", "nopii_Stata12.dta"]
)
def test_statistical_files_in_chunks_answer_as_read_table(name):
    """A Stata / SPSS / SAS file read 3 records at a time into Parquet parts counts as the whole
    file read by read_table, and its labels come along."""
    path = FIXTURES / "pii-scan" / name
    source = direct_source(path, large_bytes=0, chunk_rows=3)
    assert source is not None and source.relation.count(".parquet") > 1
    ds = read_table(path)
    eng, ref = FileEngine(source), DuckDBEngine(ds.frame)
    assert eng.columns == ref.columns
    assert source.variable_labels == ds.variable_labels
    assert source.value_labels == ds.value_labels
    for col in ref.columns:
        same_cells(eng.cell_counts([col]), ref.cell_counts([col]), [col])
    assert np.array_equal(eng.record_cell_sizes(ref.columns), ref.record_cell_sizes(ref.columns))


def test_codes_are_int32_and_answer_as_read_table(tmp_path):
    """Codes take four bytes a record while the distinct values fit (issue 17: memory), and the
    answers built on them are read_table's."""
    from hidekit.io.direct import code_dtype

    source = direct_source(ADULT)
    assert source is not None
    codes = stream_codes(duckdb.connect(), source, ADULT_KEYS, batch_rows=4096)
    assert {c.codes.dtype for c in codes.values()} == {np.dtype(np.int32)}
    assert code_dtype(2**31 - 2) is np.int32 and code_dtype(2**31) is np.int64
    eng, ref = pair(ADULT)
    assert np.array_equal(eng.record_cell_sizes(ADULT_KEYS), ref.record_cell_sizes(ADULT_KEYS))
    path = tmp_path / "gaps.csv"
    path.write_text(EDGES)
    eng, ref = pair(path)
    assert np.allclose(eng.numeric_column("num"), ref.numeric_column("num"), equal_nan=True)
    for k in ("num", "word", "txt"):
        same_partition(eng.record_codes([k])[:, 0], ref.record_codes([k])[:, 0])
