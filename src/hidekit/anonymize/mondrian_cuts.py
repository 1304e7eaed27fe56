"""The Mondrian cutter (LeFevre, DeWitt, Ramakrishnan, ICDE 2006): keys as integer codes, one
cut per class for many classes at once, and the generalized value of each class.

Top-down: a class is cut on the key with the widest normalized range among those that allow a
cut; numeric and ordered keys at the median, hierarchical keys into the children of the smallest
hierarchy node covering the class. A cut is allowable when every side is k-anonymous (and
l-diverse when asked). A class is final when no key allows a cut.

Speed: all classes of one level are cut together with numpy on integer codes. Records of a
class occupy one contiguous slice of a permutation; sorting a slice by (class, code) gives both
the median and the children's slices, so no record is ever touched by Python code.

Shared by the local transform (``hidekit.anonymize.mondrian``) and the Spark one
(``hidekit.anonymize.spark_mondrian``), which therefore do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hidekit.anonymize.diversity import DiversityRule, group_diverse
from hidekit.errors import InputError, OptionError, require_columns
from hidekit.io.hierarchy import Hierarchy

NUMERIC, ORDERED, HIERARCHY = "numeric", "ordered", "hierarchy"


# Keys as integer codes ------------------------------------------------------------------------
@dataclass
class Dimension:
    """One key as integer codes ``0..card-1`` in its order, with what labels and spreads need."""

    name: str
    kind: str
    codes: np.ndarray
    values: list
    num: np.ndarray | None = None  # numeric: the value of each code
    anc: np.ndarray | None = None  # hierarchy: node id per level (0 = value) and code
    labels: list | None = None  # hierarchy: node label per level and code
    span: np.ndarray | None = None  # hierarchy: (values under the node - 1) per level and code

    @property
    def card(self) -> int:
        return len(self.values)

    def lca(self, cmin: np.ndarray, cmax: np.ndarray) -> np.ndarray:
        """Level of the smallest node covering codes cmin..cmax (contiguous by construction)."""
        assert self.anc is not None  # a hierarchy key
        return np.argmax(self.anc[:, cmin] == self.anc[:, cmax], axis=0)

    def spread(self, cmin: np.ndarray, cmax: np.ndarray) -> np.ndarray:
        """Normalized range of a class on this key, in [0, 1]."""
        if self.kind == NUMERIC:
            assert self.num is not None
            width = float(self.num[-1] - self.num[0])
            return (self.num[cmax] - self.num[cmin]) / width if width > 0 else np.zeros(cmin.size)
        denom = max(self.card - 1, 1)
        if self.kind == ORDERED:
            return (cmax - cmin) / denom
        assert self.span is not None  # a hierarchy key
        return self.span[self.lca(cmin, cmax), cmin] / denom


def format_value(v) -> str:
    """How a value is written in a release (integral floats without ``.0``)."""
    if isinstance(v, (float, np.floating)):
        return str(int(v)) if float(v).is_integer() else repr(float(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


def refuse_missing(name: str, count: int) -> None:
    if count:
        raise InputError(
            f"key {name!r} has {count:,} missing value(s): Mondrian cannot place a missing value "
            "inside a range; fill them (e.g. with 'unknown') or drop those records"
        )


def encode_key(
    series: pd.Series, name: str, hierarchy: Hierarchy | None = None, order: Sequence | None = None
) -> Dimension:
    """Integer codes of a key: hierarchy leaf order, user order, numeric order, or sorted text."""
    numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
    if numeric and hierarchy is None and order is None:
        arr = series.to_numpy()
        refuse_missing(name, int(pd.isna(arr).sum()) if arr.dtype.kind in "fO" else 0)
        uniq, inv = np.unique(arr, return_inverse=True)
        return Dimension(
            name, NUMERIC, inv.ravel().astype(np.int64), list(uniq), num=uniq.astype(np.float64)
        )
    first, uniq = pd.factorize(series)  # work on the distinct values, then map back
    refuse_missing(name, int((first < 0).sum()))
    uniq = list(uniq)
    if hierarchy is not None:
        text = [format_value(u) for u in uniq]
        values, anc, labels = hierarchy.encode(sorted(set(text)), name)
        position = {v: i for i, v in enumerate(values)}
        code_of = np.array([position[t] for t in text], dtype=np.int64)
        span = np.empty(anc.shape, dtype=np.int64)
        for lev in range(anc.shape[0]):
            _, inv, cnt = np.unique(anc[lev], return_inverse=True, return_counts=True)
            span[lev] = cnt[inv.ravel()] - 1
        return Dimension(
            name, HIERARCHY, code_of[first], list(values), anc=anc, labels=labels, span=span
        )
    if order is not None:
        values = list(order)
        position = {v: i for i, v in enumerate(values)}
        bad = sorted(str(u) for u in uniq if u not in position)
        if bad:
            raise OptionError(f"order for {name!r} does not list: {', '.join(bad[:5])}")
        return Dimension(name, ORDERED, np.array([position[u] for u in uniq])[first], values)
    by_text = np.argsort(np.array([str(u) for u in uniq], dtype=object), kind="stable")
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[by_text] = np.arange(len(uniq))
    return Dimension(name, ORDERED, rank[first], [uniq[i] for i in by_text])


# One cut per class, for many classes at once ---------------------------------------------------
@dataclass
class Cuts:
    """Result of trying one key on a batch of classes (local ids 0..n-1)."""

    ok: np.ndarray  # allowable cut found
    cut: np.ndarray  # numeric/ordered: left side = codes <= cut; hierarchy: level of the split node
    # empty where the kind of key does not use them
    left: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # numeric/ordered
    group_part: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # hierarchy
    group_size: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))


def _runs(*cols: np.ndarray) -> np.ndarray:
    """Start flags of runs of equal tuples in already sorted columns."""
    new = np.empty(cols[0].size, dtype=bool)
    new[:1] = True
    new[1:] = False
    for c in cols:
        new[1:] |= c[1:] != c[:-1]
    return new


def evaluate_cuts(
    dim: Dimension,
    p: np.ndarray,
    c: np.ndarray,
    s: np.ndarray | None,
    w: np.ndarray,
    n_parts: int,
    k: int,
    rule: DiversityRule | None,
) -> Cuts:
    """Best allowable cut on ``dim`` for each class, from weighted rows sorted by (p, c, s).

    Rows are (class, code, sensitive code, count): records counted locally, or counts aggregated
    by Spark, so the driver and the workers share this one function.
    """
    new = _runs(p, c)
    st = np.flatnonzero(new)
    rp, rc = p[st], c[st]
    rw = np.add.reduceat(w, st)
    ids = np.arange(n_parts)
    first = np.searchsorted(rp, ids, "left")
    last = np.searchsorted(rp, ids, "right") - 1
    tot = np.bincount(rp, weights=rw, minlength=n_parts).astype(np.int64)
    if dim.kind == HIERARCHY:
        lev = dim.lca(rc[first], rc[last])
        assert dim.anc is not None
        child = dim.anc[np.maximum(lev[rp] - 1, 0), rc]
        gnew = _runs(rp, child)
        gid = np.cumsum(gnew) - 1
        gsize = np.bincount(gid, weights=rw).astype(np.int64)
        gpart = rp[gnew]
        gok = gsize >= k
        if rule is not None:
            gok &= group_diverse(gid[np.cumsum(new) - 1], s, w, gsize.size, rule)
        bad = np.bincount(gpart, weights=~gok, minlength=n_parts)
        return Cuts(ok=(lev > 0) & (bad == 0), cut=lev, group_part=gpart, group_size=gsize)
    cum = np.cumsum(rw)
    base = cum[first] - rw[first]
    r = np.clip(np.searchsorted(2 * cum, 2 * base + tot, "left"), first, last)  # median row
    left_a, left_b = cum[r] - rw[r] - base, cum[r] - base  # median value goes right / left
    ok_a = (r > first) & (left_a >= k) & (tot - left_a >= k)
    ok_b = (r < last) & (left_b >= k) & (tot - left_b >= k)
    t_a, t_b = rc[np.maximum(r - 1, 0)], rc[r]
    if rule is not None:
        for ok, t in ((ok_a, t_a), (ok_b, t_b)):
            side_ok = group_diverse(2 * p + (c > t[p]), s, w, 2 * n_parts, rule)
            ok &= side_ok[0::2] & side_ok[1::2]
    bal_a = np.minimum(left_a, tot - left_a)
    bal_b = np.minimum(left_b, tot - left_b)
    use_b = ok_b & (~ok_a | (bal_b > bal_a))
    return Cuts(ok=ok_a | ok_b, cut=np.where(use_b, t_b, t_a), left=np.where(use_b, left_b, left_a))


@dataclass
class Classes:
    """Final classes: ``perm`` lists records class after class, class i from ``starts[i]``."""

    record_class: np.ndarray
    sizes: np.ndarray
    perm: np.ndarray
    starts: np.ndarray


def _gather(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Positions covered by the slices (starts, lens), slice after slice."""
    offsets = np.cumsum(lens) - lens
    return np.repeat(starts - offsets, lens) + np.arange(int(lens.sum()))


