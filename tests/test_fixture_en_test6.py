"""The held-out set tests/fixtures/en-test6 is internally exact.

Measure-only: nothing here reads the texts for training or rules. The same checks as en-test4's and
en-test5's (``heldout_fixture.py``): every span gives back its surface text, labels come from the
documented set, the counts per label and per case are the ones its README states, lower/upper texts
really are, and every IBAN and card number is a valid one. The marked-up sources stay outside the
repository; the brat files are the gold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from heldout_fixture import check_ibans_and_cards, check_pairs, shared_tests

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-test6"

(
    test_every_span_gives_back_its_text,
    test_counts_per_label_are_the_readme_table,
    test_counts_per_case_are_the_readme_table,
) = shared_tests(FOLDER)


def test_manifest_kinds_settings_and_cases() -> None:
    rows = check_pairs(FOLDER)
    clinical = {k: v for k, v in rows.items() if k.startswith("c")}
    pii = {k: v for k, v in rows.items() if k.startswith("p")}
    assert (len(clinical), len(pii)) == (60, 40)
    assert len({v[1] for v in clinical.values()}) == 20
    assert len({v[1] for v in pii.values()}) == 22
    assert len({v[0] for v in clinical.values()}) == 13
    assert len({v[0] for v in pii.values()}) == 9
    assert Counter(v[2] for v in clinical.values()) == {"mixed": 38, "lower": 13, "upper": 9}
    assert Counter(v[2] for v in pii.values()) == {"mixed": 32, "lower": 5, "upper": 3}


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 11 IBANs from 8 countries (GB 3, IE 2, AE, SE, MT, QA, PK, DE) and 7 full card numbers
    check_ibans_and_cards(FOLDER, ibans=11, cards=7, gb=3, countries=8)
