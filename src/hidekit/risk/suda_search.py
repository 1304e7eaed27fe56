"""The SUDA2 search, compiled: minimal sample uniques found by splitting groups of records.

Key sets are visited depth first, each extending its parent by one higher column, as groups of
records that agree on the set; a node's children are visited highest column first, so every
subset of a set is visited before the set. A group splits by the next column; a record left alone
in its part is unique on the new set. Each record keeps the unique sets found for it so far: a set
holding one of them is never minimal, so the record is *dead* there and in the whole subtree.
Groups are split further only while they hold a live sample unique (a group of records that all
have a twin on the full key set never splits into singletons) and while the set is smaller than
the maximum size; small groups go on as bit masks (below). Every MSU is found (no
subset of it is unique, so its record stays live down to it), so a found set is an MSU exactly
when its values are all present and no other set found for its record lies inside it. Missing
values (code -1) count as a value of their own when grouping.

The compiled loops pass arrays whole with row numbers, never slices or tuples of arrays, and
return counts rather than arrays: numba counts references to arrays with atomic operations, and
those cost more than the search itself when they sit in the inner loops.

Small groups. Once a group (records agreeing on a key set) holds at most 62 records, splitting it by a column
need not move records: with each record's "same value in column j" neighbours as a bit mask,
a part is one AND, and a split costs one step per part instead of one per record. The subtree
is visited in the same order as the large groups' (higher columns first) with the same pruning,
and one more: a part that is also the set of records agreeing on its key set less one column
(that column adds nothing: a constant column is the simplest case) holds no MSU below, since
every set there keeps a unique subset without the column.

Both halves live in this one module on purpose: numba's on-disk cache does not follow calls
across modules, so a compiled caller in another file would keep running an old copy of a callee
edited since (``tests/test_code_shape.py`` forbids compiled calls across modules).
"""

from __future__ import annotations

import numba
import numpy as np

MAX_GROUP = 62  # records of a small group: bits of a signed 64-bit word
_DEBRUIJN = 0x03F79D71B4CB0A89
# position of a single set bit b: _BIT_INDEX[(b * _DEBRUIJN) >> 58 & 63]
_BIT_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _BIT_INDEX[(((1 << _i) * _DEBRUIJN) & (2**64 - 1)) >> 58] = _i


def jit(fn=None, **options):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    if fn is None:
        return lambda f: jit(f, **options)
    try:
        return numba.njit(cache=True, **options)(fn)
    except Exception:  # no writable cache location
        return numba.njit(cache=False, **options)(fn)


@jit
def live(known, r, mask):  # pragma: no cover - compiled
    """Whether record r can still have an MSU inside ``mask``: none of its known unique sets
    (known[r, 1:known[r, 0] + 1]) lies within it (a superset of a unique set is never minimal).
    A record with a twin on the full key set holds the empty set: never live."""
    for i in range(1, known[r, 0] + 1):  # noqa: SIM110 - a plain loop compiles
        if known[r, i] & ~mask == 0:
            return False
    return True


@jit
def emit(out, emitted, r, u, known):  # pragma: no cover - compiled
    """Note that record r is unique on u: in ``out`` (2 × capacity; past it only counted, the
    caller runs again with room) and among its known unique sets. Returns the new count: no
    array is returned, so no reference counting in the hot loops."""
    if emitted < out.shape[1]:
        out[0, emitted] = r
        out[1, emitted] = u
    if known[r, 0] < known.shape[1] - 1:
        known[r, 0] += 1
        known[r, known[r, 0]] = u
    return emitted + 1


@jit
def _lowest(bits):  # pragma: no cover - compiled
    """Index of the lowest set bit."""
    return _BIT_INDEX[((bits & -bits) * _DEBRUIJN) >> 58 & 63]


@jit
def _neighbours(codes, group, row, lo, size, floor, by_code, work):  # pragma: no cover - compiled
    """work[j, x]: the records group[row, lo:lo + size] (as bits) with the value of record x in
    column j > floor."""
    m = codes.shape[1]
    for j in range(floor + 1, m):
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] |= 1 << x
        for x in range(size):
            work[j, x] = by_code[codes[group[row, lo + x], j]]
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] = 0


@jit
def _live_in(bits, group, row, lo, known, mask):  # pragma: no cover - compiled
    """Whether one of the records ``bits`` (of group[row, lo:]) is still live inside ``mask``."""
    while bits:
        x = _lowest(bits)
        bits &= bits - 1
        r = group[row, lo + x]
        if live(known, r, mask):
            return True
    return False


@jit
def _closed_without_one(work, x, cols, part, full):  # pragma: no cover - compiled
    """Whether the records ``part`` (those agreeing with record x on the columns ``cols``) are
    also all those agreeing with it on ``cols`` less one column: then that column adds
    nothing, and no set holding ``cols`` is minimal."""
    rest = cols
    while rest:
        k = _lowest(rest)
        rest &= rest - 1
        acc = full
        others = cols & ~(1 << k)
        while others:
            acc &= work[_lowest(others), x]
            others &= others - 1
        if acc == part:
            return True
    return False


@jit
def small_subtree(
    codes, group, row, lo, size, w_mask, floor, level, max_size, known, by_code, work, out, emitted
):  # fmt: skip  # pragma: no cover - compiled
    """Unique sets in the subtree of group[row, lo:lo + size] (records agreeing on w_mask,
    extended by columns above ``floor``), as ``suda_search.first_unique_sets`` would find them.
    Returns the new emitted count. ``work``: rows 0..m-1 the "same value" masks, rows m.. the stack.
    (Few arrays, one by one, not in a tuple: numba counts references to each with atomic
    operations on every call.)"""
    m = codes.shape[1]
    _neighbours(codes, group, row, lo, size, floor, by_code, work)
    # stack rows m + level..: records, set, column, floor, records left to part (scalars)
    top, bottom, full = m + level, m + level, (1 << size) - 1
    work[top, 0], work[top, 1], work[top, 2], work[top, 3] = full, w_mask, m, floor
    work[top, 4] = 0
    while top >= bottom:
        rest = work[top, 4]
        if rest == 0:  # this column is done: next column
            j = work[top, 2] - 1
            work[top, 2] = j
            if j <= work[top, 3] or top - m >= max_size:
                top -= 1
            else:
                work[top, 4] = work[top, 0]
            continue
        j = work[top, 2]
        x = _lowest(rest)
        part = work[top, 0] & work[j, x]
        work[top, 4] = rest & ~part
        new_mask = work[top, 1] | (1 << j)
        if part == 1 << x:
            r = group[row, lo + x]
            if live(known, r, new_mask):
                emitted = emit(out, emitted, r, new_mask, known)
        elif (
            top - m + 1 < max_size
            and j < m - 1
            and not _closed_without_one(work, x, new_mask >> (floor + 1) << (floor + 1), part, full)
            and _live_in(part, group, row, lo, known, new_mask)
        ):
            top += 1
            work[top, 0], work[top, 1], work[top, 2], work[top, 3] = part, new_mask, m, j
            work[top, 4] = 0
    return emitted


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
    """Known unique sets (``live``) start with the single values no other record
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


SMALL_GROUP = 62  # groups up to this size are searched as bit masks (above)
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
