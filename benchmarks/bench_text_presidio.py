"""hidekit's PHI detector beside Microsoft Presidio on the same synthetic English notes, one run.

Presidio runs in the configuration that works offline: presidio-analyzer's predefined
recognizers over a blank spaCy pipeline (``spacy.blank("en")``, no model download, so its spaCy
NER recognizer finds nothing and the pattern recognizers do the work). tldextract is pointed at
its bundled suffix list so nothing is fetched. Reported for both: characters per second (best of
``--repeat`` after a warm-up, one core; hidekit also with two worker processes), character-level
PHI recall and precision (label-blind: a gold PHI character is found when any prediction covers
it) and entity-level recall (a gold span is found when any prediction overlaps it).

    .venv/bin/python benchmarks/bench_text_presidio.py [--n 200] [--seed 99001] [--model en|PATH]
        [--stages]

``--stages`` adds where hidekit's CPU goes, one process, best of ``--repeat`` each: the
recognizers alone, the recognizers and the CRF (features, Viterbi, marginals, its spans), the
whole detection (the rest: overlap policy, boundary repairs, leak-closing rules), beside the CPU
that 5× Presidio's characters per second would allow.

The test notes use a seed the shipped model was not trained on. If the shipped English model is
missing, one is trained in-process on other synthetic notes, and the output says so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hidekit.text.spans import Document, Span  # noqa: E402
from hidekit.text.synthesis import generate_notes  # noqa: E402

from _common import best_cpu, best_of  # noqa: E402


def presidio_analyzer():
    try:
        import spacy
        import tldextract
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.nlp_engine import SpacyNlpEngine
    except ImportError as exc:
        print(
            f"SKIP: presidio-analyzer and spacy are needed ({exc}); pip install presidio-analyzer spacy"
        )
        return None
    # The e-mail recognizer validates with tldextract, which would download the suffix list.
    tldextract.extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    class BlankSpacyEngine(SpacyNlpEngine):
        """spaCy without a trained pipeline: tokenization only, nothing downloaded."""

        def load(self) -> None:
            self.nlp = {"en": spacy.blank("en")}

    engine = BlankSpacyEngine(models=[{"lang_code": "en", "model_name": "blank"}])
    engine.load()
    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(nlp_engine=engine, languages=["en"])
    return AnalyzerEngine(nlp_engine=engine, registry=registry, supported_languages=["en"])


def hidekit_detector(name: str):
    from hidekit.errors import HidekitError
    from hidekit.text.detection.detector import load_model

    try:
        return load_model(name), f"model {name!r}"
    except HidekitError as exc:
        from hidekit.text.detection.training import train_model

        print(f"note: {exc}; training a model in-process on 300 synthetic notes (seed 1)")
        t0 = time.perf_counter()
        det = train_model(generate_notes(300, seed=1), "en")
        return det, f"model trained in-process ({time.perf_counter() - t0:.0f} s)"


def char_scores(gold: list[Document], pred: list[list[Span]]) -> tuple[float, float]:
    tp = fn = fp = 0
    for d, spans in zip(gold, pred, strict=True):
        g = np.zeros(len(d.text), bool)
        p = np.zeros(len(d.text), bool)
        for s in d.spans:
            g[s.start : s.end] = True
        for s in spans:
            p[s.start : s.end] = True
        ws = np.array([not c.isspace() for c in d.text])  # spaces inside a span do not count
        tp += int((g & p & ws).sum())
        fn += int((g & ~p & ws).sum())
        fp += int((~g & p & ws).sum())
    return tp / (tp + fn), tp / (tp + fp) if tp + fp else 0.0


def entity_recall(gold: list[Document], pred: list[list[Span]]) -> tuple[float, dict[str, float]]:
    found, total = Counter(), Counter()
    for d, spans in zip(gold, pred, strict=True):
        for s in d.spans:
            total[s.label] += 1
            if any(q.start < s.end and s.start < q.end for q in spans):
                found[s.label] += 1
    overall = sum(found.values()) / sum(total.values())
    return overall, {k: found[k] / total[k] for k in sorted(total)}


def stage_cpu(det, texts: list[str], repeat: int) -> list[tuple[str, float]]:
    """CPU seconds (best of ``repeat`` after a warm-up) of the detection's cumulative stages on
    ``texts``, one process: the recognizers, then the CRF too, then everything ``detect`` does."""

    def recognizers():
        for t in texts:
            det._runner.run(t)

    def with_crf():
        for t in texts:
            det._crf_spans(t, det._hits(t)[0])

    def whole():
        for t in texts:
            det.detect(t)

    return [
        (name, best_cpu(fn, repeat, warmup=1))
        for name, fn in (
            ("recognizers", recognizers),
            ("recognizers + CRF", with_crf),
            ("whole detection", whole),
        )
    ]


def print_stages(stages: list[tuple[str, float]], c_pres: float, chars: int) -> None:
    print("\nhidekit's CPU by cumulative stage, one process:\n")
    print("| stage | CPU s | this stage alone | share |")
    print("|---|---:|---:|---:|")
    total, prev = stages[-1][1], 0.0
    for name, secs in stages:
        alone = secs - prev
        print(f"| {name} | {secs:.3f} | {alone:.3f} | {alone / total:.0%} |")
        prev = secs
    print(
        f"\n5× Presidio ({c_pres:.2f} CPU s, {chars / c_pres:,.0f} chars/s) allows "
        f"{c_pres / 5:.3f} CPU s for the whole detection ({total / (c_pres / 5):.1f}× that now)"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=99001)
    ap.add_argument("--model", default="en")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--stages", action="store_true", help="hidekit's CPU by stage (see above)")
    args = ap.parse_args(argv)

    analyzer = presidio_analyzer()
    if analyzer is None:
        return
    docs = generate_notes(args.n, seed=args.seed)
    chars = sum(len(d.text) for d in docs)
    print(
        f"{len(docs)} synthetic notes (seed {args.seed}), {chars:,} characters, "
        f"{sum(len(d.spans) for d in docs):,} PHI spans"
    )
    det, how = hidekit_detector(args.model)
    bare = [Document(d.id, d.text, [], d.patient) for d in docs]

    def run_presidio():
        return [
            [Span(r.start, r.end, r.entity_type) for r in analyzer.analyze(d.text, language="en")]
            for d in docs
        ]

    def run_hidekit(n_jobs):
        return lambda: [d.spans for d in det.detect_documents(bare, n_jobs=n_jobs)]

    t_pres, pred_pres = best_of(run_presidio, repeat=args.repeat)
    t_hk1, pred_hk = best_of(run_hidekit(1), repeat=args.repeat)
    t_hk2, _ = best_of(run_hidekit(2), repeat=args.repeat)
    # CPU time of this process (one-process runs only): less sensitive to a busy machine than wall
    c_pres, c_hk1 = (
        best_cpu(run_presidio, args.repeat, warmup=1),
        best_cpu(run_hidekit(1), args.repeat, warmup=1),
    )

    rows = []
    for name, secs, pred in (
        ("Presidio (patterns, blank spaCy)", t_pres, pred_pres),
        ("hidekit, 1 process", t_hk1, pred_hk),
        ("hidekit, 2 processes", t_hk2, pred_hk),
    ):
        cr, cp = char_scores(docs, pred)
        er, per_type = entity_recall(docs, pred)
        rows.append((name, secs, chars / secs, cr, cp, er, per_type))
    base = rows[0][2]
    print(f"hidekit: {how}\n")
    print(
        "| detector | seconds | chars/s | vs Presidio | char recall | char precision | entity recall |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, secs, cps, cr, cp, er, _ in rows:
        print(
            f"| {name} | {secs:.2f} | {cps:,.0f} | {cps / base:.1f}× | {cr:.3f} | {cp:.3f} | {er:.3f} |"
        )
    print(
        f"\nCPU time, one process (best of {args.repeat}): Presidio {c_pres:.2f} s "
        f"({chars / c_pres:,.0f} chars/s), hidekit {c_hk1:.2f} s ({chars / c_hk1:,.0f} chars/s): "
        f"{c_pres / c_hk1:.1f}×; load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    if args.stages:
        print_stages(stage_cpu(det, [d.text for d in docs], args.repeat), c_pres, chars)
    print("\nEntity recall per gold type (any overlap):\n")
    print("| type | Presidio | hidekit |")
    print("|---|---:|---:|")
    for label in rows[0][6]:
        print(f"| {label} | {rows[0][6][label]:.3f} | {rows[1][6][label]:.3f} |")


if __name__ == "__main__":
    main()
