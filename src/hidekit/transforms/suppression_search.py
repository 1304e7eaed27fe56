"""The search of local suppression, on classes rather than records.

Records with the same key codes (a class) are treated alike by every rule of the search but the
donors' top-up and the last all-blank fill, which take a few records out of a class. So the search
runs on *blocks*: runs of records of one class, in row order (block ``i`` covers ranks ``lo[i]`` to
``lo[i] + w[i] - 1`` of class ``cls[i]``), each with its current key codes (-1 where missing or
blanked). A class starts as one block; taking its first ``t`` records splits it in two.

The work is bounded by the number of distinct key combinations, not records, and both engines run
this very code: the default engine on classes it finds with numpy, the Spark engine on a
``GROUP BY`` of the keys (``hidekit.transforms.spark_suppression``), the blanks going back to the
records by a join. Classes are numbered in the order of their first record, and among records the
search prefers earlier ones, so the result does not depend on where it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.engines.codes import unique_rows

CATEGORY, WILDCARD = "category", "wildcard"


@dataclass
class Blocks:
    """Runs of records of one class each (see the module docstring)."""

    cls: np.ndarray
    lo: np.ndarray
    w: np.ndarray
    cur: np.ndarray

    @classmethod
    def of_classes(cls, codes: np.ndarray, counts: np.ndarray) -> Blocks:
        m = len(counts)
        return cls(np.arange(m), np.zeros(m, np.int64), counts.astype(np.int64), codes.copy())

    def add(self, parts: list[tuple[int, int, np.ndarray]]) -> None:
        """Split off, for each ``(block, t, codes)``, the block's first ``t`` records as a new
        block holding ``codes``; the rest stays in the old block."""
        if not parts:
            return
        src = np.array([p[0] for p in parts], dtype=np.int64)
        take = np.array([p[1] for p in parts], dtype=np.int64)
        new_lo = self.lo[src].copy()
        self.lo[src] += take
        self.w[src] -= take
        self.cls = np.concatenate([self.cls, self.cls[src]])
        self.lo = np.concatenate([self.lo, new_lo])
        self.w = np.concatenate([self.w, take])
        self.cur = np.vstack([self.cur, np.array([p[2] for p in parts], dtype=self.cur.dtype)])

    def order(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` in record order: by class (numbered by first record), then by rank."""
        return rows[np.lexsort((self.lo[rows], self.cls[rows]))]


