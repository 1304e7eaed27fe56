"""PHI detection: recognizers with hand-checked offsets, the detector API, the detect command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.io.atomic import MARKER
from hidekit.text.detection.detector import (
    load_model,
    resolve_overlaps,
    spans_from_tags,
    widen_to_direct,
)
from hidekit.text.detection.features import tokens_for
from hidekit.text.detection.recognizers import get_recognizers
from hidekit.text.detection.recognizers.patterns.validators import dni_valid, nass_valid, ssn_valid
from hidekit.text.detection.tokenize import Token
from hidekit.text.spans import Document, Span

runner = CliRunner()


def hits(name: str, text: str) -> list[tuple[int, int, str]]:
    (rec,) = get_recognizers(names=[name])
    return [(s.start, s.end, s.text) for s in rec.find(text)]


# ------------------------------------------------------------------ recognizers, offsets by hand
@pytest.mark.parametrize(
    "name,text,expected",
    [
        ("date_numeric", "Ingreso: 12/12/2016.", [(9, 19, "12/12/2016")]),
        ("date_numeric", "TA 120/80, dosis 1.5.", []),
        ("date_numeric", "on 2021-03-04 at", [(3, 13, "2021-03-04")]),
        (
            "date_text_en",
            "Seen March 8, 2024 and 20 Mar 2024.",
            [(5, 18, "March 8, 2024"), (23, 34, "20 Mar 2024")],
        ),
        (
            "date_text_es",
            "el 3 de marzo de 2019 y en enero 2001",
            [(3, 21, "3 de marzo de 2019"), (27, 37, "enero 2001")],
        ),
        ("email", "E-mail: nnavcu@hotmail.com.", [(8, 26, "nnavcu@hotmail.com")]),
        ("url", "see https://example.org/a?b=1.", [(4, 29, "https://example.org/a?b=1")]),
        ("ipv4", "host 10.0.0.255 and 999.1.1.1", [(5, 15, "10.0.0.255")]),
        ("phone_us", "Call (449) 472-8576 now", [(5, 19, "(449) 472-8576")]),
        ("phone_es", "Tel: 912 345 678.", [(5, 16, "912 345 678")]),
        (
            "fax_us",
            "Fax: 555-123-4567; the patient's phone is 555-765-4321",
            [(5, 17, "555-123-4567")],
        ),
        ("ssn", "SSN 123-45-6789, bad 666-45-6789", [(4, 15, "123-45-6789")]),
        (
            "dni_nie",
            "DNI 12345678Z y 12345678A; NIE X1234567L",
            [(4, 13, "12345678Z"), (31, 40, "X1234567L")],
        ),
        ("mrn", "MRN: E0669074. NHC: 368503.", [(5, 13, "E0669074"), (20, 26, "368503")]),
        (
            "age_en",
            "a 77 year old man, 45 y/o woman, 26-yr-old F",
            [(2, 4, "77"), (19, 21, "45"), (33, 35, "26")],
        ),
        ("age_es", "Paciente de 70 años de edad", [(12, 19, "70 años")]),
        ("zip_us", "Boston, MA 02115-1234.", [(11, 21, "02115-1234")]),
        ("cp_es", "CP: 28016.", [(4, 9, "28016")]),
        ("street_en", "lives at 123 Main Street, Apt 4 in", [(9, 31, "123 Main Street, Apt 4")]),
        (
            "street_es",
            "Domicilio:  Calle Miguel Benitez 90.",
            [(12, 35, "Calle Miguel Benitez 90")],
        ),
        (
            "hospital_en",
            "at Lafayette General Hospital today",
            [(3, 29, "Lafayette General Hospital")],
        ),
        ("titled_name", "Seen by Dr. Kristina Davis.", [(12, 26, "Kristina Davis")]),
        ("first_name_es", "Nombre: Ernesto.", [(8, 15, "Ernesto")]),
        # wider English coverage (text written by people, not by hidekit's generator)
        (
            "date_text_en_wide",
            "Seen MARCH 3, 2021 and 3rd of March.",
            [(5, 18, "MARCH 3, 2021"), (23, 35, "3rd of March")],
        ),
        ("date_ymd_slash", "on 2021/03/04.", [(3, 13, "2021/03/04")]),
        ("date_month_day_context", "seen on 3/14; BP 120/80", [(8, 12, "3/14")]),
        (
            "age_en_wide",
            "a sixty-five-year-old man, 45 years of age",
            [(2, 12, "sixty-five"), (27, 29, "45")],
        ),
        ("age_en_decade", "a woman in her mid-60s", [(19, 22, "60s")]),
        ("age_en_birthday", "her 95th birthday, his 1st", [(4, 6, "95")]),
        (
            "phone_context",
            "pager 94130, call 555-1234",
            [(6, 11, "94130"), (18, 26, "555-1234")],
        ),
        ("id_context", "License #: 6610990", [(11, 18, "6610990")]),
        ("name_degree", "Signed: Alexander Monroe, MD", [(8, 24, "Alexander Monroe")]),
        ("name_field", "Pt: STEPHENS, Cynthia\nMRN: 1", [(4, 21, "STEPHENS, Cynthia")]),
        ("name_relative", "home with her wife, Jacqueline.", [(20, 30, "Jacqueline")]),
        (
            "titled_name_wide",
            "Dr. J. Young saw Mr. WILLIS",
            [(4, 12, "J. Young"), (21, 27, "WILLIS")],
        ),
        ("city_before_state", "Valley Glen, CA  92116", [(0, 11, "Valley Glen")]),
        (
            "street_en_wide",
            "P.O. Box 123, 42 ELM STREET",
            [(0, 12, "P.O. Box 123"), (14, 27, "42 ELM STREET")],
        ),
        ("hospital_en_wide", "at Mayo Clinic today", [(3, 14, "Mayo Clinic")]),
        (
            "profession_context_en",
            "Retired firefighter, works as a bus driver.",
            [(8, 19, "firefighter"), (32, 42, "bus driver")],
        ),
        ("organization_en", "works at Acme Widgets Inc. now", [(9, 26, "Acme Widgets Inc.")]),
        ("employer_context_en", "is employed by General Motors.", [(15, 29, "General Motors")]),
        ("age_es_words", "un niño de trece años", [(11, 21, "trece años")]),
        ("date_month_yy_es", "En enero-03 se operó", [(3, 11, "enero-03")]),
    ],
)
def test_recognizer_offsets(name, text, expected):
    assert hits(name, text) == expected


def test_units_named_by_common_words_are_no_organization():
    # a unit named by its head and common or specialty words points to no one; its
    # organization, or a unit named after someone or something rare, still does
    text = (
        "Kenyatta National Bank - Department of Obstetrics; Emergency Department; "
        "Customer Services; Baylor Services; School of Physics; Kessler Department"
    )
    assert [t for _, _, t in hits("organization_en", text)] == [
        "Kenyatta National Bank",
        "Baylor Services",
        "Kessler Department",
    ]


def test_checksums_by_hand():
    # 12345678 mod 23 = 14 -> 'Z'; X1234567: 01234567 mod 23 = 19 -> 'L'
    assert dni_valid("12345678Z") and not dni_valid("12345678A")
    assert dni_valid("X1234567L") and not dni_valid("X1234567T")
    # NASS 28/12345678/ctrl: 2812345678 mod 97 = 2812345678 - 97*28993254 = 40
    assert nass_valid("28 12345678 40") and not nass_valid("28 12345678 41")
    assert (
        ssn_valid("123-45-6789") and not ssn_valid("000-12-3456") and not ssn_valid("912-12-3456")
    )


def test_context_words_required():
    assert hits("ssn_context", "SSN: 123456789") == [(5, 14, "123456789")]
    assert hits("ssn_context", "Lot 123456789 of the batch") == []


def test_unknown_recognizer_is_a_clear_error():
    with pytest.raises(OptionError, match="unknown recognizer"):
        get_recognizers(names=["nope"])


# ------------------------------------------------------------------ tokens, BIO decoding, overlaps
def test_case_split_tokens_keep_offsets():
    text = "Médico: Gastón Demaría MartínezNºCol: 28"
    toks = tokens_for(text)
    assert [t.text for t in toks][:7] == [
        "Médico",
        ":",
        "Gastón",
        "Demaría",
        "Martínez",
        "Nº",
        "Col",
    ]
    assert all(text[t.start : t.end] == t.text for t in toks)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZé Ñ9\n.-/😀ß\u0301Σς")), max_size=60))
def test_tokens_for_offsets_exact_on_any_unicode(text):
    for t in tokens_for(text):
        assert text[t.start : t.end] == t.text


def test_spans_from_tags():
    text = "Dr. Ana Pérez el 3/4/2020"
    toks = [
        Token(w, s, s + len(w))
        for w, s in [("Dr", 0), (".", 2), ("Ana", 4), ("Pérez", 8), ("el", 14), ("3/4/2020", 17)]
    ]
    spans = spans_from_tags(text, toks, ["O", "O", "B-NAME", "I-NAME", "O", "I-DATE"])
    assert [(s.start, s.end, s.label, s.text) for s in spans] == [
        (4, 13, "NAME", "Ana Pérez"),
        (17, 25, "DATE", "3/4/2020"),
    ]


def test_overlap_policy_earlier_group_wins_then_score_then_length():
    deny = [Span(0, 4, "X", score=1.0)]
    crf = [Span(2, 8, "A", score=0.9), Span(10, 14, "B", score=0.5), Span(12, 20, "C", score=0.8)]
    direct = [Span(9, 11, "D", score=0.99), Span(21, 25, "E", score=0.9)]
    kept = resolve_overlaps([deny, crf, direct])
    # A overlaps X (deny wins); C beats B on score; D fills the gap before C
    assert [(s.start, s.end, s.label) for s in kept] == [
        (0, 4, "X"),
        (9, 11, "D"),
        (12, 20, "C"),
        (21, 25, "E"),
    ]


def test_crf_spans_inside_a_direct_hit_of_their_label_give_way():
    direct = [Span(10, 25, "EMAIL"), Span(40, 50, "DATE")]
    crf = [
        Span(13, 25, "EMAIL"),  # strictly inside, same label: dropped
        Span(40, 45, "DATE"),  # inside, but another CRF span touches the same hit: kept
        Span(46, 52, "NAME"),
        Span(60, 70, "NAME"),
    ]
    kept = widen_to_direct(crf, direct)
    assert kept == crf[1:]
    assert widen_to_direct([Span(10, 25, "EMAIL")], direct) == [Span(10, 25, "EMAIL")]  # equal
    assert widen_to_direct([Span(12, 20, "URL")], direct) == [Span(12, 20, "URL")]  # other label


# ------------------------------------------------------------------ the shipped models
@pytest.fixture(scope="module")
def en():
    return load_model("en")


def test_en_model_offsets_exact_on_unicode(en):
    text = (
        "Café 😀 note — Patient: Zoë O'Brien, 77 year old, seen by Dr. José Núñez on March 8, 2024 "
        "at Lafayette General Hospital. MRN: E0669074. Email zoe@example.com ☕."
    )
    spans = en.detect(text)
    assert spans, "nothing detected"
    for s in spans:
        assert text[s.start : s.end] == s.text
    found = {s.text for s in spans}
    assert {"March 8, 2024", "E0669074", "zoe@example.com"} <= found
    assert any("Núñez" in t for t in found)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        (
            "Department of Obstetrics & Gynaecology - Antenatal Clinic\n\n"
            "Name: Mrs Chiamaka Obi     Hosp no: 22/1187\n",
            "Antenatal Clinic",
            "Chiamaka Obi",
        ),
        (
            "Allergies: sulfa (rash).\nTriage RN: Tatiana Vasquez-Moreau, RN  02:24\n",
            "Triage",
            "Tatiana Vasquez-Moreau",
        ),
        ("Continue. RTC 2 weeks. Infusion RN Deb Mahoney.\n", "Infusion", "Deb Mahoney"),
        (
            "Admit: Paediatric Isolation Ward, bed 4.\n\nDoctor: Dr Sumaila Iddrisu (MO)\n",
            "Paediatric Isolation Ward",
            "Sumaila Iddrisu",
        ),
    ],
)
def test_en_fill_hits_the_crf_tagged_o_are_no_spans(en, text, gone, kept):
    """A unit, a role before "RN", a named ward: the recognizers hit them (the CRF reads the
    hits) and, as fill, they were spans of their own before; the CRF's names stay."""
    from hidekit.text.detection.boundaries import OVERRULED_FILL

    found = en.detect(text)
    assert kept in [s.text for s in found]
    assert gone not in [s.text for s in found]
    assert not [s for s in found if s.source in OVERRULED_FILL]
    # the recognizers still hit it: what changed is only that the hit is no span of its own
    _, _, fill = en._hits(text)
    assert gone in [s.text for s in fill]


