"""Records and notes together (HIDE): end-to-end link on 2,000 persons × 3 notes, beside the
text tool alone on the same notes (baseline), and HIDE's Figure 3 on the demo corpus.

Run: .venv/bin/python benchmarks/bench_link.py   (synthetic data only: nothing to skip)
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from hidekit.demo.survey import generate_survey
from hidekit.linking import hide_figure3, link, release
from hidekit.linking.pipeline import save_release
from hidekit.text.anonymization.operators import anonymize_documents
from hidekit.text.detection.detector import load_model
from hidekit.text.synthesis import generate_patient_notes

from _common import row


def main(persons: int = 2000, per: int = 3) -> None:
    frame = generate_survey(persons, seed=7)
    t0 = time.perf_counter()
    docs = generate_patient_notes(frame, per, seed=7)
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = load_model("en").detect_documents(docs, n_jobs=2)
    t_detect = time.perf_counter() - t0
    t0 = time.perf_counter()
    anonymize_documents(found, "tag")
    t_text = time.perf_counter() - t0  # baseline: the text tool alone, note by note
    t0 = time.perf_counter()
    linked = link(frame, found, "record_id")
    t_link = time.perf_counter() - t0
    t0 = time.perf_counter()
    rel = release(linked, ["sex", "age", "zip"], 5, l=2, sensitive="diagnosis", seed=7)
    t_rel = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        save_release(Path(tmp) / "out", linked, rel)
        t_save = time.perf_counter() - t0
    print(f"{persons:,} persons x {per} notes ({len(docs):,} notes); ratios: text tool / step")
    print(row("generate notes (not part of link)", t_gen))
    print(row("detect PHI (en model, 2 jobs)", t_detect))
    print(row("baseline: text anonymize (tag), no view", t_text, t_text))
    print(row("link into the identifier view", t_link, t_text))
    print(row("Mondrian k=5 l=2 + write-back", t_rel, t_text))
    print(row("save release folder", t_save, t_text))
    total = t_detect + t_link + t_rel + t_save
    print(row("end to end (detect + link + release + save)", total))
    print(f"  k achieved {rel.stats['k']}, classes {rel.stats['classes']}, actions {rel.actions}")

    t0 = time.perf_counter()
    curve = hide_figure3(linked, "age", ks=(2, 5, 10, 20, 50), n_queries=10_000, seed=7)
    print(row("HIDE Figure 3 (5 k, 10,000 queries)", time.perf_counter() - t0))
    print("\n| k | partial | statistical | full |\n|---|---|---|---|")
    for r in curve["rows"]:
        print(f"| {r['k']} | {r['partial']:.3f} | {r['statistical']:.3f} | {r['full']:.3f} |")


if __name__ == "__main__":
    main()
