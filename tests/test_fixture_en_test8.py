"""The held-out set tests/fixtures/en-test8 is internally exact.

Measure-only: nothing here reads the texts for training or rules. The same checks as en-test4's to
en-test7's (``heldout_fixture.py``): every span gives back its surface text, labels come from the
documented set, the counts per label and per case are the ones its README states, lower/upper texts
really are, and every IBAN and card number is a valid one. The marked-up sources stay outside the
repository; the brat files are the gold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from heldout_fixture import check_ibans_and_cards, check_pairs, shared_tests

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-test8"

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
    assert len({v[0] for v in clinical.values()}) == 21
    assert len({v[0] for v in pii.values()}) == 10
    assert len({v[1] for v in clinical.values()}) == 16
    assert len({v[1] for v in pii.values()}) == 17
    assert len({v[1] for v in rows.values()}) == 20
    assert Counter(v[2] for v in clinical.values()) == {"mixed": 45, "lower": 9, "upper": 6}
    assert Counter(v[2] for v in pii.values()) == {"mixed": 30, "lower": 6, "upper": 4}


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 9 IBANs from 8 countries (GB 2, IE, DE, BE, IT, PT, PL, MT) and 5 full card numbers
    check_ibans_and_cards(FOLDER, ibans=9, cards=5, gb=2, countries=8)
