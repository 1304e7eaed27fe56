"""Profiles (hipaa / i2b2 / strict) and the identifier recognizers they add (issue 14)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import OptionError
from hidekit.jobs.corpus import write_brat_dir
from hidekit.text.detection.detector import load_model
from hidekit.text.detection.recognizers import get_recognizers, run_recognizers
from hidekit.text.detection.recognizers.identifiers import iban_valid, luhn_valid
from hidekit.text.profiles import (
    PROFILES,
    SUPPLEMENTS,
    apply_profile,
    get_profile,
    gold_profile,
    is_lookalike,
    restrict_documents,
)
from hidekit.text.spans import Document, Span

runner = CliRunner()


def _hits(text: str, *names: str) -> list[tuple[str, str]]:
    return [(h.label, h.text) for h in run_recognizers(text, get_recognizers(names=names))]


def test_iban_checksum_by_hand():
    # GB29 NWBK 6016 1331 9268 19: NWBK601613319268 19 GB29 -> letters as 23,32,11,20 ... mod 97 = 1
    digits = "2332112060161331926819" + "161129"
    assert int(digits) % 97 == 1
    assert iban_valid("GB29 NWBK 6016 1331 9268 19")
    assert iban_valid("gb29nwbk60161331926819")
    assert not iban_valid("GB29 NWBK 6016 1331 9268 18")  # one digit off
    assert not iban_valid("GB29 NWBK 6016 1331 9268 1")  # GB IBANs have 22 characters


def test_luhn_by_hand():
    # 4111 1111 1111 1111: doubled every second digit from the right: 8 + 7*2 ... sum 30
    assert luhn_valid("4111 1111 1111 1111")
    assert not luhn_valid("4111 1111 1111 1112")
    assert not luhn_valid("1111 1111 1111 1117")  # no card starts with 1


def test_identifier_recognizers_find_their_kind():
    text = (
        "Refund to GB29 NWBK 6016 1331 9268 19 on Monday. Card 4111-1111-1111-1111.\n"
        "Ring +44 20 7946 0958 or 0803 123 4567. Login: kwame.b_77. Hosp No: RTH/123456.\n"
        "Driver's licence DL-44521X. PSC 1234, Box 5678, APO AE 09204. Bed 12, room 4B."
    )
    hits = run_recognizers(text, get_recognizers(language="en"))
    found = {(h.label, h.text) for h in hits if h.source in _IDENTIFIER_NAMES}
    assert {
        ("ACCOUNT", "GB29 NWBK 6016 1331 9268 19"),
        ("ACCOUNT", "4111-1111-1111-1111"),
        ("PHONE", "+44 20 7946 0958"),
        ("PHONE", "0803 123 4567"),
        ("USERNAME", "kwame.b_77"),
        ("MRN", "RTH/123456"),
        ("ID", "DL-44521X"),
        ("STREET", "PSC 1234, Box 5678"),
        ("CITY", "APO"),
        ("STATE", "AE"),
        ("ZIP", "09204"),
        ("ROOM", "12"),
        ("ROOM", "4B"),
    } <= found


_IDENTIFIER_NAMES = set(SUPPLEMENTS)


def test_identifier_recognizers_leave_look_alikes():
    assert _hits("BP 120/80, HR 88, 2 x 500 mg.", "payment_card", "phone_national") == []
    assert _hits("Card 4111 1111 1111 1112 declined.", "payment_card") == []
    assert _hits("mail a.b@example.com today", "username_at") == []
    assert _hits("Moved to Surgical Ward, then Nightingale Ward.", "named_ward") == [
        ("DEPARTMENT", "Nightingale Ward")
    ]
    assert _hits("Hosp No: pending", "hospital_number_cue") == []  # no digit


def _doc(text: str, *spans: tuple[str, str]) -> Document:
    out = []
    for label, surface in spans:
        start = text.index(surface)
        out.append(Span(start, start + len(surface), label, surface))
    return Document("d1", text, out)


NOTE = "Mr Ode, 45, of Lagos, Texas, a welder, quit 2010; seen 3 March 2024; aunt 92."
GOLD = _doc(
    NOTE,
    ("NAME", "Ode"),
    ("AGE", "45"),
    ("CITY", "Lagos"),
    ("STATE", "Texas"),
    ("PROFESSION", "welder"),
    ("DATE", "2010"),
    ("DATE", "3 March 2024"),
    ("AGE", "92"),
)


def test_profiles_keep_what_their_rule_asks():
    kept = {p: [s.text for s in restrict_documents([GOLD], p)[0].spans] for p in PROFILES}
    # Safe Harbor: ages under 90, states, professions and a year alone are not identifiers
    assert kept["hipaa"] == ["Ode", "Lagos", "3 March 2024", "92"]
    assert kept["i2b2"] == [s.text for s in GOLD.spans]
    assert kept["strict"] == [s.text for s in GOLD.spans]


def test_i2b2_adds_years_alone_hipaa_does_not():
    spans = [Span(0, 2, "NAME", "Mr")]
    text = "Mr Ode quit smoking in 2010."
    years = [s.text for s in apply_profile(text, spans, "i2b2") if s.label == "DATE"]
    assert years == ["2010"]
    assert [s.label for s in apply_profile(text, spans, "hipaa")] == ["NAME"]


def test_look_alikes_are_dropped():
    text = "BP 148/90 at 1400, clinic 2200 hrs; seen 3/14."
    bp = Span(3, 9, "DATE", "148/90")
    clock = Span(13, 17, "ZIP", "1400")
    late = Span(26, 30, "ZIP", "2200")
    day = Span(41, 45, "DATE", "3/14")
    assert is_lookalike(text, bp) and is_lookalike(text, clock) and is_lookalike(text, late)
    assert not is_lookalike(text, day)
    assert apply_profile(text, [bp, clock, late, day], "strict") == [day]


@pytest.mark.parametrize(
    ("text", "year", "lookalike"),
    [
        ("Shift: 1900 -> 0700", "1900", True),
        ("2025-02-11 2000 RN K. Dela Rosa: POD 1", "2000", True),
        ("given to night nurse at 1900.", "1900", True),
        ("Vitamin D3 2000 IU daily", "2000", True),
        ("the clerk asks 2000 rupees", "2000", True),
        ("paid Rs 2000 in cash", "2000", True),
        ("WITNESS STATEMENT (CJ Act 1967, s.9)", "1967", True),
        ("Vehicle: 2021 Ram 1500, plate SK 447 KTR", "2021", True),
        ("Our car (2019 RAV4, rego DDX-44T) was smashed", "2019", True),
        ("CONSUMER CLAIM - MOTOR VEHICLE, 2017 HYUNDAI I30", "2017", True),
        ("Youth Employment Tracer Study 2024 - verbatim responses", "2024", True),
        ("Community Transport Survey 2025 - open-ended answers", "2025", True),
        ("AA CLUB - MEMBERSHIP RENEWALS 2025 (EXTRACT)", "2025", True),
        ("He bought a house in 2017 near the lake", "2017", False),
        ("Ex-smoker, quit 2015. Father had MI.", "2015", False),
        ("moved to the US in 1999 with her son", "1999", False),
        ("outbreaks 2018 - 2019 in Kerala", "2018", False),
        ("seen since 2019 by the GP", "2019", False),
    ],
)
def test_years_that_are_clock_times_amounts_or_laws_are_lookalikes(text, year, lookalike):
    at = text.index(year)
    span = Span(at, at + 4, "DATE", year)
    assert is_lookalike(text, span) is lookalike
    kept = [s.text for s in apply_profile(text, [], "i2b2") if s.label == "DATE"]
    assert (year in kept) is not lookalike


def test_gold_profile_reads_the_conventions():
    g = gold_profile([GOLD])
    assert g["closest"] == "i2b2"
    assert g["annotates"]["years_alone"] and g["annotates"]["professions"]
    hipaa_only = restrict_documents([GOLD], "hipaa")
    assert gold_profile(hipaa_only)["closest"] == "hipaa"


def test_unknown_profile_is_one_line_error():
    with pytest.raises(OptionError, match="unknown profile 'gdpr'"):
        get_profile("gdpr")


def test_detector_with_a_profile_finds_a_gb_iban_and_keeps_a_year():
    text = "Paid from GB29 NWBK 6016 1331 9268 19 by John Smith; quit smoking 2010, aged 45."
    found = {
        p: [(s.label, s.text) for s in load_model("en", profile=p).detect(text)]
        for p in ("hipaa", "i2b2")
    }
    assert ("ACCOUNT", "GB29 NWBK 6016 1331 9268 19") in found["hipaa"]
    assert all(t != "2010" for _, t in found["hipaa"]) and ("DATE", "2010") in found["i2b2"]
    assert all(t != "45" for _, t in found["hipaa"])


def test_cli_profile_options(tmp_path):
    gold = write_brat_dir([GOLD], tmp_path / "gold")
    res = runner.invoke(
        app,
        ["text", "evaluate", "--gold", str(gold), "--pred", str(gold), "--profile", "hipaa"],
    )
    assert res.exit_code == 0, res.output
    assert "gold follows profile i2b2" in res.output
    res = runner.invoke(
        app,
        [
            "text",
            "evaluate",
            "--gold",
            str(gold),
            "--pred",
            str(gold),
            "--json",
            "--profile",
            "i2b2",
        ],
    )
    data = json.loads(res.output)
    assert data["profile"] == "i2b2" and data["gold_profile"]["closest"] == "i2b2"
    assert data["strict"]["micro"]["tp"] == len(GOLD.spans)
    res = runner.invoke(
        app, ["text", "detect", str(gold), "--out", str(tmp_path / "p"), "--profile", "gdpr"]
    )
    assert res.exit_code == 2 and "unknown profile" in res.output
    res = runner.invoke(
        app,
        ["text", "detect", str(gold), "--out", str(tmp_path / "p"), "--profile", "hipaa", "--json"],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["profile"] == "hipaa"
