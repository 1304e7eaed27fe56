"""Numeric dates and the Safe Harbor 90+ rule, checked by hand (issue 18 item 8).

The J-PAL fixture stores birth dates as YYYYMMDD numbers (``20040404``); they used to be read as
nanoseconds since 1970 and came out as ``1970`` with exit code 0.
"""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.io import read_table
from hidekit.transforms.generalize import Bin, CoarsenDate, parse_dates
from hidekit.transforms.safe_harbor import SafeHarbor
from hidekit.transforms.topcode import TopCode


def test_yyyymmdd_numbers_and_text_are_dates():
    f = pd.DataFrame(
        {
            "n": pd.array([20040404, 20161109, None], dtype="Int64"),
            "t": ["20040404", "2004-05-06", None],
            "y": [2004.0, None, 1999.0],
        }
    )
    out = CoarsenDate(["n", "t", "y"], to="month").fit_transform(f)
    assert out["n"].tolist() == ["2004-04", "2016-11", None]
    assert out["t"].tolist() == ["2004-04", "2004-05", None]
    assert out["y"].tolist() == ["2004-01", None, "1999-01"]
    d = parse_dates(f, "n")
    assert d.iloc[0] == pd.Timestamp(2004, 4, 4) and d.iloc[1] == pd.Timestamp(2016, 11, 9)


@pytest.mark.parametrize(
    "value, found",
    [
        (1234567, "1234567"),
        (20041399, "20041399"),
        (2.5, "2.5"),
        ("soon", "soon"),
        (200404, "200404"),
    ],
)
def test_numbers_that_are_not_dates_are_refused_naming_column_and_value(value, found):
    with pytest.raises(InputError, match=rf"column 'd' must hold dates.*{found}"):
        CoarsenDate("d").fit_transform(pd.DataFrame({"d": [20040404, value]}))


def test_jpal_fixture_birth_dates_by_hand(fixtures):
    frame = read_table(fixtures / "pii-scan" / "pii.csv").frame
    years = CoarsenDate("birthdate", to="year").fit_transform(frame)["birthdate"].tolist()
    # the file's first three rows: 20040404, 20161109, 20130522
    assert years[:3] == ["2004", "2016", "2013"]
    assert "1970" not in years


def test_safe_harbor_aggregates_dates_of_people_over_89_by_hand():
    f = pd.DataFrame(
        {
            "age": [45, 89, 89.5, 90, 104, None],
            "birth": [19800101, 19370105, "1950-12-31", None, 19200101, "1936-06-01"],
            "visit": ["2023-05-01"] * 6,
        }
    )
    out = SafeHarbor(ages="age", dates="visit", births="birth", as_of=2026).fit_transform(f)
    # ages over 89 (89.5 included) aggregate to 90+
    assert out["age"].tolist() == ["45", "89", "90+", "90+", "90+", None]
    # 2026 - 90 = 1936: born in or before 1936 is 90+; 1937 stays a year; age over 89 wins
    assert out["birth"].tolist() == ["1980", "1937", "90+", None, "90+", "90+"]
    # the visit year of a 90+ record would give the birth year back: aggregated too
    assert out["visit"].tolist() == ["2023", "2023", "90+", "90+", "90+", "90+"]


def test_safe_harbor_dates_beside_old_age_never_keep_the_year():
    f = pd.DataFrame({"age": [95, 30], "birthdate": [19310202, 19960303]})
    out = SafeHarbor(ages="age", dates="birthdate").fit_transform(f)
    assert out["birthdate"].tolist() == ["90+", "1996"]


def test_safe_harbor_as_of_must_be_a_year():
    for bad in (True, 26, "2026", 2026.5):
        with pytest.raises(OptionError, match="as_of"):
            SafeHarbor(births="b", as_of=bad)


@pytest.mark.parametrize("width", [float("inf"), float("nan"), -1, 0])
def test_bin_refuses_non_finite_or_non_positive_width(width):
    with pytest.raises(OptionError, match="width"):
        Bin("x", width=width)


@pytest.mark.parametrize("kw", [{"top": float("nan")}, {"bottom": float("inf")}, {"top": True}])
def test_topcode_refuses_non_finite_thresholds(kw):
    with pytest.raises(OptionError, match="topcode"):
        TopCode("x", **kw)


def test_cli_safe_harbor_on_jpal_fixture(fixtures, tmp_path):
    out = tmp_path / "sh.csv"
    res = CliRunner().invoke(
        app,
        ["safe-harbor", str(fixtures / "pii-scan" / "pii.csv"), "--dates", "birthdate"]
        + ["--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    years = read_table(out).frame["birthdate"].tolist()
    assert years[:3] == [2004, 2016, 2013]
