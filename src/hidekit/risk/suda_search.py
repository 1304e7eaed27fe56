"""The SUDA2 search, compiled: minimal sample uniques found by splitting groups of records.

Key sets are visited depth first, each extending its parent by one higher column, as groups of
records that agree on the set. A group splits by the next column; a record left alone in its part
is unique on the new set and was not on the parent: the set is a *first unique* set of the record
(every MSU is one, since an MSU's parent is not unique). Groups are split further only while they
hold a sample unique (a group of records that all have a twin on the full key set never splits
into singletons) and while the set is smaller than the maximum size. A record is unique on a set
W exactly when one of its first unique sets is a prefix of W (W's columns up to that set's
highest), so each first unique set U is an MSU when its values are all present and no U minus one
column is unique. Missing values (code -1) count as a value of their own when grouping.
"""

from __future__ import annotations

import numba
import numpy as np


def _jit(fn):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    try:
        return numba.njit(cache=True)(fn)
    except Exception:  # no writable cache location
        return numba.njit(cache=False)(fn)


@_jit
def _split(codes, src, dst, start, end, j, card, counts):  # pragma: no cover - compiled
    """Copy src[start:end] into dst[start:end] grouped by column j (counting sort, or insertion
    sort for small groups)."""
    size = end - start
    if size <= 48:
        for i in range(start, end):
            r = src[i]
            c = codes[j, r]
            k = i
            while k > start and codes[j, dst[k - 1]] > c:
                dst[k] = dst[k - 1]
                k -= 1
            dst[k] = r
        return
    for c in range(card):
        counts[c] = 0
    for i in range(start, end):
        counts[codes[j, src[i]]] += 1
    pos = start
    for c in range(card):
        n_c = counts[c]
        counts[c] = pos
        pos += n_c
    for i in range(start, end):
        r = src[i]
        c = codes[j, r]
        dst[counts[c]] = r
        counts[c] += 1


@_jit
def first_unique_sets(codes, cards, candidate, max_size):  # pragma: no cover - compiled
    """(record, set bit mask) for every first unique set; ``codes`` is keys × records, ≥ 0
    (missing shifted in)."""
    m, n = codes.shape
    bufs = np.empty((m + 1, n), dtype=np.int32)
    bufs[0] = np.arange(n)
    counts = np.empty(cards.max() + 1, dtype=np.int64)
    start = np.zeros(m + 1, dtype=np.int64)
    end = np.zeros(m + 1, dtype=np.int64)
    mask = np.zeros(m + 1, dtype=np.int64)
    col = np.zeros(m + 1, dtype=np.int64)
    gpos = np.zeros(m + 1, dtype=np.int64)
    size = np.zeros(m + 1, dtype=np.int64)
    out_r = np.empty(max(4 * n, 16), dtype=np.int64)
    out_m = np.empty(max(4 * n, 16), dtype=np.int64)
    emitted = 0
    end[0] = n
    col[0] = -1
    gpos[0] = n
    level = 0
    while level >= 0:
        if gpos[level] >= end[level]:  # the parts of this column are done: next column
            col[level] += 1
            if col[level] >= m or size[level] >= max_size:
                level -= 1
                continue
            j = col[level]
            _split(
                codes, bufs[level], bufs[level + 1], start[level], end[level], j, cards[j], counts
            )
            gpos[level] = start[level]
            continue
        j = col[level]
        part = bufs[level + 1]
        s = gpos[level]
        c = codes[j, part[s]]
        e = s + 1
        has_candidate = candidate[part[s]]
        while e < end[level] and codes[j, part[e]] == c:
            has_candidate = has_candidate or candidate[part[e]]
            e += 1
        gpos[level] = e
        new_mask = mask[level] | (1 << j)
        if e - s == 1:
            if not candidate[part[s]]:  # one record standing for its twins: not unique
                continue
            if emitted == out_r.size:
                out_r = np.concatenate((out_r, np.empty_like(out_r)))
                out_m = np.concatenate((out_m, np.empty_like(out_m)))
            out_r[emitted] = part[s]
            out_m[emitted] = new_mask
            emitted += 1
        elif has_candidate and size[level] + 1 < max_size and j < m - 1:
            level += 1
            start[level] = s
            end[level] = e
            mask[level] = new_mask
            size[level] = size[level - 1] + 1
            col[level] = j
            gpos[level] = e  # forces a split by the next column first
    return out_r[:emitted], out_m[:emitted]


@_jit
def _is_unique(sets, lo, hi, w):  # pragma: no cover - compiled
    """Whether a record with first unique sets sets[lo:hi] is unique on the set w."""
    for i in range(lo, hi):
        u = sets[i]
        if u & w == u:
            top = 1
            while top <= u:
                top <<= 1
            if w & (top - 1) == u:  # u is a prefix of w
                return True
    return False


@_jit
def msu_scores(rec, sets, present, n, m, weights):  # pragma: no cover - compiled
    """Score, per-variable raw contribution and MSU counts per size from the first unique
    sets (grouped by record: ``rec`` sorted)."""
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
            top = 0
            for j in range(m):
                if u >> j & 1:
                    top = j
            k = 0
            for j in range(m):
                if u >> j & 1:
                    k += 1
                    if j != top and _is_unique(sets, lo, hi, u ^ (1 << j)):
                        minimal = False
                        break
            if not minimal:
                continue
            w = weights[k - 1]
            counts[k - 1] += 1
            score[r] += w
            for j in range(m):
                if u >> j & 1:
                    contrib[r, j] += w
        lo = hi
    return score, contrib, counts


def search(
    codes: np.ndarray, full_ids: np.ndarray, full_sizes: np.ndarray, max_size: int, weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score, raw contributions (records × keys) and MSU counts per size, for codes with -1 as
    missing. Records agreeing on every key are searched as one (``full_ids``: their class), and
    the columns in order of falling cardinality (small groups early: less to split)."""
    n, m = codes.shape
    if m > 62:
        raise ValueError("SUDA2 searches at most 62 key variables")
    first = np.full(full_sizes.size, -1, dtype=np.int64)
    first[full_ids[::-1]] = np.arange(n - 1, -1, -1)
    reps = first[first >= 0]
    cards = codes.max(axis=0, initial=-1) + 2
    order = np.argsort(-cards, kind="stable")
    shifted = np.ascontiguousarray((codes[reps][:, order] + 1).T, dtype=np.int32)
    candidate = np.ascontiguousarray(full_sizes[full_ids[reps]] == 1)
    item, sets = first_unique_sets(shifted, cards[order], candidate, max_size)
    by_item = np.argsort(item, kind="stable")
    bits = (shifted > 0).astype(np.int64) << np.arange(m, dtype=np.int64)[:, None]
    item_score, item_raw, counts = msu_scores(
        item[by_item], sets[by_item], bits.sum(axis=0), reps.size, m,
        np.asarray(weights, dtype=np.float64),
    )  # fmt: skip
    score = np.zeros(n)
    raw = np.zeros((n, m))
    score[reps] = item_score
    raw[np.ix_(reps, order)] = item_raw
    return score, raw, counts
