"""Checks shared by the measure-only held-out English sets (en-test4 to en-test10).

Nothing here reads the texts for training or rules. The checks keep a gold standard honest: every
span gives back its surface text, labels come from the documented set, the counts per label and per
case are the ones the set's README states, lower/upper texts really are, and every IBAN and card
number is a valid one (so a detector that checks checksums is not wrongly punished).
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The 24 labels of en-test3 (its README), as the brat builder of the English fixtures lists them: the
# 21 of the earlier English fixtures plus i2b2-2014's USERNAME, ROOM and DEPARTMENT.
ALLOWED = frozenset(load("make_en_notes", ROOT / "scripts" / "make_en_notes.py").LABELS)
ANN_LINE = re.compile(r"^T(\d+)\t([A-Z]+) (\d+) (\d+)\t(.*)$")
LABEL_ROW = re.compile(
    r"^\| ([A-Z]+) \| [^|]+ \| [^|]+ \| [^|]+ \| (\d+) \| (\d+) \| (\d+) \|$", re.M
)
CASE_ROW = re.compile(r"^\| (mixed|lower|upper) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", re.M)
IBAN_SHAPE = re.compile(r"^[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4})+$")
CARD_SHAPE = re.compile(r"^(?:\d{4}[ -]?){3}\d{4}$|^3[47]\d{2}[ -]?\d{6}[ -]?\d{5}$")


def docs(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.txt"))


def manifest(folder: Path) -> dict[str, list[str]]:
    rows = (folder / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == ["doc", "kind", "setting", "case"]
    return {r.split("\t")[0]: r.split("\t")[1:] for r in rows[1:]}


def spans(folder: Path, stem: str) -> list[tuple[int, str, int, int, str]]:
    lines = (folder / f"{stem}.ann").read_text(encoding="utf-8").splitlines()
    found = [ANN_LINE.match(line) for line in lines]
    assert all(found), f"{stem}.ann: a line is not a brat text-bound line"
    return [(int(m[1]), m[2], int(m[3]), int(m[4]), m[5]) for m in found if m]


def check_pairs(folder: Path, texts: int = 100) -> dict[str, list[str]]:
    """``texts`` text/ann pairs, each in the manifest with a known case; returns the manifest."""
    names = docs(folder)
    assert len(names) == texts
    assert sorted(p.stem for p in folder.glob("*.ann")) == names
    rows = manifest(folder)
    assert sorted(rows) == names
    assert all(len(v) == 3 and v[2] in {"mixed", "lower", "upper"} for v in rows.values())
    return rows


def check_spans(folder: Path, stem: str) -> None:
    text = (folder / f"{stem}.txt").read_text(encoding="utf-8")
    found = spans(folder, stem)
    assert found, f"{stem}: no gold spans"
    assert [n for n, *_ in found] == list(range(1, len(found) + 1))
    assert {label for _, label, *_ in found} <= ALLOWED
    assert all(0 <= start < end <= len(text) for _, _, start, end, _ in found)
    assert [text[start:end] for _, _, start, end, _ in found] == [s[4] for s in found]
    assert all(s[4] == s[4].strip() and "\n" not in s[4] for s in found), "padded or broken span"
    assert all(a[3] <= b[2] for a, b in zip(found, found[1:], strict=False)), "overlap or disorder"
    case = manifest(folder)[stem][2]
    if case == "lower":
        assert text == text.lower(), f"{stem}: marked lower case but has capitals"
    if case == "upper":
        assert text == text.upper(), f"{stem}: marked upper case but has small letters"


def check_label_counts(folder: Path) -> None:
    readme = (folder / "README.md").read_text("utf-8")
    clinical: Counter[str] = Counter()
    pii: Counter[str] = Counter()
    for stem in docs(folder):
        for _, label, _, _, _ in spans(folder, stem):
            (clinical if stem.startswith("c") else pii)[label] += 1
    table = {m[1]: (int(m[2]), int(m[3]), int(m[4])) for m in LABEL_ROW.finditer(readme)}
    assert set(table) == ALLOWED
    for label, (in_clinical, in_pii, in_all) in table.items():
        assert (clinical[label], pii[label]) == (in_clinical, in_pii), label
        assert in_all == in_clinical + in_pii
    total = sum(clinical.values()) + sum(pii.values())
    assert f"{total:,} spans in all" in readme


def check_case_counts(folder: Path) -> None:
    found: dict[str, list[int]] = {}
    for stem, (_, _, case) in manifest(folder).items():
        row = found.setdefault(case, [0, 0, 0, 0])
        i = 0 if stem.startswith("c") else 2
        row[i] += 1
        row[i + 1] += len(spans(folder, stem))
    readme = (folder / "README.md").read_text("utf-8")
    table = {m[1]: [int(m[j]) for j in range(2, 6)] for m in CASE_ROW.finditer(readme)}
    assert table == found


def valid_ibans_and_cards(folder: Path) -> tuple[list[str], list[str]]:
    """The IBANs (upper-cased) and full card numbers among the ACCOUNT spans, after checking that
    each passes ISO 13616 mod-97 or Luhn (the checks live once, in en-test3's checker)."""
    checks = load("fixture_en_test3_checks", ROOT / "tests" / "test_fixture_en_test3.py")
    ibans, cards = [], []
    for stem in docs(folder):
        for _, label, _, _, surface in spans(folder, stem):
            if label != "ACCOUNT":
                continue
            if IBAN_SHAPE.match(surface.upper()) and len(surface.replace(" ", "")) >= 15:
                ibans.append(surface.upper())
            elif CARD_SHAPE.match(surface):
                cards.append(surface)
    assert [i for i in ibans if not checks.iban_is_valid(i)] == []
    assert [c for c in cards if not checks.luhn_is_valid(c)] == []
    return ibans, cards


def check_ibans_and_cards(folder: Path, ibans: int, cards: int, gb: int, countries: int) -> None:
    """As many valid IBANs, cards, GB IBANs and IBAN countries as the set's README says."""
    found, numbers = valid_ibans_and_cards(folder)
    assert (len(found), len(numbers)) == (ibans, cards)
    assert sum(i.startswith("GB") for i in found) == gb
    assert len({i[:2] for i in found}) == countries


def shared_tests(folder: Path) -> tuple[Callable[..., None], ...]:
    """The per-text span test and the README-table tests of one held-out folder, for its test
    module to bind at module level (pytest collects them there)."""

    @pytest.mark.parametrize("stem", docs(folder))
    def test_every_span_gives_back_its_text(stem: str) -> None:
        check_spans(folder, stem)

    def test_counts_per_label_are_the_readme_table() -> None:
        check_label_counts(folder)

    def test_counts_per_case_are_the_readme_table() -> None:
        check_case_counts(folder)

    return (
        test_every_span_gives_back_its_text,
        test_counts_per_label_are_the_readme_table,
        test_counts_per_case_are_the_readme_table,
    )


def keep_out_tests(folder: Path) -> tuple[Callable[..., None], ...]:
    """The two tests that keep a held-out folder out of the detector, for its test module to bind
    at module level: the training recipe reads none of its texts, and no library file names the
    folder or holds one of its invented full names."""

    def test_training_recipe_reads_no_text_of_the_set() -> None:
        """Neither the training part nor the validation part of the recipe's development notes
        holds a text of the set (a copy under another name would be caught too)."""
        recipe = load("train_models", ROOT / "scripts" / "train_models.py")
        held_out = {
            (folder / f"{stem}.txt").read_text(encoding="utf-8").strip() for stem in docs(folder)
        }
        for validation in (False, True):
            read = {d.text.strip() for d in recipe.en_dev_notes(validation=validation)}
            assert read and not read & held_out

    def test_no_rule_or_word_list_names_the_set_or_its_people() -> None:
        """No file of the library or of the training recipe names the folder, and none holds one
        of the set's invented full names (two words or more, 12 characters or more: a name that
        could only come from these texts). Real hospitals, places and companies are left out."""
        full_names = {
            surface.lower()
            for stem in docs(folder)
            for _, label, _, _, surface in spans(folder, stem)
            if label in {"NAME", "DOCTOR"} and " " in surface and len(surface) >= 12
        }
        assert len(full_names) >= 100  # the check can fail: it has names to look for
        sources = sorted((ROOT / "src" / "hidekit").rglob("*"))
        sources += [ROOT / "scripts" / "train_models.py"]
        found = []
        for path in sources:
            if not path.is_file() or path.suffix not in {
                ".py",
                ".txt",
                ".json",
                ".md",
                ".html",
                ".js",
            }:
                continue
            text = path.read_text(encoding="utf-8").lower()
            assert folder.name not in text, path
            found += [(path.name, n) for n in full_names if n in text]
        assert found == []

    return (
        test_training_recipe_reads_no_text_of_the_set,
        test_no_rule_or_word_list_names_the_set_or_its_people,
    )
