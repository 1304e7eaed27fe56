"""Training the CRF: BIO tags from gold spans, crfsuite training, k-fold cross-validation.

HIDE (Gardner & Xiong, 2.3 and 3) trains a CRF on tagged reports and reports 10-fold
cross-validation per label (Table 2). We do the same: ``train_model`` builds a ``Detector`` from
annotated documents, ``cross_validate`` reports strict/relaxed/token figures per type, HIDE's
per-BIO-tag table and the overall token accuracy. Training is deterministic: crfsuite's L-BFGS
has no randomness, and folds come from a seeded shuffle.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import pycrfsuite

from hidekit.errors import InputError, OptionError
from hidekit.evaluation.span_metrics import PRF, evaluate_spans
from hidekit.text.detector import FEATURE_VERSION, MODEL_FORMAT, Detector
from hidekit.text.features import document_features, sequences
from hidekit.text.recognizers import get_recognizers
from hidekit.text.spans import Document, Span
from hidekit.text.tokenize import Token

DEFAULTS = {"c1": 0.05, "c2": 0.01, "max_iterations": 200, "min_freq": 1}
DIRECT_PRECISION = 0.9  # a recognizer reports on its own when this share of its hits is one label
DIRECT_MIN_HITS = 5


def bio_tags(tokens: Sequence[Token], spans: Sequence[Span]) -> list[str]:
    """B-/I-LABEL for tokens overlapping a span, O elsewhere; on overlapping gold, longer span wins."""
    tags = ["O"] * len(tokens)
    taken = [False] * len(tokens)
    j0 = 0
    for s in sorted(spans, key=lambda x: (-x.length, x.start)):
        first = True
        idx = [
            i for i in range(j0, len(tokens)) if tokens[i].start < s.end and tokens[i].end > s.start
        ]
        if any(taken[i] for i in idx):
            continue
        for i in idx:
            tags[i] = ("B-" if first else "I-") + s.label
            taken[i] = True
            first = False
    return tags


@dataclass
class Prepared:
    """One document turned into CRF sequences (features and tags) plus its recognizer hits."""

    doc: Document
    xseqs: list[list[list[str]]]
    yseqs: list[list[str]]
    hits: list[Span]


def prepare(doc: Document, recognizers) -> Prepared:
    tokens, feats, hits = document_features(doc.text, recognizers)
    tags = bio_tags(tokens, doc.spans)
    xs, ys = [], []
    for seq in sequences(doc.text, tokens):
        xs.append([feats[i] for i in seq])
        ys.append([tags[i] for i in seq])
    return Prepared(doc, xs, ys, hits)


def learn_direct(prepared: Sequence[Prepared]) -> dict[str, str]:
    """Recognizers whose exact hits are one gold label ≥ 90% of the time, mapped to that label."""
    stats: dict[str, Counter] = defaultdict(Counter)
    for p in prepared:
        gold = {(s.start, s.end): s.label for s in p.doc.spans}
        for h in p.hits:
            stats[h.source][gold.get((h.start, h.end))] += 1
    direct = {}
    for source, c in sorted(stats.items()):
        label, n = max(
            ((k, v) for k, v in c.items() if k is not None), key=lambda kv: kv[1], default=(None, 0)
        )
        if label is not None and n >= DIRECT_MIN_HITS and n / sum(c.values()) >= DIRECT_PRECISION:
            direct[source] = label
    return direct


def _check_docs(docs: Sequence[Document]) -> None:
    if not docs:
        raise InputError("no training documents")
    if not any(d.spans for d in docs):
        raise InputError("the training documents hold no annotated spans")


def _fit(
    prepared: Sequence[Prepared],
    language: str,
    names: list[str],
    params: dict,
    extra: dict | None = None,
) -> Detector:
    trainer = pycrfsuite.Trainer(verbose=False)
    for p in prepared:
        for x, y in zip(p.xseqs, p.yseqs, strict=True):
            trainer.append(x, y)
    trainer.set_params(
        {
            "c1": params["c1"],
            "c2": params["c2"],
            "max_iterations": params["max_iterations"],
            "feature.minfreq": params["min_freq"],
            "feature.possible_transitions": True,
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer.train(path)
        with open(path, "rb") as fh:
            crf = fh.read()
    labels = sorted({s.label for p in prepared for s in p.doc.spans})
    config = {
        "format": MODEL_FORMAT,
        "feature_version": FEATURE_VERSION,
        "language": language,
        "labels": labels,
        "recognizers": names,
        "direct": learn_direct(prepared),
        "training": {
            "documents": len(prepared),
            "spans": sum(len(p.doc.spans) for p in prepared),
            **params,
            **(extra or {}),
        },
    }
    return Detector(crf, config)


def _params(overrides: dict) -> dict:
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise OptionError(f"unknown training parameter(s): {', '.join(sorted(unknown))}")
    params = {**DEFAULTS, **{k: v for k, v in overrides.items() if v is not None}}
    if params["max_iterations"] < 1 or params["c1"] < 0 or params["c2"] < 0:
        raise OptionError("max_iterations must be ≥ 1 and c1, c2 ≥ 0")
    return params


def train_model(
    docs: Sequence[Document],
    language: str | None = None,
    *,
    recognizers=None,
    progress: Callable | None = None,
    info: dict | None = None,
    **overrides,
) -> Detector:
    """Train a Detector on annotated documents (``language`` picks the recognizers: en, es or None)."""
    _check_docs(docs)
    recs = get_recognizers(language, recognizers)
    advance = progress or (lambda n=1, **_: None)
    prepared = []
    for d in docs:
        prepared.append(prepare(d, recs))
        advance(1)
    return _fit(prepared, language, [r.name for r in recs], _params(overrides), info)


@dataclass
class CrossValidation:
    """Pooled predictions of k folds, with all figures."""

    folds: int
    scores: dict  # evaluate_spans result (strict, relaxed, token; per type, micro, macro)
    bio: dict[str, PRF] = field(default_factory=dict)  # HIDE Table 2: per B-/I- tag
    accuracy: float = 0.0
    correct_tokens: int = 0
    tokens: int = 0
    predictions: list[Document] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        return {
            "folds": self.folds,
            **self.scores,
            "bio": {k: v.to_dict() for k, v in sorted(self.bio.items())},
            "token_accuracy": {
                "accuracy": self.accuracy,
                "correct": self.correct_tokens,
                "tokens": self.tokens,
            },
        }


def fold_indices(n: int, folds: int, seed: int = 0) -> list[list[int]]:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[k::folds]) for k in range(folds)]


def _run_fold(args):
    prepared, test_idx, language, names, params = args
    test = set(test_idx)
    det = _fit([p for i, p in enumerate(prepared) if i not in test], language, names, params)
    out = []
    for i in test_idx:
        p = prepared[i]
        tags = [det._tagger.tag(x) for x in p.xseqs]
        out.append((i, det.detect(p.doc.text), tags))
    return out


def cross_validate(
    docs: Sequence[Document],
    language: str | None = None,
    folds: int = 10,
    seed: int = 0,
    *,
    recognizers=None,
    n_jobs: int = 1,
    progress: Callable | None = None,
    **overrides,
) -> CrossValidation:
    """k-fold cross-validation as in HIDE section 3: train on k-1 folds, predict the held-out one."""
    _check_docs(docs)
    if folds < 2 or folds > len(docs):
        raise OptionError(
            f"--folds must be between 2 and the number of documents ({len(docs)}), got {folds}"
        )
    params = _params(overrides)
    recs = get_recognizers(language, recognizers)
    names = [r.name for r in recs]
    prepared = [prepare(d, recs) for d in docs]
    advance = progress or (lambda n=1, **_: None)
    jobs = [
        (prepared, idx, language, names, params) for idx in fold_indices(len(docs), folds, seed)
    ]
    preds: dict[int, tuple] = {}
    if n_jobs > 1:
        with ProcessPoolExecutor(max_workers=n_jobs) as ex:
            for res in ex.map(_run_fold, jobs):
                preds.update({i: (s, t) for i, s, t in res})
                advance(1)
    else:
        for job in jobs:
            preds.update({i: (s, t) for i, s, t in _run_fold(job)})
            advance(1)
    predictions = [docs[i].with_spans(preds[i][0]) for i in range(len(docs))]
    bio: dict[str, PRF] = defaultdict(PRF)
    correct = total = 0
    for i, p in enumerate(prepared):
        for gold_seq, pred_seq in zip(p.yseqs, preds[i][1], strict=True):
            for g, q in zip(gold_seq, pred_seq, strict=True):
                total += 1
                correct += g == q
                if g == q and g != "O":
                    bio[g].tp += 1
                else:
                    if g != "O":
                        bio[g].fn += 1
                    if q != "O":
                        bio[q].fp += 1
    return CrossValidation(
        folds,
        evaluate_spans(docs, predictions),
        dict(bio),
        correct / total if total else 0.0,
        correct,
        total,
        predictions,
    )