def test_en_honorifics_before_a_name_stay_outside_it(en):
    """Trimmed by the boundary repairs and not taken back beside the name by the leak rules."""
    text = (
        "Informant: mother, Mallama Hauwa Sani (petty trader); father Malam Abubakar Musa "
        "Danladi.\n3. CPN SHONA KERR WILL TELEPHONE.\nSAPS NOTIFIED, CONST MAQUBELA."
    )
    found = [s.text for s in en.detect(text) if s.label in ("NAME", "DOCTOR")]
    assert found == ["Hauwa Sani", "Abubakar Musa Danladi", "SHONA KERR", "MAQUBELA"]


def test_en_model_on_hand_written_dev_notes(en, fixtures):
    """Development notes written by people (tests/fixtures/en-dev), not by hidekit's generator:
    the 33 of dev00-dev149 that ``held_for_validation`` keeps out of the shipped model's training
    (issue 14: the others are training text, see scripts/train_models.py)."""
    from hidekit.text.corpus import read_brat_dir
    from hidekit.text.detection.training import held_for_validation

    gold = [
        d
        for d in read_brat_dir(fixtures / "en-dev")
        if int(d.id.removeprefix("dev")) < 150 and held_for_validation(d.id)
    ]
    assert len(gold) == 33
    tp = fn = fp = 0
    for d in gold:
        g, p = set(), set()
        for s in d.spans:
            g.update(i for i in range(s.start, s.end) if not d.text[i].isspace())
        for s in en.detect(d.text):
            p.update(i for i in range(s.start, s.end) if not d.text[i].isspace())
        tp, fn, fp = tp + len(g & p), fn + len(g - p), fp + len(p - g)
    assert tp / (tp + fn) >= 0.96 and tp / (tp + fp) >= 0.93  # measured: 0.976 / 0.948


