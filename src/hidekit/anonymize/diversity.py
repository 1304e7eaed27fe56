"""l-diversity (distinct, entropy, recursive (c, l)) and t-closeness of equivalence classes.

Everything works on integer triplets (class id, sensitive code, weight), so Mondrian can test
thousands of candidate cuts in one vectorized call, and the same code checks a released table.
Definitions follow Machanavajjhala et al. (ICDE 2006) and Li, Li, Venkatasubramanian (ICDE 2007).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.errors import OptionError, require_columns

L_KINDS = ("distinct", "entropy", "recursive")
T_DISTANCES = ("equal", "ordered")


@dataclass(frozen=True)
class DiversityRule:
    """What "well represented" means: ``l`` and its kind (and ``c`` for recursive (c, l))."""

    l: int  # noqa: E741
    kind: str = "distinct"
    c: float | None = None

    def __post_init__(self):
        if self.kind not in L_KINDS:
            raise OptionError(
                f"unknown l-diversity kind {self.kind!r} (choose from {', '.join(L_KINDS)})"
            )
        if int(self.l) < 1:
            raise OptionError(f"l must be at least 1, got {self.l}")
        if self.kind == "recursive" and (self.c is None or float(self.c) <= 0):
            raise OptionError("recursive (c, l)-diversity needs c > 0 (--c)")

    def describe(self) -> str:
        if self.kind == "recursive":
            return f"recursive ({self.c:g}, {self.l})-diversity"
        return f"{self.kind} {self.l}-diversity"


def _class_value_counts(group, value, weight, n_groups):
    """Rows (class, value, count) sorted by class, one per distinct pair."""
    group = np.asarray(group, dtype=np.int64)
    value = np.asarray(value, dtype=np.int64)
    width = int(value.max()) + 1 if value.size else 1
    key = group * width + value
    uniq, inv = np.unique(key, return_inverse=True)
    w = np.ones(key.size) if weight is None else np.asarray(weight, dtype=np.float64)
    counts = np.bincount(inv.ravel(), weights=w, minlength=uniq.size)
    return uniq // width, uniq % width, counts


def group_diverse(group, value, weight, n_groups: int, rule: DiversityRule) -> np.ndarray:
    """For each class id in ``range(n_groups)``: does it satisfy ``rule``? Empty classes pass."""
    g, _, cnt = _class_value_counts(group, value, weight, n_groups)
    distinct = np.bincount(g, minlength=n_groups)
    if rule.kind == "distinct":
        ok = distinct >= rule.l
    elif rule.kind == "entropy":
        total = np.bincount(g, weights=cnt, minlength=n_groups)
        p = cnt / total[g]
        h = np.bincount(g, weights=-p * np.log(p), minlength=n_groups)
        ok = h >= np.log(rule.l) - 1e-12
    else:
        # r1 < c * (r_l + … + r_m), counts sorted in decreasing order within each class
        o = np.lexsort((-cnt, g))
        g, cnt = g[o], cnt[o]
        first = np.searchsorted(g, np.arange(n_groups))
        rank = np.arange(g.size) - first[g]
        r1 = np.zeros(n_groups)
        has = distinct > 0
        r1[has] = cnt[first[has]]
        tail = np.bincount(g, weights=np.where(rank >= rule.l - 1, cnt, 0.0), minlength=n_groups)
        c = float(rule.c or 0)  # set for recursive: DiversityRule checks it
        ok = (distinct >= rule.l) & (r1 < c * tail)
    return ok | (distinct == 0)


def class_ids(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Equivalence class id per record (missing values form a class value of their own)."""
    require_columns(frame.columns, list(keys))
    if not keys:
        return np.zeros(len(frame), dtype=np.int64)
    return frame.groupby(list(keys), sort=False, dropna=False).ngroup().to_numpy(np.int64)


def _codes(frame, sensitive):
    require_columns(frame.columns, [sensitive])
    return pd.factorize(frame[sensitive], use_na_sentinel=False)[0].astype(np.int64)


