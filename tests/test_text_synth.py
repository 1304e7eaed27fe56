"""The synthetic note generator: exact offsets, same seed same corpus, varied forms, linkable."""

from __future__ import annotations

import calendar
import re
from collections import Counter
from datetime import date

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import OptionError
from hidekit.text.corpus import read_brat_dir, read_jsonl
from hidekit.text.dates import format_date, parse_date
from hidekit.text.synthesis.generator import generate_notes, generate_patient_notes
from hidekit.text.synthesis.vocab import (
    DECADE_WORDS,
    HOLIDAYS,
    LABELS,
    NOTE_TYPES,
    WEEKDAY_SHORT,
    WEEKDAYS,
    WRITTEN_DATE_FORMATS,
)
from hidekit.text.synthesis.world import nhs_number, npi, sin


@pytest.fixture(scope="module")
def corpus():
    return generate_notes(500, seed=11)  # rare kinds (palliative 1.6 %) appear in every draw


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


_TOKENS = re.compile(r"YYYY|YY|MMMM|MMM|MM|M|Do|DD|D")
_TOKEN_RX = {
    "YYYY": r"(?P<Y>\d{4})",
    "YY": r"(?P<y>\d{2})",
    "MMMM": r"(?P<B>[A-Za-z]{3,9})",
    "MMM": r"(?P<b>[A-Za-z]{3})",
    "MM": r"(?P<m>\d{2})",
    "M": r"(?P<m>\d{1,2})",
    "Do": r"(?P<d>\d{1,2})(?:st|nd|rd|th)",
    "DD": r"(?P<d>\d{2})",
    "D": r"(?P<d>\d{1,2})",
}
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})


def _format_rx(fmt: str) -> re.Pattern:
    out, pos = [], 0
    for m in _TOKENS.finditer(fmt):
        out += [re.escape(fmt[pos : m.start()]), _TOKEN_RX[m.group()]]
        pos = m.end()
    return re.compile("".join([*out, re.escape(fmt[pos:])]), re.IGNORECASE)


_WEEKDAY_LEAD = re.compile(
    r"^(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?,? ", re.IGNORECASE
)
_DAY_WORDS = {w.casefold() for w in WEEKDAYS + WEEKDAY_SHORT + ["Tue", "Thu"] + HOLIDAYS}
_MONTH_ABBR = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}


def _real_date(fmt: str, text: str) -> bool:
    """``text`` is a real calendar date written exactly in ``fmt`` (an independent reading)."""
    m = _format_rx(fmt).fullmatch(text)
    if not m:
        return False
    g = m.groupdict()
    year = int(g["Y"]) if g.get("Y") else 2000 + int(g.get("y") or 0)
    month_name = (g.get("B") or g.get("b") or "").lower()
    month = _MONTHS.get(month_name) if month_name else int(g.get("m") or 1)
    try:
        d = date(year, month or 0, int(g.get("d") or 1))
    except ValueError:
        return False
    return format_date(d, fmt).lower() == text.lower()


