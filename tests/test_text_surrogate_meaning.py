"""Surrogates that keep clinical meaning (issue 16, item 6): the safe-list keeps false positives
as written, unreadable dates are redacted, edges stay outside replacements, one entity gets one
surrogate across the corpus, and first names keep their sex whatever locale they come from."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.text.anonymization.operators import anonymize_documents, get_operator
from hidekit.text.anonymization.safelist import FILES, load_safelist, read_list
from hidekit.text.anonymization.surrogates import SurrogateGenerator, entity_key, name_lists
from hidekit.text.spans import Document, Span


def marked(text: str, marks: list[tuple[str, str]], patient="p1", doc_id="d1") -> Document:
    """A document with one span per (needle, label), at the needle's first occurrence."""
    spans, taken = [], 0
    for needle, label in marks:
        i = text.index(needle, taken)
        spans.append(Span(i, i + len(needle), label, needle))
        taken = i + len(needle)
    return Document(doc_id, text, sorted(spans), patient)


def surrogate(*docs: Document, **kw):
    return anonymize_documents(
        list(docs), get_operator("surrogate", seed=5, insecure_seed=True), **kw
    )


# -- the safe-list: false positives are left as written, and counted --------------------------


@pytest.mark.parametrize(
    ("text", "needle", "label", "reason"),
    [
        ("AFib on apixaban since May.", "AFib", "NAME", "abbreviation"),
        ("AFib on apixaban since May.", "AFib on apixaban", "NAME", "clinical words"),
        ("PT WITH AFIB, RATE CONTROLLED.", "AFIB", "HOSPITAL", "abbreviation"),
        ("Urine grew E. coli, sensitive to nitrofurantoin.", "E.", "DOCTOR", "organism"),
        ("Urine grew E. coli, sensitive to nitrofurantoin.", "E. coli", "NAME", "organism"),
        ("Started Eliquis 5 mg BID.", "Eliquis", "NAME", "drug"),
        ("History of Parkinson disease.", "Parkinson", "NAME", "eponym"),
        ("Murphy's sign is negative.", "Murphy", "NAME", "eponym"),
        ("Known Wolff-Parkinson-White syndrome.", "Parkinson", "NAME", "eponym"),
        ("Gleason 4+3=7 adenocarcinoma.", "Gleason", "NAME", "eponym"),
        ("Glasgow Coma Scale 15 on arrival.", "Glasgow", "CITY", "term"),
        ("Foley catheter removed.", "Foley", "NAME", "term"),
        ("BP 120/80, HR 72.", "120/80", "DATE", "measurement"),
        ("Vitals: BP: 132/84 today.", "132/84", "DATE", "measurement"),
        ("Pressure 145/92 mmHg sitting.", "145/92", "DATE", "measurement"),
        ("Power 5/5 strength in all limbs.", "5/5", "DATE", "measurement"),
        ("Cough for 3/7, worse at night.", "3/7", "DATE", "measurement"),
        ("INR 2.3 on warfarin.", "2.3", "DATE", "measurement"),
    ],
)
def test_safe_list_keeps_clinical_terms_as_written(text, needle, label, reason):
    result = surrogate(marked(text, [(needle, label)]))
    assert result.documents[0].text == text  # input -> output: unchanged
    assert result.replacements == []
    assert [k.reason for k in result.kept] == [reason]
    assert result.summary()["kept_by_safelist"] == 1
    assert result.summary()["kept_by_reason"] == {reason: 1}


@pytest.mark.parametrize(
    ("text", "needle", "label"),
    [
        ("Seen by Mr. Parkinson today.", "Parkinson", "NAME"),  # a title: a person
        ("Seen by Dr. Murphy's team.", "Murphy", "DOCTOR"),
        ("Discussed with John Murphy.", "John Murphy", "NAME"),  # longer than the eponym
        ("Ed came with his wife.", "Ed", "NAME"),  # "ED" is an abbreviation, "Ed" is a person
        ("Seen on 03/04/2021 in clinic.", "03/04/2021", "DATE"),
        ("D: 2/1/23 T: 2/2/23", "2/2/23", "DATE"),  # a time stamp, not a temperature
        ("Ph: 9431589870", "9431589870", "PHONE"),  # not a pH
        ("Aged 92 kg lighter", "92", "AGE"),  # ages are never kept
        ("No travel outside CA. since May", "CA", "STATE"),  # a state, not calcium
        ("Lives in Detroit, MI with her son", "MI", "STATE"),  # not a myocardial infarction
        ("Reviewed by SL today.", "SL", "DOCTOR"),  # initials, not "sublingual"
        ("Started methimazole 10 mg 9/30. Better.", "9/30", "DATE"),  # "mg" is not "Mg"
        ("spironolactone 25 mg since 4/12", "4/12", "DATE"),  # since a date
    ],
)
def test_safe_list_never_keeps_people_dates_or_numbers(text, needle, label):
    result = surrogate(marked(text, [(needle, label)]))
    assert len(result.replacements) == 1 and result.kept == []
    assert needle not in result.documents[0].text or label == "AGE"


