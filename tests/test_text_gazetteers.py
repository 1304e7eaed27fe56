"""Gazetteer recognizers (names, cities, word bands in any case) and the general-PII profile's
nationality and title recognizers (issue 14)."""

from __future__ import annotations

from importlib import resources

from hidekit.text.detection.recognizers import get_recognizers, run_recognizers
from hidekit.text.detection.recognizers.gazetteers import (
    fold,
    given_names,
    surnames,
    word_bands,
    world_cities,
)
from hidekit.text.profiles import PROFILES, apply_profile, restrict_documents
from hidekit.text.spans import Document, Span


def _hits(text: str, *names: str) -> list[tuple[str, str]]:
    return [(h.label, h.text) for h in run_recognizers(text, get_recognizers(names=names))]


def test_word_bands_are_zipf_bands_with_their_license_noted():
    bands = word_bands()
    # "the" is about 5% of English words (Zipf 7.7); "patient" is common (4.8)
    assert bands["the"] == 7 and bands["patient"] == 4
    assert all(3 <= b <= 7 for b in bands.values())
    head = (resources.files("hidekit") / "data" / "wordfreq-en.txt").read_text("utf-8")[:400]
    assert "CC BY-SA 4.0" in head and "wordfreq 3.1.1" in head


def test_names_and_cities_match_in_any_case_and_without_accents():
    text = "spoke w/ siobhan o'brien and kwame mensah; she lives in kumasi, he in KRAKOW"
    hits = _hits(text, "given_name_any_en", "surname_any_en", "city_any_en")
    assert ("GIVEN_NAME", "siobhan") in hits and ("GIVEN_NAME", "kwame") in hits
    assert ("SURNAME", "mensah") in hits and ("SURNAME", "o'brien") in hits
    assert ("CITY_NAME", "kumasi") in hits and ("CITY_NAME", "KRAKOW") in hits
    assert fold("Kraków") == "Krakow" and "kraków" in world_cities()


def test_very_common_words_are_left_to_the_band():
    # "will" and "may" are first names in Faker's lists, but band 5-6 words of English
    assert "will" not in given_names() and "may" not in given_names()
    assert "brown" in surnames() or word_bands()["brown"] >= 5
    hits = _hits("will call may", "given_name_any_en", "word_band_en")
    assert hits == [("BAND6", "will"), ("BAND5", "call"), ("BAND5", "may")]


def test_cued_names_in_lower_case():
    text = "spoke to her daughter ama re dc. dr okafor aware. this is the plan. my wife will come"
    hits = _hits(text, "person_cue_any_en", "clinician_cue_any_en")
    assert hits == [("NAME", "ama"), ("DOCTOR", "okafor")]


def test_general_recognizers_are_not_in_the_english_model_set():
    en = {r.name for r in get_recognizers("en")}
    assert {"given_name_any_en", "city_any_en", "word_band_en"} <= en
    assert not {"nationality_en", "title_en"} & en


def test_general_profile_adds_nationalities_and_titles():
    text = "Mrs Owusu is Ghanaian and moved in 2019; Rev. Boateng helped."
    name = Span(4, 9, "NAME", "Owusu")
    general = [(s.label, s.text) for s in apply_profile(text, [name], "general")]
    assert ("TITLE", "Mrs") in general and ("TITLE", "Rev") in general
    assert ("NATIONALITY", "Ghanaian") in general and ("NAME", "Owusu") in general
    assert all(t != "2019" for _, t in general)  # a year alone is kept
    hipaa = [(s.label, s.text) for s in apply_profile(text, [name], "hipaa")]
    assert hipaa == [("NAME", "Owusu")]


def test_hipaa_scores_without_professions_on_both_sides():
    text = "Ama Owusu, a nurse."
    doc = Document(
        "d", text, [Span(0, 9, "NAME", "Ama Owusu"), Span(13, 18, "PROFESSION", "nurse")]
    )
    assert [s.label for s in restrict_documents([doc], "hipaa")[0].spans] == ["NAME"]
    assert [s.label for s in restrict_documents([doc], "general")[0].spans] == [
        "NAME",
        "PROFESSION",
    ]
    assert "PROFESSION" in PROFILES["hipaa"].keep_labels


def test_profiles_add_cued_lower_case_names_where_the_model_found_nothing():
    text = "pt seen w/ her daughter ama. dr okafor aware."
    found = [(s.label, s.text) for s in apply_profile(text, [], "hipaa")]
    assert ("NAME", "ama") in found and ("DOCTOR", "okafor") in found
    # a model span already there wins: nothing is added over it
    kept = apply_profile(text, [Span(24, 27, "NAME", "ama")], "hipaa")
    assert [(s.label, s.text) for s in kept].count(("NAME", "ama")) == 1
