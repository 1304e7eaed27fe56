"""Class counts in integer codes, rolled up without going back to the records.

An engine counts the records once (``Engine.cell_counts``); everything coarser is a regrouping of
those counts: recode each key column to a coarser level and add up the rows that now agree. A
table of m rows regroups in O(m), whatever the number of records behind it, which is what makes a
search over thousands of generalizations cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

_LIMIT = 1 << 62


def combine_codes(columns: list[np.ndarray], cards: list[int]) -> np.ndarray:
    """One int64 key per row that is equal exactly when all ``columns`` are (mixed radix; the key
    is re-factorized when the radix product would overflow)."""
    if not columns:
        return np.zeros(0, dtype=np.int64)
    key = np.asarray(columns[0], dtype=np.int64)
    span = max(int(cards[0]), 1)
    for col, card in zip(columns[1:], cards[1:], strict=True):
        card = max(int(card), 1)
        if span * card >= _LIMIT:
            key, uniq = pd.factorize(key)
            key = key.astype(np.int64)
            span = max(len(uniq), 1)
        key = key * card + col
        span *= card
    return key


def first_index(inverse: np.ndarray, groups: int) -> np.ndarray:
    """Position of the first row of each group (``inverse`` maps rows to groups)."""
    first = np.empty(groups, dtype=np.int64)
    n = len(inverse)
    first[inverse[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)
    return first


@dataclass(frozen=True)
class ClassTable:
    """Rows of distinct (key codes…, sensitive code) with their record counts.

    ``codes`` has one array per key; ``sensitive`` is ``None`` when no sensitive attribute is
    tracked (then rows are the classes themselves).
    """

    codes: tuple[np.ndarray, ...]
    counts: np.ndarray
    sensitive: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return len(self.counts)

    def regroup(self, codes: list[np.ndarray], cards: list[int], sens_card: int = 0) -> ClassTable:
        """The table with its key columns replaced by ``codes`` (coarser), rows merged."""
        cols = list(codes)
        all_cards = list(cards)
        if self.sensitive is not None:
            cols.append(self.sensitive)
            all_cards.append(sens_card)
        key = combine_codes(cols, all_cards)
        inverse, uniq = pd.factorize(key)
        groups = len(uniq)
        counts = np.bincount(inverse, weights=self.counts, minlength=groups).astype(np.int64)
        first = first_index(inverse, groups)
        return ClassTable(
            codes=tuple(c[first] for c in codes),
            counts=counts,
            sensitive=None if self.sensitive is None else self.sensitive[first],
        )

    def classes(self, cards: list[int]) -> tuple[np.ndarray, int]:
        """Class id of each row (classes = distinct key codes) and the number of classes."""
        if self.sensitive is None:
            return np.arange(self.rows, dtype=np.int64), self.rows
        inverse, uniq = pd.factorize(combine_codes(list(self.codes), cards))
        return inverse.astype(np.int64), len(uniq)