def test_safe_list_can_be_turned_off_and_extended():
    doc = marked("AFib on apixaban, Zorblex 10 mg.", [("AFib", "NAME"), ("Zorblex", "NAME")])
    off = surrogate(doc, safelist=None)
    assert "AFib" not in off.documents[0].text and off.summary()["kept_by_safelist"] == 0
    mine = surrogate(doc, safelist=load_safelist(extra=["Zorblex"]))
    assert mine.documents[0].text == doc.text
    assert sorted(k.reason for k in mine.kept) == ["abbreviation", "extra"]


def test_safe_list_single_words_are_not_names():
    """A single-word safe term that is also a name would let that name through unreplaced."""
    female, male, last = name_lists("en_US")
    names = {n.casefold() for n in (*female, *male, *last)}
    for cat in ("abbreviation", "drug", "organism", "term"):
        clash = [t for t in read_list(FILES[cat]) if " " not in t and t.casefold() in names]
        assert clash == [], (cat, clash)


# -- unreadable dates are redacted, not scrambled ---------------------------------------------


@pytest.mark.parametrize(
    "date_text", ["32/13/2020", "mid-Jun", "the 22nd", "Spring 2019", "2020-13-45", "3rd wk Jan"]
)
def test_unreadable_dates_are_redacted(date_text):
    text = f"Admitted {date_text} with chest pain."
    result = surrogate(marked(text, [(date_text, "DATE")]))
    assert result.documents[0].text == "Admitted [DATE] with chest pain."


def test_readable_dates_still_shift_in_their_format():
    result = surrogate(marked("Admitted 03/04/2021.", [("03/04/2021", "DATE")]))
    assert re.fullmatch(r"Admitted \d\d/\d\d/\d{4}\.", result.documents[0].text)
    assert "03/04/2021" not in result.documents[0].text


# -- span edges stay outside the replacement --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle", "label", "outside"),
    [
        ("Lives in Boston, MA.", "Boston,", "CITY", r"Lives in (\w[\w .'-]*), MA\."),
        ("Seen 03/04/2021. Stable.", "03/04/2021.", "DATE", r"Seen (\S+)\. Stable\."),
        ("Sister (Mary) visited.", "(Mary)", "NAME", r"Sister \((\w+)\) visited\."),
        ("Called Smith's wife.", "Smith's", "NAME", r"Called (\w+)'s wife\."),
        ('Seen by "Ann Lee" today.', '"Ann Lee" ', "DOCTOR", r'Seen by "(\w+ \w+)" today\.'),
    ],
)
def test_edges_stay_outside_the_replacement(text, needle, label, outside):
    result = surrogate(marked(text, [(needle, label)]))
    new = result.documents[0].text
    m = re.fullmatch(outside, new)
    assert m, new
    (r,) = result.replacements
    assert m.group(1) == r.replacement and r.replacement not in needle
    assert not re.search(r"^[\s,.;:\"'()]|[\s,;:\"'()]$", r.replacement)


def test_a_span_of_punctuation_only_is_not_replaced():
    result = surrogate(marked("Seen , today.", [(", ", "NAME")]))
    assert result.documents[0].text == "Seen , today." and result.replacements == []


# -- one entity, one surrogate across the corpus ----------------------------------------------


def test_one_city_one_surrogate_across_documents_and_patients():
    docs = [
        marked("Lives in Boston.", [("Boston", "CITY")], "p1", "a"),
        marked("Moved to BOSTON in 2019.", [("BOSTON", "CITY")], "p2", "b"),
        marked("Boston's winters are hard.", [("Boston's", "CITY")], "p3", "c"),
        marked("Works in  boston  now.", [("boston", "CITY")], "p1", "d"),
    ]
    result = surrogate(*docs)
    news = [r.replacement for r in result.replacements]
    assert len({n.casefold() for n in news}) == 1 and news[0].casefold() != "boston"
    assert news[1] == news[0].upper() and news[3] == news[0].lower()  # case kept
    assert result.documents[2].text == f"{news[2]}'s winters are hard."


def test_one_clinician_one_surrogate_across_patients_with_and_without_title():
    docs = [
        marked("Seen by Dr. Ann Lee.", [("Ann Lee", "DOCTOR")], "p1", "a"),
        marked("Dr. Lee reviewed.", [("Lee", "DOCTOR")], "p2", "b"),
        marked("LEE, ANN (attending)", [("LEE, ANN", "DOCTOR")], "p3", "c"),
    ]
    result = surrogate(*docs)
    full, last, inverted = (r.replacement for r in result.replacements)
    first_new, last_new = full.split()
    assert last == last_new and inverted == f"{last_new.upper()}, {first_new.upper()}"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Mercy Hospital", "the Mercy  Hospital"),
        ("Acme Corp", "ACME CORP"),
        ("Boston", "Boston's"),
        ("Jones", "Jones'"),
    ],
)
def test_entity_key_ignores_case_spacing_article_and_possessive(a, b):
    assert entity_key(a) == entity_key(b)


# -- first names keep their sex, whatever the locale ------------------------------------------