def partition(
    dims: Sequence[Dimension],
    k: int,
    sens: np.ndarray | None = None,
    rule: DiversityRule | None = None,
    on_level: Callable[[int], None] | None = None,
    weights: np.ndarray | None = None,
) -> Classes:
    """Strict Mondrian over coded keys: the equivalence classes it ends with.

    Rows are records, or with ``weights`` distinct combinations (of the keys, and the sensitive
    value when a ``rule`` is given) standing for ``weights[i]`` records each. Strict Mondrian
    cuts on key codes, so records with the same keys always fall on the same side: cutting the
    combinations gives the same classes, in the same order, as cutting the records
    (``record_class`` is then per combination and ``sizes`` count records)."""
    n = dims[0].codes.size if dims else 0
    wt = None if weights is None else np.asarray(weights, dtype=np.int64)
    perm = np.arange(n)
    act_s, act_l = np.array([0]), np.array([n])
    act_w = act_l if wt is None else np.array([int(wt.sum())])
    fin_s, fin_l = [], []
    n_sens = int(sens.max()) + 1 if sens is not None and sens.size else 1
    small_codes = all(d.card < 2**31 for d in dims)
    matrix = np.column_stack([d.codes for d in dims]).astype(np.int32 if small_codes else np.int64)
    total = n if wt is None else int(wt.sum())
    while act_s.size:
        small = act_w < 2 * k
        fin_s.append(act_s[small])
        fin_l.append(act_l[small])
        act_s, act_l, act_w = act_s[~small], act_l[~small], act_w[~small]
        if not act_s.size:
            break
        sub = matrix[perm[_gather(act_s, act_l)]]  # one gather brings every key of a record
        seg = np.cumsum(act_l) - act_l
        lo, hi = np.minimum.reduceat(sub, seg, axis=0), np.maximum.reduceat(sub, seg, axis=0)
        del sub
        spreads = np.column_stack([d.spread(lo[:, i], hi[:, i]) for i, d in enumerate(dims)])
        rank = np.argsort(-spreads, axis=1, kind="stable")
        pending = np.ones(act_s.size, dtype=bool)
        new_s: list[np.ndarray] = []
        new_l: list[np.ndarray] = []
        new_w: list[np.ndarray] = []
        for r in range(len(dims)):
            for di, dim in enumerate(dims):
                sel = np.flatnonzero(pending & (rank[:, r] == di) & (spreads[:, di] > 0))
                if not sel.size:
                    continue
                done, pieces = _cut_on(
                    dim, perm, act_s[sel], act_l[sel], act_w[sel], wt, sens, n_sens, k, rule
                )
                for acc, piece in zip((new_s, new_l, new_w), pieces, strict=True):
                    acc += piece
                pending[sel[done]] = False
        fin_s.append(act_s[pending])
        fin_l.append(act_l[pending])
        act_s = np.concatenate(new_s) if new_s else np.array([], dtype=np.int64)
        act_l = np.concatenate(new_l) if new_l else np.array([], dtype=np.int64)
        act_w = act_l if wt is None else _concat(new_w)
        if on_level:
            on_level(int(total - act_w.sum()))
    fs, fl = np.concatenate(fin_s), np.concatenate(fin_l)
    o = np.argsort(fs)
    fs, fl = fs[o], fl[o]
    record_class = np.empty(n, dtype=np.int64)
    record_class[perm] = np.repeat(np.arange(fs.size), fl)
    sizes = fl if wt is None else np.bincount(record_class, weights=wt, minlength=fs.size)
    return Classes(record_class, sizes.astype(np.int64, copy=False), perm, fs)


