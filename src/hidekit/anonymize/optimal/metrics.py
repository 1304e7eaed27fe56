"""Information-loss metrics, computed as ARX 3.9 computes them so the optimum and its loss agree.

Every metric gives the loss of a node from its classes, and two lower bounds the search prunes
with: ``cheap_bounds`` (from the levels alone, for every node at once) and ``post_bound`` (from a
node's classes, valid for the node and every generalization of it).

- ``loss``: ARX's default *Loss*. Per key, the average over records of (g − 1)/(S − 1), with g the
  number of hierarchy rows under the released value and S all rows (a suppressed record counts
  1); each figure cut to 10 decimals; keys combined by a geometric mean of (1 + w·loss), minus 1.
- ``ncp``: the same per-key figures combined by an arithmetic mean (NCP / GenILoss).
- ``precision``: per key the mean of level/height (1 for a suppressed record), averaged.
- ``discernibility``: Σ |class|² plus n per suppressed record.
- ``aecs``: records per class, suppressed records forming one class.
- ``entropy``: non-uniform entropy, Σ log2(f(label) / f(value)) over records and keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from hidekit.anonymize.optimal.levels import QuasiIdentifier
from hidekit.errors import OptionError

FACTOR = 10.0**10


def arx_round(value: float) -> float:
    """ARX keeps the first ten decimals of each key's loss (``Math.floor(v * 1e10) / 1e10``)."""
    return math.floor(value * FACTOR) / FACTOR


@dataclass(frozen=True)
class NodeClasses:
    """What a metric needs of a node: per class its codes at the node's levels (``codes[j]``:
    key j), size, verdict, and the records suppressed (those of classes that fail)."""

    levels: tuple[int, ...]
    codes: np.ndarray
    sizes: np.ndarray
    ok: np.ndarray
    suppressed: int


class Metric:
    name = "metric"
    # with no suppression, is loss monotone in generalization? (then only minimal anonymous
    # nodes can be optimal)
    monotone_without_suppression = True

    def __init__(self, qis: list[QuasiIdentifier], freqs: list[np.ndarray], n: int, weights):
        self.qis = qis
        self.freqs = freqs  # per key: record count of each leaf
        self.n = n
        w = np.asarray(weights if weights is not None else [0.5] * len(qis), dtype=float)
        if len(w) != len(qis) or (w < 0).any():
            raise OptionError("attribute weights must be one non-negative number per key")
        # ARX scales weights by their maximum (all equal → all 1)
        self.weights = w / w.max() if w.max() > 0 else np.ones_like(w)

    def cheap_bounds(self, levels: np.ndarray) -> np.ndarray:
        return np.zeros(len(levels))

    def value(self, node: NodeClasses) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def post_bound(self, node: NodeClasses) -> float:
        return -math.inf

    def per_key(self, node: NodeClasses) -> dict[str, float] | None:
        return None


