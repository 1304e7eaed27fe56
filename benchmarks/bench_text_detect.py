"""Throughput of PHI detection (characters per second) and span F1, beside a tokenizer baseline.

    .venv/bin/python benchmarks/bench_text_detect.py [EN_MODEL]   # en (default) or a model path

MEDDOCAN dev is read from ../shared/data/meddocan (skipped with a message when absent). The shipped
es model was trained on train + dev, so its dev F1 here is NOT held-out; the held-out figure (model
trained on train only, scored on dev) comes from ``scripts/train_models.py es --measure``.
English notes written by others (tests/fixtures/en-notes, en-test2 and en-test3, brat; never used
for training or tuning) are scored at character level, label-blind and per label, when present.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

from bench_text_profiles import char_counts
from hidekit.text.detection.detector import load_model
from hidekit.text.detection.tokenize import tokenize
from hidekit.text.span_metrics import evaluate_spans
from hidekit.text.synthesis import generate_notes

ROOT = Path(__file__).resolve().parents[1]
MEDDOCAN_DEV = ROOT.parent / "shared" / "data" / "meddocan" / "dev"
EN_NOTES = ROOT / "tests" / "fixtures" / "en-notes"
EN_TEST2 = ROOT / "tests" / "fixtures" / "en-test2"  # written after the en model was frozen
# 60 notes from ten settings + 40 general-PII texts; i2b2 gold (its README gives the hipaa view)
EN_TEST3 = ROOT / "tests" / "fixtures" / "en-test3"


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


def char_level(gold, pred) -> tuple[float, float, dict[str, float], dict[str, float]]:
    """Label-blind character recall and precision (spaces not counted), recall per gold label
    (share of its characters under any prediction) and precision per predicted label."""
    g_tot, g_hit, p_tot, p_hit = Counter(), Counter(), Counter(), Counter()
    for g, p in zip(gold, pred, strict=True):
        a, b, c, d, _ = char_counts(g, p)
        g_tot, g_hit, p_tot, p_hit = g_tot + a, g_hit + b, p_tot + c, p_hit + d
    tp, fp = sum(g_hit.values()), sum(p_tot.values()) - sum(p_hit.values())
    per_gold = {k: g_hit[k] / g_tot[k] for k in sorted(g_tot)}
    per_pred = {k: p_hit[k] / p_tot[k] for k in sorted(p_tot)}
    return tp / sum(g_tot.values()), tp / (tp + fp) if tp + fp else 0.0, per_gold, per_pred


def bench_en_notes(model: str = "en", folder: Path = EN_NOTES) -> None:
    from hidekit.text.corpus import read_brat_dir

    gold = read_brat_dir(folder)
    det = load_model(model)
    rate, pred = _rate(lambda ds: det.detect_documents(ds, n_jobs=1), gold)
    rec, prec, per_gold, per_pred = char_level(gold, pred)
    r = evaluate_spans(gold, pred)
    chars = sum(len(d.text) for d in gold)
    print(
        f"## English notes written by others ({folder.name}): {len(gold)} docs, {chars:,} characters,"
        f" model {model}"
    )
    print("| measure | value |\n|---|---|")
    print(f"| character-level PHI recall / precision (label-blind) | {rec:.4f} / {prec:.4f} |")
    for level in ("strict", "relaxed"):
        m = r[level]["micro"]
        print(f"| {level} P / R / F1 | {m['precision']:.4f} / {m['recall']:.4f} / {m['f1']:.4f} |")
    print(f"| detect, 1 process, chars/s | {rate:,.0f} |\n")
    print("| label | gold chars found (recall) | predicted chars in gold PHI (precision) |")
    print("|---|---:|---:|")
    for k in sorted(set(per_gold) | set(per_pred)):
        a = f"{per_gold[k]:.3f}" if k in per_gold else "—"
        b = f"{per_pred[k]:.3f}" if k in per_pred else "—"
        print(f"| {k} | {a} | {b} |")
    print()


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else "en"
    for folder in (EN_NOTES, EN_TEST2, EN_TEST3):
        if folder.is_dir():
            bench_en_notes(model, folder)
        else:
            print(f"skipped English notes: {folder} is absent\n")
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
        "synthetic English notes, seed 7 (not the training seed)",
        model,
        generate_notes(300, seed=7),
    )


if __name__ == "__main__":
    main()
