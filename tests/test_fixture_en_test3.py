"""The held-out set tests/fixtures/en-test3 is internally exact.

Measure-only: nothing here reads the texts for training or rules. These checks keep the gold
standard honest: every span gives back its surface text, labels come from the documented set, the
brat files are exactly what the marked-up sources build, every IBAN and card number is a valid one
(so a detector that checks checksums is not wrongly punished), and the manifest covers every note.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "tests" / "fixtures" / "en-test3"
SRC = ROOT / "tests" / "fixtures" / "en-test3-src"


def _load_builder() -> ModuleType:
    path = ROOT / "scripts" / "make_en_notes.py"
    spec = importlib.util.spec_from_file_location("make_en_notes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The builder's label set is the documented one (en-test3/README.md): the 21 labels of the earlier
# English fixtures plus the i2b2-2014 types USERNAME, ROOM and DEPARTMENT.
ALLOWED = frozenset(_load_builder().LABELS)
I2B2_ADDED = {"USERNAME", "ROOM", "DEPARTMENT"}
ANN_LINE = re.compile(r"^T(\d+)\t([A-Z]+) (\d+) (\d+)\t(.*)$")
IBAN_SHAPE = re.compile(r"^[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4})+$")
CARD_SHAPE = re.compile(r"^(?:\d{4}[ -]?){3}\d{4}$|^3[47]\d{2}[ -]?\d{6}[ -]?\d{5}$")


def _docs() -> list[str]:
    return sorted(p.stem for p in FOLDER.glob("*.txt"))


def _spans(stem: str) -> list[tuple[int, str, int, int, str]]:
    out = []
    for line in (FOLDER / f"{stem}.ann").read_text(encoding="utf-8").splitlines():
        m = ANN_LINE.match(line)
        assert m, f"{stem}.ann: not a brat text-bound line: {line!r}"
        out.append((int(m[1]), m[2], int(m[3]), int(m[4]), m[5]))
    return out


def iban_is_valid(iban: str) -> bool:
    """ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 == 1."""
    s = iban.replace(" ", "")
    s = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in s)) % 97 == 1


def luhn_is_valid(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def test_checksum_helpers_against_hand_examples() -> None:
    # ISO 13616's own example and a one-character change of it; a Luhn example and a changed one.
    assert iban_is_valid("GB82 WEST 1234 5698 7654 32")
    assert not iban_is_valid("GB82 WEST 1234 5698 7654 33")
    assert luhn_is_valid("4111 1111 1111 1111")
    assert not luhn_is_valid("4111 1111 1111 1112")


def test_folder_pairs_and_manifest() -> None:
    docs = _docs()
    assert len(docs) == 100
    assert sorted(p.stem for p in FOLDER.glob("*.ann")) == docs
    rows = (FOLDER / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == ["doc", "kind", "setting", "case"]
    manifest = {r.split("\t")[0]: r.split("\t")[1:] for r in rows[1:]}
    assert sorted(manifest) == docs
    assert all(len(v) == 3 and v[2] in {"mixed", "lower", "upper"} for v in manifest.values())
    clinical = {v[1] for k, v in manifest.items() if k.startswith("c")}
    assert len([d for d in docs if d.startswith("c")]) == 60
    assert len(clinical) >= 6


@pytest.mark.parametrize("stem", _docs())
def test_every_span_gives_back_its_text(stem: str) -> None:
    text = (FOLDER / f"{stem}.txt").read_text(encoding="utf-8")
    spans = _spans(stem)
    assert spans, f"{stem}: no gold spans"
    assert [n for n, *_ in spans] == list(range(1, len(spans) + 1))
    previous_end = 0
    for n, label, start, end, surface in spans:
        assert label in ALLOWED, f"{stem} T{n}: label {label} not in the documented set"
        assert 0 <= start < end <= len(text)
        assert text[start:end] == surface, f"{stem} T{n}: offsets do not give {surface!r}"
        assert surface == surface.strip(), f"{stem} T{n}: span padded with spaces"
        assert start >= previous_end, f"{stem} T{n}: spans overlap or are out of order"
        previous_end = end


def test_label_set_is_the_documented_one() -> None:
    assert len(ALLOWED) == 24 and I2B2_ADDED <= ALLOWED
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    in_table = {label for label in ALLOWED if re.search(rf"[|,] {label}[ ,]", readme)}
    assert in_table == ALLOWED


def test_brat_files_are_what_the_marked_up_sources_build() -> None:
    builder = _load_builder()
    sources = sorted(SRC.glob("[cp]*.txt"))
    assert [p.stem for p in sources] == _docs()
    for src in sources:
        text, spans = builder.convert(src.read_text(encoding="utf-8"), str(src))
        assert (FOLDER / src.name).read_text(encoding="utf-8") == text
        assert [(label, s, e, surf) for _, label, s, e, surf in _spans(src.stem)] == spans


def test_ibans_and_cards_carry_valid_checksums() -> None:
    ibans, cards = [], []
    for stem in _docs():
        for _, label, _, _, surface in _spans(stem):
            if label != "ACCOUNT":
                continue
            if IBAN_SHAPE.match(surface) and len(surface.replace(" ", "")) >= 15:
                ibans.append(surface)
            elif CARD_SHAPE.match(surface):
                cards.append(surface)
    assert len(ibans) >= 15 and len(cards) >= 8
    assert sum(i.startswith("GB") for i in ibans) >= 4
    assert len({i[:2] for i in ibans}) >= 8
    assert [i for i in ibans if not iban_is_valid(i)] == []
    assert [c for c in cards if not luhn_is_valid(c)] == []
