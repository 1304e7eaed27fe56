"""The SUDA2 search inside a small group of records, compiled: the group's records as bits.

Once a group (records agreeing on a key set) holds at most 62 records, splitting it by a column
need not move records: with each record's "same value in column j" neighbours as a bit mask,
a part is one AND, and a split costs one step per part instead of one per record. The subtree
is visited in the same order as ``suda_search``'s (higher columns first) with the same pruning.
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


@jit(inline="always")
def live(known, n_known, r, mask):  # pragma: no cover - compiled
    """Whether record r can still have an MSU inside ``mask``: none of its known unique sets
    lies within it (a superset of a unique set is never minimal)."""
    for i in range(n_known[r]):  # noqa: SIM110 - a plain loop compiles
        if known[r, i] & ~mask == 0:
            return False
    return True


@jit(inline="always")
def emit(out, emitted, r, u, known, n_known):  # pragma: no cover - compiled
    """Note that record r is unique on u: in ``out`` (2 × capacity; past it only counted, the
    caller runs again with room) and among its known unique sets. Returns the new count: no
    array is returned, so no reference counting in the hot loops."""
    if emitted < out.shape[1]:
        out[0, emitted] = r
        out[1, emitted] = u
    if n_known[r] < known.shape[1]:
        known[r, n_known[r]] = u
        n_known[r] += 1
    return emitted + 1


@jit(inline="always")
def _lowest(bits):  # pragma: no cover - compiled
    """Index of the lowest set bit."""
    return _BIT_INDEX[((bits & -bits) * _DEBRUIJN) >> 58 & 63]


@jit(inline="always")
def _neighbours(codes, group, row, lo, size, floor, by_code, same):  # pragma: no cover - compiled
    """same[j, x]: the records group[row, lo:lo + size] (as bits) with the value of record x in
    column j > floor."""
    m = codes.shape[1]
    for j in range(floor + 1, m):
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] |= 1 << x
        for x in range(size):
            same[j, x] = by_code[codes[group[row, lo + x], j]]
        for x in range(size):
            by_code[codes[group[row, lo + x], j]] = 0


@jit(inline="always")
def _live_in(bits, group, row, lo, candidate, known, n_known, mask):  # pragma: no cover - compiled
    """Whether one of the records ``bits`` (of group[row, lo:]) is a candidate still live
    inside ``mask``."""
    while bits:
        x = _lowest(bits)
        bits &= bits - 1
        r = group[row, lo + x]
        if candidate[r] and live(known, n_known, r, mask):
            return True
    return False


@jit(inline="always")  # inlined: a call would count references to each array it is given
def small_subtree(
    codes, group, row, lo, size, w_mask, floor, level, max_size,
    candidate, known, n_known, by_code, same, st, out, emitted,
):  # fmt: skip  # pragma: no cover - compiled
    """Unique sets in the subtree of group[row, lo:lo + size] (records agreeing on w_mask, extended by
    columns above ``floor``), as ``suda_search.first_unique_sets`` would find them. Returns the
    new emitted count. (Arrays come one by one, not in a tuple: unpacking one costs reference
    counts, atomic operations, on each call.)"""
    m = codes.shape[1]
    _neighbours(codes, group, row, lo, size, floor, by_code, same)
    full = (1 << size) - 1
    top = level  # st[top]: records, set, column, floor, records left to part (scalars)
    st[top, 0], st[top, 1], st[top, 2], st[top, 3], st[top, 4] = full, w_mask, m, floor, 0
    while top >= level:
        rest = st[top, 4]
        if rest == 0:  # this column is done: next column
            j = st[top, 2] - 1
            st[top, 2] = j
            if j <= st[top, 3] or top >= max_size:
                top -= 1
            else:
                st[top, 4] = st[top, 0]
            continue
        j = st[top, 2]
        x = _lowest(rest)
        part = st[top, 0] & same[j, x]
        st[top, 4] = rest & ~part
        new_mask = st[top, 1] | (1 << j)
        if part == 1 << x:
            r = group[row, lo + x]
            if candidate[r] and live(known, n_known, r, new_mask):
                emitted = emit(out, emitted, r, new_mask, known, n_known)
        elif (
            top + 1 < max_size
            and j < m - 1
            and _live_in(part, group, row, lo, candidate, known, n_known, new_mask)
        ):
            top += 1
            st[top, 0], st[top, 1], st[top, 2], st[top, 3], st[top, 4] = part, new_mask, m, j, 0
    return emitted