@pytest.mark.parametrize(
    ("name", "sex"),
    [
        ("Dearbhail", "F"),  # Irish
        ("Siobhan", "F"),  # Irish
        ("Giuseppe", "M"),  # Italian
        ("Wojciech", "M"),  # Polish
        ("Ngozi", "F"),  # Nigerian (Igbo)
        ("Zoë", "F"),  # with a diaeresis
    ],
)
def test_first_names_from_other_locales_keep_their_sex(name, sex):
    female, male, _ = name_lists("en_US")
    fem, mal = {n.casefold() for n in female}, {n.casefold() for n in male}
    assert name.casefold() not in fem | mal  # the point: not in the generator's own lists
    g = SurrogateGenerator(seed=11)
    for surname in ("Kowalski", "Okafor", "Rossi"):
        new_first = g.replace(f"{name} {surname}", "NAME", "p").split()[0]
        assert new_first.casefold() in (fem if sex == "F" else mal), (name, new_first)
        assert new_first.casefold() not in (mal if sex == "F" else fem) - (fem & mal)


def test_locale_own_lists_come_first():
    female, male, _ = name_lists("en_US")
    only_f = sorted(set(female) - set(male))[:10]
    g = SurrogateGenerator(seed=2)
    for n in only_f:
        assert g.replace(f"{n} Smith", "NAME", "p").split()[0] in female


# -- property: consistent, offsets of untouched text kept, no span left behind -----------------

ENTITIES = [
    ("Boston", "CITY"),
    ("BOSTON", "CITY"),
    ("Mercy Hospital", "HOSPITAL"),
    ("John Smith", "NAME"),
    ("Smith", "NAME"),
    ("Ann Lee", "DOCTOR"),
    ("(617) 555-0143", "PHONE"),
    ("1234567", "MRN"),
    ("Ohio", "STATE"),
    ("Acme Foods", "ORGANIZATION"),
]
FILLER = st.sampled_from(["seen", "in", "with", "today", "and", "the", "for", "review", "plan"])
PIECE = st.one_of(
    st.tuples(st.just("word"), FILLER), st.tuples(st.just("phi"), st.sampled_from(ENTITIES))
)
EDGE = st.sampled_from(["", ",", ".", ")", " "])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.lists(st.tuples(PIECE, EDGE), min_size=1, max_size=10), st.integers(1, 3)),
        min_size=1,
        max_size=5,
    ),
    st.integers(0, 10_000),
)
def test_surrogates_consistent_offsets_kept_nothing_left(corpus, seed):
    docs, truth = [], []
    for i, (pieces, patient) in enumerate(corpus):
        parts, spans, pos, core = [], [], 0, []
        for (kind, value), edge in pieces:
            word, label = value if kind == "phi" else (value, None)
            if label:  # the span takes the trailing edge with it; the operator must give it back
                spans.append(Span(pos, pos + len(word) + len(edge), label, word + edge))
                core.append((pos, pos + len(word), word, label))
            chunk = word + edge + " "
            parts.append(chunk)
            pos += len(chunk)
        doc = Document(f"d{i}", "".join(parts), spans, f"p{patient}")
        docs.append(doc)
        truth.append(core)
    result = anonymize_documents(
        docs, get_operator("surrogate", seed=seed, insecure_seed=True), safelist=None
    )  # the entities hold no safe terms; the safe-list is tested above
    by_doc: dict[str, list] = {}
    for r in result.replacements:
        by_doc.setdefault(r.doc, []).append(r)
    seen: dict[str, str] = {}
    for doc, new, core in zip(docs, result.documents, truth, strict=True):
        recs = by_doc.get(doc.id, [])
        # no span left behind: one replacement per span, exactly over the span without its edge
        assert [(r.start, r.end) for r in recs] == [(a, b) for a, b, _, _ in core]
        for r, (_, _, word, label) in zip(recs, core, strict=True):
            assert new.text[r.new_start : r.new_end] == r.replacement != word
            key = f"{label}:{word.casefold()}"  # same entity (case aside), same surrogate
            assert seen.setdefault(key, r.replacement.casefold()) == r.replacement.casefold()
        # every character outside the spans is where it was, relative to the replacements
        old_gaps = [doc.text[a:b] for a, b in _gaps([(r.start, r.end) for r in recs], doc.text)]
        new_gaps = [
            new.text[a:b] for a, b in _gaps([(r.new_start, r.new_end) for r in recs], new.text)
        ]
        assert old_gaps == new_gaps
        if not recs:
            assert new.text == doc.text


def _gaps(ranges, text):
    out, pos = [], 0
    for a, b in ranges:
        out.append((pos, a))
        pos = b
    out.append((pos, len(text)))
    return out


def test_safe_list_files_ship_with_the_package():
    """Every list the safe-list reads is matched by a package-data glob (so a wheel holds it)."""
    import fnmatch
    import sys
    from pathlib import Path

    import hidekit

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    root = Path(hidekit.__file__).parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["package-data"]["hidekit"]
    for name in [*FILES.values(), "README.md"]:
        assert any(fnmatch.fnmatch(f"data/{name}", g) for g in globs), name
        assert (Path(hidekit.__file__).parent / "data" / name).is_file()