def test_es_model_detects_meddocan_fixture(fixtures):
    from hidekit.text.corpus import read_brat_dir

    es = load_model("es")
    doc = read_brat_dir(fixtures / "meddocan")[0]
    pred = {(s.start, s.end, s.label) for s in es.detect(doc.text)}
    gold = {(s.start, s.end, s.label) for s in doc.spans}
    assert len(pred & gold) / len(gold) >= 0.9  # the fixture is in the model's training data


def test_allow_and_deny_lists(en):
    text = "Seen by Dr. Kristina Davis on March 8, 2024 for Lupus Clinic follow-up."
    base = {s.text for s in en.detect(text)}
    assert "March 8, 2024" in base
    det = load_model("en", allow=["march 8, 2024"], deny={"Lupus Clinic": "HOSPITAL"})
    spans = det.detect(text)
    assert "March 8, 2024" not in {s.text for s in spans}
    assert ("Lupus Clinic", "HOSPITAL", "deny-list") in {(s.text, s.label, s.source) for s in spans}


def test_detect_documents_parallel_equals_serial(en):
    docs = [
        Document(f"d{i}", f"Patient Maria Lopez, MRN: A{i:07d}, seen 0{i % 9 + 1}/12/2020. " * 400)
        for i in range(5)
    ]
    serial = en.detect_documents(docs, n_jobs=1)
    ticks = []
    parallel = en.detect_documents(docs, n_jobs=2, progress=lambda n=1, **_: ticks.append(n))
    assert [d.spans for d in parallel] == [d.spans for d in serial]
    assert len(ticks) == len(docs)


