"""English PHI detection per profile: character recall and precision, notes that leak a direct
identifier, per label and per setting (case of the note; kind and country when the folder says).

    .venv/bin/python benchmarks/bench_text_profiles.py [MODEL] [FOLDER ...]

Folders default to tests/fixtures/en-dev (development), en-notes, en-test2 and en-test3 (held out:
measured only, never read to write rules or training text); absent ones are skipped. Gold and
predictions are both restricted to what the profile counts as PHI (``restrict_documents``), so a
profile is scored on the PHI it promises to hide; "model" is the model's own labels, nothing added.
A ``settings.tsv`` or ``MANIFEST.tsv`` in a folder (note id, then one column per setting: country,
kind, case …) adds a row per value of each setting.

A note leaks when a character of a direct identifier stays in sight (``shows``): a letter or digit,
or other punctuation except between two masked characters of the identifier (the annotations
write the comma between two masked address parts inside one STREET span or between two: in sight
it tells nothing either way). The second figure counts letters and digits only.
"""

from __future__ import annotations

import csv
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from hidekit.text.corpus import read_brat_dir
from hidekit.text.detection.casing import text_case
from hidekit.text.detection.detector import load_model
from hidekit.text.profiles import DIRECT_LABELS, PROFILES, gold_profile, restrict_documents

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = [ROOT / "tests" / "fixtures" / n for n in ("en-dev", "en-notes", "en-test2", "en-test3")]


def char_counts(g, p) -> tuple[Counter, Counter, Counter, Counter, bool]:
    """Per label: gold characters, gold characters found, predicted characters, predicted
    characters inside gold; and whether a direct identifier of the note leaks (a character of it
    left in sight: ``shows``)."""
    gl, pl = [None] * len(g.text), [None] * len(g.text)
    for s in g.spans:
        gl[s.start : s.end] = [s.label] * s.length
    for s in p.spans:
        pl[s.start : s.end] = [s.label] * s.length
    g_tot, g_hit, p_tot, p_hit = Counter(), Counter(), Counter(), Counter()
    for c, a, b in zip(g.text, gl, pl, strict=True):
        if c.isspace():
            continue
        if a:
            g_tot[a] += 1
            g_hit[a] += b is not None
        if b:
            p_tot[b] += 1
            p_hit[b] += a is not None
    covered = [b is not None for b in pl]
    leak = any(s.label in DIRECT_LABELS and shows(g.text, covered, s) for s in g.spans)
    return g_tot, g_hit, p_tot, p_hit, leak


def shows(text: str, covered: list[bool], s, content_only: bool = False) -> bool:
    """Whether the gold span ``s`` leaves a character in sight: a letter or digit, or (unless
    ``content_only``) another non-space character, except punctuation between two masked
    characters of the span (the comma of "Flat 2, 5th Cross" when both parts are masked, as
    one gold span or two: the annotations do both, and the comma tells nothing)."""
    for i in range(s.start, s.end):
        c = text[i]
        if covered[i] or c.isspace() or (content_only and not c.isalnum()):
            continue
        if c.isalnum():
            return True
        left = next((j for j in range(i - 1, s.start - 1, -1) if not text[j].isspace()), None)
        right = next((j for j in range(i + 1, s.end) if not text[j].isspace()), None)
        if left is None or right is None or not (covered[left] and covered[right]):
            return True
    return False


def leaking_spans(g, p, content_only: bool = False) -> list:
    """The gold direct identifiers of ``g`` with a character left in sight by ``p`` (``shows``):
    any non-space character but punctuation between two masked ones, or with ``content_only`` a
    letter or digit."""
    covered = [False] * len(g.text)
    for s in p.spans:
        covered[s.start : s.end] = [True] * s.length
    return [
        s for s in g.spans if s.label in DIRECT_LABELS and shows(g.text, covered, s, content_only)
    ]


def label_table(counts: list, gold_chars: bool = False) -> None:
    """Per label: character recall and precision (and the gold characters, if asked)."""
    g_tot, g_hit, p_tot, p_hit = Counter(), Counter(), Counter(), Counter()
    for a, b, c, d, _ in counts:
        g_tot, g_hit, p_tot, p_hit = g_tot + a, g_hit + b, p_tot + c, p_hit + d
    extra = ("gold chars | ", "---: | ") if gold_chars else ("", "")
    print(f"\n| label | {extra[0]}recall | precision |\n|---|{extra[1]}---:|---:|")
    for k in sorted(set(g_tot) | set(p_tot)):
        rec = f"{g_hit[k] / g_tot[k]:.3f}" if g_tot[k] else "—"
        pre = f"{p_hit[k] / p_tot[k]:.3f}" if p_tot[k] else "—"
        gold = f"{g_tot[k]} | " if gold_chars else ""
        print(f"| {k} | {gold}{rec} | {pre} |")


