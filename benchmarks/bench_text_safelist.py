"""What the clinical safe-list keeps, measured on the English fixtures (a quality figure, not a
timing): spans it leaves as written among the gold spans (each one would be a leak) and among
the shipped en model's detections (false positives it saves from being replaced, and true PHI it
would let through). The baseline is the same corpus without the safe-list (0 kept).

    .venv/bin/python benchmarks/bench_text_safelist.py
"""

from __future__ import annotations

from collections import Counter

from hidekit.text.anonymization.operators import anonymize_documents
from hidekit.text.corpus import read_brat_dir
from hidekit.text.detection.detector import load_model
from hidekit.text.synthesis import generate_notes

from _common import ROOT


def _kept(docs):
    return anonymize_documents(docs, "tag").kept


def _covers_gold(k, gold_doc) -> bool:
    return any(s.start < k.end and k.start < s.end for s in gold_doc.spans)


def main() -> None:
    det = load_model("en")
    corpora = {
        "synthetic (generate_notes(300, seed=2024))": generate_notes(300, seed=2024),
        "en-dev (70 notes)": read_brat_dir(ROOT / "tests/fixtures/en-dev"),
        "en-notes (40, held out: measured only)": read_brat_dir(ROOT / "tests/fixtures/en-notes"),
        "en-test2 (40, held out: measured only)": read_brat_dir(ROOT / "tests/fixtures/en-test2"),
    }
    print("corpus | gold spans | gold kept (leaks) | detected | detected kept | of which PHI")
    for name, gold in corpora.items():
        gold_kept = _kept(gold)
        found = det.detect_documents(gold, n_jobs=1)
        kept = _kept(found)
        by_id = {d.id: d for d in gold}
        leaks = [k for k in kept if _covers_gold(k, by_id[k.doc])]
        reasons = Counter(k.reason for k in kept)
        print(
            f"{name} | {sum(len(d.spans) for d in gold):,} | {len(gold_kept)} | "
            f"{sum(len(d.spans) for d in found):,} | {len(kept)} ({dict(reasons)}) | "
            f"{len(leaks)}"
        )
        for k in gold_kept + leaks:
            text = by_id[k.doc].text
            print(f"    {k.doc} {k.label} {text[k.start : k.end]!r} ({k.reason})")


if __name__ == "__main__":
    main()
