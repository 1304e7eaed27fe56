"""Class counts in integer codes, rolled up without going back to the records.

An engine counts the records once (``Engine.cell_counts``); everything coarser is a regrouping of
those counts: recode each key column to a coarser level and add up the rows that now agree. A
table of m rows regroups in O(m), whatever the number of records behind it, which is what makes a
search over thousands of generalizations cheap. The regrouping is one compiled pass (recode,
mixed-radix key, open-addressing hash) when the key fits in 62 bits, pandas' factorize otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

_LIMIT = 1 << 62


def combine_codes(columns, cards) -> np.ndarray:
    """One int64 key per row that is equal exactly when all ``columns`` are (mixed radix; the key
    is re-factorized when the radix product would overflow)."""
    columns = list(columns)
    if not columns:
        return np.zeros(0, dtype=np.int64)
    key = np.asarray(columns[0], dtype=np.int64)
    span = max(int(cards[0]), 1)
    for col, card in zip(columns[1:], list(cards)[1:], strict=True):
        card = max(int(card), 1)
        if span * card >= _LIMIT:
            key, uniq = pd.factorize(key)
            key = key.astype(np.int64)
            span = max(len(uniq), 1)
        key = key * card + col
        span *= card
    return key


@numba.njit(cache=True)
def _group_into(keys, span, inverse, first):  # pragma: no cover - compiled
    """Group equal keys (0 ≤ key < ``span``, or ``span`` ≤ 0 when unknown) into ``inverse``
    and ``first``; returns the number of groups. An array indexed by the key when the span is
    small, else an open-addressing hash sized by the rows (or the span, when smaller)."""
    m = keys.shape[0]
    groups = 0
    if 0 < span <= 4 * m:
        direct = np.full(span, -1, dtype=np.int32)
        for i in range(m):
            s = direct[keys[i]]
            if s == -1:
                direct[keys[i]] = groups
                first[groups] = i
                inverse[i] = groups
                groups += 1
            else:
                inverse[i] = s
        return groups
    lim = m if span <= 0 or span > m else span
    bits = 1
    while (1 << bits) < 2 * lim + 2:
        bits += 1
    mask = np.uint64((1 << bits) - 1)
    slots = np.full(1 << bits, -1, dtype=np.int32)
    slot_keys = np.empty(1 << bits, dtype=np.int64)
    mult = np.uint64(0x9E3779B97F4A7C15)
    shift = np.uint64(64 - bits)
    for i in range(m):
        key = keys[i]
        h = (np.uint64(key) * mult) >> shift
        while True:
            s = slots[h]
            if s == -1:
                slots[h] = groups
                slot_keys[h] = key
                first[groups] = i
                inverse[i] = groups
                groups += 1
                break
            if slot_keys[h] == key:
                inverse[i] = s
                break
            h = (h + np.uint64(1)) & mask
    return groups


@numba.njit(cache=True)
def _radix_add(keys, values, card):  # pragma: no cover - compiled
    """keys ← keys · card + values: one more column of a mixed-radix key."""
    for i in range(keys.shape[0]):
        keys[i] = keys[i] * card + values[i]


@numba.njit(cache=True)
def _regroup(codes, maps, offsets, cards, sens, sens_card, counts, span):  # pragma: no cover
    """Recode, key, group and sum counts in one pass; returns the merged table."""
    d, m = codes.shape
    keys = np.zeros(m, dtype=np.int64)
    for j in range(d):  # recoded in place: no temporary column per key
        off, card = offsets[j], cards[j]
        if card == 1:  # a key at its top level adds nothing to the key
            continue
        for i in range(m):
            keys[i] = keys[i] * card + maps[off + codes[j, i]]
    if sens_card > 0:
        _radix_add(keys, sens, sens_card)
    inverse = np.empty(m, dtype=np.int32)
    first = np.empty(m, dtype=np.int32)
    groups = _group_into(keys, span, inverse, first)
    out_counts = np.zeros(groups, dtype=np.int64)
    for i in range(m):
        out_counts[inverse[i]] += counts[i]
    out_codes = np.empty((d, groups), dtype=codes.dtype)
    for j in range(d):
        off = offsets[j]
        for g in range(groups):
            out_codes[j, g] = maps[off + codes[j, first[g]]]
    out_sens = np.empty(groups if sens_card > 0 else 0, dtype=sens.dtype)
    if sens_card > 0:
        for g in range(groups):
            out_sens[g] = sens[first[g]]
    return out_codes, out_counts, out_sens


@numba.njit(cache=True)
def _roll_up(codes, counts, sens, sens_card, flat, offset, cards, src, dst):  # pragma: no cover
    """``_regroup`` from levels ``src`` to ``dst``, the maps' offsets and the key's span found
    here too (``offset[j, a, b]``, ``cards[j, b]``): one call per node. ``ok`` is False when the
    key would not fit 62 bits (the caller then takes the slower path)."""
    d = src.shape[0]
    offsets = np.empty(d, dtype=np.int64)
    out_cards = np.empty(d, dtype=np.int64)
    span = np.int64(1)
    fits = True
    for j in range(d):
        offsets[j] = offset[j, src[j], dst[j]]
        out_cards[j] = cards[j, dst[j]]
        c = max(out_cards[j], 1)
        if span >= (_LIMIT + c - 1) // c:
            fits = False
        else:
            span *= c
    if sens_card > 0:
        c = max(sens_card, 1)
        if span >= (_LIMIT + c - 1) // c:
            fits = False
        else:
            span *= c
    if not fits or counts.shape[0] == 0:
        return False, codes[:, :0], counts[:0], sens[:0]
    out_codes, out_counts, out_sens = _regroup(
        codes, flat, offsets, out_cards, sens, sens_card, counts, span
    )
    return True, out_codes, out_counts, out_sens


@numba.njit(cache=True)
def _group(keys, span):  # pragma: no cover - compiled
    m = keys.shape[0]
    inverse = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    groups = _group_into(keys, span, inverse, first)
    return inverse, first[:groups], groups


@numba.njit(cache=True)
def _count_cells(columns, cards, span):  # pragma: no cover - compiled
    """One pass over the records: mixed-radix key of their codes, grouped and counted."""
    n = columns[0].shape[0]
    keys = np.zeros(n, dtype=np.int64)
    for j in range(len(columns)):
        _radix_add(keys, columns[j], cards[j])
    inverse = np.empty(n, dtype=np.int32)
    first = np.empty(n, dtype=np.int64)
    groups = _group_into(keys, span, inverse, first)
    counts = np.zeros(groups, dtype=np.int64)
    for i in range(n):
        counts[inverse[i]] += 1
    return first[:groups], counts


def count_cells(
    columns: list[np.ndarray], cards: list[int]
) -> tuple[np.ndarray, np.ndarray] | None:
    """The cells of records given as code columns (0 ≤ code < card): the first record of each
    cell and its size, in one compiled pass; None when the key would not fit 62 bits (or there
    are no records), for the caller's slower path."""
    span = _span(cards)
    if span is None or not columns or len(columns[0]) == 0 or len(columns[0]) >= 1 << 31:
        return None
    cols = tuple(np.ascontiguousarray(c, dtype=np.int64) for c in columns)
    return _count_cells(cols, np.asarray(cards, dtype=np.int64), int(span))


