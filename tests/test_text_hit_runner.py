"""Detection runs the recognizers as one HitRunner (hits as arrays): the same hits, in the same
order, as running each recognizer's ``find`` and sorting the spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from hidekit.text.detection.detector import load_model
from hidekit.text.detection.recognizers import RECOGNIZERS
from hidekit.text.detection.recognizers.hits import HitRunner
from hidekit.text.spans import Span
from hidekit.text.synthesis import generate_notes

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def texts() -> list[str]:
    out = [d.text for d in generate_notes(30, seed=5)]
    for name in ("en-dev", "meddocan"):
        out += [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / name).glob("*.txt"))[:12]]
    return [*out, "", "\n", "Dr. X", "MRN 1234567 MRN 1234567 seen 03/04/2021 03/04/2021"]


def _reference(text: str, recognizers) -> list[tuple]:
    """Each recognizer's find, concatenated in recognizer order, stably sorted by Span order."""
    hits = [h for rec in recognizers for h in rec.find(text)]
    hits.sort(key=lambda h: (h.start, h.end, h.label))
    return [(h.start, h.end, h.label, h.text, h.source, h.score) for h in hits]


def test_runner_gives_the_hits_of_find_in_order(texts):
    recs = list(RECOGNIZERS.values())
    runner = HitRunner(recs)
    for text in texts:
        got = runner.spans(text, runner.run(text))
        assert [(h.start, h.end, h.label, h.text, h.source, h.score) for h in got] == _reference(
            text, recs
        )


def test_ties_keep_recognizer_order():
    recs = list(RECOGNIZERS.values())
    text = "call 617-555-0100 or fax 617-555-0199"
    for order in (recs, recs[::-1]):
        runner = HitRunner(order)
        assert [(h.start, h.source) for h in runner.spans(text, runner.run(text))] == [
            (s, src) for s, _, _, _, src, _ in _reference(text, order)
        ]


@pytest.mark.parametrize("name", ["en", "es"])
def test_detector_hits_are_the_reference_ones(name, texts):
    det = load_model(name)
    dec = det._decoder
    for text in texts:
        ref = [Span(*h) for h in _reference(text, det.recognizers)]
        (hs, he, ids, drl), direct, fill = det._hits(text)
        want = dec.hit_arrays(ref)
        assert hs.tolist() == want[0].tolist() and he.tolist() == want[1].tolist()
        assert ids.tolist() == want[2].tolist() and drl.tolist() == want[3].tolist()
        for got, mapping in ((direct, det.direct), (fill, det.fill)):
            assert [(s.start, s.end, s.label, s.text, s.source, s.score) for s in got] == [
                (h.start, h.end, mapping[h.source], h.text, h.source, h.score)
                for h in ref
                if h.source in mapping
            ]


def test_iban_is_tried_only_at_two_letters_and_two_digits(texts):
    from hidekit.text.detection.recognizers.identifiers import IbanRecognizer, _anchored_matches

    rec = IbanRecognizer("x", "IBAN")
    extra = [
        "GB29 NWBK 6016 1331 9268 19 on, DE89370400440532013000, ab12cd34ef56gh78",
        "AB12AB12AB12 XY99-1234-5678-90 Zz00 zz00zz00zz00zz00 aB1 2 ١٢ab١٢34 5678 9012",
        "GB29NWBK60161331926819GB29NWBK60161331926819 x",
    ]
    for text in [*texts, *extra]:
        assert _anchored_matches(rec._rx, rec._head, 2, text) == [
            m.span() for m in rec._rx.finditer(text)
        ]
