"""The studio's longer work: key selection, the hierarchy editor, tasks with progress, the plan's
weights, and the random sample. Each figure is checked against the library or a hand count."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")

from hidekit.demo.survey import generate_survey
from hidekit.engines import DuckDBEngine
from hidekit.errors import InputError
from hidekit.release import load_plan
from hidekit.risk.records import assess_records
from hidekit.selection import select_variables
from hidekit.studio import hierarchy
from hidekit.studio import plan as studio_plan
from hidekit.studio.tasks import Task, TaskBoard
from hidekit.studio.workbench import Workbench
from studio_helpers import finished, studio_client

PORT = 8767
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "w" * 43
ORIGIN = {"Origin": BASE}
KEYS = ["sex", "age", "state", "race", "marital_status"]


@pytest.fixture
def folder(tmp_path):
    frame = generate_survey(400, seed=3)
    rng = np.random.default_rng(5)
    frame["w"] = rng.uniform(5, 50, len(frame)).round(1)
    frame["hh"] = np.arange(len(frame)) // 2
    frame.to_csv(tmp_path / "survey.csv", index=False)
    return tmp_path


@pytest.fixture
def client(folder):
    return studio_client(folder, PORT, TOKEN, table="survey.csv")


def test_select_shows_the_library_selection(client, folder):
    form = {"key": KEYS, "method": "forward", "stop": "0.3"}
    r = finished(client, client.post("/api/select", data=form, headers=ORIGIN))
    assert r.status_code == 200, r.text
    want = select_variables(folder / "survey.csv", KEYS, method="forward", stop=0.3, cell_min=3)
    selected = re.search(r'data-testid="selected">Selected:(.*?)—', r.text, re.S).group(1)
    assert re.findall(r"<code>([^<]+)</code>", selected) == want.selected
    rps = [float(x) for x in re.findall(r'data-testid="step-rp">([0-9.]+)<', r.text)]
    assert rps == pytest.approx([s.rp for s in want.taken], abs=5e-5)
    assert "<svg" in r.text and "RP and CR by step (forward)" in r.text
    used = {"selected": want.selected, "candidate": KEYS}
    assert client.post("/api/select/use", data=used, headers=ORIGIN).status_code == 200
    bench = client.app.app.state.studio.table
    left_out = set(KEYS) - set(want.selected)
    assert set(want.selected) <= set(bench.keys) and not left_out & set(bench.keys)


def test_select_backward_and_a_readable_refusal(client, folder):
    form = {"key": KEYS, "method": "backward", "stop": "0.1"}
    r = finished(client, client.post("/api/select", data=form, headers=ORIGIN))
    want = select_variables(folder / "survey.csv", KEYS, method="backward", stop=0.1)
    assert all(f"<code>{v}</code>" in r.text for v in want.selected)
    bad = client.post(
        "/api/select",
        data={"key": ["sex"], "method": "stepwise", "stop": "0.3"},
        headers={**ORIGIN, "X-Studio-Fragment": "1"},
    )
    assert bad.status_code == 400 and "remove-stop" in bad.text
    assert "Traceback" not in bad.text
    none = client.post("/api/select", data={"method": "forward"}, headers=ORIGIN)
    assert none.status_code == 400 and "tick at least one" in none.text


def roles(folder, keys, **extra):
    cols = list(pd.read_csv(folder / "survey.csv", nrows=1).columns)
    form = {f"role:{c}": "other" for c in cols}
    form.update({f"role:{c}": "key" for c in keys})
    form.update({f"role:{c}": role for c, role in extra.items()})
    return form


def test_hierarchy_bins_preview_and_add(client, folder):
    keys = ["sex", "age", "state"]
    client.post("/api/risk", data=roles(folder, keys), headers=ORIGIN)
    page = client.get("/hierarchy?column=age")
    assert 'name="edges"' in page.text
    form = {"column": "age", "edges": "30, 45, 65"}
    r = client.post("/api/hierarchy/preview", data=form, headers=ORIGIN)
    assert r.status_code == 200, r.text
    frame = pd.read_csv(folder / "survey.csv")
    band = np.searchsorted([30, 45, 65], frame["age"], side="right")  # <30, 30-44, 45-64, 65+
    by_hand = frame.assign(age=band).groupby(keys, dropna=False).size()
    assert int(re.search(r'data-testid="hier-k">(\d+)<', r.text).group(1)) == by_hand.min()
    changed = int(
        re.search(r'data-testid="hier-changed">([\d,]+)<', r.text).group(1).replace(",", "")
    )
    assert changed == len(frame)  # every age becomes a band
    assert "30-44" in r.text and "&lt;30" in r.text and "65+" in r.text
    client.post("/api/hierarchy/add", data=form, headers=ORIGIN)
    text = client.get("/api/plan.toml").text
    assert 'use = "bin"' in text and "edges = [30, 45, 65]" in text


def test_hierarchy_groups_merge_counts(client, folder):
    frame = pd.read_csv(folder / "survey.csv")
    page = client.get("/hierarchy?column=marital_status")
    values = re.findall(r'name="v" value="([^"]+)"', page.text)
    assert sorted(values) == sorted(frame["marital_status"].dropna().unique())
    groups = {v: ("Previously married" if v in ("Divorced", "Widowed") else "") for v in values}
    form = {"column": "marital_status", "v": values, "g": [groups[v] for v in values]}
    r = client.post("/api/hierarchy/preview", data=form, headers=ORIGIN)
    merged = frame["marital_status"].isin(["Divorced", "Widowed"]).sum()
    row = re.search(r"<td>Previously married</td><td>([\d,]+)</td>", r.text)
    assert int(row.group(1).replace(",", "")) == merged
    empty = {"column": "marital_status", "v": values, "g": [""] * len(values)}
    bad = client.post("/api/hierarchy/preview", data=empty, headers=ORIGIN)
    assert bad.status_code == 400 and "into groups" in bad.text


def test_weight_and_household_roles_go_into_the_plans_risk(client, folder):
    r = client.post(
        "/api/risk", data=roles(folder, ["sex", "age"], w="weight", hh="household"), headers=ORIGIN
    )
    assert 'data-testid="household-risk"' in r.text
    step = {"use": "suppress", "params": 'keys = ["sex", "age"]\nk = 3'}
    assert client.post("/api/step", data=step, headers=ORIGIN).status_code == 200
    text = client.get("/api/plan.toml").text
    path = folder / "survey-plan.toml"
    path.write_text(text)
    limits = load_plan(path).population
    assert (limits.weights, limits.household) == ("w", "hh")
    released = finished(client, client.post("/api/release", data={}, headers=ORIGIN))
    assert released.status_code == 200, released.text
    out = pd.read_csv(folder / "survey-release" / "survey.csv")
    after = assess_records(DuckDBEngine(out), ["sex", "age"], weights="w", household="hh")
    line = re.search(r'data-testid="released-weighted">(.*?)</p>', released.text, re.S).group(1)
    assert "weights <code>w</code>" in line
    assert f"→ {after.summary.global_risk:.5f}" in line


def test_plan_without_weight_has_no_weights(folder):
    bench = Workbench.open(folder / "survey.csv", "survey.csv")
    assert "weights" not in studio_plan.risk_table(bench)


def test_sample_is_drawn_from_the_whole_table(client, folder):
    frame = pd.read_csv(folder / "survey.csv", dtype=str, keep_default_na=False)
    seen = set()
    for _ in range(2):
        page = client.get("/table").text
        body = page[page.index('data-testid="sample"') :]
        rows = re.findall(r'<tr><td class="hint">(\d+)</td>(.*?)</tr>', body, re.S)
        assert len(rows) == 15
        for number, cells in rows:
            record = frame.iloc[int(number) - 1]
            assert re.findall(r"<td>([^<]*)</td>", cells)[1] == record["name"]
        seen.add(tuple(int(n) for n, _ in rows))
    assert seen != {tuple(range(1, 16))}  # not the first rows
    assert "400" in page and "seed" not in page.lower()


def test_task_reports_progress_then_its_result():
    task = Task("t", "work")
    task(0, total=4, completed=0, description="phase")
    task(1)
    task(2)
    assert task.share == pytest.approx(0.75) and task.description == "phase"
    task.step("F2")
    assert task.share == 1.0 and task.description == "step F2"
    board = TaskBoard()
    done = board.start("sum", lambda t: 1 + 1, str, wait=5)
    assert done.done and done.result == 2 and done.error is None


def test_task_errors_are_one_line():
    board = TaskBoard()

    def refuse(task):
        raise InputError("a readable refusal")

    def crash(task):
        raise KeyError("internal detail")

    assert board.start("a", refuse, str, wait=5).error == "a readable refusal"
    crashed = board.start("b", crash, str, wait=5).error
    assert crashed.startswith("something went wrong (KeyError)") and "internal" not in crashed
    with pytest.raises(InputError):
        board.get("unknown")


NEW_POSTS = [
    "/api/select",
    "/api/select/use",
    "/api/hierarchy/preview",
    "/api/hierarchy/add",
    "/api/notes/retrain",
    "/api/notes/text-risk",
]


def test_new_routes_are_guarded(folder, client):
    stranger = studio_client(folder, PORT, TOKEN, cookie=False)
    for path in ["/select", "/hierarchy", "/api/task?id=x"]:
        assert stranger.get(path).status_code == 403, path
    for path in NEW_POSTS:
        assert stranger.post(path, headers=ORIGIN).status_code == 403, path
        evil = client.post(path, data={"key": "sex"}, headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403, path
    assert client.get("/api/task?id=unknown", headers={"X-Studio-Fragment": "1"}).status_code == 400


def test_select_by_global_risk_uses_the_weight_role(client, folder):
    client.post("/api/risk", data=roles(folder, ["sex"], w="weight"), headers=ORIGIN)
    keys = ["sex", "age", "race"]
    form = {"key": keys, "method": "forward", "stop": "0.2", "criterion": "global_risk"}
    r = finished(client, client.post("/api/select", data=form, headers=ORIGIN))
    assert r.status_code == 200, r.text
    want = select_variables(
        folder / "survey.csv", keys, stop=0.2, criterion="global_risk", weights="w"
    )
    assert "<th>global risk</th>" in r.text
    assert f"global risk {want.final['global_risk']:.4f}" in r.text
    chosen = re.search(r'data-testid="selected">Selected:(.*?)—', r.text, re.S).group(1)
    assert re.findall(r"<code>([^<]+)</code>", chosen) == want.selected


@pytest.fixture(scope="module")
def small_bench(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bins")
    generate_survey(300, seed=8).to_csv(folder / "survey.csv", index=False)
    bench = Workbench.open(folder / "survey.csv", "survey.csv")
    bench.set_roles({c: "other" for c in bench.roles} | {"sex": "key", "age": "key"})
    return bench


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 100), min_size=1, max_size=6, unique=True), st.data())
def test_bins_and_groups_only_merge_classes(small_bench, edges, data):
    """Generalizing never splits a class: k after >= k before; every record keeps a value."""
    bench = small_bench
    k_before = bench.risk().report.k
    text = ", ".join(str(e) for e in sorted(edges))
    use, params = hierarchy.step_from_form(bench, {"column": "age", "edges": text}, [])
    binned = hierarchy.preview(bench, use, params)
    assert sum(n for _, n in binned.counts) == len(bench.frame)
    assert len(binned.counts) <= len(edges) + 1
    assert binned.risk.k >= k_before
    values = [v for v, _, _ in hierarchy.editor_for(bench, "sex").values]
    groups = data.draw(
        st.lists(st.sampled_from(["", "G"]), min_size=len(values), max_size=len(values))
    )
    if any(groups):
        pairs = [("v", v) for v in values] + [("g", g) for g in groups]
        use, params = hierarchy.step_from_form(bench, {"column": "sex"}, pairs)
        grouped = hierarchy.preview(bench, use, params)
        assert grouped.risk.k >= k_before
        assert sum(n for _, n in grouped.counts) == len(bench.frame)
    assert bench.steps == []  # previews add nothing


def test_select_within_groups(client, folder):
    keys = ["sex", "age", "race"]
    form = {"key": keys, "method": "forward", "stop": "0.3", "by": "urban_rural"}
    r = finished(client, client.post("/api/select", data=form, headers=ORIGIN))
    assert r.status_code == 200, r.text
    want = select_variables(folder / "survey.csv", keys, stop=0.3, by="urban_rural")
    heads = re.findall(r'data-testid="selection-group">([^<]+)<', r.text)
    assert heads == ["All records"] + [f"Group {w.group}" for w in want[1:]]
    chosen = re.findall(r'data-testid="selected(?:-group)?">Selected:(.*?)—', r.text, re.S)
    found = [re.findall(r"<code>([^<]+)</code>", c) for c in chosen]
    assert found == [w.selected for w in want]
