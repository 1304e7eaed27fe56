"""``hidekit text risk`` end to end: JSON shape, report, formats, and bad input."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.evaluation.text_risk_corpus import drop_spans
from hidekit.jobs.corpus import write_brat_dir, write_jsonl
from hidekit.text.corpus import read_brat_dir

runner = CliRunner()


@pytest.fixture()
def corpora(tmp_path, fixtures):
    gold = tmp_path / "gold"
    shutil.copytree(fixtures / "meddocan", gold)
    docs = read_brat_dir(gold)
    pred = write_brat_dir(drop_spans(docs, 0.15, seed=4), tmp_path / "pred", write_text=False)
    return gold, pred, docs


def run(*args):
    return runner.invoke(app, ["text", "risk", *map(str, args)])


def test_json_has_the_promised_fields_and_matches_the_api(corpora, tmp_path):
    gold, pred, _ = corpora
    report = tmp_path / "risk.html"
    res = run(
        "--gold", gold, "--pred", pred, "--json", "--draws", 2000, "--seed", 3, "--report", report
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    for part in ("direct", "quasi"):
        assert {"estimate", "mean", "ci", "acceptable", "conventional"} <= set(d[part])
        lo, hi = d[part]["ci"]
        assert 0 <= lo <= hi <= 1
        assert isinstance(d[part]["acceptable"], bool)
    assert (
        d["direct"]["conventional"]["all_or_nothing_recall"]
        <= d["direct"]["conventional"]["masking_recall"]
    )
    from hidekit.evaluation.text_risk import assess_text_risk

    api = assess_text_risk(gold, pred, draws=2000, seed=3).to_dict()
    assert api["direct"]["ci"] == d["direct"]["ci"] and api["quasi"]["mean"] == d["quasi"]["mean"]
    html = report.read_text()
    assert html.count("hk-mark") > 40 and "benchmark" in html and "Table 1" in html
    assert "<script" not in html


def test_plain_output_and_options(corpora):
    gold, pred, _ = corpora
    res = run(
        "--gold",
        gold,
        "--pred",
        pred,
        "--resynthesized",
        "--hips",
        0.1,
        "--attempt",
        "0.1,0.2,0.3",
        "--cell-size",
        11,
        "--draws",
        500,
    )
    assert res.exit_code == 0, res.output
    assert "DI: upper 95% limit" in res.stdout and "τ = 0.0909" in res.stdout


def test_jsonl_and_types_map(corpora, tmp_path):
    gold, _, docs = corpora
    write_jsonl(docs, tmp_path / "gold.jsonl")
    write_jsonl(drop_spans(docs, 0.15, seed=4), tmp_path / "pred.jsonl")
    tmap = tmp_path / "map.json"
    tmap.write_text(json.dumps({"direct": ["NOMBRE_SUJETO_ASISTENCIA"], "quasi": ["FECHAS"]}))
    res = run(
        "--gold",
        tmp_path / "gold.jsonl",
        "--pred",
        tmp_path / "pred.jsonl",
        "--format",
        "jsonl",
        "--types-map",
        tmap,
        "--json",
        "--draws",
        500,
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert [t["label"] for t in d["direct"]["types"]] == ["NOMBRE_SUJETO_ASISTENCIA"]
    assert "TERRITORIO" in d["ignored_types"]


def test_different_documents_is_a_clear_error_and_nothing_is_written(corpora, tmp_path):
    gold, pred, _ = corpora
    victim = sorted(pred.glob("*.ann"))[0]
    victim.unlink()
    report = tmp_path / "r.html"
    res = run("--gold", gold, "--pred", pred, "--report", report)
    assert res.exit_code == 2
    assert "different documents" in res.stderr and victim.stem in res.stderr
    assert not report.exists()


def test_span_outside_the_text_is_a_clear_error(corpora):
    gold, pred, _ = corpora
    ann = sorted(pred.glob("*.ann"))[0]
    ann.write_text("T1\tFECHAS 10 999999\tx\n")
    res = run("--gold", gold, "--pred", pred)
    assert res.exit_code == 2 and "outside the text" in res.stderr


def test_type_map_leaving_everything_unmapped(corpora, tmp_path):
    gold, pred, _ = corpora
    tmap = tmp_path / "map.json"
    tmap.write_text(json.dumps({"direct": ["NAME"], "quasi": ["DATE"]}))
    res = run("--gold", gold, "--pred", pred, "--types-map", tmap)
    assert res.exit_code == 2 and "leaves every gold type unmapped" in res.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hips", "1.5"], "--hips"),
        (["--attempt", "0.5,0.2,0.1"], "a <= b <= c"),
        (["--attempt", "x,y,z"], "three numbers"),
        (["--draws", "10"], "--draws"),
        (["--cell-size", "0"], "--cell-size"),
        (["--types-map", "nope.json"], "type map not found"),
    ],
)
def test_bad_options(corpora, args, message):
    gold, pred, _ = corpora
    res = run("--gold", gold, "--pred", pred, *args)
    assert res.exit_code == 2 and message in res.stderr
