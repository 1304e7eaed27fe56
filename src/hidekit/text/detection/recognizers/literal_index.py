"""Where the literal scans' strings start, for all of them in one compiled pass over a text.

A literal scan (``scans.Scan``, kind "literal") tries its pattern only where one of its *heads*
starts (the first characters of the literal strings every match starts with). ``re`` finds those
positions one scan at a time, at some tens of nanoseconds per character each: about two dozen
scans read every text. Here every registered scan's heads are looked for at once, per position:
the first character against a table, then the two first characters against the sorted heads,
then the whole head. The result, per scan, is the sorted list of positions where one of its
heads starts in the text it searches (``fold(text)`` or the text itself) — exactly the positions
``finder.search(hay, pos)`` returns one by one, since the finder is the alternation of the heads.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numba
import numpy as np

_BMP = 0x10000  # first characters below this are checked against a table first
_KEY = 0x110000  # two characters as one number: first * _KEY + second


def _jit(fn):
    """``numba.njit`` with an on-disk cache when numba has somewhere to write it."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except Exception:  # no writable cache location
        return numba.njit(cache=False, nogil=True)(fn)


@_jit
def _head_starts(cp, first_ok, pair_lo, keys, h_ptr, h_cp, h_scan_ptr, h_scans, out_scan, out_pos):
    """(scan, position) for every position of ``cp`` where a head starts, for each scan owning
    that head, in position order; returns how many (more than ``out_scan`` holds: call again
    with more room). ``pair_lo``: for two ASCII characters, where their heads start in ``keys``
    (they end where the next pair's start)."""
    n = cp.shape[0]
    cap = out_scan.shape[0]
    got = 0
    for p in range(n - 1):
        c0 = cp[p]
        if c0 < _BMP and not first_ok[c0]:
            continue
        c1 = cp[p + 1]
        key = c0 * _KEY + c1
        if c0 < 128 and c1 < 128:
            k = pair_lo[c0 * 128 + c1]
            k_end = pair_lo[c0 * 128 + c1 + 1]
        else:
            k = np.searchsorted(keys, key)
            k_end = keys.shape[0]
        while k < k_end and keys[k] == key:
            a, b = h_ptr[k], h_ptr[k + 1]
            if b - a <= n - p:
                same = True
                for q in range(2, b - a):
                    if cp[p + q] != h_cp[a + q]:
                        same = False
                        break
                if same:
                    for s in range(h_scan_ptr[k], h_scan_ptr[k + 1]):
                        if got < cap:
                            out_scan[got] = h_scans[s]
                            out_pos[got] = p
                        got += 1
            k += 1
    return got


def code_points(text: str) -> np.ndarray:
    """The text's characters as numbers (one per character, as ``str`` indexes them)."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), np.uint8).astype(np.int64)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32).astype(np.int64)


class HeadIndex:
    """The heads of a list of scans (each a collection of strings of two characters or more)."""

    def __init__(self, heads_per_scan: list[tuple[str, ...]]):
        owners: dict[str, list[int]] = {}
        for i, scan_heads in enumerate(heads_per_scan):
            for h in scan_heads:
                if len(h) < 2:
                    raise ValueError(f"a head of two characters or more is needed, got {h!r}")
                owners.setdefault(h, []).append(i)
        heads = sorted(owners, key=lambda h: (ord(h[0]) * _KEY + ord(h[1]), h))
        self.n_scans = len(heads_per_scan)
        self.first_ok = np.zeros(_BMP, np.bool_)
        for h in heads:
            if ord(h[0]) < _BMP:
                self.first_ok[ord(h[0])] = True
        self.keys = np.array([ord(h[0]) * _KEY + ord(h[1]) for h in heads], np.int64)
        # ASCII pairs c0, c1 as c0 * 128 + c1 sort as their keys do, before every other pair
        self.pair_lo = np.searchsorted(
            self.keys, [(c >> 7) * _KEY + (c & 127) for c in range(128 * 128 + 1)]
        ).astype(np.int64)
        self.h_ptr = np.array([0, *np.cumsum([len(h) for h in heads])], np.int64)
        self.h_cp = np.array([ord(c) for h in heads for c in h], np.int64)
        self.h_scan_ptr = np.array([0, *np.cumsum([len(owners[h]) for h in heads])], np.int64)
        self.h_scans = np.array([i for h in heads for i in owners[h]], np.int64)

    def starts(self, hay: str) -> list[list[int]]:
        """Per scan, the sorted positions of ``hay`` where one of its heads starts."""
        if len(hay) < 2 or not self.keys.shape[0]:
            return [[] for _ in range(self.n_scans)]
        cp = code_points(hay)
        room = max(64, len(hay) // 8)
        while True:
            o_scan = np.empty(room, np.int64)
            o_pos = np.empty(room, np.int64)
            got = _head_starts(
                cp, self.first_ok, self.pair_lo, self.keys, self.h_ptr, self.h_cp,
                self.h_scan_ptr, self.h_scans, o_scan, o_pos,
            )  # fmt: skip
            if got <= room:
                break
            room = got
        order = np.argsort(o_scan[:got], kind="stable")  # by scan, each in position order
        at = o_pos[:got][order].tolist()
        cut = np.searchsorted(o_scan[:got][order], np.arange(self.n_scans + 1)).tolist()
        return [at[cut[i] : cut[i + 1]] for i in range(self.n_scans)]


# ---------------------------------------------------------------- the registry of literal scans
_LOCK = threading.Lock()
_HEADS: list[tuple[str, ...]] = []
_INDEX: list[HeadIndex | None] = [None]


_IDS: dict[tuple[str, ...], int] = {}


def register(heads) -> int:
    """Register a scan's heads; returns its number in the shared index (the same number for the
    same heads, so scans built again and again do not grow the index)."""
    key = tuple(sorted(set(heads)))
    with _LOCK:
        got = _IDS.get(key)
        if got is None:
            _HEADS.append(key)
            got = _IDS[key] = len(_HEADS) - 1
            _INDEX[0] = None
        return got


def _index() -> HeadIndex:
    with _LOCK:
        index = _INDEX[0]
        if index is None:
            index = _INDEX[0] = HeadIndex(list(_HEADS))
        return index


@lru_cache(maxsize=8)
def _starts(hay: str, index: HeadIndex) -> list[list[int]]:
    return index.starts(hay)


def head_starts(hay: str, scan_id: int) -> list[int]:
    """The sorted positions of ``hay`` where a head of the registered scan ``scan_id`` starts
    (computed for every registered scan at once, and kept for a few texts)."""
    index = _index()
    if scan_id >= index.n_scans:  # registered after the index was built: rebuild
        with _LOCK:
            _INDEX[0] = None
        index = _index()
    return _starts(hay, index)[scan_id]


def warm_up() -> None:
    """Compile the pass now (or load it from numba's cache): forked workers inherit it."""
    HeadIndex([("ab",)]).starts("xab")