class _ShareMetric(Metric):
    """Metrics built on ARX's per-key generalization loss."""

    def __init__(self, *args):
        super().__init__(*args)
        # a value's share is (hierarchy rows under its label) / (all rows): sums of size × rows
        # are whole numbers, added exactly (in any order) and divided once. ``rows`` holds each
        # key's rows per label at every level, ``offset[j, level]`` where key j's level starts
        rows = [
            [np.bincount(q.leaf_codes[lv], minlength=q.card(lv)) for lv in range(q.height + 1)]
            for q in self.qis
        ]
        depth = max(len(r) for r in rows) if rows else 0
        self.offset = np.zeros((len(self.qis), depth), dtype=np.int64)
        parts, pos = [], 0
        for j, per_level in enumerate(rows):
            for lv, r in enumerate(per_level):
                self.offset[j, lv] = pos
                parts.append(r.astype(np.int64))
                pos += len(r)
        self.rows = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        # loss of each key at each level when nothing is suppressed: the bound
        self.level_loss = [
            np.array(
                [
                    self._normalize(q, int(f.astype(np.int64) @ r[q.leaf_codes[lv]]), 0.0)
                    for lv, r in enumerate(per_level)
                ]
            )
            for q, f, per_level in zip(self.qis, self.freqs, rows, strict=True)
        ]

    def _normalize(self, q: QuasiIdentifier, row_sum: int, suppressed: float) -> float:
        """ARX's loss of one key from Σ size · rows under the label (kept records) and the
        suppressed records (each counts a share of 1)."""
        lo = self.n / q.domain_size
        if self.n - lo <= 0:
            return 0.0
        aggregate = row_sum / q.domain_size + suppressed
        return arx_round(max((aggregate - lo) / (self.n - lo), 0.0))

    def key_losses(self, node: NodeClasses) -> list[float]:
        sums = _row_sums(
            node.codes,
            node.sizes,
            node.ok,
            self.rows,
            self.offset[np.arange(len(self.qis)), np.asarray(node.levels, dtype=np.int64)],
        )
        supp = float(node.suppressed)
        return [self._normalize(q, int(v), supp) for q, v in zip(self.qis, sums, strict=True)]

    def per_key(self, node: NodeClasses) -> dict[str, float]:
        return {q.name: v for q, v in zip(self.qis, self.key_losses(node), strict=True)}

    def _bound_matrix(self, levels: np.ndarray) -> np.ndarray:
        return np.stack([self.level_loss[j][levels[:, j]] for j in range(len(self.qis))], axis=1)


class Loss(_ShareMetric):
    name = "loss"

    def aggregate(self, values) -> float:
        result = 1.0
        d = float(len(values))
        for v, w in zip(values, self.weights, strict=True):
            result *= math.pow(float(v) * float(w) + 1.0, 1.0 / d)
        return result - 1.0

    def cheap_bounds(self, levels):
        # the same operations in the same order as ``aggregate``: without suppression a node's
        # bound is its loss, to the bit
        m = self._bound_matrix(levels)
        d = float(len(self.qis))
        result = np.ones(len(levels))
        for j, w in enumerate(self.weights):
            result *= np.power(m[:, j] * float(w) + 1.0, 1.0 / d)
        return result - 1.0

    def value(self, node):
        return self.aggregate(self.key_losses(node))


class NCP(_ShareMetric):
    name = "ncp"

    def aggregate(self, values) -> float:
        d = float(len(values))
        return float(
            sum(float(v) / d * float(w) for v, w in zip(values, self.weights, strict=True))
        )

    def cheap_bounds(self, levels):
        m = self._bound_matrix(levels)
        d = float(len(self.qis))
        return sum(m[:, j] / d * float(w) for j, w in enumerate(self.weights))

    def value(self, node):
        return self.aggregate(self.key_losses(node))


class Precision(Metric):
    name = "precision"

    def _ratios(self, levels) -> np.ndarray:
        heights = np.array([q.height for q in self.qis], dtype=float)
        lv = np.asarray(levels, dtype=float)
        return np.divide(lv, heights, out=np.zeros_like(lv), where=heights > 0)

    def per_key(self, node):
        supp = float(node.suppressed)
        kept = float(self.n) - supp
        ratios = self._ratios(np.array(node.levels))
        return {q.name: (kept * r + supp) / self.n for q, r in zip(self.qis, ratios, strict=True)}

    def value(self, node):
        d = float(len(self.qis))
        vals = self.per_key(node).values()
        return float(sum(v / d * w for v, w in zip(vals, self.weights, strict=True)))

    def cheap_bounds(self, levels):
        # as ``value`` computes it with nothing suppressed: the bound is the loss, to the bit
        n, d = float(self.n), float(len(self.qis))
        ratios = (n * self._ratios(levels) + 0.0) / n
        return sum(ratios[:, j] / d * float(w) for j, w in enumerate(self.weights))


