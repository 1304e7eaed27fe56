"""The counts behind Scaiano & El Emam's text risk: per-document leaks, not pooled recall.

From gold and predicted spans over the same documents this derives, for each direct-identifier
type, the documents holding it (``s_i``) and those where every instance is masked (all-or-nothing
recall, 2.3.1); for quasi-identifiers the masking recall ``r_q``, the documents holding one
(``s_q``), the mean distinct values per document (``n_q``) and instances per value (``m``).
Masking is type-blind and token-level (2.3.2), via ``span_metrics.masked``. Documents that share
a ``patient`` are merged into one virtual document (2.2.1). The conventional figures (entity- and
token-level recall and precision per type) come from ``span_metrics`` so the two views sit side
by side.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hidekit.errors import InputError
from hidekit.evaluation.type_maps import TypeMap
from hidekit.text.corpus import read_corpus, read_predictions
from hidekit.text.detection.tokenize import Token, tokenize
from hidekit.text.span_metrics import (
    PRF,
    masked,
    pair_documents,
    relaxed_counts,
    strict_counts,
    token_counts,
)
from hidekit.text.spans import Document

_SPACE = re.compile(r"\s+")


def normalize_value(text: str) -> str:
    """A QI value: lower-cased, white space collapsed (spec choice), so 'Madrid' == 'MADRID'."""
    return _SPACE.sub(" ", text).strip().lower()


@dataclass(frozen=True)
class Instance:
    """One gold span of a mapped type, and whether the predictions masked it."""

    unit: str  # the document, or the patient when documents carry one
    label: str
    kind: str  # 'direct' or 'quasi'
    value: str
    masked: bool


@dataclass
class DirectType:
    """Equation (10) inputs for one DI type: ``w = s / n``, ``r`` = all-or-nothing recall."""

    label: str
    documents: int  # s_i
    leaked_documents: int
    instances: int
    masked_instances: int
    n: int

    @property
    def w(self) -> float:
        return self.documents / self.n if self.n else 0.0

    @property
    def r(self) -> float:
        return 1 - self.leaked_documents / self.documents if self.documents else 1.0

    @property
    def masking_recall(self) -> float:
        return self.masked_instances / self.instances if self.instances else 1.0

    def to_dict(self) -> dict:
        return {
            **asdict(self),
            "w": self.w,
            "all_or_nothing_recall": self.r,
            "masking_recall": self.masking_recall,
        }


@dataclass
class QuasiStats:
    """Equation (12) inputs over all QI instances pooled (2.3.4)."""

    instances: int
    masked_instances: int
    documents: int  # s_q
    distinct_values: int  # (document, value) pairs
    n: int
    leaked_documents_2plus: int  # documents with two or more distinct leaked values (observed)

    @property
    def r_q(self) -> float:
        return self.masked_instances / self.instances if self.instances else 1.0

    @property
    def n_q(self) -> float:
        return self.distinct_values / self.n if self.n else 0.0

    @property
    def m(self) -> float:
        return self.instances / self.distinct_values if self.distinct_values else 0.0

    def to_dict(self) -> dict:
        return {
            **asdict(self),
            "r_q": self.r_q,
            "s_q": self.documents,
            "n_q": self.n_q,
            "m": self.m,
            "observed_share_2plus_leaked": self.leaked_documents_2plus / self.n if self.n else 0.0,
        }


@dataclass
class CorpusStats:
    n: int
    unit: str  # 'document' or 'patient'
    documents: int
    direct: list[DirectType]
    quasi: QuasiStats
    instances: list[Instance] = field(repr=False)
    ignored_types: list[str]
    conventional: dict

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "unit": self.unit,
            "documents": self.documents,
            "direct_types": [d.to_dict() for d in self.direct],
            "quasi": self.quasi.to_dict(),
            "ignored_types": self.ignored_types,
        }


# ---------------------------------------------------------------- reading


def load_documents(source, fmt: str | None = None) -> list[Document]:
    if isinstance(source, (str, Path)):
        return read_corpus(source, fmt)
    return list(source)


load_predictions = read_predictions  # any tool's output: .ann-only folders, JSONL, brat


def check_spans(docs: Sequence[Document], side: str) -> None:
    """Offsets beyond the text are an error naming the document (readers check files; this
    checks Documents handed over in Python)."""
    for d in docs:
        for s in d.spans:
            if s.end > len(d.text):
                raise InputError(
                    f"{side} document {d.id}: span {s.start}-{s.end} ({s.label}) lies "
                    f"outside the text ({len(d.text)} characters)"
                )


# ---------------------------------------------------------------- counting


def _clip(tokens, span) -> list[Token]:
    """The span's own share of each token: a gold span that starts or ends inside a token
    (``DR.Francisco`` annotated from ``Francisco``) is masked when its part is covered, so a
    perfect prediction always scores masking recall 1."""
    return [
        Token(t.text, max(t.start, span.start), min(t.end, span.end))
        for t in tokens
        if t.start < span.end and t.end > span.start
    ]


def gold_instances(pairs, type_map: TypeMap) -> tuple[list[Instance], list[str]]:
    """Every mapped gold span with its masked flag; also the gold types the map ignores."""
    instances, ignored = [], set()
    for g, p in pairs:
        unit = g.patient or p.patient or g.id
        preds = sorted(p.spans, key=lambda q: q.start)
        pred_starts = [q.start for q in preds]
        tokens = tokenize(g.text)
        tok_starts = [t.start for t in tokens]
        for s in g.spans:
            kind = type_map.kind(s.label)
            if kind is None:
                ignored.add(s.label)
                continue
            # only the tokens and predictions near the span matter to masked(): keep it fast
            lo = max(bisect.bisect_right(tok_starts, s.start) - 1, 0)
            hi = bisect.bisect_left(tok_starts, s.end)
            near = [q for q in preds[: bisect.bisect_left(pred_starts, s.end)] if q.end > s.start]
            is_masked = masked(s, near, _clip(tokens[lo:hi], s))
            instances.append(
                Instance(unit, s.label, kind, normalize_value(g.text[s.start : s.end]), is_masked)
            )
    return instances, sorted(ignored)


def direct_types(instances: Sequence[Instance], n: int) -> list[DirectType]:
    per: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for x in instances:
        if x.kind == "direct":
            per[x.label][x.unit].append(x.masked)
    out = []
    for label in sorted(per):
        units = per[label]
        flags = [f for fl in units.values() for f in fl]
        out.append(
            DirectType(
                label,
                len(units),
                sum(not all(fl) for fl in units.values()),
                len(flags),
                sum(flags),
                n,
            )
        )
    return out


def quasi_stats(instances: Sequence[Instance], n: int) -> QuasiStats:
    values: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for x in instances:
        if x.kind == "quasi":
            values[(x.unit, x.value)].append(x.masked)
    flags = [f for fl in values.values() for f in fl]
    leaked_per_unit: dict[str, int] = defaultdict(int)
    for (unit, _), fl in values.items():
        if not all(fl):
            leaked_per_unit[unit] += 1
    return QuasiStats(
        instances=len(flags),
        masked_instances=sum(flags),
        documents=len({u for u, _ in values}),
        distinct_values=len(values),
        n=n,
        leaked_documents_2plus=sum(1 for c in leaked_per_unit.values() if c >= 2),
    )


def conventional_figures(
    pairs, instances: Sequence[Instance], type_map: TypeMap, direct: Sequence[DirectType]
) -> dict:
    """Per gold type and per class (DI, QI): entity (strict, relaxed), token and masking recall,
    precision where it means something, and all-or-nothing recall: the paper's Tables 1 and 3."""
    strict = strict_counts(pairs)
    relaxed = relaxed_counts(pairs)
    token, _ = token_counts(pairs)
    masks: dict[str, list[bool]] = defaultdict(list)
    for x in instances:
        masks[x.label].append(x.masked)
    aon = {d.label: d.r for d in direct}

    def row(counts: Sequence[PRF | None]) -> dict:
        pooled = {k: PRF() for k in ("strict", "relaxed", "token")}
        for name, c in zip(("strict", "relaxed", "token"), counts, strict=True):
            if c is not None:
                pooled[name] = c
        return {f"{k}_recall": v.recall for k, v in pooled.items()} | {
            f"{k}_precision": v.precision for k, v in pooled.items()
        }

    per_type = {}
    for label in sorted(masks):
        fl = masks[label]
        per_type[label] = {
            "kind": type_map.kind(label),
            "instances": len(fl),
            **row([strict.get(label), relaxed.get(label), token.get(label)]),
            "masking_recall": sum(fl) / len(fl),
            "all_or_nothing_recall": aon.get(label),
        }
    groups = {}
    for kind in ("direct", "quasi"):
        labels = {
            lab for lab in set(strict) | set(relaxed) | set(token) if type_map.kind(lab) == kind
        }
        pooled = []
        for counts in (strict, relaxed, token):
            c = PRF()
            for lab in labels:
                if lab in counts:
                    c.tp += counts[lab].tp
                    c.fp += counts[lab].fp
                    c.fn += counts[lab].fn
            pooled.append(c)
        fl = [x.masked for x in instances if x.kind == kind]
        units: dict[str, bool] = {}
        for x in instances:
            if x.kind == kind:
                units[x.unit] = units.get(x.unit, True) and x.masked
        groups[kind] = {
            "instances": len(fl),
            **row(pooled),
            "masking_recall": sum(fl) / len(fl) if fl else None,
            "all_or_nothing_recall": sum(units.values()) / len(units) if units else None,
        }
    return {"per_type": per_type, "groups": groups}


