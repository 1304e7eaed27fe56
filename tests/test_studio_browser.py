"""hidekit studio end to end: the real command, driven in Debian's headless Chromium by Playwright.

The server is the CLI itself (``hidekit studio --demo DIR --no-browser``): its first line is the
URL with the token, and SIGTERM ends it cleanly. Browser scenarios skip when Chromium or
Playwright is missing (nothing is downloaded: Playwright drives the system browser).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytestmark = [pytest.mark.xdist_group("studio")]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HIDEKIT = Path(sys.executable).with_name("hidekit")
SHOTS = os.environ.get("HIDEKIT_STUDIO_SHOTS")  # a folder: save screenshots there (docs)


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studio") / "demo"
    proc = subprocess.Popen(
        [str(HIDEKIT), "studio", str(folder), "--demo", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    yield {"proc": proc, "url": url, "folder": folder}
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def test_cli_contract_url_first_then_sigterm_ends_cleanly(tmp_path):
    """Its own server (tests may run in any order): URL first, refusal without the token, 130."""
    import urllib.error
    import urllib.request

    proc = subprocess.Popen(
        [str(HIDEKIT), "studio", str(tmp_path), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{40,}", url)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0], timeout=30)
        assert refused.value.code == 403
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(url, timeout=30) as page:  # token -> cookie, then the files page
            assert page.status == 200 and "Files in" in page.read().decode()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 130  # the project's exit code for an interrupted command
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM:
        pytest.skip("no headless Chromium (scripts/ensure-chromium.sh installs Debian's)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(browser, studio):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(120_000)  # the machine may be loaded: the model loads, notes detect
    pg.goto(studio["url"])
    yield pg
    context.close()


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


def k_value(page) -> int:
    return int(page.get_by_test_id("k").inner_text().replace(",", ""))


def risk_swaps(page) -> int:
    return int(page.locator("body").get_attribute("data-swapsrisk") or 0)


def then_risk(page, action) -> None:
    """Do ``action`` and wait until the risk panel has been redrawn."""
    before = risk_swaps(page)
    action()
    page.locator(f"body[data-swapsrisk='{before + 1}']").wait_for(state="attached")


def set_role(page, column: str, role: str) -> None:
    then_risk(page, lambda: page.get_by_test_id(f"role-{column}").select_option(role))


KEYS = ["sex", "age", "state"]


def test_table_workflow(page, studio):
    """One scenario in order (pytest-xdist's loadgroup may reorder separate tests)."""
    open_demo_tick_keys_and_see_k_change(page, studio)
    add_suppression_and_reach_target(page)
    export_plan_and_release_same_output(page, studio)


def open_demo_tick_keys_and_see_k_change(page, studio):
    assert "token" not in page.url  # moved to the cookie on the first visit
    if not page.url.endswith("/table"):  # the notes scenario ran first
        page.goto(studio["url"].split("?")[0] + "table")
    assert page.url.endswith("/table")  # --demo opened the survey
    page.get_by_test_id("variables").wait_for()
    selects = page.locator("select[name^='role:']")
    # start from roles: direct identifiers as the scan says, every other variable "other"
    for i in range(selects.count()):
        name = selects.nth(i).get_attribute("name")[5:]
        if selects.nth(i).input_value() == "key":
            set_role(page, name, "other")
    assert page.get_by_test_id("no-keys").is_visible()
    set_role(page, "sex", "key")
    k_sex = k_value(page)
    set_role(page, "age", "key")
    set_role(page, "state", "key")
    k_three = k_value(page)
    frame = pd.read_csv(studio["folder"] / "survey.csv")
    assert k_sex == frame.groupby("sex", dropna=False).size().min()
    assert k_three == frame.groupby(KEYS, dropna=False).size().min() < k_sex
    assert page.get_by_test_id("verdict").inner_text().startswith(f"k = {k_three} is below")
    shot(page, "studio-risk")


def add_suppression_and_reach_target(page):
    page.get_by_test_id("step-use").select_option("remove")  # the direct identifiers
    assert "name" in page.get_by_test_id("step-params").input_value()
    then_risk(page, page.get_by_test_id("add-step").click)
    page.get_by_test_id("step-use").select_option("suppress")
    params = page.get_by_test_id("step-params").input_value()
    assert params == 'keys = ["state", "sex", "age"]\nk = 3'  # the keys ticked, in file order
    then_risk(page, page.get_by_test_id("add-step").click)
    assert page.get_by_test_id("step-k").nth(1).inner_text() == str(k_value(page))
    assert k_value(page) >= 3
    assert "meets the target" in page.get_by_test_id("verdict").inner_text()
    assert page.get_by_test_id("loss").is_visible()
    shot(page, "studio-plan")


def export_plan_and_release_same_output(page, studio):
    folder = studio["folder"]
    with page.expect_download() as info:
        page.get_by_test_id("export").click()
    exported = Path(info.value.path()).read_text()
    assert 'use = "suppress"' in exported
    page.get_by_test_id("run-release").click()
    page.get_by_test_id("released").wait_for()
    assert (folder / "survey-plan.toml").read_text() == exported
    out = folder / "cli-release"
    subprocess.run(
        [str(HIDEKIT), "release", str(folder / "survey-plan.toml"), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    assert (out / "survey.csv").read_bytes() == (
        folder / "survey-release" / "survey.csv"
    ).read_bytes()
    shot(page, "studio-release")
    with page.context.expect_page() as popup:
        page.get_by_test_id("open-report").click()
    report = popup.value
    report.wait_for_load_state()
    assert "k" in report.content()
    shot(report, "studio-report")
    report.close()


def swapped(page, counter: str, action) -> None:
    """Do ``action`` and wait until the fragment behind ``counter`` has been redrawn."""
    before = int(page.locator("body").get_attribute(f"data-{counter}") or 0)
    action()
    page.locator(f"body[data-{counter}='{before + 1}']").wait_for(state="attached")


SELECT_WORD = """word => {
  const note = document.getElementById("note");
  const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("mark")) continue;
    const at = node.textContent.indexOf(word);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    document.activeElement && document.activeElement.blur();
    return true;
  }
  return false;
}"""


def test_notes_correct_a_span_and_save_brat(page, studio):
    folder = studio["folder"]
    page.goto(studio["url"].split("?")[0])
    shot(page, "studio-files")
    page.get_by_role("link", name="open notes").click()
    page.get_by_test_id("note").wait_for()
    name = page.locator(".note-list a[aria-current]").inner_text()
    text = (folder / "notes" / f"{name}.txt").read_text()
    first = page.locator("#note mark").first
    start, end = map(int, first.get_attribute("data-testid").split("-")[1:])
    first.click()  # mouse: select the span; keyboard: r rejects it
    swapped(page, "swapsnoteview", lambda: page.keyboard.press("r"))
    assert page.get_by_test_id(f"span-{start}-{end}").get_attribute("data-status") == "rejected"
    shot(page, "studio-notes")
    words = re.findall(r"[A-Za-z]{6,}", text)
    page.get_by_test_id("label-choice").select_option("OTHER")
    word = next(w for w in words if page.evaluate(SELECT_WORD, w))
    swapped(page, "swapsnoteview", lambda: page.keyboard.press("t"))
    added = page.locator("#note mark[data-label='OTHER'][data-status='accepted']")
    a_start, a_end = map(int, added.first.get_attribute("data-testid").split("-")[1:])
    assert text[a_start:a_end] == word
    page.get_by_test_id("save-brat").click()
    page.get_by_test_id("saved").wait_for(timeout=300_000)  # detects the unopened notes
    ann = (folder / "notes-reviewed" / f"{name}.ann").read_text()
    rows = [line.split("\t")[1].split() for line in ann.splitlines()]
    kept = {(lab, int(s), int(e)) for lab, s, e in rows}
    assert ("OTHER", a_start, a_end) in kept
    assert not any((s, e) == (start, end) for _, s, e in kept)
    assert (folder / "notes-reviewed" / f"{name}.txt").read_text() == text
    page.get_by_test_id("preview-operator").select_option("tag")
    page.get_by_test_id("preview-button").click()
    assert "[OTHER]" in page.get_by_test_id("preview").inner_text()
    page.get_by_test_id("preview").scroll_into_view_if_needed()
    shot(page, "studio-notes-preview")


def goto(page, studio, path: str) -> None:
    page.goto(studio["url"].split("?")[0] + path.lstrip("/"))


def test_select_screen_runs_forward_selection(page, studio):
    """Tick candidates, run forward selection: the steps table and the RP/CR plot appear, and
    the keys chosen are the library's."""
    from hidekit.selection import select_variables

    goto(page, studio, "/table")
    while page.get_by_test_id("undo").count():  # the original table (the release test's plan off)
        then_risk(page, page.get_by_test_id("undo").click)
    page.get_by_test_id("nav-select").click()
    page.get_by_test_id("candidates").wait_for()
    candidates = ["sex", "age", "state", "race", "marital_status"]
    boxes = page.locator("input[name='key']")
    for i in range(boxes.count()):
        boxes.nth(i).set_checked(boxes.nth(i).get_attribute("value") in candidates)
    page.get_by_test_id("select-method").select_option("forward")
    page.get_by_test_id("select-stop").fill("0.2")
    page.get_by_test_id("run-select").click()
    page.get_by_test_id("selection-result").wait_for()
    data = studio["folder"] / "survey.csv"
    in_file_order = [c for c in pd.read_csv(data, nrows=1).columns if c in candidates]
    want = select_variables(data, in_file_order, method="forward", stop=0.2, cell_min=3)
    chosen = page.get_by_test_id("selected").locator("code").all_inner_texts()
    assert chosen == want.selected
    assert page.get_by_test_id("step-rp").count() == len(want.taken)
    assert page.get_by_test_id("selection-chart").locator("svg").count() == 1
    page.get_by_test_id("run-select").scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('[data-testid=run-select]').scrollIntoView()")
    shot(page, "studio-select")
    page.get_by_test_id("use-selection").click()
    page.get_by_test_id("select-used").wait_for()
    goto(page, studio, "/table")
    for column in candidates:
        role = page.get_by_test_id(f"role-{column}").input_value()
        assert role == ("key" if column in want.selected else "other")


def test_hierarchy_editor_groups_and_bins(page, studio):
    """Group categories by ticking them and by dragging one onto another, preview counts and k,
    add to the plan; then bins."""
    goto(page, studio, "/table")
    while page.get_by_test_id("undo").count():  # the original table: the release test's plan
        then_risk(page, page.get_by_test_id("undo").click)  # removes the identifiers (order!)
    goto(page, studio, "/hierarchy?column=marital_status")
    page.get_by_test_id("hier-values").wait_for()
    for value in ("Divorced", "Widowed"):
        page.get_by_test_id(f"pick-{value}").check()
    page.get_by_test_id("group-name").fill("Previously married")
    page.get_by_test_id("group-ticked").click()
    assert page.get_by_test_id("group-Widowed").input_value() == "Previously married"
    page.get_by_test_id("row-Separated").drag_to(page.get_by_test_id("row-Widowed"))
    assert page.get_by_test_id("group-Separated").input_value() == "Previously married"
    page.get_by_test_id("hier-preview-button").click()
    page.get_by_test_id("hier-counts").wait_for()
    frame = pd.read_csv(studio["folder"] / "survey.csv")
    merged = int(frame["marital_status"].isin(["Divorced", "Widowed", "Separated"]).sum())
    row = page.get_by_test_id("hier-counts").locator("tr", has_text="Previously married")
    assert row.locator("td").nth(1).inner_text().replace(",", "") == str(merged)
    shot(page, "studio-hierarchy")
    page.get_by_test_id("hier-add").click()
    page.get_by_test_id("hier-added").wait_for()
    page.get_by_test_id("hier-column").select_option("age")
    page.get_by_test_id("hier-edges").wait_for()
    page.get_by_test_id("hier-edges").fill("30, 45, 65")
    page.get_by_test_id("hier-preview-button").click()
    page.get_by_test_id("hier-k").wait_for()
    assert "30-44" in page.get_by_test_id("hier-counts").inner_text()
    shot(page, "studio-hierarchy-bins")
    page.get_by_test_id("hier-add").click()
    page.get_by_test_id("hier-added").wait_for()
    goto(page, studio, "/table")
    with page.expect_download() as info:
        page.get_by_test_id("export").click()
    steps = tomllib.loads(Path(info.value.path()).read_text())["steps"]
    assert steps[-2]["use"] == "map_values" and steps[-2]["columns"] == ["marital_status"]
    previously = ["Divorced", "Widowed", "Separated"]
    assert steps[-2]["mapping"] == dict.fromkeys(previously, "Previously married")
    assert steps[-1] == {"use": "bin", "columns": ["age"], "edges": [30, 45, 65]}
    # the release of this plan is refused (direct identifiers kept): one line in the page
    page.locator("input[name='overwrite']").check()  # past the earlier release's folder
    page.get_by_test_id("run-release").click()
    error = page.locator("#error.shown [data-testid='error']")
    page.locator("#error.shown [data-testid='error'], [data-testid='released']").first.wait_for()
    assert error.count(), f"not refused: {page.locator('#release-result').inner_text()}"
    assert "refused" in error.inner_text() and "Traceback" not in page.content()
    assert page.locator("[data-testid='progress']").count() == 0


ADVANCED = """() => {
  const bar = document.querySelector("[data-testid=progress-bar]");
  return !bar || Number(bar.getAttribute("value") || 0) > 0;
}"""


def test_notes_retrain_with_progress_and_text_risk(page, studio):
    """Retraining shows a progress bar fed by the training job, then old and new scores per
    type; the text-risk verdict follows the corrections."""
    goto(page, studio, "/notes")  # the notes as the correction test left them
    if not page.get_by_test_id("note").count():  # that test has not run
        goto(page, studio, "/notes?path=notes")
    page.get_by_test_id("note").wait_for()
    page.get_by_test_id("retrain").click()
    # a progress bar while the work runs, or the result at once when it was quick
    page.locator(
        "[data-testid=progress-bar], [data-testid=retrained], #error.shown"
    ).first.wait_for()
    assert not page.locator("#error.shown").count(), page.locator("#error").inner_text()
    if page.get_by_test_id("progress-bar").count():
        page.wait_for_function(ADVANCED)  # the bar moved on (or the work is already done)
    from playwright.sync_api import Error as PlaywrightError

    if page.get_by_test_id("progress").count():
        try:  # the work may end, and the bar go, between the count and the scroll
            page.get_by_test_id("progress").scroll_into_view_if_needed(timeout=2_000)
            shot(page, "studio-progress")
        except PlaywrightError:
            pass
    page.get_by_test_id("retrained").wait_for(timeout=600_000)
    model = studio["folder"] / "notes-reviewed.model"
    assert model.is_file() and model.stat().st_mode & 0o077 == 0
    assert float(page.get_by_test_id("train-f1").inner_text()) > 0
    assert 0 <= float(page.get_by_test_id("cv-f1").inner_text()) <= 1
    assert (
        page.get_by_test_id("retrained-direct-verdict")
        .inner_text()
        .startswith("Direct identifiers:")
    )
    page.get_by_test_id("retrained").scroll_into_view_if_needed()
    shot(page, "studio-retrain")
    page.get_by_test_id("text-risk").click()
    page.get_by_test_id("text-risk-result").wait_for(timeout=300_000)
    assert page.get_by_test_id("direct-verdict").inner_text().startswith("Direct identifiers:")
    assert "seed" not in page.get_by_test_id("text-risk-result").inner_text().lower()
    page.get_by_test_id("text-risk-result").scroll_into_view_if_needed()
    shot(page, "studio-text-risk")
