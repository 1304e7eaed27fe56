"""Hostile-looking input that is valid: read right, printed safely, exit 0 (issue 18 items 9, 10).

These pair with ``test_cli_cases.py``: there the input is refused in one line; here it must work,
and what it prints must not be taken for markup or terminal control.
"""

from __future__ import annotations

import codecs

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.common import clean, one_line
from hidekit.cli.main import app
from hidekit.io import read_table

TEXT = "name,city\nJosé Ñúñez,Zürich\nAnn Lee,Köln\n"


@pytest.mark.parametrize(
    "encoding, bom",
    [
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
    ],
)
def test_csv_with_a_bom_is_decoded_by_it(tmp_path, encoding, bom):
    p = tmp_path / "u.csv"
    p.write_bytes(bom + TEXT.encode(encoding))
    frame = read_table(p).frame
    assert list(frame.columns) == ["name", "city"]  # no BOM glued to the first name
    assert frame["name"].tolist() == ["José Ñúñez", "Ann Lee"]
    assert frame["city"].tolist() == ["Zürich", "Köln"]


def test_cp1252_without_bom_still_read(tmp_path):
    p = tmp_path / "w.csv"
    p.write_bytes(TEXT.encode("cp1252"))
    assert read_table(p).frame["city"].tolist() == ["Zürich", "Köln"]


def test_markup_and_escapes_in_column_names_print_as_text(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("[/],\x1b[31mred,[section]\n1,2,3\n1,2,3\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["scan", str(p)])
    assert res.exit_code == 0, res.stderr
    assert "[/]" in res.stdout and "[section]" in res.stdout
    assert "\x1b" not in res.stdout and "\\x1b[31mred" in res.stdout
    res = CliRunner().invoke(app, ["risk", str(p), "--keys", "[/],[section]"])
    assert res.exit_code == 0, res.stderr
    assert "Risk of releasing [/], [section]" in res.stdout


def test_markup_in_values_survives_a_written_output(tmp_path):
    # issue 18 item 10: "[/]" crashed the summary after the file was written
    p = tmp_path / "v.csv"
    p.write_text("label,age\n[/],30\n[bold]x,40\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    res = CliRunner().invoke(app, ["redact", str(p), "-c", "label", "--out", str(out)])
    assert res.exit_code == 0, res.stderr
    assert out.exists() and res.stderr == ""


def test_clean_and_one_line_by_hand():
    assert clean("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert clean("tab\tnew\nline") == "tab\tnew\nline"  # tables may keep layout characters
    assert clean("x\u202ey") == "x\\u202ey"  # right-to-left override shown, not applied
    assert clean("\x9b31m") == "\\x9b31m"  # the 8-bit CSI
    assert one_line("first\n  second\r\nthird") == "first | second | third"
    assert one_line("a\tb") == "a\\tb"


def test_list_columns_refused_in_python_too():
    from hidekit.errors import InputError

    with pytest.raises(InputError, match="column 'tags' holds lists"):
        read_table(pd.DataFrame({"tags": [["a"], None]}))


def test_all_missing_columns_pass_through_the_steps(tmp_path):
    # issue 18 item 12: an all-missing column crashed encode (KeyError 'column')
    p = tmp_path / "m.csv"
    p.write_text("a,b\n,1\n,2\n,1\n", encoding="utf-8")
    key = tmp_path / "k.key"
    assert CliRunner().invoke(app, ["new-key", str(key)]).exit_code == 0
    for argv in (
        [
            "encode",
            str(p),
            "-c",
            "a,b",
            "--crosswalk",
            str(tmp_path / "cw.hkcw"),
            "--key-file",
            str(key),
        ],
        ["generalize", str(p), "-c", "a", "--width", "5"],
        ["topcode", str(p), "-c", "a", "--top", "5"],
        ["safe-harbor", str(p), "--ages", "a", "--dates", "a"],
    ):
        out = tmp_path / f"{argv[0]}.csv"
        res = CliRunner().invoke(app, [*argv, "--out", str(out)])
        assert res.exit_code == 0, (argv[0], res.stderr)
        frame = read_table(out).frame
        assert frame["a"].isna().all() and len(frame) == 3