def weighted_sizes(rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For each row, the weight of all rows equal to it (its cell's size in records)."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    inv, _ = unique_rows(rows)
    return np.bincount(inv, weights=w).astype(np.int64)[inv]


def class_table(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Records' key codes → (class codes, class sizes, class of each record), classes numbered in
    the order of their first record."""
    inv, counts = unique_rows(codes)
    _, first = np.unique(inv, return_index=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(len(by_first))
    return codes[first[by_first]], counts[by_first], rank[inv]


def record_codes(blocks: Blocks, record_class: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each record's codes after the search: its block found by the record's rank in its class."""
    n = len(record_class)
    by_class = np.argsort(record_class, kind="stable")  # records grouped by class, in row order
    start = np.cumsum(counts) - counts
    bstart = start[blocks.cls] + blocks.lo
    live = np.flatnonzero(blocks.w > 0)
    sb = live[np.argsort(bstart[live], kind="stable")]
    which = np.searchsorted(bstart[sb], np.arange(n), side="right") - 1
    out = np.empty((n, blocks.cur.shape[1]), dtype=blocks.cur.dtype)
    out[by_class] = blocks.cur[sb[which]]
    return out


def search(
    codes: np.ndarray,
    counts: np.ndarray,
    k: int,
    patterns: Sequence[tuple[int, ...]],
    missing: str,
    wildcard_counts,
) -> Blocks:
    """Blank patterns of keys (``patterns``: key positions, in the order to try them) in the
    classes still below k until each record matches k or more. ``wildcard_counts(target, codes,
    weights)`` counts matches under the wildcard rule."""
    b = Blocks.of_classes(codes, counts)
    sizes = (
        counts if missing == CATEGORY else wildcard_counts(codes, codes, weights=counts)
    ).astype(np.int64)
    pool = np.flatnonzero(sizes < k)  # classes below k, in the order of their first record
    spare = None
    for pattern in patterns:
        if pool.size == 0:
            break
        idx = np.asarray(pattern)
        cand = b.cur[pool].copy()
        cand[:, idx] = -1
        if missing == CATEGORY:
            # only blocks outside the pool, already missing in every blanked key, share the cell
            settled = np.ones(len(b.w), dtype=bool)
            settled[pool] = False
            settled &= (b.cur[:, idx] == -1).all(axis=1)
            rows = np.vstack([cand, b.cur[settled]])
            got = weighted_sizes(rows, np.concatenate([b.w[pool], b.w[settled]]))[: pool.size]
        else:  # blanks only ever add matches, so counting against the current state is safe
            got = wildcard_counts(cand, b.cur, weights=b.w)
        ok = got >= k
        if ok.any():
            b.cur[np.ix_(pool[ok], idx)] = -1
            pool, cand, got = pool[~ok], cand[~ok], got[~ok]
        # groups nearly big enough: topping them up with donors from cells larger than k costs
        # k·|P| cells, while sending the group on to larger patterns costs at least g·(|P|+1)
        near = got * (len(idx) + 1) > k * len(idx)
        if missing == CATEGORY and near.any():
            if spare is None:
                spare = counts.astype(np.int64) - k
            done = _top_up(b, cand[near], pool[near], got[near], idx, spare, k)
            pool = pool[~np.isin(pool, done)]
    if pool.size:
        b.cur[pool] = -1
        if missing == CATEGORY:
            _fill_all_blank(b, k)
    return b


def _top_up(b: Blocks, cand, members, got, idx, spare, k) -> np.ndarray:
    """Complete small pattern groups with donors: untouched records equal to the group on the
    other keys, from classes with more than k records (each gives at most size - k), classes with
    most to spare first, then the class met first, its earliest records first."""
    rest = [i for i in range(b.cur.shape[1]) if i not in set(idx.tolist())]
    names = [f"k{i}" for i in rest]
    groups = pd.DataFrame({f"k{i}": cand[:, i] for i in rest}).assign(_pos=members, _got=got)
    gid = (
        groups.groupby(names, sort=False).ngroup().to_numpy()
        if names
        else np.zeros(len(groups), int)
    )
    groups["_gid"] = gid
    untouched = ~(b.cur == -1).any(axis=1)
    untouched[members] = False
    donor = np.flatnonzero(untouched)
    donors = pd.DataFrame({f"k{i}": b.cur[donor, i] for i in rest}).assign(_donor=donor)
    heads = groups.drop_duplicates("_gid")[[*names, "_gid", "_got"]]
    pairs = (
        heads.merge(donors, on=names, how="inner") if names else heads.merge(donors, how="cross")
    )
    if pairs.empty:
        return np.array([], dtype=np.int64)
    d = pairs["_donor"].to_numpy()
    pairs = pairs.assign(_spare=spare[b.cls[d]], _cls=b.cls[d], _lo=b.lo[d])
    pairs = pairs.sort_values(
        ["_got", "_gid", "_spare", "_cls", "_lo"],
        ascending=[False, True, False, True, True],
        kind="stable",
    )
    done: list[int] = []
    parts: list[tuple[int, int, np.ndarray]] = []
    for g, part in pairs.groupby("_gid", sort=False):
        need = k - int(part["_got"].iloc[0])
        chosen: list[tuple[int, int]] = []
        taken: dict[int, int] = {}
        total = 0
        for blk in part["_donor"].tolist():
            c = int(b.cls[blk])
            t = min(int(b.w[blk]), int(spare[c]) - taken.get(c, 0), need - total)
            if t <= 0:
                continue
            chosen.append((blk, t))
            taken[c] = taken.get(c, 0) + t
            total += t
            if total == need:
                break
        if total < need:
            continue
        for blk, t in chosen:
            spare[b.cls[blk]] -= t
            row = b.cur[blk].copy()
            row[idx] = -1
            parts.append((blk, t, row))
        mine = groups.loc[gid == g, "_pos"].to_numpy()
        b.cur[np.ix_(mine, idx)] = -1
        done.extend(mine.tolist())
    b.add(parts)
    return np.asarray(done, dtype=np.int64)


def _take_first(b: Blocks, rows: np.ndarray, n: int) -> None:
    """Blank every key of the first ``n`` records of ``rows`` (in record order)."""
    parts = []
    for blk in b.order(rows):
        if n <= 0:
            break
        t = min(int(b.w[blk]), n)
        if t == b.w[blk]:
            b.cur[blk] = -1
        else:
            parts.append((int(blk), t, np.full(b.cur.shape[1], -1, dtype=b.cur.dtype)))
        n -= t
    b.add(parts)


def _fill_all_blank(b: Blocks, k: int) -> None:
    """If fewer than k records are blank in every key, move records there from the current cells:
    first the spare ones of cells larger than k (largest first), then whole cells (smallest first).
    Every other cell keeps k or more; with n ≥ k this always ends."""
    blank = (b.cur == -1).all(axis=1)
    short = k - int(b.w[blank].sum())
    if short <= 0:
        return
    free = np.flatnonzero(~blank & (b.w > 0))
    cell, _ = unique_rows(b.cur[free])
    sizes = np.bincount(cell, weights=b.w[free]).astype(np.int64)
    for c in np.argsort(-sizes, kind="stable"):
        give = min(int(sizes[c]) - k, short)
        if give > 0:
            _take_first(b, free[cell == c], give)
            short -= give
        if short <= 0:
            return
    left = np.flatnonzero(~(b.cur == -1).all(axis=1) & (b.w > 0))
    cell, _ = unique_rows(b.cur[left])
    sizes = np.bincount(cell, weights=b.w[left]).astype(np.int64)
    for c in np.argsort(sizes, kind="stable"):
        b.cur[left[cell == c]] = -1
        short -= int(sizes[c])
        if short <= 0:
            return
