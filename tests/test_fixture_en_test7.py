"""The held-out set tests/fixtures/en-test7 is internally exact.

Measure-only: nothing here reads the texts for training or rules. The same checks as en-test4's to
en-test6's (``heldout_fixture.py``): every span gives back its surface text, labels come from the
documented set, the counts per label and per case are the ones its README states, lower/upper texts
really are, and every IBAN and card number is a valid one. The marked-up sources stay outside the
repository; the brat files are the gold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from heldout_fixture import check_ibans_and_cards, manifest, shared_tests

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-test7"

(
    test_every_span_gives_back_its_text,
    test_counts_per_label_are_the_readme_table,
    test_counts_per_case_are_the_readme_table,
) = shared_tests(FOLDER)


def test_manifest_kinds_settings_and_cases() -> None:
    # first batch of 50 (c01-c30, p01-p20); the full set of 100 follows
    rows = manifest(FOLDER)
    assert sorted(rows) == sorted(p.stem for p in FOLDER.glob("*.txt"))
    clinical = {k: v for k, v in rows.items() if k.startswith("c")}
    pii = {k: v for k, v in rows.items() if k.startswith("p")}
    assert (len(clinical), len(pii)) == (30, 20)
    assert Counter(v[2] for v in clinical.values()) == {"mixed": 21, "lower": 5, "upper": 4}
    assert Counter(v[2] for v in pii.values()) == {"mixed": 15, "lower": 3, "upper": 2}


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 3 IBANs from 3 countries (GB, IE, DE), no full card numbers yet
    check_ibans_and_cards(FOLDER, ibans=3, cards=0, gb=1, countries=3)
