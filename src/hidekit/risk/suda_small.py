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


def jit(fn):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    try:
        return numba.njit(cache=True)(fn)
    except Exception:  # no writable cache location
        return numba.njit(cache=False)(fn)


@jit
def live(known, n_known, r, mask):  # pragma: no cover - compiled
    """Whether record r can still have an MSU inside ``mask``: none of its known unique sets
    lies within it (a superset of a unique set is never minimal)."""
    for i in range(n_known[r]):  # noqa: SIM110 - a plain loop compiles
        if known[r, i] & ~mask == 0:
            return False
    return True


@jit
def emit(out, emitted, r, u, known, n_known):  # pragma: no cover - compiled
    """Note that record r is unique on u: in ``out`` (2 × capacity, grown on demand) and among
    its known unique sets."""
    if emitted == out.shape[1]:
        grown = np.empty((2, 2 * out.shape[1]), dtype=np.int64)
        grown[:, :emitted] = out
        out = grown
    out[0, emitted] = r
    out[1, emitted] = u
    if n_known[r] < known.shape[1]:
        known[r, n_known[r]] = u
        n_known[r] += 1
    return out, emitted + 1


@jit
def _lowest(bits):  # pragma: no cover - compiled
    """Index of the lowest set bit."""
    return _BIT_INDEX[((bits & -bits) * _DEBRUIJN) >> 58 & 63]


@jit
def _neighbours(codes, group, floor, by_code, same):  # pragma: no cover - compiled
    """same[j, x]: the group's records (as bits) with record x's value in column j > floor."""
    m = codes.shape[1]
    for j in range(floor + 1, m):
        for x in range(group.size):
            by_code[codes[group[x], j]] |= 1 << x
        for x in range(group.size):
            same[j, x] = by_code[codes[group[x], j]]
        for x in range(group.size):
            by_code[codes[group[x], j]] = 0


@jit
def _live_in(bits, group, candidate, known, n_known, mask):  # pragma: no cover - compiled
    """Whether one of the records ``bits`` is a candidate still live inside ``mask``."""
    while bits:
        x = _lowest(bits)
        bits &= bits - 1
        r = group[x]
        if candidate[r] and live(known, n_known, r, mask):
            return True
    return False


@jit
def small_subtree(codes, group, w_mask, floor, level, state, out, emitted):  # pragma: no cover
    """Unique sets in the subtree of ``group`` (records agreeing on w_mask, extended by columns
    above ``floor``), as ``suda_search.first_unique_sets`` would find them."""
    candidate, known, n_known, max_size, by_code, same, st = state
    m = codes.shape[1]
    _neighbours(codes, group, floor, by_code, same)
    top = level  # st rows: records, set, column, floor, records left to part
    st[:, top] = ((1 << group.size) - 1, w_mask, m, floor, 0)
    while top >= level:
        bits, w, j, low, rest = st[:, top]
        if rest == 0:  # this column is done: next column
            st[2, top] = j = j - 1
            if j <= low or top >= max_size:
                top -= 1
            else:
                st[4, top] = bits
            continue
        x = _lowest(rest)
        part = bits & same[j, x]
        st[4, top] = rest & ~part
        new_mask = w | (1 << j)
        if part == 1 << x:
            r = group[x]
            if candidate[r] and live(known, n_known, r, new_mask):
                out, emitted = emit(out, emitted, r, new_mask, known, n_known)
        elif (
            top + 1 < max_size
            and j < m - 1
            and _live_in(part, group, candidate, known, n_known, new_mask)
        ):
            top += 1
            st[:, top] = (part, new_mask, m, j, 0)
    return out, emitted
