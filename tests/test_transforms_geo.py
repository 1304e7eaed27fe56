"""DHS geographic masking: distances, clusters, boundaries, determinism, bad coordinates."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import InputError, OptionError
from hidekit.transforms.geo import Jitter, destination, haversine_km


def _frame(n=400, seed=1):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "latitude": rng.uniform(-60, 60, n),
            "longitude": rng.uniform(-170, 170, n),
            "area": rng.choice(["urban", "rural"], n),
            "row": range(n),
        }
    )


def test_destination_goes_the_stated_distance():
    lat, lon = destination(
        np.array([0.0]), np.array([0.0]), np.array([np.pi / 2]), np.array([111.195])
    )
    assert abs(lat[0]) < 1e-9 and abs(lon[0] - 1.0) < 1e-3  # 1 degree of longitude at the equator
    assert abs(haversine_km(0, 0, 0, 1) - 111.195) < 0.01


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 1.0))
def test_jittered_points_lie_within_the_stated_distances(seed, far_share):
    f = _frame(200, seed)
    t = Jitter(urban="area", insecure_seed=True, seed=seed, rural_far_share=far_share)
    out = t.fit_transform(f)
    d = haversine_km(f["latitude"], f["longitude"], out["latitude"], out["longitude"])
    urban = (f["area"] == "urban").to_numpy()
    assert (d[urban] <= 2.0 + 1e-6).all()
    assert (d[~urban] <= 10.0 + 1e-6).all()
    table, _ = t.displacement(f)
    assert set(table.loc[~table["urban"], "max_km"]) <= {5.0, 10.0}
    assert (
        haversine_km(table["cluster_lat"], table["cluster_lon"], table["lat"], table["lon"])
        <= table["max_km"] + 1e-6
    ).all()
    assert out["row"].tolist() == list(range(200))


def test_about_one_percent_of_rural_clusters_go_up_to_10_km():
    f = _frame(20_000, 3).assign(area="rural")
    table, _ = Jitter(urban="area", insecure_seed=True, seed=5).fit(f).displacement(f)
    share = (table["max_km"] == 10.0).mean()
    assert 0.005 < share < 0.015
    d = haversine_km(table["cluster_lat"], table["cluster_lon"], table["lat"], table["lon"])
    assert d.max() > 5.0  # some far ones really went further than 5 km


def test_same_seed_same_points_and_clusters_share_one_point():
    f = _frame(300, 2)
    f["village"] = np.arange(300) % 30
    a = Jitter(urban="area", cluster="village", insecure_seed=True, seed=9).fit_transform(f)
    b = Jitter(urban="area", cluster="village", insecure_seed=True, seed=9).fit_transform(f)
    c = Jitter(urban="area", cluster="village", insecure_seed=True, seed=10).fit_transform(f)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["latitude"], c["latitude"])
    per_village = a.groupby("village")[["latitude", "longitude"]].nunique()
    assert (per_village == 1).all().all()


def test_coordinates_out_of_range_are_an_error():
    f = pd.DataFrame({"latitude": [10.0, 95.0], "longitude": [0.0, 0.0]})
    with pytest.raises(InputError, match=r"out of range in 'latitude': 95.0 \(row 2"):
        Jitter().fit_transform(f)
    with pytest.raises(InputError, match="longitude"):
        Jitter().fit_transform(pd.DataFrame({"latitude": [0.0], "longitude": [-181.0]}))
    with pytest.raises(InputError, match="must be numeric"):
        Jitter().fit_transform(pd.DataFrame({"latitude": ["north"], "longitude": [1.0]}))


def test_missing_coordinates_stay_missing_with_a_warning():
    f = pd.DataFrame({"latitude": [10.0, None], "longitude": [5.0, 6.0]})
    t = Jitter(insecure_seed=True, seed=1)
    out = t.fit_transform(f)
    assert np.isnan(out["latitude"][1]) and np.isnan(out["longitude"][1])
    assert "1 record" in t.warnings_[0]


def test_points_stay_inside_their_boundary_area(tmp_path):
    # two 0.05-degree squares side by side (about 5.5 km wide): 10 km draws often leave them
    sq = lambda x0: [[[x0, 0.0], [x0 + 0.05, 0.0], [x0 + 0.05, 0.05], [x0, 0.05], [x0, 0.0]]]  # noqa: E731
    geo = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "Polygon", "coordinates": sq(0.0)},
            },
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "MultiPolygon", "coordinates": [sq(0.05)]},
            },
        ],
    }
    path = tmp_path / "areas.geojson"
    path.write_text(json.dumps(geo))
    rng = np.random.default_rng(0)
    f = pd.DataFrame(
        {
            "latitude": rng.uniform(0.01, 0.04, 100),
            "longitude": np.r_[rng.uniform(0.01, 0.04, 50), rng.uniform(0.06, 0.09, 50)],
        }
    )
    out = Jitter(rural_km=5, insecure_seed=True, seed=4, boundaries=str(path)).fit_transform(f)
    assert out["latitude"].between(0, 0.05).all()
    assert out["longitude"][:50].between(0, 0.05).all()
    assert out["longitude"][50:].between(0.05, 0.10).all()
    with pytest.raises(InputError, match="not valid GeoJSON"):
        bad = tmp_path / "bad.geojson"
        bad.write_text("{nope")
        Jitter(boundaries=str(bad)).fit(f)


# Value labels (issue 16 item 5): urban/rural by label, in several languages -------------------
def _urban_frame(codes, n=200, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "latitude": rng.uniform(-50, 50, n),
            "longitude": rng.uniform(-150, 150, n),
            "area": rng.choice(codes, n),
        }
    )


def _moved(f, t):
    out = t.fit_transform(f)
    return haversine_km(f["latitude"], f["longitude"], out["latitude"], out["longitude"]), t


def test_labelled_codes_are_read_through_their_labels_not_their_numbers():
    """0 = Urban, 1 = Rural: the old rule took 1 as urban, i.e. backwards."""
    f = _urban_frame([0, 1])
    d, t = _moved(
        f,
        Jitter(
            urban="area",
            value_labels={0: "Urban", 1: "Rural"},
            rural_far_share=0,
            seed=1,
            insecure_seed=True,
        ),
    )
    urban = (f["area"] == 0).to_numpy()
    assert (d[urban] <= 2.0 + 1e-6).all() and d[~urban].max() > 2.0
    assert t.decisions_["urban"] == {
        "column": "area",
        "read_from": "value labels",
        "codes": {"0 (Urban)": "urban", "1 (Rural)": "rural"},
    }


@pytest.mark.parametrize(
    "urban, rural",
    [("Urbano", "Rural"), ("Urbaine", "Rurale"), ("URBANA", "rural"), ("Urban area", "Rural area")],
)
def test_urban_words_in_several_languages(urban, rural):
    f = _urban_frame([urban, rural])
    d, t = _moved(f, Jitter(urban="area", rural_far_share=0, seed=2, insecure_seed=True))
    is_urban = (f["area"] == urban).to_numpy()
    assert (d[is_urban] <= 2.0 + 1e-6).all() and d[~is_urban].max() > 2.0
    assert t.decisions_["urban"]["codes"] == {urban: "urban", rural: "rural"}


@pytest.mark.parametrize(
    "codes, labels",
    [
        ([1, 2], None),  # bare codes: which is urban?
        (["Urban", "Peri-urban"], None),
        (["Urbano", "No urbano"], None),
        ([1, 2], {1: "Urban", 2: "Semi-rural"}),
    ],
)
def test_refuses_when_it_cannot_tell(codes, labels):
    f = _urban_frame(codes)
    with pytest.raises(OptionError, match="cannot tell whether .* is urban or rural") as e:
        Jitter(urban="area", value_labels=labels).fit(f)
    assert "urban_codes" in str(e.value) and "\n" not in str(e.value)


def test_explicit_mapping_wins_and_is_checked():
    f = _urban_frame([1, 2])
    d, t = _moved(
        f,
        Jitter(urban="area", urban_codes={"2": "urban", "1": "rural"}, seed=4, insecure_seed=True),
    )
    assert (d[(f["area"] == 2).to_numpy()] <= 2.0 + 1e-6).all()
    assert t.decisions_["urban"]["read_from"] == "urban_codes"
    with pytest.raises(OptionError, match="cannot tell"):
        Jitter(urban="area", urban_codes={"2": "urban"}).fit(f)
    with pytest.raises(OptionError, match="must be urban or rural"):
        Jitter(urban="area", urban_codes={"1": "town", "2": "rural"}).fit(f)


def test_stata_value_labels_reach_jitter_in_cli_and_plan(tmp_path):
    """A labelled .dta file: the CLI and a release plan both read 0 = Urbano as urban, and say so
    in --json and in the audit."""
    import pyreadstat
    from typer.testing import CliRunner

    from hidekit.cli.main import app
    from hidekit.jobs.release_job import run_plan

    f = _urban_frame([0, 1], n=60).assign(id=range(60), age=30)
    f["area"] = f["area"].astype(float)
    dta = tmp_path / "gps.dta"
    pyreadstat.write_dta(f, str(dta), variable_value_labels={"area": {0: "Urbano", 1: "Rural"}})
    res = CliRunner().invoke(
        app,
        ["jitter", str(dta), "--urban", "area", "--out", str(tmp_path / "o.dta"), "--json"],
    )
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)["decisions"]["urban"]
    assert got["codes"] == {"0 (Urbano)": "urban", "1 (Rural)": "rural"}
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[input]\npath = "gps.dta"\n[output]\nfolder = "rel"\n'
        '[roles]\ndirect = ["latitude", "longitude"]\nkeys = ["age"]\n[risk]\nk = 1\n'
        '[[steps]]\nuse = "jitter"\nurban = "area"\n',
        encoding="utf-8",
    )
    result = run_plan(plan, scan=False)
    audit = [json.loads(x) for x in (tmp_path / "rel" / "audit.jsonl").read_text().splitlines()]
    assert audit[1]["decisions"]["urban"]["codes"] == {"0 (Urbano)": "urban", "1 (Rural)": "rural"}
    assert "0 (Urbano)" in (tmp_path / "rel" / "report.html").read_text(encoding="utf-8")
    assert result.released


@pytest.mark.parametrize("cluster", [None, "village"])
def test_points_do_not_depend_on_how_the_records_are_split(cluster):
    """A record's draws come from the key and its cluster's name (its row number without a
    cluster column), so chunks of the table, in any order, give the whole table's points: what
    Spark's partitions and chunked output rely on."""
    f = _frame(300, 4).assign(village=lambda d: d["row"] % 17)
    t = Jitter(urban="area", cluster=cluster, key=b"k" * 32).fit(f)
    whole = t.transform(f)
    if cluster:  # a cluster's records together, in row order; clusters in any order
        parts = [f[f["village"] == v] for v in (16, 3, 0, *range(4, 16), 1, 2)]
    else:
        parts = [f.iloc[200:], f.iloc[:77], f.iloc[77:200]]
    pieces = [t.transform(p, p["row"].to_numpy()) for p in parts]
    pd.testing.assert_frame_equal(pd.concat(pieces).sort_index(), whole)
    other = Jitter(urban="area", cluster=cluster, key=b"j" * 32).fit_transform(f)
    assert not np.allclose(other["latitude"], whole["latitude"])  # another key, other points


def test_value_labels_keep_the_secret_key():
    # a file's value labels (Stata, SPSS) make a new step: it draws from the same secret key,
    # so a keyed release is reproducible (without the key carried over, each run drew afresh)
    f = _frame(50)
    f["area"] = np.where(np.arange(50) % 2, 1, 2)
    labels = {"area": {1: "urban", 2: "rural"}}
    key = b"k" * 32
    runs = [
        Jitter(urban="area", key=key).with_value_labels(labels).fit_transform(f) for _ in range(2)
    ]
    other = Jitter(urban="area", key=b"o" * 32).with_value_labels(labels).fit_transform(f)
    pd.testing.assert_frame_equal(runs[0], runs[1])
    assert not np.allclose(runs[0]["latitude"], other["latitude"])
    seeded = Jitter(urban="area", seed=3, insecure_seed=True).with_value_labels(labels)
    assert seeded.value_labels == {1: "urban", 2: "rural"}
