"""Readers and writers: formats, delimiters, labels, encodings, and safe output."""

from __future__ import annotations

import os
import stat

import pandas as pd
import pytest

from hidekit.errors import InputError, OptionError, OutputError
from hidekit.io import Dataset, atomic_dir, read_table, write_table, write_text_atomic
from hidekit.io.readers import detect_delimiter


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_delimiter_is_detected(tmp_path, sep):
    path = tmp_path / "d.csv"
    path.write_text(
        sep.join(["age group", "zip", "n"])
        + "\n"
        + sep.join(["20-29", "02139", "1"])
        + "\n"
        + sep.join(["30-39", "", "2"])
        + "\n"
    )
    frame = read_table(path).frame
    assert list(frame.columns) == ["age group", "zip", "n"]
    assert frame["zip"].tolist()[0] == "02139" and pd.isna(
        frame["zip"].tolist()[1]
    )  # empty = missing
    assert frame["n"].tolist() == [1, 2]


def test_sniffer_fallback_counts_consistent_splits():
    assert detect_delimiter("a;b;c\n1;2;3\n4;5;6\n") == ";"


@pytest.mark.parametrize(
    "text",
    [
        'a,"b\nb",a\n1,2,3\n4,5,6\n',  # a line break inside a quoted name
        'a,b,"c' + "x" * 40 + '"\n1,2,3\n',  # the first record longer than the prefix
        'a,"b,c\n"1,2,"' + "y" * 40 + '"\n',  # the cut falls inside a quoted value
        "a,b\n1,2,3\n",  # a second record wider than the first
        "a,b,c\n1\n",  # a second record narrower than the first
        "\n\nx,y,x\n1,2,3\n",  # blank lines before the header
    ],
)
def test_the_first_record_from_a_prefix_equals_the_whole_read(text):
    """Issue 17: the header's names are read from the text's beginning, only when a second
    record starts there; else from all of it. Either way pandas' own first record."""
    import io

    from hidekit.io.readers import _first_record

    whole = pd.read_csv(io.StringIO(text), sep=",", header=None, nrows=1, dtype=str,
                        keep_default_na=False)  # fmt: skip
    for prefix in (4, 8, 12, 20, 1 << 16):
        got = _first_record(text, ",", prefix=prefix)
        assert got.values.tolist() == whole.values.tolist(), prefix


def test_mixed_types_stay_text(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("v\n1\ntwo\n3\n")
    assert read_table(path).frame["v"].tolist() == ["1", "two", "3"]  # nothing coerced to missing


def test_a_repeated_header_name_is_refused_not_renamed(tmp_path):
    # pandas would read it as "age" and "age.1": a column the custodian never named
    path = tmp_path / "dup.csv"
    path.write_text("id;age;age;zip\n1;34;35;12345\n")
    with pytest.raises(InputError, match=r"repeats column name\(s\) 'age'"):
        read_table(path)
    # blank names (a spreadsheet's trailing delimiters) are not names: still read
    blank = tmp_path / "blank.csv"
    blank.write_text("a,b,,\n1,2,,\n")
    assert list(read_table(blank).frame.columns[:2]) == ["a", "b"]


def test_legacy_encoding_is_decoded(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("name;city\nJosé;Bogotá\n".encode("cp1252"))
    ds = read_table(path)
    assert ds.frame["city"].tolist() == ["Bogotá"] and ds.options["encoding"] == "cp1252"
    with pytest.raises(InputError, match="not valid utf-8"):
        read_table(path, encoding="utf-8")


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("pii_Stata14.dta", "stata"),
        ("pii_Stata12.dta", "stata"),
        ("pii_spss.sav", "spss"),
        ("pii.sas7bdat", "sas"),
    ],
)
def test_statistical_formats_are_read_with_labels(fixtures, name, fmt):
    ds = read_table(fixtures / "pii-scan" / name)
    assert ds.format == fmt and len(ds.frame) == 10
    if fmt != "sas":  # the SAS fixture carries no labels
        assert ds.variable_labels.get("name") == "Name"


@pytest.mark.parametrize("suffix", [".dta", ".sav"])
def test_labels_survive_a_round_trip(tmp_path, suffix):
    frame = pd.DataFrame({"sex": [1.0, 2.0, 1.0], "age": [30.0, 41.0, 52.0]})
    ds = Dataset(
        frame,
        "stata" if suffix == ".dta" else "spss",
        variable_labels={"sex": "Sex of respondent", "age": "Age in years"},
        value_labels={"sex": {1.0: "Male", 2.0: "Female"}},
    )
    out = write_table(ds, tmp_path / f"out{suffix}")
    back = read_table(out)
    assert back.variable_labels == {"sex": "Sex of respondent", "age": "Age in years"}
    assert back.value_labels["sex"] == {1: "Male", 2: "Female"} or back.value_labels["sex"] == {
        1.0: "Male",
        2.0: "Female",
    }
    assert back.frame["age"].tolist() == [30.0, 41.0, 52.0]


