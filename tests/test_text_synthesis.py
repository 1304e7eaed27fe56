"""The generator as data: word lists and templates in shipped JSON files, general-PII kinds."""

from __future__ import annotations

import json
from importlib import resources

from hidekit.text.detection.recognizers.identifiers import iban_valid, luhn_valid
from hidekit.text.synthesis import generate_notes, vocab
from hidekit.text.synthesis import generator as G
from hidekit.text.synthesis.data_files import templates, words
from hidekit.text.synthesis.general import GENERAL_TYPES
from hidekit.text.synthesis.note import _SLOT


def _data(name: str) -> dict:
    path = resources.files("hidekit.text.synthesis") / "data" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_lists_come_from_the_data_files():
    raw = _data("words")
    assert raw["DRUGS"] == vocab.DRUGS and isinstance(vocab.NOTE_TYPES, tuple)
    assert words("STUDIES", "lt")[0] == tuple(raw["STUDIES"][0])
    assert all("{" in t for t in templates("_HPI")), "templates keep their {slot} fields"
    general = {k: v for k, v in _data("templates").items() if k.startswith("general.")}
    slots = {s for ts in general.values() for t in _flat(ts) for s in _SLOT.findall(t)}
    assert slots and all(s in G.ALL_SLOTS for s in slots), slots - set(G.ALL_SLOTS)


def _flat(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _flat(x)
    else:
        for x in v:
            yield from _flat(x)


def test_general_pii_texts_have_exact_spans_and_valid_numbers():
    docs = generate_notes(60, seed=3, kinds=GENERAL_TYPES)
    assert {d.meta["type"] for d in docs} == set(GENERAL_TYPES)
    labels = set()
    ibans = cards = 0
    for d in docs:
        for s in d.spans:
            assert d.text[s.start : s.end] == s.text
            labels.add(s.label)
            if s.label == "ACCOUNT" and s.text[:2].isalpha():
                assert iban_valid(s.text), s.text
                ibans += 1
            elif s.label == "ACCOUNT" and len(s.text.replace(" ", "").replace("-", "")) >= 13:
                assert luhn_valid(s.text), s.text
                cards += 1
    assert {"USERNAME", "ACCOUNT", "PHONE", "EMAIL", "NAME", "MRN", "ID"} <= labels
    assert ibans and cards


def test_same_seed_same_general_corpus():
    a = generate_notes(20, seed=9, kinds=GENERAL_TYPES)
    b = generate_notes(20, seed=9, kinds=GENERAL_TYPES)
    assert [(d.text, d.spans) for d in a] == [(d.text, d.spans) for d in b]
