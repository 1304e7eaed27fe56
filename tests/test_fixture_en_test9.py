"""The held-out set tests/fixtures/en-test9 is internally exact, and nothing trains or writes rules on it.

Measure-only: nothing here reads the texts for training or rules. The same checks as en-test4's to
en-test8's (``heldout_fixture.py``): every span gives back its surface text, labels come from the
documented set, the counts per label and per case are the ones its README states, lower/upper texts
really are, and every IBAN and card number is a valid one. Two more keep the set out of the
detector: the training recipe reads none of its texts, and no source file of the library or of the
training recipe names the folder or holds one of its invented full names. The marked-up sources
stay outside the repository; the brat files are the gold.
"""

from __future__ import annotations

from collections import Counter

from heldout_fixture import (
    ROOT,
    check_ibans_and_cards,
    check_pairs,
    keep_out_tests,
    shared_tests,
)

FOLDER = ROOT / "tests" / "fixtures" / "en-test9"

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
    assert len({v[0] for v in clinical.values()}) == 18
    assert len({v[0] for v in pii.values()}) == 11
    assert len({v[1] for v in clinical.values()}) == 34
    assert len({v[1] for v in pii.values()}) == 32
    assert len({v[1] for v in rows.values()}) == 37
    assert Counter(v[2] for v in clinical.values()) == {"mixed": 36, "lower": 18, "upper": 6}
    assert Counter(v[2] for v in pii.values()) == {"mixed": 24, "lower": 12, "upper": 4}


def test_ibans_and_cards_carry_valid_checksums() -> None:
    # 10 IBANs from 9 countries (GB 2, IE, MT, GI, DE, NL, PK, MU, SC) and 6 full card numbers
    check_ibans_and_cards(FOLDER, ibans=10, cards=6, gb=2, countries=9)


(
    test_training_recipe_reads_no_text_of_the_set,
    test_no_rule_or_word_list_names_the_set_or_its_people,
) = keep_out_tests(FOLDER)
