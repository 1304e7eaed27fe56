"""Hierarchy builders: hand-checked labels, nested levels, and a round trip through ARX's format."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.anonymize.optimal.levels import QuasiIdentifier
from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.io import hierarchy_builders as hb
from hidekit.io.hierarchy import Hierarchy


def _nested(h: Hierarchy) -> None:
    QuasiIdentifier.from_hierarchy("x", h, list(h.leaves()))  # raises when not nested


def test_intervals_labels_and_nesting():
    h = hb.intervals([17, 25, 39, 90], 5, levels=3)
    rows = {r[0]: r for r in h.rows}
    assert rows["25"] == ("25", "25-29", "20-29", "20-39", "*")
    assert rows["17"] == ("17", "15-19", "10-19", "0-19", "*")
    _nested(h)
    frac = hb.intervals([0.5, 2.25], 1.5, levels=1)
    assert {r[0]: r[1] for r in frac.rows} == {"0.5": "[0, 1.5)", "2.25": "[1.5, 3)"}


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(-500, 500), min_size=1, max_size=40),
    st.integers(1, 20),
    st.integers(1, 4),
    st.integers(2, 4),
)
def test_intervals_always_nest_and_contain_their_value(values, width, levels, factor):
    h = hb.intervals(values, width, levels=levels, factor=factor)
    _nested(h)
    for row in h.rows:
        v = int(row[0])
        for label in row[1:-1]:
            lo, hi = re.fullmatch(r"(-?\d+)-(-?\d+)", label).groups()
            assert int(lo) <= v <= int(hi)


def test_dates_masking_and_ordered_groups():
    d = hb.dates(["2004-04-04", "1999-12-31"])
    assert {r[0]: r[1:] for r in d.rows}["2004-04-04"] == (
        "2004-04",
        "2004-Q2",
        "2004",
        "2000s",
        "*",
    )
    m = hb.masking(["02139", "10001"])
    assert {r[0]: r for r in m.rows}["02139"] == ("02139", "0213*", "021**", "02***", "0****", "*")
    o = hb.ordered_groups(["HS", "BA", "MA", "PhD"], fan=2)
    assert {r[0]: r for r in o.rows}["MA"] == ("MA", "MA–PhD", "*")
    for h in (d, m, o):
        _nested(h)


def test_bad_builder_input():
    with pytest.raises(OptionError):
        hb.intervals([1, 2], float("inf"))
    with pytest.raises(InputError, match="not dates"):
        hb.dates(["2004-04-04", "soon"])
    with pytest.raises(InputError, match="not in the order"):
        hb.ordered_groups(["a", "b"], values=["a", "c"])
    with pytest.raises(OptionError):
        hb.dates(["2004-01-01"], ["year", "month"])  # out of order


def test_round_trip_through_arx_format(tmp_path):
    h = hb.ordered_groups(["a;1", "b", "c"], fan=2)  # a value holding the delimiter is quoted
    path = h.write(tmp_path / "h.csv")
    assert Hierarchy.read(path).rows == h.rows


def test_cli_builds_a_hierarchy_the_search_can_use(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("age,sex\n" + "".join(f"{20 + i % 30},{'MF'[i % 2]}\n" for i in range(200)))
    out = tmp_path / "age.csv"
    runner = CliRunner()
    res = runner.invoke(
        app, ["hierarchy", str(data), "--column", "age", "--intervals", "5", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert Hierarchy.read(out).depth == 5
    res = runner.invoke(app, ["hierarchy", str(data), "--column", "age", "--out", str(data)])
    assert res.exit_code == 2  # exactly one kind must be chosen (and the input is never the output)
