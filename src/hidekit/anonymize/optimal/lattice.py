"""The generalization lattice: one node per combination of levels, with the two closures the
search tags through (a node's generalizations above it, its specializations below it)."""

from __future__ import annotations

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

    def index(self, levels) -> int:
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def successors(self, node: int) -> list[int]:
        """Nodes one level more general on one key."""
        lv = self.levels[node]
        return [node + int(self.strides[j]) for j in range(len(lv)) if lv[j] < self.heights[j]]

    def predecessors(self, node: int) -> list[int]:
        lv = self.levels[node].tolist()
        return [node - st for v, st in zip(lv, self._strides, strict=True) if v > 0]

    def above(self, node: int) -> np.ndarray:
        """Mask of the node and all its generalizations."""
        return (self.levels >= self.levels[node]).all(axis=1)

    def below(self, node: int) -> np.ndarray:
        return (self.levels <= self.levels[node]).all(axis=1)

    def tag_anonymous(self, node: int) -> None:
        m = self.above(node)
        self.state[m & (self.state == UNKNOWN)] = ANONYMOUS

    def tag_not_anonymous(self, node: int) -> None:
        m = self.below(node)
        self.state[m & (self.state == UNKNOWN)] = NOT_ANONYMOUS

    def minimal_anonymous(self) -> np.ndarray:
        """Anonymous nodes none of whose direct specializations is anonymous."""
        anon = self.state == ANONYMOUS
        minimal = anon.copy()
        for j, stride in enumerate(self.strides):
            has_pred = self.levels[:, j] > 0
            idx = np.nonzero(anon & has_pred)[0]
            minimal[idx[anon[idx - stride]]] = False
        return np.nonzero(minimal)[0]