def test_load_model_bad_inputs(tmp_path):
    with pytest.raises(OptionError, match="no such model"):
        load_model(tmp_path / "missing.model")
    junk = tmp_path / "junk.model"
    junk.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="junk.model: not a hidekit model"):
        load_model(junk)


# ------------------------------------------------------------------ the command
def test_detect_command_writes_brat_with_exact_offsets(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    texts = {
        "a": "Ñandú 😀 Patient: Brandy Boone, MRN: E0669074, seen March 8, 2024.\n",
        "b": "No PHI in this line at all.\n",
    }
    for k, v in texts.items():
        (src / f"{k}.txt").write_text(v, encoding="utf-8")
    res = runner.invoke(
        app, ["text", "detect", str(src), "--model", "en", "--out", str(tmp_path / "o"), "--json"]
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["documents"] == 2 and summary["spans"] >= 2
    from hidekit.text.corpus import read_brat_dir

    out = {d.id: d for d in read_brat_dir(tmp_path / "o")}  # checks every offset against its text
    assert out["a"].text == texts["a"]
    assert "E0669074" in {s.text for s in out["a"].spans}
    # the note copies and predictions hold PHI: owner-only, folder and files
    assert (tmp_path / "o").stat().st_mode & 0o777 == 0o700
    modes = {f.stat().st_mode & 0o777 for f in (tmp_path / "o").iterdir() if f.name != MARKER}
    assert modes == {0o600}


def test_detect_command_jsonl_and_csv_column(tmp_path):
    csv = tmp_path / "notes.csv"
    csv.write_text(
        "id,note\n1,Seen by Dr. Kristina Davis on 03/04/2021\n2,nothing here\n", encoding="utf-8"
    )
    res = runner.invoke(
        app,
        [
            "text",
            "detect",
            str(csv),
            "--column",
            "note",
            "--format",
            "jsonl",
            "--out",
            str(tmp_path / "o"),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    lines = (tmp_path / "o" / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert any(s["text"] == "03/04/2021" for s in first["spans"])
    res = runner.invoke(
        app, ["text", "detect", str(csv), "--column", "nope", "--out", str(tmp_path / "p")]
    )
    assert res.exit_code == 2 and "nope" in res.stderr


@pytest.mark.parametrize("case", ["empty", "not_utf8", "bad_model"])
def test_detect_command_bad_input_names_the_problem(tmp_path, case):
    src = tmp_path / "in"
    src.mkdir()
    model = "en"
    if case == "not_utf8":
        (src / "bad.txt").write_bytes("caf\xe9".encode("latin-1"))
    elif case == "bad_model":
        (src / "ok.txt").write_text("hello", encoding="utf-8")
        model = str(tmp_path / "none.model")
    res = runner.invoke(
        app, ["text", "detect", str(src), "--model", model, "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 2
    expected = {
        "empty": f"{src}: no .txt files",
        "not_utf8": "bad.txt: not UTF-8",
        "bad_model": "none.model: no such model",
    }[case]
    assert expected in " ".join(res.stderr.split())
    assert not (tmp_path / "o").exists()


def test_en_masks_every_ip_address_whole(en):
    """IPv6 written with "::" came out in pieces or not at all, and an IPv4 address before a full
    stop was missed: each left most of a direct identifier in the release."""
    text = "Login from 2001:db8:85a3::8a2e:370:7334, then fe80::1ff:fe23:4567:890a; ip was 203.0.113.7."
    ips = [s.text for s in en.detect(text) if s.label == "IP"]
    assert ips == ["2001:db8:85a3::8a2e:370:7334", "fe80::1ff:fe23:4567:890a", "203.0.113.7"]