def test_dates_in_many_formats_each_a_real_date(corpus):
    """Every DATE is a real date in one of the written formats (US, day-first, informal); most
    also parse with the surrogate date parser, so surrogates can shift them."""
    dates = [s.text for d in corpus for s in d.spans if s.label == "DATE"]
    used = Counter()
    weekday_or_holiday = 0
    for t in dates:
        if t.casefold() in _DAY_WORDS:  # "Tuesday", "thurs", "Xmas day": a day, no date written
            weekday_or_holiday += 1
            continue
        t = _WEEKDAY_LEAD.sub("", t)  # "Mon 18 March 2024": the weekday is part of the span
        t = t.removeprefix("mid-")  # "mid-May"
        fmts = [f for f in (*WRITTEN_DATE_FORMATS, "MM/DD", "DD/MM") if _real_date(f, t)]
        if not fmts and t[:3].title() in _MONTH_ABBR:  # "Sept", "jan": a month alone
            fmts = ["MMM"]
        assert fmts, t
        used[fmts[0]] += 1
    assert 0 < weekday_or_holiday < 0.15 * len(dates)
    assert len(used) >= 30, used
    parsed = [parse_date(t) for t in dates]
    assert sum(p is not None for p in parsed) >= 0.8 * len(dates)
    assert len({p.fmt for p in parsed if p}) >= 12
    assert any(re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2}", t) for t in dates)  # 6/22/01
    assert any(re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, \d{4}", t) for t in dates)  # June 22, 2001
    assert any(re.fullmatch(r"\d{4}-\d\d-\d\d", t) for t in dates)  # 2001-06-22
    assert any(re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}", t) for t in dates)  # 22 Jun 2001
    assert any(re.fullmatch(r"\d\d\.\d\d\.\d\d", t) for t in dates)  # 04.03.21
    assert any(re.fullmatch(r"\d{1,2}(st|nd|rd|th) [A-Z][a-z]+ \d{4}", t) for t in dates)
    assert any(re.fullmatch(r"[A-Z][a-z]{2}-\d\d", t) for t in dates)  # Mar-04
    assert any(re.fullmatch(r"\d{1,2}(st|nd|rd|th)", t) for t in dates)  # the 4th
    assert any(re.fullmatch(r"[A-Z][a-z]+", t) for t in dates)  # in March
    days = [int(t[:2]) for t in dates if re.fullmatch(r"\d\d/\d\d/\d{4}", t)]
    assert max(days) > 12  # day-first dates (UK order) are written too


def test_years_alone_and_relative_dates_are_not_phi(corpus):
    for d in corpus:
        for s in d.spans:
            if s.label == "DATE":
                assert not re.fullmatch(r"\d{4}", s.text), (d.id, s)
    text = " ".join(d.text for d in corpus)
    assert re.search(r"quit in (19|20)\d\d", text)
    for d in corpus:
        covered = [(s.start, s.end) for s in d.spans]
        for m in re.finditer(r"yesterday|last week|overnight|\d+/7 ago", d.text):
            assert not any(a < m.end() and m.start() < b for a, b in covered), d.id


def test_age_forms_annotate_the_number_only(corpus):
    contexts = set()
    for d in corpus:
        for s in d.spans:
            if s.label == "AGE":
                assert re.fullmatch(r"\d{1,3}|\d0[sS]", s.text) or s.text.lower() in DECADE_WORDS, (
                    s.text
                )
                contexts.add(re.sub(r"\d+", "N", d.text[max(0, s.start - 8) : s.end + 10]))
    text = " ".join(contexts)
    for form in ("N-year-old", "N y/o", "Nyo", "aged N", "N year old", "NM", "NF"):
        assert form in text, form
    assert re.search(r"in (his|her) Ns", text, re.IGNORECASE)
    assert re.search(r"N(-month-old| month old| mo old| m/o|-mo)", text)


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
            "Parkinson'?s? disease",
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
        # terse notes may write names in lower case ("adams, curtis")
        assert any(last.lower() in n.lower() or first.lower() in n.lower() for n in names), d.id
        mrns = [t for lab, t in spans if lab == "MRN"]
        assert all(t == f"{int(row.record_id):07d}" for t in mrns)
        for i, sp in enumerate(d.spans):  # the patient's own address is the row's
            if sp.label == "STREET" and sp.text.lower() == row.street_address.lower():
                # terse notes may be all lower case ("arcata"), as for names above
                got = (d.spans[i + 1].text.lower(), d.spans[i + 3].text)
                assert got == (row.city.lower(), row.zip)
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


def _nhs_ok(s: str) -> bool:
    d = [int(c) for c in re.sub(r"\D", "", s)]
    check = 11 - sum(x * w for x, w in zip(d[:9], range(10, 1, -1), strict=True)) % 11
    return len(d) == 10 and (0 if check == 11 else check) == d[9]


def _luhn_ok(s: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(re.sub(r"\D", "", s))):
        x = int(c) * (2 if i % 2 else 1)
        total += x - 9 if x > 9 else x
    return total % 10 == 0


def test_check_digits_match_published_examples():
    import random

    assert _nhs_ok("943 476 5919") and not _nhs_ok("943 476 5918")  # NHS Digital's example
    assert _luhn_ok("80840" + "1234567893")  # CMS's example NPI
    assert _luhn_ok("046 454 286")  # Canada's example SIN
    rng = random.Random(3)
    for _ in range(200):
        assert _nhs_ok(nhs_number(rng))
        assert _luhn_ok("80840" + npi(rng))
        assert _luhn_ok(sin(rng))


def test_regional_forms_of_phi(corpus):
    """UK/Irish/Australian/NZ/Canadian patients: local phones, postcodes, national numbers."""
    by_label: dict[str, list[str]] = {}
    nhs = []
    for d in corpus:
        for s in d.spans:
            by_label.setdefault(s.label, []).append(s.text)
            if s.label == "ID" and re.search(
                r"NHS[^\n]{0,8}$", d.text[max(0, s.start - 12) : s.start]
            ):
                nhs.append(s.text)
    assert nhs and all(_nhs_ok(t) for t in nhs)
    zips, phones = by_label["ZIP"], by_label["PHONE"]
    assert any(re.fullmatch(r"[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}", z) for z in zips)  # UK postcode
    assert any(re.fullmatch(r"[A-Z]\d[A-Z] \d[A-Z]\d", z) for z in zips)  # Canadian postcode
    assert any(re.fullmatch(r"\d{4}", z) for z in zips)  # AU / NZ postcode
    assert any(re.fullmatch(r"\d{5}", z) for z in zips)  # US ZIP
    assert any(re.fullmatch(r"(04\d\d|\+61 4\d\d) ?\d{3} ?\d{3}", t) for t in phones)  # AU mobile
    assert any(t.startswith(("+44", "07", "020")) for t in phones)  # UK
    assert any(re.fullmatch(r"\d{3,5}|\d-\d{4}", t) for t in phones)  # bleeps, extensions
    streets = by_label["STREET"]
    assert any(re.match(r"(PO|P\.O\.) Box \d+", t) for t in streets)
    assert any(re.match(r"(Flat|Unit|Apt) \d+", t) for t in streets)
    assert {"United Kingdom", "Australia"} & set(by_label["COUNTRY"])


def test_people_of_every_kind(corpus):
    names = [(d.text, s) for d in corpus for s in d.spans if s.label in ("NAME", "DOCTOR")]
    before = [t[max(0, s.start - 25) : s.start] for t, s in names]
    doctors = [
        (t[max(0, s.start - 25) : s.end + 8], s.text) for t, s in names if s.label == "DOCTOR"
    ]
    # clinicians who are not physicians are DOCTOR; roles and credentials stay outside the span
    assert any(re.search(r"RN $", c.split(s)[0]) for c, s in doctors)
    assert any(
        re.search(r"(physiotherapist|dietitian|pharmacist|social worker) $", c.split(s)[0])
        for c, s in doctors
    )
    assert any(re.fullmatch(r"[A-Z]{2}", s) for _, s in doctors)  # initials "JK"
    assert not any(s.text.endswith((" RN", " MD", " PT")) for _, s in names)
    # relatives, friends, teachers, caseworkers are NAME
    others = [b for (t, s), b in zip(names, before, strict=True) if s.label == "NAME"]
    roles = ("friend", "teacher", "caseworker", "neighbo", "landlord", "carer", "partner")
    assert sum(any(role in b for b in others) for role in roles) >= 5
    texts = [s.text for _, s in names]
    assert any("-" in t for t in texts) and any("'" in t for t in texts)
    assert any(not t.isascii() for t in texts)  # "Zięcik", "Hoàng"
    assert any(re.fullmatch(r"[A-Z'\-]+, [A-Z][a-z]+", t) for t in texts)  # SMITH, John
    assert any(s.label == "NAME" and t[s.start - 1 : s.start] == "(" for t, s in names) or any(
        "prefers to be called" in t[max(0, s.start - 25) : s.start] for t, s in names
    )


def test_organizations_and_places_of_care(corpus):
    orgs = [s.text for d in corpus for s in d.spans if s.label == "ORGANIZATION"]
    hosp = [s.text for d in corpus for s in d.spans if s.label == "HOSPITAL"]
    for pattern in (
        r"School|College|Elementary",
        r"Pharmacy|Chemist|Boots|CVS|Walgreens",
        r"Church",
        r"Club|YMCA|FC|Ramblers",
    ):
        assert any(re.search(pattern, o) for o in orgs), pattern
    assert any(re.search(r"Surgery|Practice|Medical Centre|Health Centre", h) for h in hosp)
    prof = [s.text for d in corpus for s in d.spans if s.label == "PROFESSION"]
    assert len(set(prof)) >= 50


def test_new_negative_examples_stay_unlabelled(corpus):
    """Scores with eponyms, brands, beds, durations, ICD codes, generic roles, BP and INR."""
    found = Counter()
    pattern = re.compile(
        r"Glasgow Coma Scale|Apgar|Gleason|Edinburgh Postnatal|Bristol stool|Hodgkin|"
        r"Dexcom|FreeStyle Libre|Medtronic|Bed \d+|Ward \d+[A-Z]|(?<![\d/])\d/52\b(?! ?[A-Z])|\d/7 ago|"
        r"\bE11\.9\b|\bI10\b|the on-call registrar|the covering resident|BP \d+/\d+|INR \d\.\d"
    )
    for d in corpus:
        covered = [(s.start, s.end) for s in d.spans]
        for m in pattern.finditer(d.text):
            assert not any(a < m.end() and m.start() < b for a, b in covered), (d.id, m.group())
            found[re.sub(r"\d", "N", m.group())] += 1
    assert len(found) >= 15, found


def test_writing_styles_keep_offsets(corpus):
    """All-caps notes, terse abbreviations and run-on sentences are written; spans stay exact."""
    caps = [d for d in corpus if d.text.isupper() or d.text == d.text.upper()]
    assert len(caps) >= 3
    assert all(s.text == s.text.upper() for d in caps for s in d.spans)
    text = "\n".join(d.text for d in corpus)
    assert re.search(r" w/ ", text) and re.search(r"\bpt\b", text) and " h/o " in text
    assert re.search(r"[a-z]{3}, [A-Z][a-z]+ (was|is|has|reports)", text)  # run-on
