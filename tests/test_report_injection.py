"""No script runs in any HTML report hidekit writes (issue 16, fuzz corpus), checked in headless
Chromium.

Every kind of report (risk, select, release, anonymize with Mondrian and with the optimal
lattice, utility, text risk, link) is built from data whose file and folder names, column names
and values carry script payloads: a ``<script>`` element, ``<img onerror>`` and ``<svg onload>``
handlers, attribute and ``</title>`` break-outs, a ``javascript:`` URL. Each payload, if it ran,
would set a ``data-pwned-*`` attribute on the page's root element; Chromium loads the page,
runs whatever scripts it holds, and prints the resulting DOM (``--dump-dom``). The first test
shows the check does catch execution: on a page that embeds the same payloads unescaped, every
one of them fires.

Needs Chromium (``/usr/bin/chromium``, installed by ``make setup``); skips cleanly without it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.jobs.files import save_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make setup)"),
]
runner = CliRunner()
ROOT = "document.documentElement.dataset"


def _p(name: str) -> str:
    """The statement a payload runs: mark the page (``data-pwned-NAME``)."""
    return f"{ROOT}.pwned{name}=1"


# Payloads free of , ; | and tabs (list and CSV separators) and of / where they name a file.
SCRIPT = f"<script>{_p('Script')}</script>"
IMG = f"<img src=x onerror={_p('Img')}>"
SVG = f"<svg onload={_p('Svg')}>"
ATTR = f'"><img src=x onerror={_p("Attr")}>'
TITLE = f"</title><img src=x onerror={_p('Title')}>"
QUOTE = f"'><svg onload={_p('Quote')}>"
JS_URL = f"javascript:{_p('Href')}"
PAYLOADS = [SCRIPT, IMG, SVG, ATTR, TITLE, QUOTE]

# Column names: each a payload (a key, a second key, a numeric key, the sensitive column).
K1, K2, AGE, SENS = SCRIPT, ATTR, "age" + TITLE, "diag" + SVG
FILE_NAME = f"<img src=x onerror={_p('File')}>"  # a data file's and a folder's name


def dump_dom(page: Path, profile: Path, screenshot: Path | None = None) -> str:
    """The page's DOM after Chromium has loaded it and run whatever it holds."""
    args = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    if screenshot is not None:
        shot = subprocess.run(
            [*args, f"--screenshot={screenshot}", "--window-size=1100,1400", page.as_uri()],
            capture_output=True,
            timeout=120,
        )
        assert shot.returncode == 0 and screenshot.stat().st_size > 10_000
    proc = subprocess.run(
        [*args, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "<body" in proc.stdout, proc.stderr[-500:]
    return proc.stdout


class _Elements(HTMLParser):
    """Every element of a page with its attributes (the parser reads attribute values as
    values: an escaped ``onerror=`` inside a label is not an attribute)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def assert_nothing_ran(dom: str, where: str) -> None:
    ran = re.findall(r"data-pwned-[a-z]+", dom)
    assert not ran, f"{where}: injected script ran ({', '.join(sorted(set(ran)))})"
    parser = _Elements()
    parser.feed(dom)
    tags = [t for t, _ in parser.elements]
    assert "script" not in tags and "img" not in tags, f"{where}: an injected element"
    for tag, attrs in parser.elements:
        handlers = [a for a in attrs if a.startswith("on")]
        assert not handlers, f"{where}: <{tag}> with event handler {handlers}"
        for a in ("href", "src", "xlink:href", "action"):
            assert not (attrs.get(a) or "").strip().lower().startswith("javascript:"), where


def test_the_check_catches_a_page_that_does_not_escape(tmp_path):
    """The control: the same payloads pasted unescaped into a page do run, and are caught."""
    body = (
        "".join(f'<p title="{p}">{p}</p>' if p == ATTR else f"<p>{p}</p>" for p in PAYLOADS)
        + f'<a href="{JS_URL}">link</a>'
    )
    page = tmp_path / "unescaped.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>{TITLE}</title></head><body>{body}")
    dom = dump_dom(page, tmp_path / "profile")
    ran = set(re.findall(r"data-pwned-([a-z]+)", dom))
    assert ran == {"script", "img", "svg", "attr", "title", "quote"}, ran
    with pytest.raises(AssertionError, match="injected script ran"):
        assert_nothing_ran(dom, "control")


def _frame(n: int = 240) -> pd.DataFrame:
    rng = np.random.default_rng(16)
    values = [*PAYLOADS, JS_URL]
    return pd.DataFrame(
        {
            K1: rng.choice(values, n),
            K2: rng.choice([SCRIPT, "plain"], n),
            AGE: rng.integers(20, 60, n),
            SENS: rng.choice([IMG, QUOTE, "flu", JS_URL], n),
        }
    )


def _hierarchy(path: Path, values, group) -> str:
    """An ARX hierarchy (``;``-separated, fields quoted as CSV quotes them)."""
    import csv

    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter=";", quoting=csv.QUOTE_ALL).writerows(
            [str(v), group(v), "*"] for v in values
        )
    return str(path)


def _invoke(*args) -> None:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, (args[0], res.output, res.exception)


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Every kind of report, built from hostile names and values, as the commands write them."""
    tmp = tmp_path_factory.mktemp("inject")
    frame = _frame()
    data = tmp / f"{FILE_NAME}.csv"
    frame.to_csv(data, index=False)
    keys = ",".join([K1, K2, AGE])
    out: dict[str, Path] = {}

    out["risk"] = tmp / "risk.html"
    _invoke("risk", data, "--keys", f"{K1},{AGE}", "--by", K2, "--report", out["risk"])
    out["select"] = tmp / "select.html"
    _invoke("select", data, "--keys", keys, "--stop", "0.5", "--report", out["select"])

    out["mondrian"] = tmp / "mondrian.html"
    released = tmp / "mondrian.csv"
    _invoke("anonymize", data, "--keys", keys, "--k", "3", "--l", "2", "--sensitive", SENS,
            "--out", released, "--report", out["mondrian"], "--max-loss", "0.01")  # fmt: skip

    h1 = _hierarchy(tmp / "h1.csv", sorted(set(frame[K1])), lambda v: v[:3])
    h2 = _hierarchy(tmp / "h2.csv", sorted(set(frame[K2])), lambda v: v[:2])
    h3 = _hierarchy(tmp / "h3.csv", range(20, 60), lambda v: f"{v // 10 * 10}s{IMG}")
    out["optimal"] = tmp / "optimal.html"
    # the job ``anonymize --method optimal`` calls (its --hierarchy COL=FILE cannot name a
    # column holding "=")
    from hidekit.jobs import anonymize_optimal

    hierarchies = {K1: h1, K2: h2, AGE: h3}
    anonymize_optimal(data, tmp / "optimal.csv", keys=[K1, K2, AGE], hierarchies=hierarchies,
                      k=3, suppression=0.1, report=out["optimal"], max_loss=0.01)  # fmt: skip

    out["utility"] = tmp / "utility.html"
    _invoke("utility", data, released, "--keys", keys, "--k", "3", "--report", out["utility"])

    plan = tmp / "plan.toml"
    plan.write_text(
        f"[input]\npath = {json.dumps(data.name)}\n[output]\nfolder = {json.dumps(FILE_NAME)}\n"
        f"[roles]\nkeys = {json.dumps([K1, K2, AGE])}\nsensitive = {json.dumps([SENS])}\n"
        f"reviewed = {json.dumps(list(frame.columns))}\n[risk]\nk = 2\nmax_loss = 0.01\n"
        f'[[steps]]\nuse = "suppress"\nkeys = {json.dumps([K1, K2, AGE])}\nk = 2\n',
        encoding="utf-8",
    )
    _invoke("release", plan)
    out["release"] = tmp / FILE_NAME / "report.html"

    out["text-risk"] = tmp / "text-risk.html"
    out["link"] = _link_report(tmp / "link", frame)
    gold, pred = _hostile_corpora(tmp)
    _invoke("text", "risk", "--gold", gold, "--pred", pred, "--draws", "500",
            "--report", out["text-risk"])  # fmt: skip
    return out


def _hostile_corpora(tmp: Path) -> tuple[Path, Path]:
    """A gold corpus and a tool's output missing some spans, in folders named by payloads,
    with documents named by payloads, and payloads in the texts."""
    from hidekit.evaluation.text_risk_corpus import drop_spans
    from hidekit.jobs.corpus import write_brat_dir
    from hidekit.text.corpus import Document, Span

    docs = []
    for i in range(30):
        name, city = f"Ana {SCRIPT} Ruiz", f"Lugo{IMG}"
        text = f"Patient {name} lives in {city} and is 40 years old."
        spans = [
            Span(text.index(name), text.index(name) + len(name), "NAME", name),
            Span(text.index(city), text.index(city) + len(city), "LOCATION", city),
        ]
        docs.append(Document(f"note{i:02d}{FILE_NAME}", text, spans))
    gold = write_brat_dir(docs, tmp / f"gold{FILE_NAME}")
    pred = write_brat_dir(drop_spans(docs, 0.3, seed=1), tmp / f"pred{FILE_NAME}")
    return Path(gold), Path(pred)


def _link_report(folder: Path, frame: pd.DataFrame) -> Path:
    """The link report over a survey whose key columns and values carry payloads."""
    from hidekit.demo.survey import generate_survey
    from hidekit.linking import link, release
    from hidekit.linking.report import link_report
    from hidekit.text.synthesis import generate_patient_notes

    survey = generate_survey(60, seed=3)
    docs = generate_patient_notes(survey, 1, seed=4)
    survey = survey.rename(columns={"sex": K1, "diagnosis": SENS})
    survey[K1] = np.where(survey[K1] == survey[K1].iloc[0], SCRIPT, ATTR)
    survey[SENS] = [PAYLOADS[i % 3] for i in range(len(survey))]
    linked = link(survey, docs, "record_id")
    rel = release(linked, [K1, "age"], 3, l=2, sensitive=SENS, key=b"k" * 32)
    folder.mkdir()
    page = link_report(linked.report, rel, title=f"Link {FILE_NAME}")
    return Path(save_report(page, folder / "r.html"))


KINDS = ["risk", "select", "mondrian", "optimal", "utility", "release", "text-risk", "link"]


@pytest.mark.parametrize("kind", KINDS)
def test_no_injected_script_runs_in_the_report(reports, kind, tmp_path):
    page = reports[kind]
    html = page.read_text(encoding="utf-8")
    # the hostile text is in the page, as text: proof the payloads reached the report
    assert "&lt;script&gt;" in html or "&lt;img src=x" in html, kind
    assert_nothing_ran(dump_dom(page, tmp_path / "profile"), kind)


def test_screenshots_of_two_reports(reports, tmp_path):
    """Pictures to look at (kept in tests/.screenshots when HIDEKIT_KEEP_SCREENSHOTS is set)."""
    import os

    keep = Path(os.environ.get("HIDEKIT_KEEP_SCREENSHOTS", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    for kind in ("release", "mondrian"):
        dom = dump_dom(reports[kind], tmp_path / "profile", keep / f"{kind}.png")
        assert_nothing_ran(dom, kind)
