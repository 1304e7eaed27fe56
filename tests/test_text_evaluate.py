"""``hidekit text evaluate``: figures on hand-made gold/prediction pairs, checked by hand."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.jobs.corpus import write_brat_dir, write_jsonl
from hidekit.text.spans import Document, Span

runner = CliRunner()
TEXT = "Ana Pérez vino el 3/4/2020 a Madrid."
#       0123456789012345678901234567890123456


def sp(start: int, end: int, label: str) -> Span:
    return Span(start, end, label, TEXT[start:end])


GOLD = [Document("d1", TEXT, [sp(0, 9, "NAME"), sp(18, 26, "DATE"), sp(29, 35, "CITY")])]
# pred: exact NAME (tp), DATE with wrong end (strict fp+fn, relaxed tp), CITY missed, an extra fp
PRED = [Document("d1", TEXT, [sp(0, 9, "NAME"), sp(18, 24, "DATE"), sp(10, 14, "NAME")])]


@pytest.fixture()
def folders(tmp_path):
    write_brat_dir(GOLD, tmp_path / "gold")
    write_brat_dir(PRED, tmp_path / "pred")
    return tmp_path / "gold", tmp_path / "pred"


def test_evaluate_figures_by_hand(folders):
    gold, pred = folders
    res = runner.invoke(
        app, ["text", "evaluate", "--gold", str(gold), "--pred", str(pred), "--json"]
    )
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    strict = r["strict"]
    # strict: tp 1 (NAME), fp 2 (DATE 18-24, NAME 10-14), fn 2 (DATE, CITY)
    assert (strict["micro"]["tp"], strict["micro"]["fp"], strict["micro"]["fn"]) == (1, 2, 2)
    assert strict["micro"]["precision"] == pytest.approx(1 / 3)
    assert strict["micro"]["recall"] == pytest.approx(1 / 3)
    # macro over gold types: NAME F1 = 2*(1/2*1)/(1/2+1) = 2/3, DATE 0, CITY 0
    assert strict["macro_f1"] == pytest.approx((2 / 3) / 3)
    # relaxed: NAME and DATE found (overlap), CITY missed; the 10-14 prediction overlaps nothing
    relaxed = r["relaxed"]["micro"]
    assert (relaxed["tp"], relaxed["fp"], relaxed["fn"]) == (2, 1, 1)
    # token level: gold Ana Pérez | 3 / 4 / 2020 | Madrid; pred 18-24 overlaps all five date tokens
    # (2020 starts at 22), and adds "vino"
    phi = r["token"]["phi"]
    assert (phi["tp"], phi["fp"], phi["fn"]) == (2 + 5, 1, 1)


def test_evaluate_text_output_and_jsonl_predictions(folders, tmp_path):
    gold, _ = folders
    write_jsonl(PRED, tmp_path / "pred.jsonl")
    res = runner.invoke(
        app, ["text", "evaluate", "--gold", str(gold), "--pred", str(tmp_path / "pred.jsonl")]
    )
    assert res.exit_code == 0, res.output
    assert "strict" in res.stdout and "relaxed" in res.stdout and "NAME" in res.stdout


def test_evaluate_mismatched_documents_and_bad_ann(folders, tmp_path):
    gold, pred = folders
    (pred / "extra.txt").write_text("x", encoding="utf-8")
    (pred / "extra.ann").write_text("", encoding="utf-8")
    res = runner.invoke(app, ["text", "evaluate", "--gold", str(gold), "--pred", str(pred)])
    assert res.exit_code == 2 and "only in predictions: extra" in res.stderr
    (pred / "extra.txt").unlink()
    (pred / "extra.ann").unlink()
    (pred / "d1.ann").write_text("T1\tNAME 0 9\tAna Pérex\n", encoding="utf-8")
    res = runner.invoke(app, ["text", "evaluate", "--gold", str(gold), "--pred", str(pred)])
    assert res.exit_code == 2 and "d1.ann:1" in res.stderr
