"""The studio's pages compute what the library computes: risk equal to ``measure_risk``, steps equal
to the release runner's, and an exported plan that ``hidekit release`` runs to the same output."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.demo.survey import generate_survey
from hidekit.engines import DuckDBEngine
from hidekit.errors import OptionError
from hidekit.jobs.release_job import run_plan
from hidekit.release import load_plan
from hidekit.risk import measure_risk
from hidekit.studio.workbench import Workbench, class_sizes_from_records, riskiest_cells
from studio_helpers import finished, studio_client

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "s" * 43
ORIGIN = {"Origin": BASE}


@pytest.fixture
def folder(tmp_path):
    generate_survey(400, seed=3).to_csv(tmp_path / "survey.csv", index=False)
    return tmp_path


@pytest.fixture
def client(folder):
    return studio_client(folder, PORT, TOKEN, table="survey.csv")


def roles_form(bench_columns, keys, direct=()):
    form = {f"role:{c}": "other" for c in bench_columns}
    form.update({f"role:{c}": "key" for c in keys})
    form.update({f"role:{c}": "direct" for c in direct})
    return form


def figure(html: str, testid: str) -> str:
    m = re.search(rf'data-testid="{testid}">([^<]*)<', html)
    assert m, f"no {testid} in the fragment"
    return m.group(1).replace(",", "")


def test_live_risk_equals_measure_risk(client, folder):
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    for keys in (["sex", "age"], ["sex", "age", "state", "race"]):
        r = client.post(
            "/api/risk", data={**roles_form(cols, keys), "cell_min": "3"}, headers=ORIGIN
        )
        assert r.status_code == 200
        want = measure_risk(folder / "survey.csv", keys, cell_min=3).overall
        assert int(figure(r.text, "k")) == want.k
        assert int(figure(r.text, "uniques")) == want.uniques
        assert float(figure(r.text, "rp")) == pytest.approx(want.rp, abs=5e-5)
        assert float(figure(r.text, "cr")) == pytest.approx(want.cr, abs=5e-5)
        assert "<svg" in r.text  # class-size histogram inline


def test_riskiest_cells_are_the_smallest(folder):
    bench = Workbench.open(folder / "survey.csv", "survey.csv")
    bench.set_roles({c: "other" for c in bench.roles} | {"sex": "key", "age": "key"})
    live = bench.risk()
    counts = pd.read_csv(folder / "survey.csv").groupby(["sex", "age"], dropna=False).size()
    assert list(live.riskiest["_n"]) == sorted(counts)[: len(live.riskiest)]
    assert live.riskiest["_n"].iloc[0] == live.report.k


def test_step_undo_and_utility(folder):
    bench = Workbench.open(folder / "survey.csv", "survey.csv")
    bench.set_roles(
        {c: "other" for c in bench.roles} | {"sex": "key", "age": "key", "state": "key"}
    )
    assert bench.risk().report.k == 1
    step = bench.apply("suppress", {"keys": ["sex", "age", "state"], "k": 3})
    assert step.risk.k >= 3 and bench.risk().report.k >= 3
    blanked = int(bench.frame[["sex", "age", "state"]].isna().sum().sum())
    assert sum(step.cells_changed.values()) == blanked > 0
    lost = {v.column: v.suppressed for v in bench.utility_lost()}
    assert sum(lost[c] for c in ("sex", "age", "state")) == blanked
    bench.undo()
    assert bench.risk().report.k == 1 and not bench.steps


def test_bad_step_is_one_readable_line(client):
    r = client.post(
        "/api/step",
        data={"use": "suppress", "params": 'keys = ["nope"]'},
        headers={**ORIGIN, "X-Studio-Fragment": "1"},
    )
    assert r.status_code == 400 and "nope" in r.text and "Traceback" not in r.text
    r = client.post("/api/step", data={"use": "bin", "params": "columns = ["}, headers=ORIGIN)
    assert r.status_code == 400 and "not valid TOML" in r.text


def test_exported_plan_releases_the_same_table(client, folder):
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    direct = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]
    keys = ["sex", "age", "state"]
    assert client.post("/api/risk", data=roles_form(cols, keys, direct), headers=ORIGIN).is_success
    steps = [
        ("remove", f"columns = {direct!r}".replace("'", '"')),
        ("bin", 'columns = ["age"]\nwidth = 10'),
        ("suppress", 'keys = ["sex", "age", "state"]\nk = 3'),
    ]
    for use, params in steps:
        r = client.post("/api/step", data={"use": use, "params": params}, headers=ORIGIN)
        assert r.status_code == 200, r.text
    text = client.get("/api/plan.toml").text
    assert "[[steps]]" in text and "passphrase" not in text
    r = finished(client, client.post("/api/release", data={"passphrase": ""}, headers=ORIGIN))
    assert r.status_code == 200, r.text
    assert "survey-release" in r.text and "open report.html" in r.text
    studio_out = pd.read_csv(folder / "survey-release" / "survey.csv")
    plan = load_plan(folder / "survey-plan.toml", output=folder / "cli-release")
    result = run_plan(plan)
    cli_out = pd.read_csv(folder / "cli-release" / "survey.csv")
    pd.testing.assert_frame_equal(studio_out, cli_out)
    assert result.after.k >= 3 and not set(direct) & set(cli_out.columns)
    assert (folder / "survey-release" / "survey.csv").read_bytes() == (
        folder / "cli-release" / "survey.csv"
    ).read_bytes()
    report = client.get("/view?path=survey-release/report.html")
    assert report.status_code == 200 and "sandbox" in report.headers["content-security-policy"]


def test_release_refusal_is_shown_not_written(client, folder):
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    client.post("/api/risk", data=roles_form(cols, ["sex", "age"], ["name"]), headers=ORIGIN)
    r = finished(client, client.post("/api/release", data={}, headers=ORIGIN))
    assert r.status_code == 400 and "release refused" in r.text
    assert not (folder / "survey-release").exists()


def test_second_release_is_refused_in_the_pages_words(client, folder):
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    direct = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]
    client.post("/api/risk", data=roles_form(cols, ["sex"], direct), headers=ORIGIN)
    params = (
        'columns = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]'
    )
    assert client.post(
        "/api/step", data={"use": "remove", "params": params}, headers=ORIGIN
    ).is_success
    assert client.post(
        "/api/step", data={"use": "suppress", "params": 'keys = ["sex"]\nk = 3'}, headers=ORIGIN
    ).is_success
    first = finished(client, client.post("/api/release", data={}, headers=ORIGIN))
    assert first.status_code == 200, first.text
    before = (folder / "survey-release" / "survey.csv").read_bytes()
    again = finished(client, client.post("/api/release", data={}, headers=ORIGIN))
    assert again.status_code == 400 and "--overwrite" not in again.text
    assert "replace a previous release" in again.text  # the checkbox the page shows
    assert (folder / "survey-release" / "survey.csv").read_bytes() == before
    replaced = finished(
        client, client.post("/api/release", data={"overwrite": "1"}, headers=ORIGIN)
    )
    assert replaced.status_code == 200, replaced.text


def test_passphrase_is_used_not_kept(client, folder, monkeypatch):
    from hidekit import jobs

    calls = []
    real_release = jobs.release

    def spy(plan, *args, **kwargs):  # the studio runs the release job, the passphrase in memory
        calls.append(kwargs["secrets"])
        return real_release(plan, *args, **kwargs)

    monkeypatch.setattr(jobs, "release", spy)
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    direct = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]
    client.post("/api/risk", data=roles_form(cols, ["sex"], direct), headers=ORIGIN)
    for use, params in [
        ("encode", 'columns = ["name"]'),
        (
            "remove",
            'columns = ["ssn", "phone", "email", "street_address", "latitude", "longitude"]',
        ),
        ("suppress", 'keys = ["sex"]\nk = 3'),
    ]:
        assert client.post(
            "/api/step", data={"use": use, "params": params}, headers=ORIGIN
        ).is_success
    r = finished(client, client.post("/api/release", data={}, headers=ORIGIN))
    assert r.status_code == 400 and "crosswalk" in r.text  # an encode needs a secret
    secret = "correct horse battery staple"
    r = finished(client, client.post("/api/release", data={"passphrase": secret}, headers=ORIGIN))
    assert r.status_code == 200, r.text
    assert calls[-1].passphrase_value == secret.encode() and secret not in repr(calls[-1])
    assert calls[-1].passphrase_file is None and calls[-1].passphrase_env is None
    assert (folder / "survey-release.private" / "crosswalk.hkcw").exists()
    for p in folder.rglob("*"):
        if p.is_file() and p.suffix in (".toml", ".csv", ".jsonl", ".html", ".json"):
            assert secret not in p.read_text(errors="ignore"), p
    state = client.app.app.state.studio
    assert secret not in repr(vars(state))
    released = pd.read_csv(folder / "survey-release" / "survey.csv", dtype=str)["name"]
    original = pd.read_csv(folder / "survey.csv", dtype=str)["name"]
    assert released.notna().all() and not set(released) & set(original)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", None]), st.integers(0, 3), st.sampled_from([1, 2])),
        min_size=1,
        max_size=60,
    ),
    st.integers(1, 6),
)
def test_smallest_cells_from_record_sizes(rows, n):
    frame = pd.DataFrame(rows, columns=["x", "y", "z"])
    keys = ["x", "y", "z"]
    engine = DuckDBEngine(frame)
    per_record = engine.record_cell_sizes(keys)
    truth = frame.groupby(keys, dropna=False).size()
    assert sorted(class_sizes_from_records(per_record)) == sorted(truth)
    top = riskiest_cells(frame, keys, per_record, n)
    assert list(top["_n"]) == sorted(truth)[:n]
    assert not top[keys].duplicated().any()
    for row in top.itertuples(index=False):  # each shown size is its cell's true size
        mask = np.ones(len(frame), dtype=bool)
        for k, v in zip(keys, row[:3], strict=True):
            mask &= frame[k].isna().to_numpy() if pd.isna(v) else (frame[k] == v).to_numpy()
        assert mask.sum() == row[3]


def test_weight_role_gives_individual_risk_as_measure_risk(fixtures):
    path = fixtures / "survey" / "survey.csv"
    keys = ["region", "urban", "sex", "agegroup"]
    bench = Workbench.open(path, "survey.csv")
    bench.set_roles(
        {c: "other" for c in bench.roles} | {k: "key" for k in keys} | {"weight": "weight"}
    )
    live = bench.risk()
    want = measure_risk(path, keys, weights="weight").to_dict()["weighted"]
    assert live.weighted["global_risk"] == pytest.approx(want["global_risk"], rel=1e-12)
    assert live.weighted["expected_reidentifications"] == pytest.approx(
        want["expected_reidentifications"], rel=1e-12
    )
    with pytest.raises(OptionError, match="one sampling-weight column"):
        bench.set_roles({"hhid": "weight"})
    assert bench.roles["hhid"] == "other"  # a refused change leaves the roles as they were
