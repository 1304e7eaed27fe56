"""Linking keeps its promise (issue 16 item 4): when age is generalized, no date in the released
notes gives it back, and no released label names an age over 89 (Safe Harbor).

The attacker holds what ``hidekit link`` ships: the person table and the notes with their brat
spans. For each person they take the earliest date in the notes as the birth date and every later
date as a visit; the whole years between the two, inside the released age range, are the age
candidates, and the one most dates give (ties: the smallest) is the guess. A guess equal to the
true age is an exact age recovered.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date

import pytest

from hidekit.demo.survey import generate_survey
from hidekit.linking import link, release
from hidekit.linking.attributes import covers, top_coded_label
from hidekit.text.anonymization.operators import Surrogate, anonymize_document
from hidekit.text.dates import parse_date
from hidekit.text.synthesis import generate_patient_notes

AGE_RANGE = re.compile(r"^\[(\d+)-(\d+)\]$|^(\d+)\+$|^(\d+)$")


@pytest.fixture(scope="module")
def linked():
    survey = generate_survey(80, seed=3)
    return survey, link(survey, generate_patient_notes(survey, 3, seed=4), "record_id")


def _years(born: date, then: date) -> int:
    return then.year - born.year - ((then.month, then.day) < (born.month, born.day))


def dated_age(survey) -> dict[str, int]:
    """Record id -> the age its birth and visit dates give (what the notes' dates tell)."""
    return {
        str(r): _years(date.fromisoformat(b), date.fromisoformat(v))
        for r, b, v in zip(
            survey["record_id"], survey["birth_date"], survey["visit_date"], strict=True
        )
    }


def _bounds(label: str) -> tuple[int, int]:
    m = AGE_RANGE.match(label)
    assert m, f"unreadable age label {label!r}"
    if m.group(1):
        return int(m.group(1)), int(m.group(2))
    if m.group(3):
        return int(m.group(3)), 200
    return int(m.group(4)), int(m.group(4))


def _dates(documents) -> list[date]:
    out = []
    for d in documents:
        for s in d.spans:
            parsed = parse_date(d.text[s.start : s.end])
            if parsed is not None and parsed.has_year:
                out.append(parsed.value)
    return out


def recovered_ages(docs_by_person: dict, age_label: dict) -> dict:
    """Person -> the age the attacker settles on (persons with at least one candidate)."""
    out = {}
    for person, docs in docs_by_person.items():
        dates = sorted(set(_dates(docs)))
        if len(dates) < 2:
            continue
        lo, hi = _bounds(age_label[person])
        votes = Counter(a for d in dates[1:] if lo <= (a := _years(dates[0], d)) <= hi)
        if votes:
            out[person] = min(votes, key=lambda a: (-votes[a], a))
    return out


def test_attacker_recovers_no_exact_age_from_the_released_notes(linked):
    survey, lk = linked
    rel = release(lk, ["sex", "age", "zip"], 5, operator="surrogate", seed=2, insecure_seed=True)
    truth = dict(zip(rel.crosswalk["person"], rel.crosswalk["record_id"], strict=True))
    true_age = dated_age(survey)
    labels = dict(zip(rel.table["person"], rel.table["age"], strict=True))
    by_person: dict = {}
    for d in rel.documents:
        by_person.setdefault(d.patient, []).append(d)
    got = recovered_ages(by_person, labels)
    exact = [p for p, a in got.items() if a == true_age[str(truth[p])]]
    assert exact == []
    assert rel.actions.get("date_withheld", 0) > 0


def test_the_attack_works_on_dates_shifted_by_one_offset_per_patient(linked):
    """The same attacker against the old behaviour (the surrogate operator shifting every date of
    a patient by one offset): most ages come back, so the test above could fail."""
    survey, lk = linked
    rel = release(lk, ["sex", "age", "zip"], 5, seed=2, insecure_seed=True)
    labels = {}
    truth = dict(zip(rel.crosswalk["person"], rel.crosswalk["record_id"], strict=True))
    for person, lab in zip(rel.table["person"], rel.table["age"], strict=True):
        labels[str(truth[person])] = lab
    op = Surrogate(seed=2, insecure_seed=True)
    by_person: dict = {}
    for d in lk.documents:
        new, _ = anonymize_document(d, op)
        by_person.setdefault(str(d.patient), []).append(new)
    got = recovered_ages(by_person, labels)
    true_age = dated_age(survey)
    exact = [p for p, a in got.items() if a == true_age[p]]
    assert len(exact) >= len(by_person) // 2


def test_no_released_age_label_names_an_age_over_89(linked):
    survey, lk = linked
    assert (survey["age"] > 89).any()  # the fixture has people over 89
    for k in (2, 5, 20):
        rel = release(lk, ["sex", "age"], k, seed=1, insecure_seed=True)
        for label in rel.table["age"]:
            lo, hi = _bounds(label)
            assert hi <= 89 or label.endswith("+"), label
        ages_in_notes = [
            int(n)
            for d in rel.documents
            for s in d.spans
            if s.label == "AGE"
            for n in re.findall(r"\d+", d.text[s.start : s.end])
        ]
        assert ages_in_notes and max(ages_in_notes) <= 90
        assert not any(
            re.search(r"\b(9\d|1\d\d)\b", d.text[s.start : s.end])
            and not d.text[s.start : s.end].endswith("+")
            for d in rel.documents
            for s in d.spans
            if s.label == "AGE"
        )


@pytest.mark.parametrize(
    "label, out",
    [("90", "90+"), ("[85-90]", "85+"), ("[70-79]", "[70-79]"), ("77", "77"), ("{F,M}", "{F,M}")],
)
def test_top_coded_label(label, out):
    assert top_coded_label(label) == out


def test_open_age_label_covers_everyone_above(linked):
    _, lk = linked
    age = lk.attribute_of("age")
    assert covers(age, "85+", "102") and covers(age, "85+", "85") and not covers(age, "85+", "84")
    assert covers(age, "90+", "95") and not covers(age, "[70-79]", "95")


def test_link_release_states_information_lost_beside_the_privacy_model(linked):
    """Every release report shows information loss: the linked release counts, per key, the
    persons whose released value is not their own (hand count from the table) and warns."""
    from hidekit.linking.report import link_report

    survey, lk = linked
    rel = release(lk, ["sex", "age", "zip"], 5, seed=1, insecure_seed=True)
    loss = {v.column: v for v in rel.loss}
    exact = dict(zip(lk.view["_key"], lk.view["age"], strict=True))
    person_key = dict(zip(rel.crosswalk["person"], rel.crosswalk["record_id"], strict=True))
    changed = sum(
        str(lab) != str(exact[str(person_key[p])])
        for p, lab in zip(rel.table["person"], rel.table["age"], strict=True)
    )
    assert loss["age"].generalized == changed > 0 and loss["age"].suppressed == 0
    summary = rel.summary()["information_loss"]
    assert summary["max_loss"] == 0.2 and any(w.startswith("age:") for w in summary["warnings"])
    html = link_report(lk.report, rel).html()
    assert "Information lost" in html and '<p class="warn">' in html
    partial = release(lk, ["sex", "age"], 5, mode="partial")
    assert all(v.share == 0 for v in partial.loss)
