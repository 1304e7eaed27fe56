"""Count tables: the distinct combinations of a few columns over the whole file, with how many
records hold each and the first record that does. A plan step that reads a few columns is fitted
and applied once on such a table (``hidekit.release.stream_steps``), so its work and memory grow
with the distinct combinations, not the records; each chunk of records then looks its values up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.release.stream_source import typed_column

N, FIRST = "__hk_n", "__hk_first"


class StreamUnsupported(Exception):
    """The plan (or this data) cannot be run by chunks; the caller runs it in memory."""


@dataclass
class CountTable:
    """Distinct rows of ``frame`` (current values), ``counts`` records each, ``first`` the first
    record (row number) of each; rows ordered by ``first``."""

    frame: pd.DataFrame
    counts: np.ndarray
    first: np.ndarray

    def regroup(self, columns: Sequence[str] | None = None) -> CountTable:
        """Rows made equal by a step (or by leaving columns out) merged: counts summed, first
        records kept; ordered by first record."""
        cols = list(self.frame.columns if columns is None else columns)
        if not cols:
            return CountTable(
                pd.DataFrame(index=range(1)),
                np.array([self.counts.sum()], np.int64),
                np.array([self.first.min() if len(self.first) else 0], np.int64),
            )
        ids = combo_ids(self.frame[cols], self.frame[cols])
        uniq, inverse = np.unique(ids, return_inverse=True)
        counts = np.bincount(inverse, weights=self.counts, minlength=len(uniq)).astype(np.int64)
        first = np.full(len(uniq), np.iinfo(np.int64).max, np.int64)
        np.minimum.at(first, inverse, self.first)
        pick = np.full(len(uniq), -1, np.int64)
        pick[inverse[::-1]] = np.arange(len(inverse))[::-1]  # one row of each group
        order = np.argsort(first, kind="stable")
        frame = self.frame[cols].iloc[pick[order]].reset_index(drop=True)
        return CountTable(frame, counts[order], first[order])


def _column_codes(index: pd.Index, values: pd.Series) -> np.ndarray:
    """Position of each value in ``index`` (distinct present values); missing gets len(index)."""
    out = index.get_indexer(values)
    out[values.isna().to_numpy()] = len(index)
    return out.astype(np.int64, copy=False)


def combo_ids(table: pd.DataFrame, rows: pd.DataFrame) -> np.ndarray:
    """One integer per row of ``rows`` naming its combination among ``table``'s values (equal
    values, missing equal to missing, give equal integers); -1 where a value is not in
    ``table``."""
    ids = np.zeros(len(rows), np.int64)
    unseen = np.zeros(len(rows), bool)
    bound = 1
    for c in table.columns:
        index = pd.Index(pd.unique(table[c].dropna()))
        codes = _column_codes(index, rows[c])
        unseen |= codes < 0
        span = len(index) + 1
        if bound * span >= 2**62:
            raise StreamUnsupported("too many distinct combinations to number")
        ids, bound = ids * span + codes, bound * span
    ids[unseen] = -1
    return ids


class Lookup:
    """Rows of ``table`` found by their values: built once, used on every chunk."""

    def __init__(self, table: pd.DataFrame):
        self.columns = list(table.columns)
        self.indexes = [pd.Index(pd.unique(table[c].dropna())) for c in self.columns]
        self.spans = [len(i) + 1 for i in self.indexes]
        if np.prod([float(span) for span in self.spans]) >= 2.0**62:
            raise StreamUnsupported("too many distinct combinations to number")
        ids = self._ids(table)
        # ids 0, 1, ... in row order (a column of distinct values): a row is its id
        self._plain = bool(len(ids)) and bool(np.array_equal(ids, np.arange(len(ids))))
        self._order = ids if self._plain else np.argsort(ids, kind="stable")
        self._sorted = ids if self._plain else ids[self._order]
        if (ids < 0).any() or bool((self._sorted[1:] == self._sorted[:-1]).any()):
            raise StreamUnsupported("a step's values do not tell its rows apart")

    def _ids(self, rows: pd.DataFrame) -> np.ndarray:
        ids = np.zeros(len(rows), np.int64)
        unseen = np.zeros(len(rows), bool)
        for c, index, span in zip(self.columns, self.indexes, self.spans, strict=True):
            codes = _column_codes(index, rows[c])
            unseen |= codes < 0
            ids = ids * span + codes
        ids[unseen] = -1
        return ids

    def rows(self, frame: pd.DataFrame) -> np.ndarray:
        """The table row of each record of ``frame``; StreamUnsupported for a value not seen."""
        return self.found(self._ids(frame))

    def found(self, ids: np.ndarray) -> np.ndarray:
        """The table row of each combination number (``indexes``' codes in ``spans``' mixed
        radix); StreamUnsupported for -1 or a number not in the table."""
        if self._plain:
            if len(ids) and (ids.min() < 0 or ids.max() >= len(self._order)):
                raise StreamUnsupported("a record's values were not in the step's fitted table")
            return ids
        pos = np.searchsorted(self._sorted, ids)
        pos = np.minimum(pos, len(self._sorted) - 1)
        found = (ids >= 0) & (self._sorted[pos] == ids) if len(self._sorted) else ids < -1
        if not found.all():
            raise StreamUnsupported("a record's values were not in the step's fitted table")
        return self._order[pos]


def arrow_counts(parts: list[pa.Table], columns: Sequence[str]) -> pa.Table:
    """Partial (combination, count, first) tables merged into one."""
    table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    if not columns:
        return pa.table({N: [pa.compute.sum(table[N]).as_py() or 0], FIRST: [0]})
    out = table.group_by(list(columns)).aggregate([(N, "sum"), (FIRST, "min")])
    return out.rename_columns([*columns, N, FIRST])


def batch_counts(batch: pa.RecordBatch, columns: Sequence[str], start: int) -> pa.Table:
    """One batch's (combination, count, first record) table."""
    n = batch.num_rows
    table = pa.table(
        {
            **{c: batch.column(c) for c in columns},
            N: pa.array(np.ones(n, np.int64)),
            FIRST: pa.array(np.arange(start, start + n, dtype=np.int64)),
        }
    )
    return arrow_counts([table], columns)


def typed_counts(
    table: pa.Table,
    columns: Sequence[str],
    kinds: dict[str, str],
    typed: Callable[[pa.Table], pd.DataFrame] | None = None,
) -> CountTable:
    """An Arrow count table of raw texts as a ``CountTable`` typed like ``read_table``;
    combinations equal once typed (" 5" and "5") are merged. ``typed``: how a table of values
    that carry their own types becomes pandas (``release.stream_readers``); given the count
    table, it returns the frame of ``columns``."""
    if typed is not None:
        frame = typed(table)
    else:
        frame = pd.DataFrame(
            {c: typed_column(table.column(c).combine_chunks(), kinds[c]) for c in columns}
        )
    counts = table.column(N).to_numpy().astype(np.int64)
    first = table.column(FIRST).to_numpy().astype(np.int64)
    if len(columns) == 1 and frame.iloc[:, 0].is_unique:  # typing merged no texts (IDs)
        order = np.argsort(first, kind="stable")  # as regroup orders the rows
        return CountTable(frame.iloc[order].reset_index(drop=True), counts[order], first[order])
    return CountTable(frame, counts, first).regroup(columns)