class Discernibility(Metric):
    name = "discernibility"

    def value(self, node):
        s = node.sizes.astype(float)
        return float((s[node.ok] ** 2).sum() + s[~node.ok].sum() * self.n)

    def post_bound(self, node):
        return float((node.sizes.astype(float) ** 2).sum())


class AECS(Metric):
    name = "aecs"

    def value(self, node):
        groups = int(node.ok.sum()) + (0 if node.ok.all() else 1)
        return self.n / groups if groups else math.inf

    def post_bound(self, node):
        return self.n / len(node.sizes) if len(node.sizes) else math.inf


class Entropy(Metric):
    """Non-uniform entropy: per key, Σ over records of log2(f(g) / f(v)), f(v) the frequency of a
    record's value and f(g) of its released label (n for a suppressed record); keys summed with
    their weights. Coarser labels and suppression only add to it, so the loss without suppression
    bounds every generalization from below."""

    name = "entropy"

    def __init__(self, *args):
        super().__init__(*args)
        self.level_freqs = []  # per key, per level: frequency of each code
        self.base = []  # per key: -Σ f(v) log2 f(v)
        self.level_loss = []
        for q, f in zip(self.qis, self.freqs, strict=True):
            per_level = [
                np.bincount(q.leaf_codes[lv], weights=f, minlength=q.card(lv))
                for lv in range(q.height + 1)
            ]
            self.level_freqs.append(per_level)
            base = -float(_xlog2(f).sum())
            self.base.append(base)
            self.level_loss.append(
                np.array([base + float(_xlog2(per_level[lv]).sum()) for lv in range(q.height + 1)])
            )

    def per_key(self, node):
        supp = float(node.suppressed)
        out = {}
        for j, (q, lv, codes) in enumerate(zip(self.qis, node.levels, node.codes, strict=True)):
            kept = node.ok
            released = _weighted_sum(
                node.sizes[kept], np.log2(self.level_freqs[j][lv][codes[kept]])
            )
            out[q.name] = self.base[j] + released + supp * math.log2(self.n)
        return out

    def value(self, node):
        vals = self.per_key(node).values()
        return float(sum(v * w for v, w in zip(vals, self.weights, strict=True)))

    def cheap_bounds(self, levels):
        cols = [self.level_loss[j][levels[:, j]] * self.weights[j] for j in range(len(self.qis))]
        return np.sum(cols, axis=0)


def _weighted_sum(sizes: np.ndarray, values: np.ndarray) -> float:
    """Σ sizes · values without BLAS: a multithreaded dot of a few thousand numbers costs more
    in thread hand-offs than it saves (100 ms a call on a busy two-core machine)."""
    return float(np.multiply(sizes, values, dtype=np.float64).sum())


@numba.njit(cache=True)
def _row_sums(codes, sizes, ok, rows, offsets):  # pragma: no cover - compiled
    """Per key j: Σ over the classes kept of size · rows[offsets[j] + code] (whole numbers)."""
    d = codes.shape[0]
    out = np.zeros(d, dtype=np.int64)
    for i in range(sizes.shape[0]):
        if ok[i]:
            for j in range(d):
                out[j] += sizes[i] * rows[offsets[j] + codes[j, i]]
    return out


def _xlog2(f: np.ndarray) -> np.ndarray:
    """f·log2 f, 0 where f is 0."""
    out = np.zeros(len(f), dtype=float)
    nz = f > 0
    out[nz] = f[nz] * np.log2(f[nz])
    return out


METRICS: dict[str, type[Metric]] = {
    m.name: m for m in (Loss, NCP, Precision, Discernibility, AECS, Entropy)
}


def make_metric(name: str, qis, freqs, n, weights=None) -> Metric:
    try:
        cls = METRICS[name]
    except KeyError:
        raise OptionError(
            f"unknown metric {name!r} (known: {', '.join(sorted(METRICS))})"
        ) from None
    return cls(qis, freqs, n, weights)
