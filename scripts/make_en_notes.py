"""Build a brat folder from marked-up notes: tests/fixtures/en-notes/ from tests/fixtures/en-notes-src/.

Each source note is plain text in which every PHI span is written inline as ``[[LABEL:surface]]``.
The markup is stripped, offsets are computed on the stripped text (Python str characters) and
``noteNN.txt`` + ``noteNN.ann`` are written. Run from the repository root:

    .venv/bin/python scripts/make_en_notes.py
    .venv/bin/python scripts/make_en_notes.py --src tests/fixtures/en-dev-src \
        --out tests/fixtures/en-dev --glob "dev*.txt"     # the marked-up development notes
    .venv/bin/python scripts/make_en_notes.py --src tests/fixtures/en-test3-src \
        --out tests/fixtures/en-test3 --glob "[cp]*.txt"  # third held-out set (measure-only)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tests" / "fixtures" / "en-notes-src"
OUT = ROOT / "tests" / "fixtures" / "en-notes"

LABELS = {
    "NAME",
    "DOCTOR",
    "DATE",
    "AGE",
    "PHONE",
    "FAX",
    "EMAIL",
    "URL",
    "IP",
    "SSN",
    "MRN",
    "ACCOUNT",
    "ID",
    "STREET",
    "CITY",
    "STATE",
    "ZIP",
    "COUNTRY",
    "HOSPITAL",
    "ORGANIZATION",
    "PROFESSION",
    # i2b2-2014 types used by en-test3 (see tests/fixtures/en-test3-src/README.md)
    "USERNAME",
    "ROOM",
    "DEPARTMENT",
}
MARK = re.compile(r"\[\[([A-Z]+):(.*?)\]\]", re.S)


def convert(marked: str, where: str) -> tuple[str, list[tuple[str, int, int, str]]]:
    out: list[str] = []
    spans = []
    pos = 0
    length = 0
    for m in MARK.finditer(marked):
        label, surface = m.group(1), m.group(2)
        if label not in LABELS:
            raise SystemExit(f"{where}: unknown label {label!r}")
        if not surface or surface != surface.strip():
            raise SystemExit(f"{where}: empty or padded span {surface!r}")
        chunk = marked[pos : m.start()]
        out.append(chunk)
        length += len(chunk)
        spans.append((label, length, length + len(surface), surface))
        out.append(surface)
        length += len(surface)
        pos = m.end()
    out.append(marked[pos:])
    text = "".join(out)
    if "[[" in text or "]]" in text:
        raise SystemExit(f"{where}: unbalanced markup left in the text")
    for label, s, e, surface in spans:
        assert text[s:e] == surface, (where, label, s, e)
    return text, spans


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=SRC, help="folder of marked-up notes")
    ap.add_argument("--out", type=Path, default=OUT, help="brat folder to write")
    ap.add_argument("--glob", default="note*.txt", help="which source files")
    args = ap.parse_args()
    sources = sorted(args.src.glob(args.glob))
    if not sources:
        raise SystemExit(f"no sources matching {args.glob} in {args.src}")
    out_dir = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    for src in sources:
        marked = src.read_text(encoding="utf-8")
        text, spans = convert(marked, str(src))
        lines = [
            f"T{i}\t{label} {s} {e}\t{surface.replace(chr(10), ' ')}"
            for i, (label, s, e, surface) in enumerate(spans, 1)
        ]
        (out_dir / src.name).write_text(text, encoding="utf-8", newline="")
        (out_dir / src.with_suffix(".ann").name).write_text(
            "\n".join(lines) + ("\n" if lines else ""), encoding="utf-8", newline=""
        )
        counts.update(label for label, *_ in spans)
        print(f"{src.stem}: {len(text.split())} words, {len(spans)} spans")
    print(f"{len(sources)} notes, {sum(counts.values())} spans")
    for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {label:13s} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