@numba.njit(cache=True)
def _radix_order(keys, span):  # pragma: no cover - compiled
    """The stable order that sorts ``keys`` (0 ≤ key < span): LSD radix, 11 bits a pass."""
    m = keys.shape[0]
    order = np.arange(m)
    spare = np.empty(m, dtype=np.int64)
    shift = 0
    while (span - 1) >> shift > 0:
        counts = np.zeros(2049, dtype=np.int64)
        for i in range(m):
            counts[((keys[order[i]] >> shift) & 2047) + 1] += 1
        for b in range(2048):
            counts[b + 1] += counts[b]
        for i in range(m):
            digit = (keys[order[i]] >> shift) & 2047
            spare[counts[digit]] = order[i]
            counts[digit] += 1
        order, spare = spare, order
        shift += 11
    return order


@numba.njit(cache=True)
def _take(codes, counts, order):  # pragma: no cover - compiled
    d, m = codes.shape[0], order.shape[0]
    out_codes = np.empty((d, m), dtype=codes.dtype)
    out_counts = np.empty(m, dtype=counts.dtype)
    for i in range(m):
        r = order[i]
        out_counts[i] = counts[r]
        for j in range(d):
            out_codes[j, i] = codes[j, r]
    return out_codes, out_counts


def sort_order(keys: np.ndarray, span: int) -> np.ndarray:
    """The stable order that sorts non-negative ``keys`` below ``span``: a radix sort, a few
    passes over the keys instead of a comparison sort."""
    return _radix_order(np.ascontiguousarray(keys, dtype=np.int64), int(span))


