"""The generalization lattice: one node per combination of levels, with the two closures the
search tags through (a node's generalizations above it, its specializations below it)."""

from __future__ import annotations

import numba
import numpy as np

UNKNOWN, ANONYMOUS, NOT_ANONYMOUS = 0, 1, -1


class Lattice:
    """All level vectors ``0 ≤ levels[j] ≤ heights[j]``, numbered in mixed radix."""

    def __init__(self, heights: list[int]):
        self.heights = np.asarray(heights, dtype=np.int64)
        radix = self.heights + 1
        self.size = int(np.prod(radix)) if len(radix) else 1
        self.strides = np.ones(len(radix), dtype=np.int64)
        for j in range(len(radix) - 2, -1, -1):
            self.strides[j] = self.strides[j + 1] * radix[j + 1]
        grids = np.indices(tuple(int(r) for r in radix)).reshape(len(radix), -1).T
        self.levels = grids.astype(np.int16)  # row i = levels of node i
        self.height_sum = self.levels.sum(axis=1)
        self.state = np.zeros(self.size, dtype=np.int8)
        self._heights = self.heights.tolist()
        self._strides = self.strides.tolist()
        self._heights_plus = [h + 1 for h in self._heights]

    def index(self, levels) -> int:
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def successors(self, node: int) -> list[int]:
        """Nodes one level more general on one key."""
        lv = self.levels[node].tolist()
        return [
            node + st for v, h, st in zip(lv, self._heights, self._strides, strict=True) if v < h
        ]

    def predecessors(self, node: int) -> list[int]:
        lv = self.levels[node].tolist()
        return [node - st for v, st in zip(lv, self._strides, strict=True) if v > 0]

    def tag_anonymous(self, node: int) -> None:
        _tag_box(self.state, self.levels[node], self.heights, self.strides, ANONYMOUS)

    def tag_not_anonymous(self, node: int) -> None:
        lo = np.zeros_like(self.levels[node])
        _tag_box(self.state, lo, self.levels[node], self.strides, NOT_ANONYMOUS)

    def raise_above(self, values: np.ndarray, node: int, bound: float) -> None:
        """values ← max(values, bound) at ``node`` and every generalization of it."""
        _raise_box(values, self.levels[node], self.heights, self.strides, bound)

    def walk_up(self, start: int, lb: np.ndarray, limit: float) -> np.ndarray:
        """From ``start``, step to the untagged generalization with the smallest bound (the
        lower index on a tie) while that bound is below ``limit``; the nodes walked."""
        return _walk_up(self.state, lb, self.levels, self.heights, self.strides, start, limit)

    def next_untagged(self, order: np.ndarray, pos: int, lb: np.ndarray, limit: float) -> int:
        """The first position from ``pos`` on in ``order`` of an untagged node whose bound is
        below ``limit``; ``len(order)`` when none is left."""
        return _next_untagged(order, pos, self.state, lb, limit)

    def minimal_anonymous(self) -> np.ndarray:
        """Anonymous nodes none of whose direct specializations is anonymous."""
        anon = self.state == ANONYMOUS
        minimal = anon.copy()
        for j, stride in enumerate(self.strides):
            has_pred = self.levels[:, j] > 0
            idx = np.nonzero(anon & has_pred)[0]
            minimal[idx[anon[idx - stride]]] = False
        return np.nonzero(minimal)[0]


@numba.njit(cache=True)
def _walk_up(state, lb, levels, heights, strides, start, limit):  # pragma: no cover - compiled
    path = np.empty(int(heights.sum()) + 1, dtype=np.int64)
    path[0] = start
    size, cur = 1, start
    while True:
        best = -1
        for j in range(heights.shape[0]):
            if levels[cur, j] < heights[j]:
                s = cur + strides[j]
                live = state[s] == UNKNOWN and lb[s] < limit
                if live and (best == -1 or lb[s] < lb[best] or (lb[s] == lb[best] and s < best)):
                    best = s
        if best == -1:
            return path[:size]
        path[size] = best
        size += 1
        cur = best


@numba.njit(cache=True)
def _next_untagged(order, pos, state, lb, limit):  # pragma: no cover - compiled
    for i in range(pos, order.shape[0]):
        node = order[i]
        if state[node] == UNKNOWN and lb[node] < limit:
            return i
    return order.shape[0]


@numba.njit(cache=True)
def _box_nodes(lo, hi, strides):  # pragma: no cover - compiled
    """The nodes of the box lo ≤ levels ≤ hi, in increasing index."""
    d = lo.shape[0]
    total = 1
    for j in range(d):
        total *= hi[j] - lo[j] + 1
    out = np.empty(total, dtype=np.int64)
    cur = lo.astype(np.int64).copy()
    node = 0
    for j in range(d):
        node += cur[j] * strides[j]
    for t in range(total):
        out[t] = node
        j = d - 1  # odometer: the last key turns fastest
        while j >= 0:
            if cur[j] < hi[j]:
                cur[j] += 1
                node += strides[j]
                break
            node -= (cur[j] - lo[j]) * strides[j]
            cur[j] = lo[j]
            j -= 1
    return out


@numba.njit(cache=True)
def _tag_box(state, lo, hi, strides, value):  # pragma: no cover - compiled
    for node in _box_nodes(lo, hi, strides):
        if state[node] == UNKNOWN:
            state[node] = value


@numba.njit(cache=True)
def _raise_box(values, lo, hi, strides, bound):  # pragma: no cover - compiled
    for node in _box_nodes(lo, hi, strides):
        if values[node] < bound:
            values[node] = bound
