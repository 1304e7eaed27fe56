"""The SUDA2 search, compiled: minimal sample uniques found by splitting groups of records.

Key sets are visited depth first, each extending its parent by one higher column, as groups of
records that agree on the set; a node's children are visited highest column first, so every
subset of a set is visited before the set. A group splits by the next column; a record left alone
in its part is unique on the new set. Each record keeps the unique sets found for it so far: a set
holding one of them is never minimal, so the record is *dead* there and in the whole subtree.
Groups are split further only while they hold a live sample unique (a group of records that all
have a twin on the full key set never splits into singletons) and while the set is smaller than
the maximum size; small groups go on as bit masks (``suda_small``). Every MSU is found (no
subset of it is unique, so its record stays live down to it), so a found set is an MSU exactly
when its values are all present and no other set found for its record lies inside it. Missing
values (code -1) count as a value of their own when grouping.

The compiled loops pass arrays whole with row numbers, never slices or tuples of arrays, and
return counts rather than arrays: numba counts references to arrays with atomic operations, and
those cost more than the search itself when they sit in the inner loops.
"""

from __future__ import annotations

import numpy as np

from hidekit.risk.suda_small import MAX_GROUP, emit, jit, live, small_subtree


@jit(inline="always")
def _split(codes, bufs, level, lo, hi, j, counts, touched, starts):  # pragma: no cover
    """Copy bufs[level, lo:hi] into bufs[level + 1, lo:hi] grouped by column j: a counting sort
    over the values present only (``counts`` is all zero before and after). The parts' starts
    go in starts[level]; their number is returned. (Rows by index, not as views: a view costs
    reference counts.)"""
    n_touched = 0
    for i in range(lo, hi):
        c = codes[bufs[level, i], j]
        if counts[c] == 0:
            touched[n_touched] = c
            n_touched += 1
        counts[c] += 1
    pos = lo
    for t in range(n_touched):
        c = touched[t]
        starts[level, t] = pos
        pos += counts[c]
        counts[c] = starts[level, t]
    for i in range(lo, hi):
        r = bufs[level, i]
        c = codes[r, j]
        bufs[level + 1, counts[c]] = r
        counts[c] += 1
    for t in range(n_touched):
        counts[touched[t]] = 0
    starts[level, n_touched] = hi
    return n_touched


@jit
def _seed(codes, cards, candidate, known):  # pragma: no cover - compiled
    """Known unique sets (``suda_small.live``) start with the single values no other record
    holds, and the empty set for records with a twin."""
    n, m = codes.shape
    for r in range(n):
        known[r, 0] = 1 - candidate[r]
    for j in range(m):
        counts = np.zeros(cards[j], dtype=np.int64)
        for r in range(n):
            counts[codes[r, j]] += 2 - candidate[r]  # a twin class counts as two
        for r in range(n):
            if counts[codes[r, j]] == 1 and known[r, 0] < known.shape[1] - 1:
                known[r, 0] += 1
                known[r, known[r, 0]] = 1 << j


