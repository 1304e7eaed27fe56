"""Operators and surrogates: dates shifted in their own format, shapes kept, names consistent,
same seed same surrogates, nothing detected survives redaction, audit offsets exact."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.errors import OptionError
from hidekit.text.anonymization.edges import trim_span
from hidekit.text.anonymization.operators import (
    OPERATORS,
    anonymize_document,
    anonymize_documents,
    get_operator,
    merge_overlaps,
    propagate_spans,
)
from hidekit.text.anonymization.surrogates import KINDS, SurrogateGenerator, same_shape
from hidekit.text.dates import DATE_FORMATS, format_date, parse_date, shift_date
from hidekit.text.spans import Document, Span


def doc_with(text: str, marked: dict[str, str], patient: str | None = "p1", doc_id: str = "d1"):
    """A document whose spans are every occurrence of each key of ``marked`` (label value)."""
    spans = []
    for needle, label in marked.items():
        for m in re.finditer(re.escape(needle), text):
            spans.append(Span(m.start(), m.end(), label, needle))
    return Document(doc_id, text, sorted(spans), patient)


# -- dates -----------------------------------------------------------------------------------


@given(
    st.dates(min_value=date(1901, 1, 1), max_value=date(2099, 12, 31)),
    st.sampled_from([f for f, _ in DATE_FORMATS]),
    st.integers(-3650, 3650),
)
def test_date_round_trip_and_shift_keep_format(d, fmt, days):
    text = format_date(d, fmt)
    p = parse_date(text)
    assert p is not None and format_date(p.value, p.fmt) == text
    shifted = shift_date(text, days)
    q = parse_date(shifted)
    assert q is not None and format_date(q.value, p.fmt) == shifted  # same format ("May" is both)
    if p.has_year and "D" in fmt and "YY" not in fmt.replace("YYYY", ""):
        assert (q.value - p.value).days == days


def test_date_examples():
    assert shift_date("6/22/01", 10) == "7/2/01"
    assert shift_date("June 22, 2001", -22) == "May 31, 2001"
    assert shift_date("2001-06-22", 1) == "2001-06-23"
    assert shift_date("22 Jun 2001", 9) == "1 Jul 2001"
    assert shift_date("22-JUN-2001", 9) == "01-JUL-2001"
    assert shift_date("22/06/2001", 1) == "23/06/2001"  # day first, read only when unambiguous
    assert shift_date("3 to 4 weeks", 5) is None
    assert parse_date("130/85") is None


def test_a_weekday_inside_a_date_span_moves_with_the_date():
    # 4 March 2021 was a Thursday; ten days on is Sunday 14 March (hand-checked calendar)
    assert shift_date("Thursday 4 March 2021", 10) == "Sunday 14 March 2021"
    assert shift_date("Thu. 4 March 2021", 10) == "Sun. 14 March 2021"
    assert shift_date("SAT, 18TH MARCH 2023", 10) == "TUE, 28TH MARCH 2023"
    # a weekday that is not the date's own is not read (the surrogate redacts the span)
    assert shift_date("Monday 4 March 2021", 10) is None


def test_dates_of_a_patient_move_by_one_offset_so_intervals_survive():
    g = SurrogateGenerator(seed=3)
    a, b = g.replace("03/01/2020", "DATE", "p"), g.replace("March 15, 2020", "DATE", "p")
    da, db = parse_date(a).value, parse_date(b).value
    assert (db - da).days == 14
    assert da != date(2020, 3, 1)
    assert abs((da - date(2020, 3, 1)).days) <= 365
    other = SurrogateGenerator(seed=3).replace("03/01/2020", "DATE", "q")
    assert other == SurrogateGenerator(seed=3).replace("03/01/2020", "DATE", "q")


# -- ages, shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("age", "expected"),
    [("89", "89"), ("90", "90+"), ("104", "90+"), ("92 years", "90+ years"), ("7", "7")],
)
def test_ages_over_89_become_90_plus(age, expected):
    assert SurrogateGenerator().replace(age, "AGE", "p") == expected


@given(st.text(alphabet="0123456789-(). xABZ", min_size=1, max_size=20), st.integers(0, 10**6))
def test_same_shape_keeps_every_separator_and_class(text, seed):
    import random

    new = same_shape(text, random.Random(seed))
    assert len(new) == len(text)
    for a, b in zip(text, new, strict=True):
        assert (
            a.isdigit() == b.isdigit() and a.isupper() == b.isupper() and a.islower() == b.islower()
        )
        if not a.isalnum():
            assert a == b


def test_phone_keeps_layout_digit_for_digit_and_one_number_one_surrogate():
    g = SurrogateGenerator(seed=1)
    a = g.replace("(617) 555-0143", "PHONE", "p")
    b = g.replace("617-555-0143", "PHONE", "p")
    assert re.fullmatch(r"\([2-9]\d\d\) [2-9]\d\d-\d{4}", a) and a != "(617) 555-0143"
    assert re.sub(r"\D", "", a) == re.sub(r"\D", "", b)
    assert g.replace("+1 617 555 0143", "FAX", "p").startswith("+1 ")
    ssn = g.replace("123-45-6789", "SSN", "p")
    assert re.fullmatch(r"\d{3}-\d\d-\d{4}", ssn) and ssn != "123-45-6789"
    assert g.replace("123456789", "SSN", "p") == ssn.replace("-", "")
    mrn = g.replace("E1234567", "MRN", "p")
    assert re.fullmatch(r"[A-Z]\d{7}", mrn)


# -- names -----------------------------------------------------------------------------------


def test_name_parts_consistent_across_forms():
    g = SurrogateGenerator(seed=9)
    full = g.replace("John A. Smith", "NAME", "p")
    first, mid, last = full.split()
    assert (first, last) != ("John", "Smith") and re.fullmatch(r"[A-Z]\.", mid)
    assert g.replace("Smith", "NAME", "p") == last
    assert g.replace("SMITH, John", "NAME", "p") == f"{last.upper()}, {first}"
    assert g.replace("Smith, John A.", "NAME", "p") == f"{last}, {first} {mid}"
    assert g.replace("J. Smith", "NAME", "p") == f"{first[0]}. {last}"
    assert g.replace("John", "NAME", "p") == first
    assert g.replace("Mr. Smith", "NAME", "p") == f"Mr. {last}"  # titles stay
    # the same doctor in another patient's notes is the same person: one surrogate per corpus
    assert g.replace("John A. Smith", "NAME", "other") == full


def test_female_first_names_stay_female():
    from hidekit.text.anonymization.surrogates import name_lists

    female, male, _ = name_lists()
    only_f = {n for n in female} - set(male)
    g = SurrogateGenerator(seed=4)
    for name in sorted(only_f)[:30]:
        assert g.replace(name, "NAME", name) in female


names = st.sampled_from(["John Smith", "Mary Jones", "Smith", "SMITH, John", "Dr. Lee", "Ana Lee"])


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(names, st.sampled_from(["p1", "p2"])), min_size=1, max_size=12),
    st.integers(0, 1000),
)
def test_surrogates_consistent_and_reproducible(items, seed):
    g1, g2 = SurrogateGenerator(seed), SurrogateGenerator(seed)
    first = {}
    for text, patient in items:
        new = g1.replace(text, "NAME", patient)
        assert first.setdefault((text, patient), new) == new  # same original, same surrogate
    for text, patient in items:  # a fresh generator with the same seed agrees
        assert g2.replace(text, "NAME", patient) == first[(text, patient)]


# -- operators and documents -----------------------------------------------------------------

TEXT = (
    "Seen 03/04/2021 by Dr. Ann Lee. John Smith (MRN 1234567), 93 y/o, lives in Boston.\n"
    "Call (617) 555-0143. Mr. Smith agreed. Dr. Ann Lee will call on 3/18/21."
)
MARKS = {
    "03/04/2021": "DATE",
    "Ann Lee": "DOCTOR",
    "John Smith": "NAME",
    "1234567": "MRN",
    "93": "AGE",
    "Boston": "CITY",
    "(617) 555-0143": "PHONE",
    "Smith": "NAME",
    "3/18/21": "DATE",
}


def _doc():
    d = doc_with(TEXT, MARKS)
    return d.with_spans(merge_overlaps(d.spans, d.text))  # "Smith" inside "John Smith"


def test_registry_and_bad_names():
    assert {"redact", "tag", "surrogate"} <= set(OPERATORS)
    with pytest.raises(OptionError, match="unknown operator 'blur'"):
        get_operator("blur")
    with pytest.raises(OptionError, match="one character"):
        get_operator("redact", char="##")


def test_redact_keeps_layout_and_removes_everything():
    d = _doc()
    new, recs = anonymize_document(d, get_operator("redact"))
    assert len(new.text) == len(d.text) and new.text.count("\n") == 1
    for s in d.spans:
        assert s.text not in new.text
    assert "Seen XXXXXXXXXX by Dr. XXX XXX." in new.text
    fixed, _ = anonymize_document(d, get_operator("redact", keep_length=False))
    assert "Seen XXXX by Dr. XXXX." in fixed.text


def test_tag_and_numbered_tag():
    new, _ = anonymize_document(_doc(), get_operator("tag"))
    assert new.text.startswith("Seen [DATE] by Dr. [DOCTOR]. [NAME] (MRN [MRN]), [AGE] y/o")
    new, _ = anonymize_document(_doc(), get_operator("tag", numbered=True))
    assert "Dr. [DOCTOR-1]" in new.text and new.text.count("[DOCTOR-1]") == 2
    assert "[NAME-1]" in new.text and "Mr. [NAME-2]" in new.text


def test_surrogate_document():
    new, recs = anonymize_document(_doc(), get_operator("surrogate", seed=2, insecure_seed=True))
    assert "90+ y/o" in new.text
    assert "John Smith" not in new.text and "Ann Lee" not in new.text and "Boston" not in new.text
    doc_names = [r.replacement for r in recs if r.label == "DOCTOR"]
    assert doc_names[0] == doc_names[1]
    last = [r.replacement for r in recs if r.label == "NAME"]
    assert last[0].split()[-1] == last[1]  # "John Smith" and "Smith": one surname
    d1, d2 = parse_date(recs[0].replacement).value, parse_date(recs[-1].replacement).value
    assert (d2 - d1).days == 14  # 03/04/2021 → 3/18/21
    again, _ = anonymize_document(_doc(), get_operator("surrogate", seed=2, insecure_seed=True))
    assert again.text == new.text
    other, _ = anonymize_document(_doc(), get_operator("surrogate", seed=3, insecure_seed=True))
    assert other.text != new.text


def test_merge_overlaps_takes_union():
    text = "abcdefghij"
    spans = [Span(0, 4, "A"), Span(2, 8, "B"), Span(9, 10, "C"), Span(9, 10, "D")]
    merged = merge_overlaps(spans, text)
    assert [(s.start, s.end, s.label) for s in merged] == [(0, 8, "B"), (9, 10, "C")]


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789/-", min_size=1, max_size=8)


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(words, st.sampled_from([None, "NAME", "DATE", "PHONE", "MRN", "AGE", "CITY"])),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from(["redact", "tag", "surrogate"]),
    st.integers(0, 50),
)
def test_audit_offsets_exact_and_redaction_complete(tokens, op_name, seed):
    parts, spans, pos = [], [], 0
    for word, label in tokens:
        if label:
            spans.append(Span(pos, pos + len(word), label, word))
        parts.append(word + " ")
        pos += len(word) + 1
    d = Document("x", "".join(parts), spans, "p")
    result = anonymize_documents([d], op_name, seed=seed, safelist=None, insecure_seed=True)
    new = result.documents[0]
    # edges ("/", "-") stay outside the replacement; a span of edges alone is not replaced
    spans = [t for s in spans if (t := trim_span(d.text, s, KINDS.get(s.label, ""))) is not None]
    for r, s in zip(result.replacements, spans, strict=True):
        assert d.text[r.start : r.end] == s.text and r.label == s.label
        assert new.text[r.new_start : r.new_end] == r.replacement
    # text between spans is untouched
    gaps_old = [d.text[a.end : b.start] for a, b in zip(spans, spans[1:], strict=False)]
    gaps_new = [
        new.text[a.new_end : b.new_start]
        for a, b in zip(result.replacements, result.replacements[1:], strict=False)
    ]
    assert gaps_old == gaps_new
    if op_name == "redact":
        kept = {w for w, lab in tokens if not lab}
        for s in spans:
            if not any(s.text in w for w in kept) and not set(s.text) <= {"X"}:
                assert s.text not in new.text


def test_propagate_catches_other_mentions():
    d1 = doc_with(
        "John Smith, MRN 1234567, seen today.",
        {"John Smith": "NAME", "1234567": "MRN"},
        patient="p",
    )
    d2 = Document("d2", "Mr. Smith called; MRN 1234567. Smithson is unrelated.", [], "p")
    d3 = Document("d3", "Mr. Smith of another family.", [], "q")
    out = propagate_spans([d1, d2, d3])
    assert [(s.text, s.label, s.source) for s in out[1].spans] == [
        ("Smith", "NAME", "propagated"),
        ("1234567", "MRN", "propagated"),
    ]
    assert out[2].spans == []  # other patient
    assert out[0].spans == d1.spans


def test_documents_without_patient_are_their_own_patient():
    a = doc_with(
        "John Smith was seen 3/4/2020.", {"John Smith": "NAME", "3/4/2020": "DATE"}, None, "a"
    )
    b = doc_with(
        "John Smith was seen 3/4/2020.", {"John Smith": "NAME", "3/4/2020": "DATE"}, None, "b"
    )
    res = anonymize_documents([a, b], "surrogate", seed=1, insecure_seed=True)
    ta, tb = res.documents[0].text, res.documents[1].text
    assert ta.split(" was")[0] == tb.split(" was")[0]  # one name, one surrogate in the corpus
    assert ta.split("seen ")[1] != tb.split("seen ")[1]  # but each patient's own date shift
    assert {m["patient"] for m in res.mapping} == {"doc:a", "doc:b"}


def test_shift_range_option():
    g = SurrogateGenerator(seed=0, max_shift_days=3)
    new = parse_date(g.replace("2020-01-10", "DATE", "p")).value
    assert 1 <= abs((new - date(2020, 1, 10)).days) <= 3
    assert new != date(2020, 1, 10) + timedelta(0)
    with pytest.raises(OptionError):
        get_operator("surrogate", max_shift_days=0)


def test_day_first_and_spelled_dates_shift_in_their_own_format():
    from hidekit.text.dates import shift_date

    assert shift_date("25/12/2020", 10) == "04/01/2021"  # padding kept
    assert shift_date("04.03.21", 10) == "14.03.21"
    assert shift_date("4th March 2021", 30) == "3rd April 2021"
    assert shift_date("Mar-04", 1) == "Mar-05"
    assert shift_date("4 March", -4) == "29 February"  # no year: a leap-year placeholder
