"""Encrypted crosswalks: round trip, wrong secret fails cleanly with nothing written, CLI."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.jobs.files import new_key_file, read_crosswalk, write_crosswalk
from hidekit.jobs.identifiers import encode_file

FRAME = pd.DataFrame(
    {
        "column": ["name", "name", "name"],
        "parent": ["", "", ""],
        "value": ["Zoë Ångström", "NA", ""],
        "code": ["01", "02", "03"],
        "n": [1, None, 3.5],
    },
    dtype=object,
)


def test_round_trip_passphrase_and_key_file(tmp_path):
    p = write_crosswalk(FRAME, tmp_path / "a.hkcw", passphrase="correct horse")
    assert oct(os.stat(p).st_mode & 0o777) == "0o600"
    blob = p.read_bytes()
    assert blob.isascii() and "Ångström".encode() not in blob  # ciphertext only, base64
    header = json.loads(blob)
    random_fields = (header["kdf"].pop("salt"), header.pop("nonce"), header.pop("ciphertext"))
    assert all(isinstance(f, str) for f in random_fields)  # base64: may hold any letters
    assert b'"value"' not in blob and b"NA" not in json.dumps(header).encode()
    back = read_crosswalk(p, passphrase="correct horse")
    pd.testing.assert_frame_equal(back, FRAME)
    key = new_key_file(tmp_path / "k.key")
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
    q = write_crosswalk(FRAME, tmp_path / "b.hkcw", key_file=key)
    pd.testing.assert_frame_equal(read_crosswalk(q, key_file=key), FRAME)


def test_wrong_secret_or_tampering_is_a_clean_input_error(tmp_path):
    p = write_crosswalk(FRAME, tmp_path / "a.hkcw", passphrase="right")
    with pytest.raises(InputError, match="wrong passphrase"):
        read_crosswalk(p, passphrase="wrong")
    other = new_key_file(tmp_path / "other.key")
    q = write_crosswalk(FRAME, tmp_path / "b.hkcw", key_file=new_key_file(tmp_path / "k.key"))
    with pytest.raises(InputError, match="wrong passphrase or key"):
        read_crosswalk(q, key_file=other)
    env = json.loads(p.read_text())
    env["kdf"]["n"] = 2**14  # header is authenticated too
    (tmp_path / "t.hkcw").write_text(json.dumps(env))
    with pytest.raises(InputError):
        read_crosswalk(tmp_path / "t.hkcw", passphrase="right")
    (tmp_path / "x.hkcw").write_text("column,code\n")
    with pytest.raises(InputError, match="not a hidekit crosswalk"):
        read_crosswalk(tmp_path / "x.hkcw", passphrase="right")
    with pytest.raises(OptionError, match="key file"):
        read_crosswalk(q, passphrase="right")


def test_secret_rules(tmp_path):
    with pytest.raises(OptionError):
        write_crosswalk(FRAME, tmp_path / "a.hkcw")
    with pytest.raises(OptionError):
        write_crosswalk(FRAME, tmp_path / "a.hkcw", passphrase="")
    (tmp_path / "short.key").write_text("abc")
    with pytest.raises(OptionError, match="too short"):
        write_crosswalk(FRAME, tmp_path / "a.hkcw", key_file=tmp_path / "short.key")
    assert not (tmp_path / "a.hkcw").exists()
    key = new_key_file(tmp_path / "k.key")
    with pytest.raises(OptionError, match="refusing to overwrite"):
        new_key_file(key)


def test_two_survey_rounds_encode_consistently(tmp_path):
    r1 = tmp_path / "round1.csv"
    r2 = tmp_path / "round2.csv"
    pd.DataFrame({"village": ["a", "b", "c"], "y": [1, 2, 3]}).to_csv(r1, index=False)
    pd.DataFrame({"village": ["c", "d", "a"], "y": [4, 5, 6]}).to_csv(r2, index=False)
    cw = tmp_path / "villages.hkcw"
    s1 = encode_file(
        r1,
        tmp_path / "o1.csv",
        crosswalk=cw,
        columns=["village"],
        width=2,
        passphrase="pw",
        seed=1,
        insecure_seed=True,
    )
    s2 = encode_file(r2, tmp_path / "o2.csv", crosswalk=cw, columns=["village"], passphrase="pw")
    assert (s1["new"], s2["new"], s2["reused"]) == (3, 1, 3)
    o1 = pd.read_csv(tmp_path / "o1.csv", dtype=str).set_index("y")["village"]
    o2 = pd.read_csv(tmp_path / "o2.csv", dtype=str).set_index("y")["village"]
    assert o2["4"] == o1["3"] and o2["6"] == o1["1"] and o2["5"] not in set(o1)
    assert all(len(c) == 2 for c in [*o1, *o2])


def test_wrong_passphrase_writes_nothing(tmp_path, fixtures):
    cw = tmp_path / "cw.hkcw"
    write_crosswalk(
        pd.DataFrame(columns=["column", "parent", "value", "code"]), cw, passphrase="right"
    )
    before = cw.read_bytes()
    with pytest.raises(InputError):
        encode_file(
            fixtures / "pii-scan" / "pii.csv",
            tmp_path / "out.csv",
            crosswalk=cw,
            columns=["name"],
            passphrase="wrong",
        )
    assert not (tmp_path / "out.csv").exists() and cw.read_bytes() == before


def test_stata_value_labels_of_encoded_columns_are_dropped(tmp_path):
    import pyreadstat

    src = tmp_path / "v.dta"
    pyreadstat.write_dta(
        pd.DataFrame({"village": [1.0, 2.0, 1.0], "y": [1.0, 2.0, 3.0]}),
        str(src),
        variable_value_labels={"village": {1: "Oakdale", 2: "Elm"}},
        column_labels=["Village", "Outcome"],
    )
    encode_file(
        src,
        tmp_path / "o.dta",
        crosswalk=tmp_path / "cw.hkcw",
        columns=["village"],
        passphrase="pw",
    )
    frame, meta = pyreadstat.read_dta(str(tmp_path / "o.dta"))
    assert "Oakdale" not in str(meta.value_labels) and meta.column_labels == ["Village", "Outcome"]


def test_cli_encode_partition_and_errors(tmp_path, fixtures):
    run = CliRunner().invoke
    data = str(fixtures / "pii-scan" / "pii_Stata14.dta")
    pw = tmp_path / "pw.txt"
    pw.write_text("secret\n")
    cw = tmp_path / "cw.hkcw"
    res = run(
        app,
        [
            "encode",
            data,
            "-c",
            "name",
            "--out",
            str(tmp_path / "e.dta"),
            "--crosswalk",
            str(cw),
            "--passphrase-file",
            str(pw),
            "--insecure-seed",
            "--seed",
            "1",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["codes"] == {"name": 10}
    bad = tmp_path / "bad.txt"
    bad.write_text("nope")
    res = run(
        app,
        [
            "encode",
            data,
            "-c",
            "name",
            "--out",
            str(tmp_path / "e2.dta"),
            "--crosswalk",
            str(cw),
            "--passphrase-file",
            str(bad),
        ],
    )
    assert res.exit_code == 2 and not (tmp_path / "e2.dta").exists()
    res = run(app, ["crosswalk", str(cw), "--passphrase-file", str(pw), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["rows"] == 10
    res = run(
        app,
        [
            "partition",
            data,
            "-i",
            "name,address",
            "--out-dir",
            str(tmp_path / "p"),
            "--passphrase-file",
            str(pw),
            "--insecure-seed",
            "--seed",
            "3",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    files = json.loads(res.stdout)["files"]
    assert sorted(files) == ["deidentified", "link", "original"]
    res = run(app, ["remove", data, "-c", "nothere", "--out", str(tmp_path / "r.dta")])
    assert res.exit_code == 2 and "nothere" in res.output
    res = run(app, ["redact", data, "-c", "name", "--out", data])
    assert res.exit_code == 2 and "overwrite" in res.output