def _cut_on(
    dim: Dimension,
    perm: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    weight: np.ndarray,
    wt: np.ndarray | None,
    sens: np.ndarray | None,
    sens_card: int,
    k: int,
    rule: DiversityRule | None,
) -> tuple[np.ndarray, tuple[list, list, list]]:
    """Cut the classes at slices (``starts``, ``lens``) of ``perm`` on ``dim`` where allowed
    (their slices are sorted in place): which were cut, and the children's starts, rows and
    records (``weight``: records per class, ``wt``: records per row, None when rows are
    records)."""
    n_sens = int(sens_card)
    pos = _gather(starts, lens)
    srec = perm[pos]
    lp = np.repeat(np.arange(starts.size), lens)
    key = lp * dim.card + dim.codes[srec]
    if rule is not None and sens is not None:
        key = key * n_sens + sens[srec]
    o = np.argsort(key)
    srec, key = srec[o], key[o]
    perm[pos] = srec  # each class's slice now in (code, sensitive) order
    st = np.flatnonzero(_runs(key))
    ukey = key[st]
    if wt is None:
        w = np.diff(np.append(st, key.size))
    else:
        w = np.add.reduceat(wt[srec], st) if st.size else np.zeros(0, np.int64)
    s = None
    if rule is not None:
        s, ukey = ukey % n_sens, ukey // n_sens
    cuts = evaluate_cuts(dim, ukey // dim.card, ukey % dim.card, s, w, starts.size, k, rule)
    done = cuts.ok
    if dim.kind == HIERARCHY:
        keep = done[cuts.group_part]
        gpart, gsize = cuts.group_part[keep], cuts.group_size[keep]
        grows = gsize if wt is None else _group_rows(dim, key, lp, n_sens, rule)[keep]
        within = np.cumsum(grows) - grows
        first = np.searchsorted(gpart, gpart, "left")
        return done, ([starts[gpart] + within - within[first]], [grows], [gsize])
    left = cuts.left[done]
    rows_left = left
    if wt is not None:
        rows_left = _rows_left(key, starts.size, dim.card, cuts.cut, lens, n_sens, rule)[done]
    return done, (
        [starts[done], starts[done] + rows_left],
        [rows_left, lens[done] - rows_left],
        [left, weight[done] - left],
    )


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64) if parts else np.array([], dtype=np.int64)