@jit
def first_unique_sets(
    codes, cards, candidate, known, max_size, small, capacity
):  # pragma: no cover
    """(record, set bit mask) for unique sets that hold every MSU, and their number (when over
    ``capacity``, only the first ``capacity`` are kept: run again with more); ``codes`` is
    keys × records, ≥ 0 (missing shifted in); ``known`` records × 17, zero, in the narrowest
    type that holds a set (``live``: small enough to stay in cache). Groups of at most
    ``small`` records go to ``small_subtree``."""
    n, m = codes.shape
    bufs = np.empty((m + 1, n), dtype=np.int32)
    bufs[0] = np.arange(n)
    counts = np.zeros(cards.max() + 1, dtype=np.int64)
    touched = np.empty(cards.max() + 1, dtype=np.int64)
    _seed(codes, cards, candidate, known)
    small = min(small, MAX_GROUP)
    by_code = np.zeros(cards.max() + 1, dtype=np.int64)
    work = np.zeros((2 * m + 2, max(small, 5)), np.int64)
    starts = np.zeros((m + 1, cards.max() + 2), dtype=np.int64)
    # per level: start, end, set, column, floor, next part, parts (scalars: no tuple copies)
    stack = np.zeros((m + 1, 7), dtype=np.int64)
    stack[0, 1], stack[0, 3], stack[0, 4] = n, m, -1
    out = np.empty((2, capacity), dtype=np.int64)
    emitted = 0
    level = 0
    while level >= 0:
        t = stack[level, 5]
        if t >= stack[level, 6]:  # the parts of this column are done: next column
            j = stack[level, 3] - 1
            stack[level, 3] = j
            if j <= stack[level, 4] or level >= max_size:
                level -= 1
            else:
                lo, hi = stack[level, 0], stack[level, 1]
                stack[level, 6] = _split(codes, bufs, level, lo, hi, j, counts, touched, starts)
                stack[level, 5] = 0
            continue
        stack[level, 5] = t + 1
        pos, e = starts[level, t], starts[level, t + 1]
        j = stack[level, 3]
        new_mask = stack[level, 2] | (1 << j)
        if e - pos == 1:
            r = bufs[level + 1, pos]
            if candidate[r] and (level == 0 or live(known, r, new_mask)):
                emitted = emit(out, emitted, r, new_mask, known)
        elif level + 1 < max_size and j < m - 1 and e - pos < stack[level, 1] - stack[level, 0]:
            for i in range(pos, e):
                r = bufs[level + 1, i]
                if live(known, r, new_mask):
                    if e - pos <= small:
                        emitted = small_subtree(
                            codes, bufs, level + 1, pos, e - pos, new_mask, j, level + 1,
                            max_size, known, by_code, work, out, emitted,
                        )  # fmt: skip
                    else:
                        level += 1
                        stack[level, 0], stack[level, 1], stack[level, 2] = pos, e, new_mask
                        stack[level, 3], stack[level, 4] = m, j
                        stack[level, 5] = stack[level, 6] = 0  # next: split by a column
                    break
    return out, emitted


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


SMALL_GROUP = 62  # groups up to this size are searched pairwise (``suda_small``)
ROOM_PER_RECORD = 4  # unique sets kept per distinct record before the search runs again


def search(
    codes: np.ndarray, full_ids: np.ndarray, full_sizes: np.ndarray, max_size: int, weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score, each key's share of it (records × keys) and MSU counts per size, for codes with -1
    as missing. Records agreeing on every key are searched as one (``full_ids``: their class),
    and the columns in order of falling cardinality (small groups early: less to split); codes
    in the narrowest type, records × keys, so a record's codes share a cache line."""
    n, m = codes.shape
    if m > 62:
        raise ValueError("SUDA2 searches at most 62 key variables")
    cards = codes.max(axis=0, initial=-1) + 2
    order = np.argsort(-cards, kind="stable")
    shifted: np.ndarray = np.empty((full_sizes.size, m), dtype=_code_type(cards.max()))
    reps = representatives(codes, full_ids, order, shifted)
    candidate = full_sizes == 1
    capacity = ROOM_PER_RECORD * reps.size + 16
    while True:  # rarely more than once
        known: np.ndarray = np.zeros((reps.size, 17), dtype=_code_type(2**m - 1))  # count, sets
        out, found = first_unique_sets(
            shifted, cards[order], candidate, known, max_size, SMALL_GROUP, capacity
        )
        if found <= capacity:
            break
        capacity = found
    weights = np.asarray(weights, dtype=np.float64)
    return msu_scores(out, found, shifted, reps, order, weights, n)


def _code_type(top: int) -> type:
    """The narrowest type for values up to ``top`` (codes, sets as bits): few bytes a record.
    Never uint64: numba mixes it with int64 into floats."""
    return (
        np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.uint32 if top < 2**32
        else np.int64
    )  # fmt: skip
