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

from heldout_fixture import check_ibans_and_cards, docs, manifest, shared_tests

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-test6"

(
    test_every_span_gives_back_its_text,
    test_counts_per_label_are_the_readme_table,
    test_counts_per_case_are_the_readme_table,
) = shared_tests(FOLDER)


def test_manifest_kinds_settings_and_cases() -> None:
    names = docs(FOLDER)
    assert sorted(p.stem for p in FOLDER.glob("*.ann")) == names
    rows = manifest(FOLDER)
    assert sorted(rows) == names
    clinical = {k: v for k, v in rows.items() if k.startswith("c")}
    pii = {k: v for k, v in rows.items() if k.startswith("p")}
    assert (len(clinical), len(pii)) == (24, 16)
    assert len({v[1] for v in clinical.values()}) == 19
    assert len({v[1] for v in pii.values()}) == 16
    assert len({v[0] for v in clinical.values()}) == 14
    assert len({v[0] for v in pii.values()}) == 9
    assert Counter(v[2] for v in clinical.values()) == {"mixed": 15, "lower": 6, "upper": 3}
    assert Counter(v[2] for v in pii.values()) == {"mixed": 13, "lower": 2, "upper": 1}


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 4 IBANs from 4 countries (IE, AE, SE, MT; none GB yet) and no full card number so far
    check_ibans_and_cards(FOLDER, ibans=4, cards=0, gb=0, countries=4)
