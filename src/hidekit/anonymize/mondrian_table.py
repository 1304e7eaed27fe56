"""Mondrian on a count table: the distinct combinations of the keys (and the sensitive column)
with how many records hold each, instead of the records themselves.

Strict Mondrian cuts on key values, so records with the same keys always end in the same class:
the cuts, the classes and their labels found on the combinations are those found on the records
(``partition`` with weights). Everything ``hidekit.anonymize.mondrian`` states about a release
(class figures, information lost, l-diversity and t-closeness) is computed here from the table,
weighted by the counts; a job then releases the records by chunks, each record's keys replaced by
its combination's labels (``hidekit.jobs.anonymize_stream``). Memory grows with the combinations,
not with records × columns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.anonymize.modes import apply_mode, check_mode
from hidekit.anonymize.mondrian import (
    AnonymizationResult,
    Mondrian,
    check_weighted_params,
    class_figures,
    release_params,
)
from hidekit.errors import require_columns
from hidekit.transforms.loss import (
    DEFAULT_MAX_LOSS,
    VariableLoss,
    require_max_loss,
    same_cells,
)


@dataclass
class TableRelease:
    """What the chunks need: the released columns, and per combination of the count table its
    released key values (statistical mode); ``result`` holds the figures (its ``released`` is
    an empty frame with the released columns: the records are written by the job)."""

    columns: list[str]
    keys: list[str]
    mode: str
    labels: dict[str, np.ndarray]  # key -> released value per combination
    result: AnonymizationResult
    diversity: tuple | None = None  # sensitive values, counts, classes, l, l_kind, c

    @property
    def needs_order(self) -> bool:
        """Whether the figures wait for the released order (``diversity_in_order``)."""
        return self.diversity is not None

    def diversity_in_order(self, first_out: np.ndarray) -> None:
        """Add l-diversity and t-closeness of the sensitive column to the figures, given the
        first released position of each combination: the records are taken in that order, so
        values and classes are numbered as in the released file and the sums add up in the
        in-memory run's order (the same floating-point figures)."""
        assert self.diversity is not None
        values, counts, cls, l, l_kind, c = self.diversity  # noqa: E741
        order = np.argsort(first_out, kind="stable")
        rows = np.repeat(order, counts[order])
        classes = pd.factorize(cls[rows])[0].astype(np.int64)
        self.result.stats.update(class_figures(classes, values.iloc[rows], l, l_kind, c))

    @property
    def generalized(self) -> list[str]:
        """The released columns whose values come from the table (generalized keys)."""
        return [c for c in self.columns if c in self.labels]

    def chunk(self, frame: pd.DataFrame, rows: np.ndarray | None) -> pd.DataFrame:
        """One chunk of the release: the released columns of ``frame`` (the input's records,
        typed; the generalized keys may be left out) and the generalized keys, the labels of
        the records' combinations ``rows``."""
        if not self.labels:
            return frame[self.columns].reset_index(drop=True)
        assert rows is not None
        return pd.DataFrame(
            {
                c: pd.Series(self.labels[c][rows], dtype=object)
                if c in self.labels
                else frame[c].reset_index(drop=True)
                for c in self.columns
            }
        )


def mondrian_table(
    columns: Sequence[str],
    table: pd.DataFrame,
    counts: np.ndarray,
    keys: Sequence[str],
    k: int,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    l_kind: str = "distinct",
    c: float | None = None,
    hierarchies: dict | None = None,
    order: dict | None = None,
    mode: str = "statistical",
    identifiers: Sequence[str] = (),
    *,
    rand,
    shuffle: bool = True,
    on_level: Callable[[int], None] | None = None,
    max_loss: float = DEFAULT_MAX_LOSS,
) -> TableRelease:
    """``mondrian`` on a table with ``columns`` given by its count ``table`` (distinct rows of
    the keys and ``sensitive``, ``counts`` records each): the same checks, classes, labels and
    figures. ``rand`` is the row shuffle's randomness (only described here)."""
    check_mode(mode)
    keys = list(keys)
    max_loss = require_max_loss(max_loss)
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    params = release_params(
        keys, k, l, sensitive, l_kind, c, mode, identifiers, rand, shuffle, "duckdb", hierarchies
    )
    t0 = time.perf_counter()
    empty = pd.DataFrame(columns=list(columns))
    m = None
    if mode == "statistical":  # the checks in mondrian's order
        check_weighted_params(table, counts, keys, k, l, sensitive, l_kind, c)
    else:
        require_columns(empty.columns, keys)
    released_cols = list(apply_mode(empty, mode, keys, identifiers, lambda kept: kept).columns)
    if mode == "statistical":
        m = Mondrian(keys, k, l, sensitive, l_kind, c, hierarchies, order, shuffle=False)
        m.fit(table, on_level=on_level, weights=counts)
    present = [key for key in keys if key in released_cols]
    labels: dict[str, np.ndarray] = {}
    after = table
    if m is not None:
        labels = {key: m.class_labels_[key].to_numpy()[m.record_class_] for key in keys}
        after = table.assign(**labels)
    elapsed = time.perf_counter() - t0
    loss = [_loss(col, table, after, counts, n) for col in released_cols]
    stats, partitions, cls = _figures(after, counts, present, int(k), m, elapsed)
    diversity = None
    if sensitive and sensitive in released_cols:
        diversity = (table[sensitive], counts, cls, l, l_kind, c)
    result = AnonymizationResult(
        pd.DataFrame(columns=released_cols),
        partitions,
        np.zeros(0, np.int64),
        stats,
        params,
        loss,
        max_loss,
    )
    return TableRelease(released_cols, keys, mode, labels, result, diversity)


def _loss(col: str, before: pd.DataFrame, after: pd.DataFrame, counts, n: int) -> VariableLoss:
    """``information_loss`` of one column, counted on the combinations with their counts."""
    if col not in before.columns:  # a column Mondrian does not read: released as it is
        return VariableLoss(col, n, 0, 0)
    a, b = before[col].reset_index(drop=True), after[col].reset_index(drop=True)
    was = a.notna().to_numpy()
    blank = was & b.isna().to_numpy()
    changed = was & ~blank & ~same_cells(a, b)
    return VariableLoss(col, n, int(counts[blank].sum()), int(counts[changed].sum()))


def _figures(
    after: pd.DataFrame, counts: np.ndarray, present: list[str], k: int, m, elapsed: float
) -> tuple[dict, pd.DataFrame, np.ndarray]:
    """The released classes' figures, the classes with their sizes, and each combination's
    released class (its released key values)."""
    from hidekit.engines.base import CellStats

    n = int(counts.sum())
    if present:
        cls = after[present].groupby(present, sort=False, dropna=False).ngroup().to_numpy(np.int64)
        sizes = np.bincount(cls, weights=counts).astype(np.int64)
    else:  # full de-identification: no key left, every record in one class
        cls, sizes = np.zeros(len(after), np.int64), np.array([n], np.int64)
    cell = CellStats.from_sizes(present, sizes, k)
    if m is not None:
        partitions = m.class_labels_.assign(size=m.class_sizes_)
    elif present:
        partitions = (
            after[present]
            .assign(size=counts)
            .groupby(present, dropna=False)["size"]
            .sum()
            .reset_index()
        )
    else:
        partitions = pd.DataFrame({"size": [n]})
    stats = {
        "records": cell.records,
        "classes": cell.cells,
        "k": cell.k,
        "k_anonymous": cell.k >= k,
        "seconds": round(elapsed, 3),
    }
    return stats, partitions, cls
