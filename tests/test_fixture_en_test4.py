"""The held-out set tests/fixtures/en-test4 is internally exact.

Measure-only: nothing here reads the texts for training or rules. These checks keep the gold
standard honest: every span gives back its surface text, labels come from the documented set, the
counts per label and per case are the ones its README states, lower/upper texts really are, and
every IBAN and card number is a valid one (so a detector that checks checksums is not wrongly
punished). The marked-up sources stay outside the repository; the brat files are the gold. The
checks themselves are shared with en-test5 (``heldout_fixture.py``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from heldout_fixture import check_ibans_and_cards, check_pairs, shared_tests

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "en-test4"

(
    test_every_span_gives_back_its_text,
    test_counts_per_label_are_the_readme_table,
    test_counts_per_case_are_the_readme_table,
) = shared_tests(FOLDER)


def test_folder_pairs_and_manifest() -> None:
    clinical = {k: v for k, v in check_pairs(FOLDER).items() if k.startswith("c")}
    assert len(clinical) == 60
    assert len({v[1] for v in clinical.values()}) == 17
    kinds = Counter(v[0] for v in clinical.values())
    assert len(kinds) == 10 and set(kinds.values()) == {6}
    cases = Counter(v[2] for v in clinical.values())
    assert cases["lower"] == 8 and cases["upper"] == 8


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 22 IBANs from 15 countries (5 GB) and 10 full card numbers (its README)
    check_ibans_and_cards(FOLDER, ibans=22, cards=10, gb=5, countries=15)
