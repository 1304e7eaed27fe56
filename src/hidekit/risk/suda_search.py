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
"""

from __future__ import annotations

import numpy as np

from hidekit.risk.suda_small import MAX_GROUP, emit, jit, live, small_subtree


@jit
def _split(codes, src, dst, start, end, j, counts, touched):  # pragma: no cover - compiled
    """Copy src[start:end] into dst[start:end] grouped by column j: a counting sort over the
    values present only (``counts`` is all zero before and after)."""
    n_touched = 0
    for i in range(start, end):
        c = codes[src[i], j]
        if counts[c] == 0:
            touched[n_touched] = c
            n_touched += 1
        counts[c] += 1
    pos = start
    for t in range(n_touched):
        c = touched[t]
        n_c = counts[c]
        counts[c] = pos
        pos += n_c
    for i in range(start, end):
        r = src[i]
        c = codes[r, j]
        dst[counts[c]] = r
        counts[c] += 1
    for t in range(n_touched):
        counts[touched[t]] = 0


@jit
def _seed(codes, cards, candidate, known, n_known):  # pragma: no cover - compiled
    """Known unique sets start with the single values no other record holds."""
    n, m = codes.shape
    for j in range(m):
        counts = np.zeros(cards[j], dtype=np.int64)
        for r in range(n):
            counts[codes[r, j]] += 2 - candidate[r]  # a twin class counts as two
        for r in range(n):
            if counts[codes[r, j]] == 1 and n_known[r] < known.shape[1]:
                known[r, n_known[r]] = 1 << j
                n_known[r] += 1


@jit
def first_unique_sets(codes, cards, candidate, present, max_size, small):  # pragma: no cover
    """(record, set bit mask) for unique sets that hold every MSU; ``codes`` is keys × records,
    ≥ 0 (missing shifted in). Groups of at most ``small`` records go to ``small_subtree``."""
    n, m = codes.shape
    bufs = np.empty((m + 1, n), dtype=np.int32)
    bufs[0] = np.arange(n)
    counts = np.zeros(cards.max() + 1, dtype=np.int64)
    touched = np.empty(cards.max() + 1, dtype=np.int64)
    known = np.zeros((n, 16), dtype=np.int64)
    n_known = np.zeros(n, dtype=np.int64)
    _seed(codes, cards, candidate, known, n_known)
    small = min(small, MAX_GROUP)
    same = np.zeros((m, max(small, 1)), dtype=np.int64)
    by_code = np.zeros(cards.max() + 1, dtype=np.int64)
    state = (candidate, known, n_known, max_size, by_code, same, np.zeros((5, m + 2), np.int64))
    stack = np.zeros((6, m + 1), dtype=np.int64)  # start, end, set, column, floor, position
    stack[:, 0] = (0, n, 0, m, -1, n)
    out = np.empty((2, max(4 * n, 16)), dtype=np.int64)
    emitted = 0
    level = 0
    while level >= 0:
        lo, hi, w, j, floor, pos = stack[:, level]
        if pos >= hi:  # the parts of this column are done: next column
            stack[3, level] = j = j - 1
            if j <= floor or level >= max_size:
                level -= 1
            else:
                _split(codes, bufs[level], bufs[level + 1], lo, hi, j, counts, touched)
                stack[5, level] = lo
            continue
        part = bufs[level + 1]
        c = codes[part[pos], j]
        e = pos + 1
        while e < hi and codes[part[e], j] == c:
            e += 1
        stack[5, level] = e
        new_mask = w | (1 << j)
        if e - pos == 1:
            r = part[pos]
            if candidate[r] and (level == 0 or live(known, n_known, r, new_mask)):
                out, emitted = emit(out, emitted, r, new_mask, known, n_known)
        elif level + 1 < max_size and j < m - 1:
            for i in range(pos, e):
                r = part[i]
                if candidate[r] and live(known, n_known, r, new_mask):
                    if e - pos <= small:
                        out, emitted = small_subtree(
                            codes, part[pos:e], new_mask, j, level + 1, state, out, emitted
                        )
                    else:
                        level += 1
                        stack[:, level] = (pos, e, new_mask, m, j, e)  # next: split by a column
                    break
    return out[0, :emitted], out[1, :emitted]


@jit
def msu_scores(rec, sets, present, n, m, weights):  # pragma: no cover - compiled
    """Score, per-variable raw contribution and MSU counts per size from the unique sets
    (grouped by record: ``rec`` sorted); a set is an MSU when no other set of its record lies
    inside it and its values are all present."""
    score = np.zeros(n)
    contrib = np.zeros((n, m))
    counts = np.zeros(weights.size, dtype=np.int64)
    lo = 0
    total = rec.size
    while lo < total:
        r = rec[lo]
        hi = lo + 1
        while hi < total and rec[hi] == r:
            hi += 1
        for i in range(lo, hi):
            u = sets[i]
            if u & ~present[r]:
                continue
            minimal = True
            for other in range(lo, hi):
                v = sets[other]
                if v != u and v & ~u == 0:
                    minimal = False
                    break
            if not minimal:
                continue
            k = 0
            for j in range(m):
                if u >> j & 1:
                    k += 1
            w = weights[k - 1]
            counts[k - 1] += 1
            score[r] += w
            for j in range(m):
                if u >> j & 1:
                    contrib[r, j] += w
        lo = hi
    return score, contrib, counts


SMALL_GROUP = 62  # groups up to this size are searched pairwise (``suda_small``)


def search(
    codes: np.ndarray, full_ids: np.ndarray, full_sizes: np.ndarray, max_size: int, weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score, raw contributions (records × keys) and MSU counts per size, for codes with -1 as
    missing. Records agreeing on every key are searched as one (``full_ids``: their class), and
    the columns in order of falling cardinality (small groups early: less to split); codes in the
    narrowest type, records × keys, so a record's codes share a cache line."""
    n, m = codes.shape
    if m > 62:
        raise ValueError("SUDA2 searches at most 62 key variables")
    first = np.full(full_sizes.size, -1, dtype=np.int64)
    first[full_ids[::-1]] = np.arange(n - 1, -1, -1)
    reps = first[first >= 0]
    cards = codes.max(axis=0, initial=-1) + 2
    order = np.argsort(-cards, kind="stable")
    shifted: np.ndarray = np.ascontiguousarray(
        codes[reps][:, order] + 1, dtype=_code_type(cards.max())
    )
    candidate = np.ascontiguousarray(full_sizes[full_ids[reps]] == 1)
    present = ((shifted > 0) << np.arange(m, dtype=np.int64)).sum(axis=1)
    item, sets = first_unique_sets(shifted, cards[order], candidate, present, max_size, SMALL_GROUP)
    by_item = np.argsort(item, kind="stable")
    item_score, item_raw, counts = msu_scores(
        item[by_item], sets[by_item], present, reps.size, m,
        np.asarray(weights, dtype=np.float64),
    )  # fmt: skip
    score = np.zeros(n)
    raw = np.zeros((n, m))
    score[reps] = item_score
    raw[np.ix_(reps, order)] = item_raw
    return score, raw, counts


def _code_type(top: int) -> type:
    """The narrowest unsigned type for codes up to ``top``: a record's codes in few bytes."""
    return np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.int64
