"""Throughput of PHI detection (characters per second) and span F1, beside a tokenizer baseline.

    .venv/bin/python benchmarks/bench_text_detect.py

MEDDOCAN dev is read from ../shared/data/meddocan (skipped with a message when absent). The shipped
es model was trained on train + dev, so its dev F1 here is NOT held-out; the held-out figure (model
trained on train only, scored on dev) comes from ``scripts/train_models.py es --measure``.
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

from hidekit.evaluation.span_metrics import evaluate_spans
from hidekit.text.detector import load_model
from hidekit.text.synth import generate_notes
from hidekit.text.tokenize import tokenize

MEDDOCAN_DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "meddocan" / "dev"


def _rate(fn, docs) -> tuple[float, list]:
    t = time.perf_counter()
    out = fn(docs)
    return sum(len(d.text) for d in docs) / (time.perf_counter() - t), out


def bench(name: str, model: str, docs) -> None:
    det = load_model(model)
    base, _ = _rate(lambda ds: [tokenize(d.text) for d in ds], docs)
    one, pred = _rate(lambda ds: det.detect_documents(ds, n_jobs=1), docs)
    tracemalloc.start()  # separate run: tracing slows Python code several-fold
    det.detect_documents(docs[:50], n_jobs=1)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    two, _ = _rate(lambda ds: det.detect_documents(ds, n_jobs=2), docs)
    r = evaluate_spans(docs, pred)
    chars = sum(len(d.text) for d in docs)
    print(f"## {name}: {len(docs)} docs, {chars:,} characters, model {model}")
    print("| measure | value |\n|---|---|")
    print(f"| tokenizer only (baseline), chars/s | {base:,.0f} |")
    print(f"| detect, 1 process, chars/s | {one:,.0f} ({one / base:.3f} × baseline) |")
    print(f"| detect, 2 processes, chars/s | {two:,.0f} ({two / one:.2f} × 1 process) |")
    print(f"| peak traced memory, 1 process, 50 docs | {peak:.1f} MiB |")
    for level in ("strict", "relaxed"):
        m = r[level]["micro"]
        print(f"| {level} P / R / F1 | {m['precision']:.4f} / {m['recall']:.4f} / {m['f1']:.4f} |")
    print()


def main() -> None:
    if MEDDOCAN_DEV.is_dir():
        from hidekit.text.corpus import read_brat_dir

        bench(
            "MEDDOCAN dev (in the es model's training data: F1 not held-out)",
            "es",
            read_brat_dir(MEDDOCAN_DEV),
        )
    else:
        print(f"skipped MEDDOCAN: {MEDDOCAN_DEV} is absent (it is not part of a fresh clone)\n")
    bench(
        "synthetic English notes, seed 7 (not the training seed)", "en", generate_notes(300, seed=7)
    )


if __name__ == "__main__":
    main()
