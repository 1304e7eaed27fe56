"""Comparing predicted spans with gold spans: entity level (strict, relaxed), token level, masking.

- strict: a prediction counts when a gold span has the same start, end and label.
- relaxed: a gold span is found when any prediction overlaps it, whatever the label; a prediction
  is correct when it overlaps any gold span.
- token: each token of the text is labelled by the span covering it (or O); precision/recall per
  label over tokens, and a label-blind "PHI" row.
- masking: a gold span is masked when every one of its tokens is covered by some prediction of any
  label (Scaiano & El Emam 2.3.2).
Micro averages pool counts; macro averages the per-type F1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from hidekit.errors import InputError
from hidekit.text.detection.tokenize import tokenize
from hidekit.text.spans import Document, Span


@dataclass
class PRF:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "precision": self.precision, "recall": self.recall, "f1": self.f1}


def pair_documents(
    gold: Sequence[Document], pred: Sequence[Document]
) -> list[tuple[Document, Document]]:
    """Match documents by id; any document on one side only is an error naming it."""
    g = {d.id: d for d in gold}
    p = {d.id: d for d in pred}
    only_g, only_p = sorted(set(g) - set(p)), sorted(set(p) - set(g))
    if only_g or only_p:
        parts = []
        if only_g:
            parts.append(f"only in gold: {', '.join(only_g[:5])}{' …' if len(only_g) > 5 else ''}")
        if only_p:
            parts.append(
                f"only in predictions: {', '.join(only_p[:5])}{' …' if len(only_p) > 5 else ''}"
            )
        raise InputError("gold and predictions hold different documents (" + "; ".join(parts) + ")")
    pairs = []
    for doc_id in sorted(g):
        if g[doc_id].text and p[doc_id].text and g[doc_id].text != p[doc_id].text:
            raise InputError(f"document {doc_id}: gold and prediction texts differ")
        pairs.append((g[doc_id], p[doc_id]))
    return pairs


def _summary(per_type: dict[str, PRF]) -> dict:
    micro = PRF(
        sum(c.tp for c in per_type.values()),
        sum(c.fp for c in per_type.values()),
        sum(c.fn for c in per_type.values()),
    )
    f1s = [c.f1 for c in per_type.values() if c.tp + c.fn > 0]
    return {
        "per_type": {k: v.to_dict() for k, v in sorted(per_type.items())},
        "micro": micro.to_dict(),
        "macro_f1": float(np.mean(f1s)) if f1s else 0.0,
    }


def strict_counts(pairs: Iterable[tuple[Document, Document]]) -> dict[str, PRF]:
    counts: dict[str, PRF] = defaultdict(PRF)
    for g, p in pairs:
        gs = {(s.start, s.end, s.label) for s in g.spans}
        ps = {(s.start, s.end, s.label) for s in p.spans}
        for _, _, lab in gs & ps:
            counts[lab].tp += 1
        for _, _, lab in gs - ps:
            counts[lab].fn += 1
        for _, _, lab in ps - gs:
            counts[lab].fp += 1
    return counts


def relaxed_counts(pairs: Iterable[tuple[Document, Document]]) -> dict[str, PRF]:
    """Per gold type: found if overlapped by any prediction; fp counted by predicted type."""
    counts: dict[str, PRF] = defaultdict(PRF)
    for g, p in pairs:
        for s in g.spans:
            if any(s.overlaps(q) for q in p.spans):
                counts[s.label].tp += 1
            else:
                counts[s.label].fn += 1
        for q in p.spans:
            if not any(q.overlaps(s) for s in g.spans):
                counts[q.label].fp += 1
    return counts


def _token_labels(doc: Document, tokens) -> list[str | None]:
    labels: list[str | None] = [None] * len(tokens)
    if not tokens:
        return labels
    starts = np.array([t.start for t in tokens])
    ends = np.array([t.end for t in tokens])
    for s in doc.spans:
        idx = np.nonzero((starts < s.end) & (ends > s.start))[0]
        for i in idx:
            labels[i] = s.label
    return labels


def token_counts(pairs: Iterable[tuple[Document, Document]]) -> tuple[dict[str, PRF], PRF]:
    counts: dict[str, PRF] = defaultdict(PRF)
    blind = PRF()
    for g, p in pairs:
        tokens = tokenize(g.text)
        gl, pl = _token_labels(g, tokens), _token_labels(p, tokens)
        for a, b in zip(gl, pl, strict=True):
            if a is not None and a == b:
                counts[a].tp += 1
            else:
                if a is not None:
                    counts[a].fn += 1
                if b is not None:
                    counts[b].fp += 1
            if a is not None and b is not None:
                blind.tp += 1
            elif a is not None:
                blind.fn += 1
            elif b is not None:
                blind.fp += 1
    return counts, blind


def masked(span: Span, predictions: Sequence[Span], tokens) -> bool:
    """Every token of ``span`` lies inside some prediction (any label)."""
    inside = [t for t in tokens if t.start < span.end and t.end > span.start]
    if not inside:
        return any(q.start <= span.start and q.end >= span.end for q in predictions)
    return all(any(q.start <= t.start and q.end >= t.end for q in predictions) for t in inside)


def evaluate_spans(gold: Sequence[Document], pred: Sequence[Document]) -> dict:
    """All figures of one comparison, as a JSON-ready dict."""
    pairs = pair_documents(gold, pred)
    tok, blind = token_counts(pairs)
    return {
        "documents": len(pairs),
        "strict": _summary(strict_counts(pairs)),
        "relaxed": _summary(relaxed_counts(pairs)),
        "token": {**_summary(tok), "phi": blind.to_dict()},
    }