def _rows_left(
    key: np.ndarray, n_parts: int, card: int, cut: np.ndarray, lens, n_sens: int, rule
) -> np.ndarray:
    """Rows (combinations) of each class on the left of its cut (codes <= cut), from the sorted
    (class, code[, sensitive]) keys of the batch."""
    bound = np.arange(n_parts, dtype=np.int64) * card + cut.astype(np.int64) + 1
    if rule is not None:
        bound = bound * n_sens
    return np.searchsorted(key, bound, "left") - (np.cumsum(lens) - lens)


def _group_rows(dim: Dimension, key: np.ndarray, lp: np.ndarray, n_sens: int, rule) -> np.ndarray:
    """Rows (combinations) of each child group of a hierarchy cut, in ``evaluate_cuts``'s group
    order (runs of (class, child node) over the sorted keys)."""
    assert dim.anc is not None
    code = (key // n_sens if rule is not None else key) % dim.card
    first = np.searchsorted(lp, np.arange(int(lp.max()) + 1 if lp.size else 0), "left")
    last = np.searchsorted(lp, np.arange(first.size), "right") - 1
    lev = dim.lca(code[first], code[last])
    child = dim.anc[np.maximum(lev[lp] - 1, 0), code]
    gid = np.cumsum(_runs(lp, child)) - 1
    return np.bincount(gid).astype(np.int64)


# Generalized values --------------------------------------------------------------------------
def class_labels(dim: Dimension, classes: Classes) -> np.ndarray:
    """The released value of each class on ``dim``: ``[lo-hi]``, ``{a,b}``, a node label or the value."""
    cc = dim.codes[classes.perm]
    st = classes.starts
    cmin, cmax = np.minimum.reduceat(cc, st), np.maximum.reduceat(cc, st)
    names = [format_value(v) for v in dim.values]
    if dim.kind == NUMERIC:
        pair, inv = np.unique(cmin * dim.card + cmax, return_inverse=True)
        text = [
            names[a] if a == b else f"[{names[a]}-{names[b]}]"
            for a, b in zip((pair // dim.card).tolist(), (pair % dim.card).tolist(), strict=True)
        ]
        return np.array(text, dtype=object)[inv.ravel()]
    if dim.kind == HIERARCHY:
        lev = dim.lca(cmin, cmax)
        assert dim.labels is not None
        return np.array([dim.labels[j][a] for j, a in zip(lev, cmin, strict=True)], dtype=object)
    if dim.card <= 62:  # the set of values of a class as a bit mask: one label per distinct set
        masks = np.bitwise_or.reduceat(np.left_shift(np.int64(1), cc), st)
        uniq, inv = np.unique(masks, return_inverse=True)
        text = [_set_label([names[i] for i in range(dim.card) if (int(m) >> i) & 1]) for m in uniq]
        return np.array(text, dtype=object)[inv.ravel()]
    pairs = np.unique(classes.record_class * dim.card + dim.codes)
    cls, code = pairs // dim.card, pairs % dim.card
    bounds = np.append(np.flatnonzero(_runs(cls)), cls.size)
    return np.array(
        [
            _set_label([names[x] for x in code[a:b]])
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ],
        dtype=object,
    )


def _set_label(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "{" + ",".join(names) + "}"


def check_params(columns, n: int, sensitive_counts, keys, k, l, sensitive, l_kind, c):  # noqa: E741
    """The keys and the diversity rule, after the checks both engines make; a table of ``n``
    records with ``columns``, ``sensitive_counts()`` the records of each sensitive value."""
    keys = list(keys)
    if not keys:
        raise OptionError("give at least one key (quasi-identifier)")
    if len(set(keys)) != len(keys):
        raise OptionError("a key is listed twice")
    require_columns(columns, keys + ([sensitive] if sensitive else []))
    if int(k) < 1:
        raise OptionError(f"k must be at least 1, got {k}")
    if n == 0:
        raise InputError("the data has no records")
    if int(k) > n:
        raise InputError(
            f"k = {k} is larger than the number of records ({n:,}): no class can be that large"
        )
    if l is None:
        return keys, None
    if not sensitive:
        raise OptionError("l-diversity needs a sensitive column (--sensitive)")
    if sensitive in keys:
        raise OptionError(f"{sensitive!r} cannot be both a key and the sensitive column")
    rule = DiversityRule(int(l), l_kind, c)
    counts = np.asarray(sensitive_counts(), dtype=np.int64)
    values = np.arange(len(counts))
    if not group_diverse(np.zeros(len(counts), np.int64), values, counts, 1, rule)[0]:
        raise InputError(
            f"the whole table does not meet {rule.describe()} on {sensitive!r} "
            f"({len(counts):,} distinct value(s)), so no release can be"
        )
    return keys, rule
