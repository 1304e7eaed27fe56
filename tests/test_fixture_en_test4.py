"""The held-out set tests/fixtures/en-test4 is internally exact.

Measure-only: nothing here reads the texts for training or rules. These checks keep the gold
standard honest: every span gives back its surface text, labels come from the documented set, the
counts per label and per case are the ones its README states, lower/upper texts really are, and
every IBAN and card number is a valid one (so a detector that checks checksums is not wrongly
punished). The marked-up sources stay outside the repository; the brat files are the gold.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "tests" / "fixtures" / "en-test4"
README = FOLDER / "README.md"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The 24 labels of en-test3 (its README), as the brat builder of the English fixtures lists them: the
# 21 of the earlier English fixtures plus i2b2-2014's USERNAME, ROOM and DEPARTMENT.
ALLOWED = frozenset(_load("make_en_notes", ROOT / "scripts" / "make_en_notes.py").LABELS)
ANN_LINE = re.compile(r"^T(\d+)\t([A-Z]+) (\d+) (\d+)\t(.*)$")
LABEL_ROW = re.compile(
    r"^\| ([A-Z]+) \| [^|]+ \| [^|]+ \| [^|]+ \| (\d+) \| (\d+) \| (\d+) \|$", re.M
)
CASE_ROW = re.compile(r"^\| (mixed|lower|upper) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", re.M)
IBAN_SHAPE = re.compile(r"^[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4})+$")
CARD_SHAPE = re.compile(r"^(?:\d{4}[ -]?){3}\d{4}$|^3[47]\d{2}[ -]?\d{6}[ -]?\d{5}$")


def _checksums() -> ModuleType:
    """The ISO 13616 and Luhn checks live once, in en-test3's checker; reuse them."""
    return _load("fixture_en_test3_checks", ROOT / "tests" / "test_fixture_en_test3.py")


def _docs() -> list[str]:
    return sorted(p.stem for p in FOLDER.glob("*.txt"))


def _manifest() -> dict[str, list[str]]:
    rows = (FOLDER / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == ["doc", "kind", "setting", "case"]
    return {r.split("\t")[0]: r.split("\t")[1:] for r in rows[1:]}


def _spans(stem: str) -> list[tuple[int, str, int, int, str]]:
    lines = (FOLDER / f"{stem}.ann").read_text(encoding="utf-8").splitlines()
    found = [ANN_LINE.match(line) for line in lines]
    assert all(found), f"{stem}.ann: a line is not a brat text-bound line"
    return [(int(m[1]), m[2], int(m[3]), int(m[4]), m[5]) for m in found if m]


def test_folder_pairs_and_manifest() -> None:
    docs = _docs()
    assert len(docs) == 100
    assert sorted(p.stem for p in FOLDER.glob("*.ann")) == docs
    manifest = _manifest()
    assert sorted(manifest) == docs
    assert all(len(v) == 3 and v[2] in {"mixed", "lower", "upper"} for v in manifest.values())
    clinical = {k: v for k, v in manifest.items() if k.startswith("c")}
    assert len(clinical) == 60
    assert len({v[1] for v in clinical.values()}) == 17
    kinds = Counter(v[0] for v in clinical.values())
    assert len(kinds) == 10 and set(kinds.values()) == {6}
    cases = Counter(v[2] for v in clinical.values())
    assert cases["lower"] == 8 and cases["upper"] == 8


@pytest.mark.parametrize("stem", _docs())
def test_every_span_gives_back_its_text(stem: str) -> None:
    text = (FOLDER / f"{stem}.txt").read_text(encoding="utf-8")
    spans = _spans(stem)
    assert spans, f"{stem}: no gold spans"
    assert [n for n, *_ in spans] == list(range(1, len(spans) + 1))
    assert {label for _, label, *_ in spans} <= ALLOWED
    assert all(0 <= start < end <= len(text) for _, _, start, end, _ in spans)
    assert [text[start:end] for _, _, start, end, _ in spans] == [s[4] for s in spans]
    assert all(s[4] == s[4].strip() and "\n" not in s[4] for s in spans), "padded or broken span"
    assert all(a[3] <= b[2] for a, b in zip(spans, spans[1:], strict=False)), "overlap or disorder"
    case = _manifest()[stem][2]
    if case == "lower":
        assert text == text.lower(), f"{stem}: marked lower case but has capitals"
    if case == "upper":
        assert text == text.upper(), f"{stem}: marked upper case but has small letters"


def test_counts_per_label_are_the_readme_table() -> None:
    clinical: Counter[str] = Counter()
    pii: Counter[str] = Counter()
    for stem in _docs():
        for _, label, _, _, _ in _spans(stem):
            (clinical if stem.startswith("c") else pii)[label] += 1
    table = {
        m[1]: (int(m[2]), int(m[3]), int(m[4]))
        for m in LABEL_ROW.finditer(README.read_text("utf-8"))
    }
    assert set(table) == ALLOWED
    for label, (in_clinical, in_pii, in_all) in table.items():
        assert (clinical[label], pii[label]) == (in_clinical, in_pii), label
        assert in_all == in_clinical + in_pii
    total = sum(clinical.values()) + sum(pii.values())
    assert f"{total:,} spans in all" in README.read_text("utf-8")


def test_counts_per_case_are_the_readme_table() -> None:
    found: dict[str, list[int]] = {}
    manifest = _manifest()
    for stem, (_, _, case) in manifest.items():
        row = found.setdefault(case, [0, 0, 0, 0])
        i = 0 if stem.startswith("c") else 2
        row[i] += 1
        row[i + 1] += len(_spans(stem))
    table = {
        m[1]: [int(m[j]) for j in range(2, 6)] for m in CASE_ROW.finditer(README.read_text("utf-8"))
    }
    assert table == found


def test_ibans_and_cards_carry_valid_checksums() -> None:
    checks = _checksums()
    ibans, cards = [], []
    for stem in _docs():
        for _, label, _, _, surface in _spans(stem):
            if label != "ACCOUNT":
                continue
            if IBAN_SHAPE.match(surface.upper()) and len(surface.replace(" ", "")) >= 15:
                ibans.append(surface.upper())
            elif CARD_SHAPE.match(surface):
                cards.append(surface)
    assert len(ibans) == 22 and len(cards) == 10
    assert sum(i.startswith("GB") for i in ibans) == 5
    assert len({i[:2] for i in ibans}) == 15
    assert [i for i in ibans if not checks.iban_is_valid(i)] == []
    assert [c for c in cards if not checks.luhn_is_valid(c)] == []
