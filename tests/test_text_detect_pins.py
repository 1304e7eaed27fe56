"""The shipped models give exactly the pinned spans on a few development texts: a speed-up of
the detector's hot paths (recognizers, tokens, features, decoding) must change no output.

The pins (``tests/fixtures/detect-pins.json``) hold each model file's SHA-256: a new model that
ships without new pins fails here (a skip would let an unpinned model pass silently), so the
commit that ships a model runs ``scripts/pin_detect_spans.py`` too. A deliberate change of the detection logic (rules, repairs, recognizers) also
changes spans: re-pin with the same script in the same commit, and say so."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from hidekit.text.detection.detector import load_model, shipped_model_path

FIXTURES = Path(__file__).parent / "fixtures"
PINS = json.loads((FIXTURES / "detect-pins.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(PINS))
def test_shipped_model_gives_the_pinned_spans(name):
    pins = PINS[name]
    digest = hashlib.sha256(shipped_model_path(name).read_bytes()).hexdigest()
    assert digest == pins["model_sha256"], (
        f"the shipped {name} model is not the pinned one: re-pin with scripts/pin_detect_spans.py"
    )
    det = load_model(name)
    assert len(pins["texts"]) >= 6
    for rel, expected in pins["texts"].items():
        text = (FIXTURES / rel).read_text(encoding="utf-8")
        got = [[s.start, s.end, s.label, s.text, s.source, s.score] for s in det.detect(text)]
        assert got == expected, rel
        assert all(text[s:e] == t for s, e, _, t, _, _ in got)


def test_pins_hold_spans():
    assert all(sum(map(len, p["texts"].values())) > 50 for p in PINS.values())
