"""Reproduce the shipped PHI models exactly: ``python scripts/train_models.py [es] [en] [--measure]``.

- es: CRF trained on MEDDOCAN train + dev (../shared/data/meddocan, CC BY 4.0), corpus labels.
- en: CRF trained on 1,500 synthetic English clinical notes from ``hidekit.text.synth`` (seed 2024).

Training is deterministic (crfsuite L-BFGS; seeded generator), so the same hidekit and Faker
versions give byte-identical model files. ``--measure`` also prints held-out figures: es trained on
train only and scored on dev; en trained as shipped and scored on 300 notes of another seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from hidekit.evaluation.span_metrics import evaluate_spans
from hidekit.text.corpus import read_brat_dir
from hidekit.text.detector import shipped_model_path
from hidekit.text.training import train_model

ROOT = Path(__file__).resolve().parents[1]
MEDDOCAN = ROOT.parent / "shared" / "data" / "meddocan"
PARAMS = {
    "es": {"c1": 0.05, "c2": 0.01, "max_iterations": 150},
    "en": {"c1": 0.1, "c2": 0.01, "max_iterations": 100},
}
EN_NOTES, EN_SEED, EN_TEST_SEED = 1500, 2024, 7


def _figures(gold, pred) -> dict:
    r = evaluate_spans(gold, pred)
    return {
        "strict": r["strict"]["micro"],
        "relaxed": r["relaxed"]["micro"],
        "token_phi": r["token"]["phi"],
        "strict_per_type": r["strict"]["per_type"],
    }


def train_es(measure: bool) -> dict:
    if not (MEDDOCAN / "train").is_dir():
        sys.exit(f"MEDDOCAN not found at {MEDDOCAN}: the Spanish model needs it")
    train, dev = read_brat_dir(MEDDOCAN / "train"), read_brat_dir(MEDDOCAN / "dev")
    info = {}
    if measure:
        t = time.perf_counter()
        det = train_model(train, "es", **PARAMS["es"])
        info["train_seconds_train_only"] = round(time.perf_counter() - t, 1)
        info["dev"] = _figures(dev, [det.detect_document(d) for d in dev])
    source = {"data": "MEDDOCAN train + dev (PlanTL-GOB-ES SPACCC_MEDDOCAN, CC BY 4.0)"}
    det = train_model(train + dev, "es", info=source, **PARAMS["es"])
    path = det.save(shipped_model_path("es"))
    info.update(model=str(path), bytes=path.stat().st_size, direct=det.config["direct"])
    return info


def train_en(measure: bool) -> dict:
    from hidekit.text.synth import generate_notes

    docs = generate_notes(EN_NOTES, seed=EN_SEED)
    source = {"data": f"hidekit.text.synth.generate_notes({EN_NOTES}, seed={EN_SEED})"}
    det = train_model(docs, "en", info=source, **PARAMS["en"])
    path = det.save(shipped_model_path("en"))
    info = {"model": str(path), "bytes": path.stat().st_size, "direct": det.config["direct"]}
    if measure:
        test = generate_notes(300, seed=EN_TEST_SEED)
        info["synthetic_other_seed"] = _figures(test, [det.detect_document(d) for d in test])
    return info


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=["es", "en"], choices=["es", "en"])
    ap.add_argument("--measure", action="store_true", help="also print held-out figures")
    args = ap.parse_args(argv)
    for name in args.models:
        t = time.perf_counter()
        info = (train_es if name == "es" else train_en)(args.measure)
        info["seconds"] = round(time.perf_counter() - t, 1)
        print(json.dumps({name: info}, indent=1, default=str))


if __name__ == "__main__":
    main()