CASE_NAMES = {"lower": "lower case", "upper": "ALL CAPS", "mixed": "mixed case"}


def case_of(text: str) -> str:
    """The text's case as the detector judges it (``hidekit.text.detection.casing.text_case``)."""
    return CASE_NAMES[text_case(text)]


def settings(folder: Path) -> dict[str, dict[str, str]]:
    """Per note, its settings (country, kind, case …) from the folder's ``settings.tsv`` or
    ``MANIFEST.tsv`` (first column: the note id; the other columns: settings)."""
    for name in ("settings.tsv", "MANIFEST.tsv"):
        f = folder / name
        if f.exists():
            with f.open(encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh, delimiter="\t"))
            key = next(iter(rows[0])) if rows else "id"
            return {row[key]: {k: v for k, v in row.items() if k != key} for row in rows}
    return {}


def row(name: str, counts: list) -> str:
    g_tot, g_hit, p_tot, p_hit, leaks = Counter(), Counter(), Counter(), Counter(), 0
    for a, b, c, d, leak in counts:
        g_tot += a
        g_hit += b
        p_tot += c
        p_hit += d
        leaks += leak
    r = sum(g_hit.values()) / max(1, sum(g_tot.values()))
    p = sum(p_hit.values()) / max(1, sum(p_tot.values()))
    return f"| {name} | {len(counts)} | {r:.3f} | {p:.3f} | {leaks / max(1, len(counts)):.2f} |"


def measure(model: str, folder: Path) -> None:
    gold_all = read_brat_dir(folder)
    meta = settings(folder)
    follows = gold_profile(gold_all)
    annotated = ", ".join(k for k, v in follows["annotates"].items() if v) or "none of these"
    print(f"## {folder.name}: {len(gold_all)} notes, model {model}")
    print(f"gold follows: closest profile {follows['closest']}; annotates {annotated}\n")
    plain = load_model(model).detect_documents(gold_all, n_jobs=1)
    for prof in (None, *PROFILES):
        t = time.perf_counter()
        pred = load_model(model, profile=prof).detect_documents(gold_all, n_jobs=1)
        secs = time.perf_counter() - t
        gold = gold_all if prof is None else restrict_documents(gold_all, prof)
        pred = pred if prof is None else restrict_documents(pred, prof)
        counts = [char_counts(g, p) for g, p in zip(gold, pred, strict=True)]
        groups: dict[str, list] = defaultdict(list)
        for g, c in zip(gold, counts, strict=True):
            noted = meta.get(g.id, {})
            if not noted.get("case"):  # the folder's own case column, else the text's
                groups[f"case: {case_of(g.text)}"].append(c)
            for key, value in noted.items():
                if value:
                    groups[f"{key}: {value}"].append(c)
        chars = sum(len(d.text) for d in gold)
        print(f"### profile {prof or 'model (own labels)'} ({chars / secs:,.0f} chars/s)\n")
        print("| setting | notes | char recall | char precision | notes leaking a direct id |")
        print("|---|---:|---:|---:|---:|")
        print(row("all", counts))
        content = [bool(leaking_spans(g, p, True)) for g, p in zip(gold, pred, strict=True)]
        print(
            row(
                "all, a letter or digit leaking",
                [(*c[:4], x) for c, x in zip(counts, content, strict=True)],
            )
        )
        if prof is not None:  # the model's spans restricted, without the profile's additions
            bare = restrict_documents(plain, prof)
            print(
                row(
                    "all, model spans only",
                    [char_counts(g, p) for g, p in zip(gold, bare, strict=True)],
                )
            )
        for name in sorted(groups):
            print(row(name, groups[name]))
        label_table(counts)
        print()


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else "en"
    folders = [Path(a) for a in sys.argv[2:]] or FOLDERS
    for folder in folders:
        if folder.is_dir():
            measure(model, folder)
        else:
            print(f"skipped {folder.name}: absent\n")


if __name__ == "__main__":
    main()
