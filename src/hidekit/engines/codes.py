"""Integer codes and cell ids: the vectorized core of in-memory cell counting.

A column becomes dense codes 0..n-1 (missing is a code of its own); a key set's cell id per
record is the mixed-radix combination of its columns' codes, re-densified when it grows wide.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

INT64_LIMIT = 2**62


def dense_limit(n_records: int) -> int:
    """Largest id range counted with a flat ``bincount`` (beyond it: hashing)."""
    return max(4 * n_records, 1 << 20)


def encode(series: pd.Series) -> tuple[np.ndarray, int]:
    """Dense int64 codes of a column and how many distinct values (missing included) it has."""
    values = series.to_numpy() if not isinstance(series.dtype, pd.CategoricalDtype) else None
    if (
        values is not None
        and values.dtype.kind in "iu"
        and len(values)
        and values.min() >= 0
        and values.max() < dense_limit(len(values))
    ):
        # small non-negative integers: a lookup table instead of a hash table
        present = np.bincount(values) > 0
        if present.all():  # already dense codes 0..n-1
            return values.astype(np.int64, copy=False), len(present)
        lut = np.cumsum(present) - 1
        return lut[values].astype(np.int64, copy=False), int(present.sum())
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    codes, uniques = pd.factorize(series)  # missing -> -1 (cheaper than use_na_sentinel=False)
    codes = codes.astype(np.int64, copy=False)
    n = len(uniques)
    missing = codes < 0
    if missing.any():  # missing is a value of its own: the next code
        codes[missing] = n
        n += 1
    return codes, max(n, 1)


def densify(ids: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """Renumber ids (all < ``bound``) to 0..cells-1."""
    if bound <= dense_limit(len(ids)):
        present = np.bincount(ids, minlength=bound) > 0
        lut = np.cumsum(present) - 1
        return lut[ids], int(present.sum())
    from hidekit.engines.classes import group_keys  # compiled hash: faster than pd.factorize

    codes, _, cells = group_keys(ids)
    return codes, max(cells, 1)


def combine(ids: np.ndarray, card: int, codes: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Mixed-radix ids of (previous cells × one more column); densified only to avoid overflow."""
    if card * n >= INT64_LIMIT:
        ids, card = densify(ids, card)
    return ids * n + codes, card * n


def stats_from_counts(counts: np.ndarray, cell_min: int) -> tuple[int, int, int, int]:
    """(cells, k, uniques, at_risk) from a count per possible cell (zeros allowed).

    One pass: the histogram of counts gives every figure without filtering the array.
    """
    hist = np.bincount(counts)
    cells = int(len(counts) - hist[0]) if len(hist) else 0
    nonzero = np.flatnonzero(hist[1:])
    k = int(nonzero[0] + 1) if nonzero.size else 0
    uniques = int(hist[1]) if len(hist) > 1 else 0
    small = hist[1:cell_min]
    at_risk = int((small * np.arange(1, len(small) + 1)).sum())
    return cells, k, uniques, at_risk


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's index among the distinct rows (in lexicographic order) and each distinct row's
    count: ``np.unique(rows, axis=0, return_inverse=True, return_counts=True)[1:]``, computed
    through one mixed-radix integer per row instead of sorting the rows themselves."""
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.dtype.kind not in "iu" or 0 in rows.shape:
        _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
        return inverse.ravel(), counts
    ids, bound = np.zeros(len(rows), dtype=np.int64), 1
    for j in range(rows.shape[1]):
        col = rows[:, j].astype(np.int64)
        low = int(col.min())
        span = int(col.max()) - low + 1
        if bound * span >= INT64_LIMIT:  # too wide for one integer: sort the rows
            _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
            return inverse.ravel(), counts
        ids, bound = ids * span + (col - low), bound * span
    if bound <= dense_limit(len(ids)):  # ids keep the rows' order: a count per possible id
        present = np.bincount(ids, minlength=bound)
        return (np.cumsum(present > 0) - 1)[ids], present[present > 0]
    _, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    return inverse.ravel(), counts
