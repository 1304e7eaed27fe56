"""SUDA2 scores from the unique sets the search found (``hidekit.risk.suda_search``): which of
them are minimal sample uniques, each record's score and each key's share of it.

Kept apart from the search so that each module stays small; nothing compiled here calls a
compiled function of another module (numba's on-disk cache does not follow such calls).
"""

from __future__ import annotations

import numba
import numpy as np


def jit(fn=None, **options):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    if fn is None:
        return lambda f: jit(f, **options)
    try:
        return numba.njit(cache=True, **options)(fn)
    except Exception:  # no writable cache location
        return numba.njit(cache=False, **options)(fn)


@jit
def representatives(codes, full_ids, order, shifted):  # pragma: no cover - compiled
    """The first record of each full-key class (``full_ids``), its codes in ``order`` plus one
    (missing = 0) written to shifted[class]."""
    reps = np.full(shifted.shape[0], -1, dtype=np.int64)
    for i in range(codes.shape[0]):
        k = full_ids[i]
        if reps[k] < 0:
            reps[k] = i
            for j in range(order.size):
                shifted[k, j] = codes[i, order[j]] + 1
    return reps


@jit
def _by_item(out, found, n_items):  # pragma: no cover - compiled
    """The found sets grouped by item, in the order found (a counting sort), and each item's
    start (n_items + 1 bounds)."""
    start = np.zeros(n_items + 1, dtype=np.int64)
    for i in range(found):
        start[out[0, i] + 1] += 1
    for k in range(n_items):
        start[k + 1] += start[k]
    pos = start[:-1].copy()
    sets = np.empty(found, dtype=np.int64)
    for i in range(found):
        k = out[0, i]
        sets[pos[k]] = out[1, i]
        pos[k] += 1
    return sets, start


@jit
def msu_scores(out, found, shifted, reps, order, weights, n):  # pragma: no cover - compiled
    """Score per record, each key's share of it (records × keys, in the caller's key order) and
    MSU counts per size from the found unique sets: a set is an MSU when no other set of its
    item lies inside it and its values are all present."""
    n_items, m = shifted.shape
    sets, start = _by_item(out, found, n_items)
    score = np.zeros(n)
    share = np.zeros((n, m))
    counts = np.zeros(weights.size, dtype=np.int64)
    raw = np.zeros(m)
    for item in range(n_items):
        lo, hi = start[item], start[item + 1]
        present = 0
        for j in range(m):
            if shifted[item, j] > 0:
                present |= 1 << j
        raw[:] = 0.0
        total = 0.0
        for i in range(lo, hi):
            u = sets[i]
            minimal = u & ~present == 0
            for other in range(lo, hi):
                if not minimal:
                    break
                v = sets[other]
                minimal = v == u or v & ~u != 0
            if not minimal:
                continue
            k = 0
            for j in range(m):
                k += u >> j & 1
            w = weights[k - 1]
            counts[k - 1] += 1
            total += w
            for j in range(m):
                if u >> j & 1:
                    raw[j] += w
        if total > 0:
            r = reps[item]
            score[r] = total
            for j in range(m):
                share[r, order[j]] = raw[j] / total
    return score, share, counts