def l_diversity(frame: pd.DataFrame, keys: Sequence[str], sensitive: str) -> dict:
    """Achieved diversity of a released table: the smallest distinct count and the smallest
    entropy-l (exp of the class entropy) over its classes, and per-class figures for (c, l)."""
    g = class_ids(frame, keys)
    n_groups = int(g.max()) + 1 if g.size else 0
    gg, _, cnt = _class_value_counts(g, _codes(frame, sensitive), None, n_groups)
    distinct = np.bincount(gg, minlength=n_groups)
    total = np.bincount(gg, weights=cnt, minlength=n_groups)
    p = cnt / total[gg]
    h = np.bincount(gg, weights=-p * np.log(p), minlength=n_groups)
    return {
        "classes": n_groups,
        "distinct_l": int(distinct.min()) if n_groups else 0,
        "entropy_l": float(np.exp(h.min())) if n_groups else 0.0,
    }


def is_l_diverse(
    frame: pd.DataFrame,
    keys: Sequence[str],
    sensitive: str,
    l: int,  # noqa: E741
    kind: str = "distinct",
    c: float | None = None,
) -> bool:
    """Does every class of ``keys`` hold ``l`` well-represented values of ``sensitive``?"""
    rule = DiversityRule(int(l), kind, c)
    g = class_ids(frame, keys)
    n_groups = int(g.max()) + 1 if g.size else 0
    return bool(group_diverse(g, _codes(frame, sensitive), None, n_groups, rule).all())


def recursive_c_for(frame: pd.DataFrame, keys: Sequence[str], sensitive: str, l: int) -> float:  # noqa: E741
    """The table is recursive (c, l)-diverse for every c above this value (inf: for no c)."""
    g = class_ids(frame, keys)
    n_groups = int(g.max()) + 1 if g.size else 0
    gg, _, cnt = _class_value_counts(g, _codes(frame, sensitive), None, n_groups)
    o = np.lexsort((-cnt, gg))
    gg, cnt = gg[o], cnt[o]
    first = np.searchsorted(gg, np.arange(n_groups))
    rank = np.arange(gg.size) - first[gg]
    tail = np.bincount(gg, weights=np.where(rank >= l - 1, cnt, 0.0), minlength=n_groups)
    r1 = cnt[first]
    with np.errstate(divide="ignore"):
        ratio = np.where(tail > 0, r1 / np.where(tail > 0, tail, 1), np.inf)
    return float(ratio.max()) if n_groups else 0.0


def t_closeness(
    frame: pd.DataFrame,
    keys: Sequence[str],
    sensitive: str,
    distance: str = "equal",
    order: Sequence | None = None,
) -> float:
    """Largest Earth Mover's Distance between a class's sensitive distribution and the table's.

    ``equal``: every pair of values is at distance 1 (EMD = half the L1 distance).
    ``ordered``: values on a line (numeric order, or ``order``), EMD = Σ|cumulative difference|/(m-1).
    """
    if distance not in T_DISTANCES:
        raise OptionError(f"unknown t-closeness distance {distance!r} (choose from equal, ordered)")
    require_columns(frame.columns, [sensitive])
    s = frame[sensitive]
    if order is not None:
        cats = list(order)
        unknown = set(s.dropna().unique()) - set(cats)
        if unknown:
            raise OptionError(f"order for {sensitive!r} misses {sorted(map(str, unknown))[:5]}")
        codes = pd.Categorical(s, categories=cats).codes.astype(np.int64)
        m = len(cats)
    else:
        uniq = np.sort(s.dropna().unique()) if distance == "ordered" else s.dropna().unique()
        codes = pd.Categorical(s, categories=uniq).codes.astype(np.int64)
        m = len(uniq)
    if (codes < 0).any():
        codes = np.where(codes < 0, m, codes)  # missing: one more value, at the end of the line
        m += 1
    g = class_ids(frame, keys)
    n_groups = int(g.max()) + 1 if g.size else 0
    if n_groups == 0 or m <= 1:
        return 0.0
    counts = np.bincount(g * m + codes, minlength=n_groups * m).reshape(n_groups, m).astype(float)
    p = counts / counts.sum(axis=1, keepdims=True)
    q = counts.sum(axis=0) / counts.sum()
    if distance == "equal":
        d = 0.5 * np.abs(p - q).sum(axis=1)
    else:
        d = np.abs(np.cumsum(p - q, axis=1)).sum(axis=1) / (m - 1)
    return float(d.max())
