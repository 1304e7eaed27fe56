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

    def grid(self, values: np.ndarray) -> np.ndarray:
        """A per-node array seen as the grid of levels (a view: writes reach ``values``)."""
        return values.reshape(tuple(self._heights_plus))

    def above(self, node: int) -> tuple[slice, ...]:
        """The node and all its generalizations, as slices of ``grid``: a box of the grid,
        so tagging touches only those nodes."""
        return tuple(slice(v, None) for v in self.levels[node].tolist())

    def below(self, node: int) -> tuple[slice, ...]:
        return tuple(slice(0, v + 1) for v in self.levels[node].tolist())

    def tag_anonymous(self, node: int) -> None:
        box = self.grid(self.state)[self.above(node)]
        box[box == UNKNOWN] = ANONYMOUS

    def tag_not_anonymous(self, node: int) -> None:
        box = self.grid(self.state)[self.below(node)]
        box[box == UNKNOWN] = NOT_ANONYMOUS

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
