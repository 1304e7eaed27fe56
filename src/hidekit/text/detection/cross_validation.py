"""k-fold cross-validation of the CRF, as in HIDE (Gardner & Xiong, section 3 and Table 2): train
on k-1 folds, predict the held-out one; strict/relaxed/token figures per type, the per-BIO-tag
table and the overall token accuracy. Folds come from a seeded shuffle."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from hidekit.errors import OptionError
from hidekit.text.detection.recognizers import get_recognizers
from hidekit.text.detection.training import (
    _check_docs,
    _fit,
    _params,
    feature_options,
    prepare,
    privatize,
)
from hidekit.text.span_metrics import PRF, evaluate_spans
from hidekit.text.spans import Document


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
    prepared, test_idx, language, names, params, options = args
    test = set(test_idx)
    train = [p for i, p in enumerate(prepared) if i not in test]
    det = _fit(train, language, names, params, None, options)
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
    # word clusters (if asked for) come from all the texts: unsupervised, no label is read
    options = feature_options(params, [d.text for d in docs])
    prepared, options = privatize([prepare(d, recs, options) for d in docs], options, params)
    advance = progress or (lambda n=1, **_: None)
    jobs = [
        (prepared, idx, language, names, params, options)
        for idx in fold_indices(len(docs), folds, seed)
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
