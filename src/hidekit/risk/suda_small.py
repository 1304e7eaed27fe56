"""The SUDA2 search inside a small group of records, compiled: the group's records as bits.

Once a group (records agreeing on a key set) holds at most 62 records, splitting it by a column
need not move records: with each record's "same value in column j" neighbours as a bit mask,
a part is one AND, and a split costs one step per part instead of one per record. The subtree
is visited in the same order as ``suda_search``'s (higher columns first) with the same pruning,
and one more: a part that is also the set of records agreeing on its key set less one column
(that column adds nothing: a constant column is the simplest case) holds no MSU below, since
every set there keeps a unique subset without the column.

numba's on-disk cache does not follow calls across modules: after editing this file, delete
``__pycache__/suda_*.nb*`` before timing, or ``suda_search`` keeps the old compiled copy.
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