def corpus_stats(gold, pred, type_map: TypeMap, fmt: str | None = None) -> CorpusStats:
    """Read (if given paths), pair, check and count: everything the equations need."""
    gold_docs = load_documents(gold, fmt)
    pred_docs = load_predictions(pred, gold_docs, fmt)
    if not gold_docs:
        raise InputError("the gold corpus holds no documents")
    check_spans(gold_docs, "gold")
    check_spans(pred_docs, "prediction")
    pairs = pair_documents(gold_docs, pred_docs)
    instances, ignored = gold_instances(pairs, type_map)
    if not instances:
        labels = sorted({s.label for g, _ in pairs for s in g.spans})
        if not labels:
            raise InputError("the gold annotations hold no spans: nothing to measure")
        raise InputError(
            f"the type map ({type_map.name}) leaves every gold type unmapped: "
            f"{', '.join(labels[:12])}{' …' if len(labels) > 12 else ''} "
            "(give --types-map with 'direct' and 'quasi' lists)"
        )
    units = {g.patient or p.patient or g.id for g, p in pairs}
    n = len(units)
    direct = direct_types(instances, n)
    return CorpusStats(
        n=n,
        unit="patient" if n < len(pairs) else "document",
        documents=len(pairs),
        direct=direct,
        quasi=quasi_stats(instances, n),
        instances=instances,
        ignored_types=ignored,
        conventional=conventional_figures(pairs, instances, type_map, direct),
    )


def drop_spans(docs: Sequence[Document], share: float, seed: int = 0) -> list[Document]:
    """Simulated predictions: the gold spans with a seeded random ``share`` left out, for demos
    and docs where no detector is at hand. Labelled as simulated wherever it is used."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for d in docs:
        keep = rng.random(len(d.spans)) >= share
        out.append(d.with_spans([s for s, k in zip(d.spans, keep, strict=True) if k]))
    return out
