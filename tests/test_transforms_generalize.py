"""Aggregation transforms: labels checked by hand, hierarchies against the ARX files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import InputError, OptionError
from hidekit.transforms.base import get_transform
from hidekit.transforms.generalize import Bin, CoarsenDate, Hierarchy, MapValues
from hidekit.transforms.safe_harbor import SafeHarbor
from hidekit.transforms.topcode import TopCode

HIER = "tests/fixtures/adult/adult_hierarchy_{}.csv"


def test_bins_by_width_read_like_ranges():
    f = pd.DataFrame({"age": [18, 29, 30, 45, None], "x": list("abcde")})
    out = Bin("age", width=10).fit_transform(f)
    assert out["age"].tolist()[:4] == ["10-19", "20-29", "30-39", "40-49"]
    assert out["age"].isna().tolist() == [False] * 4 + [True]
    assert out["x"].tolist() == list("abcde")
    assert f["age"].tolist()[0] == 18  # input untouched


def test_bins_by_edges_have_open_ends_and_fractional_labels():
    f = pd.DataFrame({"v": [1, 10, 25, 99, 100, 250]})
    assert Bin("v", edges=[10, 50, 100]).fit_transform(f)["v"].tolist() == [
        "<10",
        "10-49",
        "10-49",
        "50-99",
        "100+",
        "100+",
    ]
    g = pd.DataFrame({"v": [0.4, 2.6]})
    assert Bin("v", width=2.5).fit_transform(g)["v"].tolist() == ["0-<2.5", "2.5-<5"]


def test_bin_rejects_bad_options_and_text():
    with pytest.raises(OptionError):
        Bin("v", width=0)
    with pytest.raises(OptionError):
        Bin("v", edges=[3, 1])
    with pytest.raises(InputError, match="must be numeric"):
        Bin("v", width=5).fit_transform(pd.DataFrame({"v": [1, "x"]}))


def test_dates_to_year_quarter_month():
    f = pd.DataFrame({"d": ["2023-04-15", "2024-12-31", None]})
    assert CoarsenDate("d", "year").fit_transform(f)["d"].tolist()[:2] == ["2023", "2024"]
    assert CoarsenDate("d", "quarter").fit_transform(f)["d"].tolist()[:2] == ["2023-Q2", "2024-Q4"]
    assert CoarsenDate("d", "month").fit_transform(f)["d"].tolist() == ["2023-04", "2024-12", None]
    with pytest.raises(InputError, match="must hold dates"):
        CoarsenDate("d").fit_transform(pd.DataFrame({"d": ["2023-01-01", "soon"]}))


def test_value_map_keeps_unmapped_or_uses_other():
    f = pd.DataFrame({"m": ["Divorced", "Separated", "Married", None], "n": [1, 2, 3, 3]})
    out = MapValues("m", {"Divorced": "Div/Sep", "Separated": "Div/Sep"}).fit_transform(f)
    assert out["m"].tolist() == ["Div/Sep", "Div/Sep", "Married", None]
    out = MapValues("n", {"3": "three"}, other="other").fit_transform(f)
    assert out["n"].tolist() == ["other", "other", "three", "three"]


def test_hierarchy_matches_the_arx_file(adult_frame):
    table = pd.read_csv(HIER.format("education"), sep=";", header=None)
    expect = dict(zip(table[0], table[2], strict=True))
    out = Hierarchy("education", HIER.format("education"), level=2).fit_transform(adult_frame)
    assert out["education"].tolist() == [expect[v] for v in adult_frame["education"]]
    ages = Hierarchy("age", HIER.format("age"), level=1).fit_transform(adult_frame)
    assert ages.loc[adult_frame["age"] == 39, "age"].unique().tolist() == ["35-39"]


def test_hierarchy_unseen_values_go_to_top_with_warning(caplog):
    f = pd.DataFrame({"race": ["Bachelors", "Martian", "11th", "Martian"]})
    t = Hierarchy("race", HIER.format("education"), level=1)
    with caplog.at_level("WARNING", logger="hidekit.transforms"):
        out = t.fit_transform(f)
    assert out["race"].tolist() == ["Undergraduate", "*", "High School", "*"]
    assert t.unseen_ == ["Martian"]
    # counts only: a warning reaches the public report and audit, the raw value must not
    assert "Martian" not in t.warnings_[0] and "1 value(s)" in t.warnings_[0]
    assert "2 records" in t.warnings_[0]
    assert "1 value(s) not in the hierarchy" in caplog.text and "Martian" not in caplog.text
    with pytest.raises(InputError, match="does not list 1 value"):
        Hierarchy("race", HIER.format("education"), unseen="error").fit_transform(f)


def test_hierarchy_that_does_not_cover_the_data_is_an_error(tmp_path):
    f = pd.DataFrame({"education": ["Alpha", "Beta"]})
    with pytest.raises(InputError, match="does not cover column 'education'"):
        Hierarchy("education", HIER.format("education")).fit_transform(f)
    with pytest.raises(OptionError, match="levels 0 to 3"):
        Hierarchy("education", HIER.format("education"), level=7).fit(f)
    bad = tmp_path / "h.csv"
    bad.write_text("a;x;*\nb;y\n")
    with pytest.raises(InputError, match=r"empty level|same number of levels"):
        Hierarchy("education", bad).fit(pd.DataFrame({"education": ["a"]}))
    with pytest.raises(InputError, match="not found"):
        Hierarchy("education", tmp_path / "none.csv").fit(f)


def test_transforms_are_registered_by_name():
    for name in (
        "bin",
        "coarsen_date",
        "map_values",
        "hierarchy",
        "topcode",
        "safe_harbor",
        "jitter",
        "suppress",
    ):
        import hidekit.transforms.geo  # noqa: F401
        import hidekit.transforms.suppression  # noqa: F401

        assert get_transform(name).name == name


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), min_size=1, max_size=60),
    st.integers(1, 50),
)
def test_bins_keep_records_and_order(values, width):
    f = pd.DataFrame({"v": pd.array(values, dtype="Int64"), "row": range(len(values))})
    out = Bin("v", width=width).fit_transform(f)
    assert out["row"].tolist() == list(range(len(values)))
    assert out["v"].isna().tolist() == [v is None for v in values]
    for v, label in zip(values, out["v"], strict=True):
        if v is not None:
            lo, hi = (
                (int(x) for x in label.rsplit("-", 1))
                if not label.startswith("-")
                else (int(label[: label.index("-", 1)]), int(label[label.index("-", 1) + 1 :]))
            )
            assert lo <= v <= hi and hi - lo == width - 1


# Top coding and Safe Harbor ------------------------------------------------------------------
def test_topcode_by_value_and_percentile():
    f = pd.DataFrame({"income": [1000, 52000, 250000, 900000, None]})
    out = TopCode("income", top=250000, bottom=1000).fit_transform(f)
    assert out["income"].tolist() == ["<=1000", "52000", "250000+", "250000+", None]
    capped = TopCode("income", top=250000, labels=False).fit_transform(f)
    assert capped["income"].tolist()[:4] == [1000, 52000, 250000, 250000]
    g = pd.DataFrame({"v": list(range(1, 101))})
    t = TopCode("v", top_percentile=95).fit(g)
    assert t.thresholds_["v"] == (96.0, None)  # 'higher' picks an observed value
    assert (t.transform(g)["v"] == "96+").sum() == 5
    with pytest.raises(OptionError):
        TopCode("v")
    with pytest.raises(OptionError):
        TopCode("v", top_percentile=120)


def test_safe_harbor_ages_dates_zips(tmp_path):
    f = pd.DataFrame(
        {
            "age": [45, 89, 90, 104],
            "visit": ["2023-05-01"] * 4,
            "zip": ["02139", 2446, "03601", "99163-1234"],
        }
    )
    pop = tmp_path / "pop.csv"
    pop.write_text("zip3,population\n021,500000\n024,400000\n036,15000\n")
    out = SafeHarbor(ages="age", dates="visit", zips="zip", population=str(pop)).fit_transform(f)
    assert out["age"].tolist() == ["45", "89", "90+", "90+"]
    # a date beside an age over 89 is aggregated with it (HIPAA: no year indicative of 90+)
    assert out["visit"].tolist() == ["2023", "2023", "90+", "90+"]
    # 036 has 15,000 people; 991 is not in the table: both become 000
    assert out["zip"].tolist() == ["021", "024", "000", "000"]
    t = SafeHarbor(zips="zip")
    assert t.fit_transform(f)["zip"].tolist() == ["021", "024", "036", "991"]
    assert "no population table" in t.warnings_[0]
    with pytest.raises(InputError, match="not a US ZIP"):
        SafeHarbor(zips="zip").fit_transform(pd.DataFrame({"zip": ["ABC12"]}))


def test_every_transform_is_deterministic_and_leaves_input(adult_frame):
    small = adult_frame.head(500)
    copy = small.copy()
    for t in (
        Bin("age", width=10),
        Hierarchy("education", HIER.format("education")),
        TopCode("age", top_percentile=90),
    ):
        a, b = t.fit_transform(small), t.fit_transform(small)
        pd.testing.assert_frame_equal(a, b)
        assert list(a.index) == list(small.index)
    pd.testing.assert_frame_equal(small, copy)
    assert np.array_equal(small.columns, copy.columns)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(-50, 50), st.floats(-1e6, 1e6)),
            st.integers(1, 6),
        ),
        min_size=1,
        max_size=30,
    ),
    st.floats(0, 100, exclude_min=True, exclude_max=True),
    st.floats(0, 100, exclude_min=True, exclude_max=True),
)
def test_topcode_fit_on_counts_is_the_fit_on_the_repeated_rows(rows, p_top, p_bottom):
    # the percentile on distinct values and their counts (the chunked release's fit) is the one
    # numpy takes on every record: checked against the rows repeated
    values = [v for v, _ in rows]
    counts = np.array([n for _, n in rows])
    distinct = pd.DataFrame({"x": pd.array(values, dtype="Float64")})
    full = distinct.loc[distinct.index.repeat(counts)].reset_index(drop=True)
    lo, hi = sorted((p_bottom, p_top))
    if all(v is None for v in values):
        with pytest.raises(OptionError):
            TopCode(["x"], top_percentile=hi).fit_counts(distinct, counts)
        return
    for kw in ({"top_percentile": hi}, {"bottom_percentile": lo}):
        expected = TopCode(["x"], **kw).fit(full).thresholds_
        assert TopCode(["x"], **kw).fit_counts(distinct, counts).thresholds_ == expected
