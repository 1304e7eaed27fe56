"""The synthetic note generator: exact offsets, same seed same corpus, varied forms, linkable."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import OptionError
from hidekit.text.corpus import read_brat_dir, read_jsonl
from hidekit.text.surrogates import parse_date
from hidekit.text.synth import LABELS, NOTE_TYPES, generate_notes, generate_patient_notes


@pytest.fixture(scope="module")
def corpus():
    return generate_notes(300, seed=11)


def test_offsets_exact_and_spans_disjoint(corpus):
    for d in corpus:
        assert d.spans, d.id
        for s in d.spans:
            assert d.text[s.start : s.end] == s.text
            assert s.text == s.text.strip() and s.text, (d.id, s)
        for a, b in zip(d.spans, d.spans[1:], strict=False):
            assert a.end <= b.start, (d.id, a, b)


def test_labels_are_the_documented_set(corpus):
    used = Counter(s.label for d in corpus for s in d.spans)
    assert set(used) <= set(LABELS)
    assert set(used) == set(LABELS), f"never generated: {set(LABELS) - set(used)}"


def test_every_note_type_appears(corpus):
    assert {d.meta["type"] for d in corpus} == set(NOTE_TYPES)


def test_same_seed_same_corpus_other_seed_other_corpus():
    a, b, c = generate_notes(20, seed=5), generate_notes(20, seed=5), generate_notes(20, seed=6)
    assert [(d.id, d.text, d.spans) for d in a] == [(d.id, d.text, d.spans) for d in b]
    assert [d.text for d in a] != [d.text for d in c]


def test_dates_in_many_formats_and_all_parse(corpus):
    dates = [s.text for d in corpus for s in d.spans if s.label == "DATE"]
    fmts = Counter()
    for t in dates:
        p = parse_date(t)
        assert p is not None, t
        fmts[p.fmt] += 1
    assert len(fmts) >= 12
    assert any(re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2}", t) for t in dates)  # 6/22/01
    assert any(re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, \d{4}", t) for t in dates)  # June 22, 2001
    assert any(re.fullmatch(r"\d{4}-\d\d-\d\d", t) for t in dates)  # 2001-06-22
    assert any(re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}", t) for t in dates)  # 22 Jun 2001


def test_age_forms_annotate_the_number_only(corpus):
    contexts = set()
    for d in corpus:
        for s in d.spans:
            if s.label == "AGE":
                assert s.text.isdigit()
                contexts.add(re.sub(r"\d+", "N", d.text[max(0, s.start - 5) : s.end + 10]))
    text = " ".join(contexts)
    for form in ("N-year-old", "N y/o", "Nyo", "aged N", "N year old"):
        assert form in text, form


def test_name_forms_and_titles_outside_spans(corpus):
    text_spans = [(d.text, s) for d in corpus for s in d.spans if s.label in ("NAME", "DOCTOR")]
    assert any(re.fullmatch(r"[A-Z]+, [A-Z][a-z]+", s.text) for _, s in text_spans)  # SMITH, John
    assert any(re.fullmatch(r"[A-Z][a-z]+ [A-Z]\. [A-Z][a-z]+", s.text) for _, s in text_spans)
    assert any(t[max(0, s.start - 4) : s.start] == "Dr. " for t, s in text_spans)
    assert any(t[max(0, s.start - 4) : s.start] in ("Mr. ", "Ms. ") for t, s in text_spans)
    assert not any(
        s.text.startswith(("Dr", "Mr.", "Ms.")) and s.text[:3] in ("Dr.", "Mr.", "Ms.")
        for _, s in text_spans
    )


def test_negative_examples_present_and_unlabelled(corpus):
    """Eponyms, drug names and a "Dr." without a name occur outside every span."""
    found = Counter()
    for d in corpus:
        covered = [(s.start, s.end) for s in d.spans]
        for word in (
            "Parkinson",
            "Crohn's",
            "Hodgkin lymphoma",
            "Lasix",
            "Coumadin",
            "Foley catheter",
            "Babinski sign",
            "Murphy's sign",
            "Lyme disease",
        ):
            for m in re.finditer(word, d.text):
                assert not any(a <= m.start() < b for a, b in covered), (d.id, word)
                found[word] += 1
        if "on-call Dr. was" in d.text:
            found["Dr."] += 1
    assert len(found) >= 6 and found["Dr."] >= 1


def test_patient_notes_keep_the_row():
    from hidekit.demo.survey import generate_survey

    frame = generate_survey(5, seed=7)
    docs = generate_patient_notes(frame, notes_per_patient=3, seed=1)
    assert len(docs) == 15
    for d in docs:
        row = frame[frame.record_id == int(d.patient)].iloc[0]
        first, last = row["name"].split(" ", 1)
        spans = {(s.label, s.text) for s in d.spans}
        names = [t for lab, t in spans if lab == "NAME"]
        assert any(last in n or last.upper() in n or first in n for n in names), d.id
        mrns = [t for lab, t in spans if lab == "MRN"]
        assert all(t == f"{int(row.record_id):07d}" for t in mrns)
        for i, sp in enumerate(d.spans):  # the patient's own address is the row's
            if sp.label == "STREET" and sp.text == row.street_address:
                assert (d.spans[i + 1].text, d.spans[i + 3].text) == (row.city, row.zip)
    texts = " ".join(d.text for d in docs)
    assert all(f"{int(r):07d}" in texts for r in frame.record_id)


def test_generate_notes_over_patients_spreads_notes():
    rows = [
        {"record_id": 10, "name": "Ann Lee", "age": 93, "sex": "F"},
        {"record_id": 11, "name": "Bo Park", "age": 40, "sex": "M"},
    ]
    docs = generate_notes(5, seed=2, patients=rows)
    assert len(docs) == 5
    assert Counter(d.patient for d in docs) == {"10": 3, "11": 2}


def test_bad_arguments():
    with pytest.raises(OptionError, match="n must be"):
        generate_notes(-1)
    with pytest.raises(OptionError, match="unknown note type"):
        generate_notes(2, kinds=["poem"])
    with pytest.raises(OptionError, match="patients is empty"):
        generate_notes(2, patients=[])


def test_cli_synth_brat_and_jsonl(tmp_path):
    runner = CliRunner()
    r = runner.invoke(
        app, ["text", "synth", "--n", "7", "--seed", "3", "--out", str(tmp_path / "b"), "--json"]
    )
    assert r.exit_code == 0, r.output
    docs = read_brat_dir(tmp_path / "b")  # offsets checked against the .ann surfaces
    assert len(docs) == 7
    r = runner.invoke(
        app,
        [
            "text",
            "synth",
            "--n",
            "7",
            "--seed",
            "3",
            "--format",
            "jsonl",
            "--out",
            str(tmp_path / "n.jsonl"),
        ],
    )
    assert r.exit_code == 0, r.output
    again = read_jsonl(tmp_path / "n.jsonl")
    assert [(d.text, d.spans) for d in again] == [(d.text, d.spans) for d in docs]
    r = runner.invoke(app, ["text", "synth", "--n", "2", "--out", str(tmp_path / "b")])
    assert r.exit_code == 2 and "not empty" in r.output