def test_parquet_and_excel_round_trip(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", None]})
    for name in ("t.parquet", "t.xlsx"):
        back = read_table(write_table(frame, tmp_path / name)).frame
        assert back["a"].tolist() == [1, 2] and back["b"].tolist()[0] == "x"


@pytest.mark.parametrize("name", ["t.dta", "t.sav", "t.zsav", "t.xpt"])
def test_stat_output_holds_no_time_of_writing(tmp_path, name):
    """ReadStat stamps the time of writing into the header; it is pinned to 1980-01-01, and the
    file still reads back whole (names, values, variable and value labels)."""
    import datetime
    import time

    import pyreadstat

    ds = Dataset(
        pd.DataFrame({"region": [1.0, 2.0, 1.0], "note": ["x", "y", "z"]}),
        variable_labels={"region": "Region of residence"},
        value_labels={"region": {1: "north", 2: "south"}},
    )
    path = write_table(ds, tmp_path / name)
    head = path.read_bytes()[:4096]
    now = time.localtime()
    for shown in (time.strftime("%d %b %Y", now), time.strftime("%d%b%y", now).upper()):
        assert shown.encode() not in head
    reader = {".dta": pyreadstat.read_dta, ".xpt": pyreadstat.read_xport}.get(
        path.suffix, pyreadstat.read_sav
    )
    frame, meta = reader(str(path))
    stamps = {meta.creation_time, *([meta.modification_time] if name != "t.dta" else [])}
    assert stamps == {datetime.datetime(1980, 1, 1)}
    assert frame["note"].tolist() == ["x", "y", "z"]
    back = read_table(path)
    assert back.frame["region"].tolist() == [1, 2, 1]
    if name != "t.xpt":  # SAS transport files carry no value labels
        assert back.value_labels["region"] == {1: "north", 2: "south"}
        assert back.variable_labels["region"] == "Region of residence"


def test_zsav_is_compressed_and_por_is_refused(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    zsav = write_table(frame, tmp_path / "t.zsav")
    assert zsav.read_bytes()[:4] == b"$FL3"  # SPSS's compressed form, as the suffix says
    assert read_table(zsav).frame["b"].tolist() == ["x", "y"]
    with pytest.raises(OutputError, match=r"\.por"):
        write_table(frame, tmp_path / "t.por")
    assert not (tmp_path / "t.por").exists()


def test_excel_output_holds_no_time_of_writing(tmp_path, monkeypatch):
    """Same table, same bytes: two writes an hour apart (the clock moved by hand) are identical,
    and no zip entry or property is dated other than 1980-01-01."""
    import time
    import zipfile

    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "=1+1"]})
    first = write_table(frame, tmp_path / "one.xlsx").read_bytes()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600)
    monkeypatch.setattr(time, "localtime", lambda t=None: time.gmtime(real() + 3600))
    second = write_table(frame, tmp_path / "two.xlsx").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "two.xlsx") as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert core.count("1980-01-01T00:00:00Z") == 2
    back = read_table(tmp_path / "two.xlsx").frame
    assert back["b"].tolist() == ["x", "=1+1"]  # a formula stays text


def test_bad_files_are_named(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_table(tmp_path / "none.csv")
    (tmp_path / "x.docx").write_text("hello")
    with pytest.raises(InputError, match="unknown file type"):
        read_table(tmp_path / "x.docx")
    (tmp_path / "empty.dta").write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_table(tmp_path / "empty.dta")


def test_an_input_is_never_overwritten(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("a\n1\n")
    ds = read_table(path)
    with pytest.raises(OptionError, match="refusing to overwrite"):
        write_table(ds, path)
    assert path.read_text() == "a\n1\n"


def test_private_output_is_owner_only_and_public_is_not(tmp_path):
    private = write_text_atomic(tmp_path / "cw.txt", "secret", private=True)
    public = write_text_atomic(tmp_path / "out.txt", "ok")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(public.stat().st_mode) & 0o044  # readable by others, as a plain open()


def test_atomic_dir_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "release"
    with pytest.raises(RuntimeError), atomic_dir(target) as tmp:
        (tmp / "half.csv").write_text("a\n")
        raise RuntimeError("step failed")
    assert not target.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".release")]


def test_a_note_not_in_utf8_is_refused_with_what_to_do(tmp_path):
    from hidekit.io.files import read_text_file

    legacy = tmp_path / "legacy.txt"
    legacy.write_bytes("Café owner René".encode("cp1252"))
    wide = tmp_path / "wide.txt"
    wide.write_bytes("Mary Jones".encode("utf-16"))
    with pytest.raises(InputError, match=r"invalid byte at offset 3\); .*iconv -f cp1252"):
        read_text_file(legacy)
    with pytest.raises(InputError, match="not UTF-8 text but UTF-16 .*save it as UTF-8"):
        read_text_file(wide)


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["9223372036854775807", "-9223372036854775808", "5"], "Int64"),  # the int64 ends
        (["9223372036854775808", "5"], "object"),  # one past: an ID, digits kept
        (["123456789012345678901234", "5"], "object"),  # pandas raised "out of range"
        (["\u0663", "5"], "object"),  # Arabic-Indic three: to_numeric cannot read it
        (["\xa05", "5"], "object"),  # no-break space: to_numeric cannot read it
        ([" 5 ", "\t7", "+8"], "Int64"),
        (["123456789012345678901234", "1.5"], "float64"),  # decimals: floats, as before
    ],
)
def test_numbers_are_read_only_where_they_are_exact(tmp_path, values, kind):
    """A column is numeric only when every value reads exactly; otherwise text, never an error."""
    path = tmp_path / "n.csv"
    path.write_text("id,n\n" + "".join(f'{i},"{v}"\n' for i, v in enumerate(values)))
    col = read_table(path).frame["n"]
    assert str(col.dtype) == kind
    if kind == "object":
        assert col.tolist() == values


def test_a_missing_value_does_not_round_long_whole_numbers():
    from hidekit.io.readers import infer_values

    got = infer_values(pd.Series(["12345678901234567", None], dtype=object))
    assert str(got.dtype) == "Int64" and got[0] == 12345678901234567 and got.isna()[1]
