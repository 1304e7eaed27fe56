"""An engine over a table already counted: distinct rows and how many records hold each.

A job that scans a file by chunks anyway (to type its columns before writing it by chunks) counts
the key combinations in the same scan; a search that works on counted cells only (the optimal
generalization: ``cell_codes``) then runs on that table instead of reading the file once more.
Questions about single records have no answer here: they raise ``OptionError``. Not registered:
it opens no file and is built by the job that counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine, check_cell_min
from hidekit.errors import OptionError


class CountedEngine(Engine):
    """``frame``: distinct rows (values typed as ``read_table`` types them); ``counts``: the
    records of each row."""

    name = "counted"

    def __init__(self, frame: pd.DataFrame, counts: np.ndarray):
        if len(frame) != len(counts):
            raise ValueError("one count per row")
        self._frame = frame.reset_index(drop=True)
        self._counts = np.asarray(counts, dtype=np.int64)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self._frame.columns]

    @property
    def n_records(self) -> int:
        return int(self._counts.sum())

    def _cells(self, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(first row of each cell of ``keys``, its records), cells in order of first row;
        missing is a value of its own."""
        ids = np.zeros(len(self._frame), np.int64)
        for key in keys:
            codes, uniques = pd.factorize(self._frame[key], use_na_sentinel=False)
            ids = np.unique(ids * (len(uniques) + 1) + codes, return_inverse=True)[1].reshape(-1)
        _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        sizes = np.bincount(inverse.reshape(-1), weights=self._counts, minlength=len(first))
        order = np.argsort(first, kind="stable")
        return first[order], sizes[order].astype(np.int64)

    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        keys = self.check_keys(keys)
        if not keys:
            return pd.DataFrame({COUNT_COLUMN: [self.n_records]})
        first, sizes = self._cells(keys)
        out = self._frame[keys].iloc[first].reset_index(drop=True)
        out[COUNT_COLUMN] = sizes
        return out

    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        cell_min = check_cell_min(cell_min)
        out = []
        for ks in keysets:
            keys = self.check_keys(ks)
            sizes = self._cells(keys)[1] if keys else np.array([self.n_records], np.int64)
            out.append(CellStats.from_sizes(keys, sizes[sizes > 0], cell_min))
        return out

    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        raise OptionError("a counted table holds no single records")

    def split(self, by: str) -> list[tuple[object, Engine]]:
        raise OptionError("a counted table cannot be split by records")
