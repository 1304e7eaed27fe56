"""Long cells: the scan's patterns run in linear time, long cells are read in windows and say so,
and the rewritten patterns accept exactly what the first ones did."""

from __future__ import annotations

import json
import re

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.io.readers import NUMBER
from hidekit.scan import patterns as P
from hidekit.scan.scanner import scan_table
from hidekit.text.synthesis import generate_notes

# the patterns as first written (quadratic or worse on long runs): the reference
_OLD_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_OLD_IP = re.compile(r"(\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*")
_OLD_EMAIL = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_CONTAINED = {key: rx for key, _, rx in P.CONTAINED}


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.eE+-x ", max_size=14))
def test_number_pattern_accepts_what_it_accepted(v):
    # hidekit.io.readers.NUMBER: read_table's numeric columns and the scan's numeric cells
    assert bool(re.fullmatch(NUMBER, v)) == bool(_OLD_NUMBER.fullmatch(v))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789abfAF:.x", max_size=18))
def test_ip_prefilter_accepts_what_it_accepted(v):
    s = pd.Series([v], dtype=object)
    new = bool(re.fullmatch(r"[0-9A-Fa-f]*:[0-9A-Fa-f]*:[0-9A-Fa-f:.]*", v))
    old = bool(re.fullmatch(r"[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*", v))
    assert new == old
    if _OLD_IP.fullmatch(v):  # what passed the old filter is judged by ipaddress the same way
        assert P.ip_address(s)[0] == _old_ip_address(v)


def _old_ip_address(v: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(v)
        return True
    except ValueError:
        return False


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab1.-_+'@ xo.rg", max_size=30))
def test_contained_email_finds_a_match_in_the_same_cells(v):
    assert bool(_CONTAINED["email"].search(v)) == bool(_OLD_EMAIL.search(v))


_PIECES = st.sampled_from(
    [
        "a",
        " ",
        "\n",
        ".",
        "-",
        "1",
        "12",
        "555-123-4567",
        "(555) 123-4567",
        "+34 612 345 678",
        "06 12 34 56 78",
        "123-45-6789",
        "jo.e@ex.org",
        "@",
        "http://x.org/a",
        "www.",
        "10.0.0.1",
        "1.2.3",
    ]
)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=60), size=st.integers(130, 200))
def test_windowed_search_finds_what_a_whole_search_finds(pieces, size):
    text = "".join(pieces)
    for key, rx in _CONTAINED.items():
        got = P.search_in_windows(rx, text, size=size, margin=30)
        assert got == bool(rx.search(text)), (key, text)


def _long_note(chars: int) -> str:
    text = "\n\n".join(d.text for d in generate_notes(10, seed=4))
    while len(text) < chars:
        text += "\n\n" + text
    return text[:chars]


def test_a_long_cell_is_read_in_windows_and_its_contacts_still_found():
    body = re.sub(r"\S+@\S+", "x", _long_note(60_000))  # no e-mail of the notes' own
    cell = body[:30_000] + " write to jane.roe@example.org " + body[30_000:]
    frame = pd.DataFrame({"comments": [cell, "all fine", "nothing to add", "seen"]})
    f = scan_table(frame)["comments"]
    assert f.evidence["long_cells"] == {
        "cells": 1,
        "longest": len(cell),
        "window_chars": P.LONG_CELL_CHARS,
    }
    assert f.evidence["contained"]["email"] == 0.25
    short = scan_table(pd.DataFrame({"c": ["a@b.org", "x"]}))["c"]
    assert "long_cells" not in short.evidence


def test_long_cells_are_not_read_as_one_value():
    # a 12,000-character run of name-shaped text is free text, not a street address or a name
    cell = "12 Main Street " * 800
    frame = pd.DataFrame({"v": [cell] * 3 + ["4 Bayport Rd."]})
    f = scan_table(frame)["v"]
    assert "street_address" in f.evidence["patterns"]
    assert f.evidence["patterns"]["street_address"] == 0.25  # the short cell only


def test_scan_cli_says_when_cells_were_read_in_windows(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"id": [1, 2], "note": ["1" * 20_000 + "x", "fine"]}).to_csv(path, index=False)
    res = CliRunner().invoke(app, ["scan", str(path)])
    assert res.exit_code == 0, res.output
    assert "read as free text in windows of 10,000" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["scan", str(path), "--json"])
    cols = {c["name"]: c for c in json.loads(res.output)["columns"]}
    assert cols["note"]["evidence"]["long_cells"]["longest"] == 20_001
