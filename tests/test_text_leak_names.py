"""Leak-closing rules added in issue 14's seventh round: names after cue words, names listed
with a name, a name's other written forms, address parts joined by a comma, and logins written
as key=value, after "username", at the head of a chat line or after a messaging app."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.text.detection.casing import text_case
from hidekit.text.detection.leak_names import (
    close_name_leaks,
    cued_names,
    listed_names,
    reads_as_name,
    speaker_names,
    written_forms,
)
from hidekit.text.detection.recognizers import get_recognizers
from hidekit.text.detection.recognizers.hits import run_recognizers
from hidekit.text.spans import Span


def span(text: str, part: str, label: str = "NAME", nth: int = 0) -> Span:
    at = -1
    for _ in range(nth + 1):
        at = text.index(part, at + 1)
    return Span(at, at + len(part), label, part, "test")


def found(spans) -> list[tuple[str, str]]:
    return [(s.text, s.label) for s in spans]


@pytest.mark.parametrize(
    ("word", "case", "expected"),
    [
        ("pawar", "lower", True),  # no English word
        ("Pawar", "lower", False),  # not in the text's case
        ("Pawar", "mixed", True),
        ("PAWAR", "mixed", False),  # an acronym in a text with both cases
        ("PAWAR", "upper", True),
        ("reviewed", "lower", False),  # an English word
        ("warfarin", "lower", False),  # a clinical word
        ("nurse", "lower", False),  # a role
        ("jan", "lower", False),  # a month
    ],
)
def test_reads_as_name(word, case, expected):
    assert reads_as_name(word, case) is expected


def test_names_after_titles_relatives_and_greetings():
    text = "informed supervisor mr. pawar. hi dayo, the neighbour rhodri (son) came. son reviewed."
    out = cued_names(text, [], text_case(text))
    assert found(out) == [("pawar", "NAME"), ("dayo", "NAME"), ("rhodri", "NAME")]


def test_cued_names_keep_what_was_found_and_skip_mitral_regurgitation():
    text = "Moderate MR. Anticoagulation started. Mrs Okonjo-Adeyemi seen."
    have = [span(text, "Okonjo-Adeyemi")]
    assert cued_names(text, have, "mixed") == have  # nothing new: "MR." is no title here


def test_a_relative_before_a_sentence_stops_nothing_across_the_full_stop():
    text = "discussed with patient and son. oncologist aware."
    assert cued_names(text, [], "lower") == []


def test_listed_names_join_a_name_by_and():
    text = "sons tunde and kazeem visit; brody and brynn too"
    have = [span(text, "tunde"), span(text, "brody")]
    out = listed_names(text, have, "lower")
    assert found(out) == [
        ("tunde", "NAME"),
        ("kazeem", "NAME"),
        ("brody", "NAME"),
        ("brynn", "NAME"),
    ]


def test_listed_names_take_no_english_word():
    text = "tunde and friends came"
    assert found(listed_names(text, [span(text, "tunde")], "lower")) == [("tunde", "NAME")]


def test_a_name_in_its_own_script_after_it():
    text = "Patient: WONG Siu Fong (黃小芳)  HKID: C338172(4)"
    out = written_forms(text, [span(text, "WONG Siu Fong"), span(text, "C338172(4)", "ID")])
    assert found(out) == [("WONG Siu Fong", "NAME"), ("黃小芳", "NAME"), ("C338172(4)", "ID")]
    latin = "Seen: Ana Lopez (Lopez) today"
    assert len(written_forms(latin, [span(latin, "Ana Lopez")])) == 1  # Latin: no second form


def test_a_nickname_between_two_names_makes_one_span():
    text = "Candidate: Oluwakemi (Kemi) Adebanjo, LinkedIn"
    have = [span(text, "Oluwakemi"), span(text, "Kemi", "CITY"), span(text, "Adebanjo")]
    assert found(written_forms(text, have)) == [("Oluwakemi (Kemi) Adebanjo", "NAME")]


def test_nana_opens_a_name_in_a_text_with_both_cases():
    text = "Client: Nana Yaa Boateng, 63"
    assert found(written_forms(text, [span(text, "Yaa Boateng")])) == [("Nana Yaa Boateng", "NAME")]
    lower = "client: nana yaa boateng"
    assert found(written_forms(lower, [span(lower, "yaa boateng")])) == [("yaa boateng", "NAME")]


def test_close_name_leaks_runs_the_three():
    text = "Bro. Segun and Sis. Efua Mensah, WONG Siu Fong (黃小芳)"
    out = close_name_leaks(text, [span(text, "WONG Siu Fong")])
    assert [s.text for s in out] == ["Segun", "Efua Mensah", "WONG Siu Fong", "黃小芳"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("auth WARN state mismatch user=jrodriguez ip=10.0.0.1", ["jrodriguez"]),
        ("the portal, username boyelowo. thanks", ["boyelowo"]),
        ("the portal, username and password reset", []),
        ("aoife.mc 09:14 - customer rang", ["aoife.mc"]),
        ("notes.txt 09:14 - uploaded", []),
        ("WhatsApp and Google Chat (dr.r.hammondlee). He said", ["dr.r.hammondlee"]),
        ("WhatsApp me later", []),
    ],
)
def test_login_recognizers(text, expected):
    names = ["username_keyvalue", "username_spaced", "chat_handle_line", "username_app"]
    hits = run_recognizers(text, get_recognizers(names=names))
    assert [h.text for h in hits] == expected
    assert all(h.label == "USERNAME" for h in hits)


def test_names_after_phrases_before_a_relative_and_signing_a_line():
    text = "this is ravinder from sgi. arash's dad rang. reported at the station. - chioma\n"
    out = cued_names(text, [], "lower")
    assert found(out) == [("ravinder", "NAME"), ("arash", "NAME"), ("chioma", "NAME")]
    header = "Westmead Hospital - Urology Outpatients\n04:55 - epidural sited (l3/4)"
    assert cued_names(header, [], "mixed") == []  # a dash after a word signs nothing


def test_a_code_found_from_its_slash_covers_the_whole_code():
    from hidekit.text.detection.consistency import whole_tokens

    text = "casepaper kem/opd/25/447182, from shahapur"
    out = whole_tokens(text, [span(text, "/25/447182", "ACCOUNT")])
    assert found(out) == [("kem/opd/25/447182", "ACCOUNT")]


def test_initials_alone_on_the_last_line_sign_the_note():
    from hidekit.text.detection.leak_names import closing_initials

    for text, who in [
        ("admit from or (dr sato).\nmk rn\n", "mk"),
        ("PLAN: SEE SHEETS.\nRJ/SHO\n", "RJ"),
        ("referral sent.\n- jt", "jt"),
    ]:
        assert found(closing_initials(text, [])) == [(who, "DOCTOR")]
    for text in ("plan reviewed.\nok\n", "rate control.\nAF\n", "seen.\nMg\n", "a\nand the end"):
        assert closing_initials(text, []) == []  # a word, a clinical word, a symbol, a sentence


def test_a_phone_number_keeps_its_plus():
    from hidekit.text.detection.consistency import whole_tokens

    text = "beaten\n+2348164471830: no"
    assert found(whole_tokens(text, [span(text, "2348164471830", "PHONE")])) == [
        ("+2348164471830", "PHONE")
    ]


def test_a_place_before_a_street_type_is_the_street():
    from hidekit.text.detection.consistency_streets import place_streets

    text = "car park on eccles boulevard; lives 2 church row; Mersey ST 4"
    have = [span(text, "eccles", "CITY"), span(text, "church", "ORGANIZATION")]
    have.append(span(text, "Mersey", "CITY"))
    out = place_streets(text, have)
    assert found(out) == [
        ("eccles boulevard", "STREET"),
        ("2 church row", "STREET"),
        ("Mersey", "CITY"),  # "ST" in capitals after a capitalized word: not its street type
    ]


def test_a_list_opened_by_a_comma_and_closed_by_and():
    text = "shoutout lebo, naledi and tshepo from floor 3; eggs, milk and bread"
    out = listed_names(text, [span(text, "naledi")], "lower")
    assert found(out) == [("lebo", "NAME"), ("naledi", "NAME"), ("tshepo", "NAME")]


def test_honorifics_of_other_countries_cue_a_name():
    text = "feeds ngt. gogo nosipho sleeping in; aling nena called"
    assert found(cued_names(text, [], "lower")) == [("nosipho", "NAME"), ("nena", "NAME")]


def test_a_rare_word_before_an_apostrophe_s_unless_an_eponym():
    text = "for your and tomasz's returns; fluid in morison's pouch; zayn's mum"
    assert found(cued_names(text, [], "lower")) == [("tomasz", "NAME"), ("zayn", "NAME")]
    # a plural head, or a sign read as positive or negative, is an eponym too
    text = "screening for patau's syndromes; hoffmann's negative; kemal's results; zayn's mum"
    assert found(cued_names(text, [], "lower")) == [("kemal", "NAME"), ("zayn", "NAME")]


def test_a_relative_joined_by_a_hyphen_is_no_name():
    recs = get_recognizers(names=["relative_name"])
    t = (
        "his son morea (12) and mother-in-law (mama hitolo); her son paora and daughter-in-law "
        "aroha; daughter siti and son-in-law visited; son paora and step-dad came"
    )
    assert [h.text for h in run_recognizers(t, recs)] == [
        "morea",
        "paora",
        "aroha",
        "siti",
        "paora",
    ]


def test_a_relative_before_a_title_a_word_or_an_abbreviation_names_nobody():
    recs = get_recognizers(names=["relative_name"])
    lower = (
        "mother-in-law smt. kuni; client agreeable; partner notified; mum won't come; "
        "mother: pph 600 ml; partner notification done; son kevin and wife faeza; nurse ama"
    )
    assert [h.text for h in run_recognizers(lower, recs)] == ["kevin", "faeza", "ama"]
    upper = "OFFICER SGT. MOKOENA. MIDWIFE REFERRAL DECLINED. 2ND CHILD SVD. WIFE MORAG CALLED"
    assert [h.text for h in run_recognizers(upper, recs)] == ["MORAG"]


def test_a_chat_line_opened_by_a_capitalized_english_word_names_nobody():
    recs = get_recognizers(names=["chat_speaker"])
    t = (
        "[14:02] Bot: Welcome\n[14:03] Mailbox: rule set\n[14:04] Ayesha: hi\n"
        "[14:05] Blessing: ok\n16:02 - tunde: sent"
    )
    assert [h.text for h in run_recognizers(t, recs)] == ["Ayesha", "Blessing", "tunde"]


def test_a_label_opening_two_lines_of_a_lower_case_transcript_is_a_speaker():
    text = (
        "call notes, typed as said\n"
        "kwabena: the boiler is off again\n"
        "plan: ring the landlord\n"
        "kwabena (son): he will call back\n"
        "requester: same as before\n"
        "requester: still waiting\n"
    )
    got = found(speaker_names(text, [], text_case(text)))
    # the speaker twice; "plan" is a field written once, "requester" a role
    assert got == [("kwabena", "NAME"), ("kwabena", "NAME")]
    # a label written once is a field, and a text with capitals is left to the recognizers
    assert speaker_names("obinna: hi\nplan: rest\n", [], "lower") == []
    mixed = "Kwabena: hi\nkwabena: yes\nKwabena: ok\n"
    assert speaker_names(mixed, [], text_case(mixed)) == []
    # what was found stays, and nothing is added over it
    kept = [span(text, "kwabena")]
    assert found(speaker_names(text, kept, "lower")) == [("kwabena", "NAME"), ("kwabena", "NAME")]


def test_a_common_name_after_a_title_of_address_in_a_lower_case_text():
    def cued(text: str) -> list[tuple[str, str]]:
        return found(cued_names(text, [], text_case(text)))

    # "may" and "wu" are English words or too short for reads_as_name, yet names after "mrs", "mr"
    assert not reads_as_name("may", "lower") and not reads_as_name("wu", "lower")
    assert cued("seen with mrs may today, then mr wu rang") == [("may", "NAME"), ("wu", "NAME")]
    # a size before "fr", a sentence ended after a full title, a word of another kind, capitals
    assert cued("two 19 fr blake drains placed") == []
    assert cued("wrote to the councillor. ward 85 replied") == []
    assert cued("spoke to mr daughter about it") == []
    assert cued("Seen with Mrs may today") == []


def test_a_speaker_label_keeps_its_initial_and_fills_what_the_model_left():
    text = "09:14 - chidera o: on my way\n09:20 - chidera o: here\nfollow-up: gp\nfollow-up: 2/52\n"
    got = found(speaker_names(text, [], "lower"))
    # the initial stays with the name; "follow-up" is a compound of English words
    assert got == [("chidera o", "NAME"), ("chidera o", "NAME")]
    # the given name found by the model: the initial beside it is added, nothing over it
    kept = [span(text, "chidera", nth=1)]
    assert found(speaker_names(text, kept, "lower")) == [
        ("chidera o", "NAME"),
        ("chidera", "NAME"),
        ("o", "NAME"),
    ]


_LINES = ["qzxk: hi", "qzxk v: ok", "vwqz (k): x", "plan: 1", "12:01 - zxqv: y", "kqz", "qzxk"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_LINES) | st.text(alphabet="qzxk vw:1-(.)", max_size=12), max_size=8),
    st.integers(0, 80),
    st.integers(0, 6),
)
def test_speaker_names_only_adds_names_beside_what_was_found(lines, at, size):
    text = "\n".join(lines)
    a, b = min(at, len(text)), min(at + size, len(text))
    given_spans = [Span(a, b, "CITY", text[a:b], "test")] if b > a else []
    out = speaker_names(text, given_spans, "lower")
    assert all(s in out for s in given_spans)  # nothing dropped or changed
    assert all(p.end <= q.start for p, q in zip(out, out[1:], strict=False))  # no overlaps
    for s in out:
        assert s.text == text[s.start : s.end]
        assert s in given_spans or (s.label == "NAME" and s.source == "name_speaker")
