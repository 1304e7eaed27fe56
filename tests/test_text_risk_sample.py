"""``text risk`` says when the sample is too small for its interval (issue 16, "verdicts that
tell the whole truth"): the rule, checked against hand computations, and end to end."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.evaluation.text_risk import assess_text_risk
from hidekit.evaluation.text_risk_report import text_risk_report
from hidekit.evaluation.text_risk_sample import (
    SAMPLE_RULE,
    SampleCheck,
    normal_interval,
    wilson_interval,
)
from hidekit.jobs.corpus import write_brat_dir
from hidekit.text.spans import Document, Span

runner = CliRunner()
Z = 1.959963984540054


def test_wilson_interval_by_hand():
    # nothing leaked in 20 documents: lower limit k / (k + z²) (the score interval at p = 1)
    lo, hi = wilson_interval(1.0, 20)
    assert lo == pytest.approx(20 / (20 + Z * Z)) and hi == 1.0
    assert lo == pytest.approx(0.8389, abs=1e-4)
    # p = 0.5, k = 100: centre 0.5, half z·sqrt(0.25/100 + z²/40000) / (1 + z²/100)
    lo, hi = wilson_interval(0.5, 100)
    half = Z * math.sqrt(0.0025 + Z * Z / 40000) / (1 + Z * Z / 100)
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    assert normal_interval(1.0, 20) == (1.0, 1.0)  # what the Monte Carlo draws: zero width


@pytest.mark.parametrize(
    ("p", "k", "side", "too_small"),
    [
        (1.0, 20, "low", True),  # 0 leaks in 20: Wilson reaches down to 0.84
        (1.0, 1000, "low", False),  # 0 leaks in 1000: Wilson 0.9962, within 0.01
        (0.9, 1000, "low", False),  # 100 leaks, 900 masked: the normal law holds
        (0.96, 100, "low", True),  # 4 leaks: Wilson 0.9016, 0.020 below the normal 0.9216
        (0.05, 40, "high", True),  # 2 of 40 documents hold the type: W's upper limit too low
        (1.0, 40, "high", False),  # every document holds it: W cannot be higher
    ],
)
def test_rule(p, k, side, too_small):
    c = SampleCheck("x", p, k, side, normal_interval(p, k), wilson_interval(p, k))
    assert c.too_small is too_small


def test_rule_figures_by_hand():
    # normal: 0.96 - 1.96·sqrt(0.96·0.04/100) = 0.9216; Wilson: (0.96 + z²/200) / (1 + z²/100)
    # - z·sqrt(0.000384 + z²/40000) / (1 + z²/100) = 0.9430 - 0.0414 = 0.9016
    assert normal_interval(0.96, 100)[0] == pytest.approx(0.9216, abs=1e-4)
    assert wilson_interval(0.96, 100)[0] == pytest.approx(0.9016, abs=1e-4)


def _corpus(n_docs: int) -> list[Document]:
    docs = []
    for i in range(n_docs):
        text = f"Patient John Doe{i} seen 03/0{i % 9 + 1}/2020 in Boston."
        a = text.index("John")
        b = text.index(" seen")
        d = text.index("03/")
        c = text.index("Boston")
        spans = [
            Span(a, b, "NAME", text[a:b]),
            Span(d, d + 10, "DATE", text[d : d + 10]),
            Span(c, c + 6, "CITY", text[c : c + 6]),
        ]
        docs.append(Document(f"n{i:03d}", text, spans))
    return docs


def test_small_perfect_corpus_warns_in_result_json_and_report(tmp_path):
    gold = _corpus(12)
    res = assess_text_risk(gold, gold, draws=500, seed=1)
    assert res.direct.ci == [0.0, 0.0]  # the interval claims certainty ...
    warnings = res.sample_warnings
    assert any(w.startswith("R_i NAME = 1.000 from 12 documents") for w in warnings)
    assert any(w.startswith("R_q = 1.000 from 12 documents") for w in warnings)
    d = res.to_dict()
    assert d["sample"]["too_small"] is True and d["sample"]["rule"] == SAMPLE_RULE
    html = text_risk_report(res).html()
    assert "too small for these intervals" in html and "Agresti" in html


def test_large_corpus_with_leaks_on_both_sides_does_not_warn():
    gold = _corpus(400)
    # the tool misses the name in 40 documents and the city in 60: every share has ≥ 5 each side
    pred = [
        d.with_spans(
            [s for s in d.spans if not (s.label == "NAME" and i % 10 == 0)]
            if i % 10 == 0
            else [s for s in d.spans if not (s.label == "CITY" and i % 10 in (1, 2) and i < 300)]
        )
        for i, d in enumerate(gold)
    ]
    res = assess_text_risk(gold, pred, draws=500, seed=1)
    assert res.sample_warnings == []
    assert res.to_dict()["sample"]["too_small"] is False


def test_cli_prints_the_warning_and_the_rule(tmp_path):
    gold = write_brat_dir(_corpus(12), tmp_path / "gold")
    res = runner.invoke(
        app, ["text", "risk", "--gold", str(gold), "--pred", str(gold), "--draws", "300"]
    )
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "sample is too small for these intervals" in flat
    assert "R_i NAME = 1.000 from 12 documents" in flat and "Agresti & Coull" in flat
    res = runner.invoke(
        app, ["text", "risk", "--gold", str(gold), "--pred", str(gold), "--draws", "300", "--json"]
    )
    d = json.loads(res.stdout)
    assert d["sample"]["too_small"] and d["sample"]["warnings"]