def group_keys(keys: np.ndarray, span: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(group of each row, first row of each group, number of groups), groups numbered by first
    appearance. ``span``, when known, bounds the keys (0 ≤ key < span)."""
    if len(keys) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    return _group(keys, int(span) if span is not None else 0)


def _span(cards) -> int | None:
    """Product of ``cards``, or None when it would not fit a 62-bit key."""
    span = 1
    for c in cards:
        span *= max(int(c), 1)
        if span >= _LIMIT:
            return None
    return span


_NO_SENSITIVE = np.zeros(0, np.int64)


class LevelMaps:
    """Every key's level-to-level code maps in one flat array: ``flat[offset[j][a][b] + code]``
    is key j's code at level b of its code at level a, ``cards[j][level]`` its number of codes.
    A roll-up then passes a few offsets to the compiled kernel instead of concatenating maps."""

    def __init__(self, ups, cards: list[list[int]]):
        parts: list[np.ndarray] = []
        self.offset: list[list[list[int]]] = []
        pos = 0
        for up in ups:  # up[a][b]: the map from level a to level b (None when b < a)
            table = []
            for row in up:
                offsets = []
                for m in row:
                    offsets.append(-1 if m is None else pos)
                    if m is not None:
                        parts.append(np.asarray(m, dtype=np.int64))
                        pos += len(m)
                table.append(offsets)
            self.offset.append(table)
        self.flat = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        self.cards = cards
        # the same as arrays, for the compiled roll-up: offsets[j, a, b], card_array[j, level]
        depth = max((len(c) for c in cards), default=0)
        self.offsets = np.full((len(cards), depth, depth), -1, dtype=np.int64)
        self.card_array = np.zeros((len(cards), depth), dtype=np.int64)
        for j, table in enumerate(self.offset):
            for a, row in enumerate(table):
                self.offsets[j, a, : len(row)] = row
            self.card_array[j, : len(cards[j])] = cards[j]


@dataclass(frozen=True)
class ClassTable:
    """Rows of distinct (key codes…, sensitive code) with their record counts.

    ``codes`` is a (keys × rows) array; ``sensitive`` is ``None`` when no sensitive attribute is
    tracked (then rows are the classes themselves).
    """

    codes: np.ndarray
    counts: np.ndarray
    sensitive: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return len(self.counts)

    def regroup(self, maps: list[np.ndarray], cards: list[int], sens_card: int = 0) -> ClassTable:
        """Recode key column j through ``maps[j]`` (to a coarser level with ``cards[j]`` values)
        and merge the rows that now agree."""
        offsets = np.cumsum([0] + [len(mp) for mp in maps[:-1]]).astype(np.int64)
        flat = np.concatenate(maps).astype(np.int64, copy=False) if maps else np.zeros(0, np.int64)
        return self._merge(flat, offsets, cards, sens_card)

    def roll_up(self, maps: LevelMaps, src, dst, sens_card: int = 0) -> ClassTable:
        """``regroup`` from levels ``src`` to the coarser ``dst``, with maps prepared once."""
        sens = self.sensitive if self.sensitive is not None else _NO_SENSITIVE
        fits, codes, counts, sens = _roll_up(
            self.codes,
            self.counts,
            sens,
            int(sens_card) if self.sensitive is not None else 0,
            maps.flat,
            maps.offsets,
            maps.card_array,
            np.asarray(src, dtype=np.int64),
            np.asarray(dst, dtype=np.int64),
        )
        if fits:
            return ClassTable(codes, counts, sens if self.sensitive is not None else None)
        offsets = np.array(
            [maps.offset[j][a][b] for j, (a, b) in enumerate(zip(src, dst, strict=True))],
            dtype=np.int64,
        )
        cards = [maps.cards[j][b] for j, b in enumerate(dst)]
        return self._merge(maps.flat, offsets, cards, sens_card)

    def _merge(self, flat: np.ndarray, offsets: np.ndarray, cards, sens_card: int) -> ClassTable:
        """Key column j is recoded by ``flat[offsets[j] + code]``; rows that agree are merged."""
        all_cards = list(cards) + ([sens_card] if self.sensitive is not None else [])
        span = _span(all_cards)
        if span is not None and self.rows:
            sens = self.sensitive if self.sensitive is not None else _NO_SENSITIVE
            codes, counts, sens = _regroup(
                self.codes,
                flat,
                offsets,
                np.asarray(cards, dtype=np.int64),
                sens,
                int(sens_card) if self.sensitive is not None else 0,
                self.counts,
                int(span),
            )
            return ClassTable(codes, counts, sens if self.sensitive is not None else None)
        cols = [flat[off + c] for off, c in zip(offsets, self.codes, strict=True)]
        cols += [self.sensitive] if self.sensitive is not None else []
        inverse, first, groups = group_keys(combine_codes(cols, all_cards), span)
        counts = np.bincount(inverse, weights=self.counts, minlength=groups).astype(np.int64)
        return ClassTable(
            codes=np.stack([c[first] for c in cols[: len(offsets)]]).astype(self.codes.dtype),
            counts=counts,
            sensitive=None if self.sensitive is None else self.sensitive[first],
        )

    def take(self, order: np.ndarray) -> ClassTable:
        """The rows in ``order`` (a compiled gather: numpy's fancy indexing of the key columns
        costs more than the sort that found the order)."""
        codes, counts = _take(self.codes, self.counts, np.asarray(order, dtype=np.int64))
        sens = None if self.sensitive is None else self.sensitive[order]
        return ClassTable(codes, counts, sens)

    def classes(self, cards: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
        """Class of each row (classes = distinct key codes), first row of each class, and the
        number of classes."""
        if self.sensitive is None:
            idx = np.arange(self.rows, dtype=np.int64)
            return idx, idx, self.rows
        return group_keys(combine_codes(self.codes, cards), _span(cards))
