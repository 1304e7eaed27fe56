"""Local suppression: blank as few key cells as possible until every record matches k or more.

How a suppressed (missing) value matches others is a choice, made by ``missing``:

- ``category`` (default): missing is a value of its own, the rule of every hidekit engine and risk
  figure. The k promised here is the k that ``hidekit risk`` and a release plan's risk limit
  measure afterwards, checked with the engine interface, and it never credits a blank with records
  that show a value. It costs more cells.
- ``wildcard``: sdcMicro's ``localSuppression`` rule, a missing value (on either side) matches any
  value. A blank then hides a record among all records that agree on its other keys, so fewer
  cells are needed; but the result is not k-anonymous under the ``category`` reading, and a
  release plan (which measures with the engine) will say so.

The search. Records that already match k or more are never touched. The others (the pool) are
tried against suppression patterns, the sets of keys to blank, in order of size (one cell per
record first) and, among patterns of one size, least important keys first. A pool record takes the
first pattern under which it matches k or more, counting records already settled; matches only
grow as records join (and, under ``wildcard``, as blanks are added), so a settled record stays
safe. Under ``category``, a group that falls just short is topped up with donors from cells larger
than k when that costs fewer cells than the next pattern size. The result is checked at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.engines import COUNT_COLUMN, make_engine
from hidekit.engines.codes import unique_rows
from hidekit.errors import OptionError, PolicyError
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import as_columns
from hidekit.transforms.loss import DEFAULT_MAX_LOSS, VariableLoss, loss_summary, require_max_loss

CATEGORY, WILDCARD = "category", "wildcard"
MISSING_RULES = {
    CATEGORY: "a suppressed (missing) value is a category of its own when k is checked",
    WILDCARD: "a missing value matches any value when k is checked (sdcMicro's rule)",
}


@dataclass
class SuppressionResult:
    frame: pd.DataFrame
    keys: list[str]
    k: int
    importance: list[str]
    suppressed: dict[str, int] = field(default_factory=dict)
    records_touched: int = 0
    at_risk_before: int = 0
    k_before: int = 0
    k_after: int = 0
    missing: str = "category"
    max_loss: float = DEFAULT_MAX_LOSS  # warn when a key loses more of its cells

    @property
    def total(self) -> int:
        return int(sum(self.suppressed.values()))

    @property
    def loss(self) -> list[VariableLoss]:
        """Information lost per key: suppression only blanks cells, it never changes one."""
        n = len(self.frame)
        return [VariableLoss(c, n, int(self.suppressed.get(c, 0)), 0) for c in self.keys]

    def to_dict(self) -> dict:
        return {
            "keys": self.keys,
            "k": self.k,
            "importance": self.importance,
            "suppressed": self.suppressed,
            "total_suppressed": self.total,
            "records_touched": self.records_touched,
            "at_risk_before": self.at_risk_before,
            "k_before": self.k_before,
            "k_after": self.k_after,
            "missing": self.missing,
            "missing_rule": MISSING_RULES[self.missing],
            "information_loss": loss_summary(self.loss, self.max_loss),
        }


def default_importance(frame: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    """Most important first. By default variables with fewer distinct values are kept longer:
    a blank in a many-valued variable (age) merges records most readily."""
    card = {k: frame[k].nunique(dropna=True) for k in keys}
    return sorted(keys, key=lambda k: (card[k], list(keys).index(k)))


def _patterns(keys_least_first: list[str]):
    """Sets of keys to blank: by size, then least important first (lexicographic on rank)."""
    for size in range(1, len(keys_least_first) + 1):
        yield from combinations(keys_least_first, size)


def key_codes(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Integer code per key value, -1 for missing: one small matrix for the whole search."""
    return np.column_stack(
        [pd.factorize(frame[c].astype(object), use_na_sentinel=True)[0] for c in keys]
    ).astype(np.int64)


def _frame(codes: np.ndarray, cols: Sequence[int]) -> pd.DataFrame:
    return pd.DataFrame({f"k{i}": codes[:, i] for i in cols})


def _cell_sizes(codes: np.ndarray, engine: str) -> np.ndarray:
    """Cell size of each row, -1 (missing) being a value: asked of the engine."""
    cols = list(range(codes.shape[1]))
    return make_engine(_frame(codes, cols), engine).record_cell_sizes([f"k{i}" for i in cols])


def _pattern_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct missing patterns (as boolean rows) and each row's pattern index."""
    bits = (codes == -1).astype(np.int64) @ (1 << np.arange(codes.shape[1], dtype=np.int64))
    ids, inverse = np.unique(bits, return_inverse=True)
    masks = ((ids[:, None] >> np.arange(codes.shape[1])) & 1).astype(bool)
    return masks, inverse.ravel()


def wildcard_counts(target: np.ndarray, codes: np.ndarray, engine: str = "duckdb") -> np.ndarray:
    """For each target row, how many rows of ``codes`` it matches when a missing value (-1), on
    either side, matches anything (sdcMicro's rule). Counted per pair of missing patterns, with
    one engine over ``codes`` asked for the cells of the keys both patterns show."""
    out = np.zeros(len(target), dtype=np.int64)
    tpat, tinv = _pattern_ids(target)
    fpat, finv = _pattern_ids(codes)
    table = _frame(codes, range(codes.shape[1])).assign(_q=finv)
    eng = make_engine(table, engine)
    per_q = np.bincount(finv, minlength=len(fpat))
    cache: dict[tuple, pd.DataFrame] = {}
    for p, pmask in enumerate(tpat):
        trows = np.flatnonzero(tinv == p)
        for q, qmask in enumerate(fpat):
            vis = [i for i in range(codes.shape[1]) if not pmask[i] and not qmask[i]]
            if not vis:
                out[trows] += per_q[q]
                continue
            names = [f"k{i}" for i in vis]
            if tuple(vis) not in cache:
                cache[tuple(vis)] = eng.cell_counts(["_q", *names])
            counts = cache[tuple(vis)]
            counts = counts.loc[counts["_q"] == q, [*names, COUNT_COLUMN]]
            hit = _frame(target[trows], vis).merge(counts, on=names, how="left")
            out[trows] += hit[COUNT_COLUMN].fillna(0).to_numpy(dtype=np.int64)
    return out


def record_k(
    frame: pd.DataFrame, keys: Sequence[str], missing: str = CATEGORY, engine: str = "duckdb"
) -> np.ndarray:
    """For each record, how many records it matches on ``keys`` under the ``missing`` rule."""
    if missing == CATEGORY:
        return make_engine(frame, engine).record_cell_sizes(list(keys))
    codes = key_codes(frame, keys)
    return wildcard_counts(codes, codes, engine)


def local_suppression(
    frame: pd.DataFrame,
    keys: Sequence[str],
    k: int = 5,
    importance: Sequence[str] | None = None,
    *,
    engine: str = "duckdb",
    max_keys: int = 16,
    missing: str = CATEGORY,
    max_loss: float = DEFAULT_MAX_LOSS,
) -> SuppressionResult:
    """Blank key cells until every record matches k or more (see the module docstring). The
    result states the share of cells blanked per key and warns above ``max_loss``."""
    keys = as_columns(keys)
    max_loss = require_max_loss(max_loss)
    k = _check_options(frame, keys, k, engine, max_keys, missing)
    order = _importance_order(frame, keys, importance)
    n = len(frame)
    result = SuppressionResult(
        frame=frame.copy(),
        keys=keys,
        k=k,
        importance=order,
        suppressed={c: 0 for c in keys},
        missing=missing,
        max_loss=max_loss,
    )
    if n == 0:
        return result
    codes = key_codes(frame, keys)
    sizes = (
        _cell_sizes(codes, engine) if missing == CATEGORY else wildcard_counts(codes, codes, engine)
    )
    result.k_before = int(sizes.min())
    result.at_risk_before = int((sizes < k).sum())
    if result.at_risk_before == 0:
        result.k_after = result.k_before
        return result
    if n < k:
        raise PolicyError(f"suppress: {n} records cannot be {k}-anonymous, whatever is suppressed")
    cur = _suppress_codes(codes, sizes, k, order, keys, missing, engine)
    _apply_blanks(result, codes, cur, engine)
    return result


def _check_options(
    frame: pd.DataFrame, keys: list[str], k: int, engine: str, max_keys: int, missing: str
) -> int:
    """k as an int, after checking the missing rule, k, the keys and their number."""
    if missing not in MISSING_RULES:
        raise OptionError(
            f"suppress: missing must be one of {', '.join(MISSING_RULES)}, got {missing!r}"
        )
    if int(k) < 1:
        raise OptionError(f"suppress: k must be at least 1, got {k}")
    make_engine(frame, engine).check_keys(keys)
    if len(keys) > max_keys:
        raise OptionError(f"suppress: {len(keys)} keys is more than {max_keys}; reduce the key set")
    return int(k)


def _importance_order(
    frame: pd.DataFrame, keys: list[str], importance: Sequence[str] | None
) -> list[str]:
    """The keys from most to least important: the given ones first, then the default order."""
    if importance is None:
        return default_importance(frame, keys)
    order = list(importance)
    unknown = [v for v in order if v not in keys]
    if unknown:
        raise OptionError(f"suppress: importance names variables that are not keys: {unknown}")
    return order + [v for v in default_importance(frame, keys) if v not in order]


def _suppress_codes(
    codes: np.ndarray,
    sizes: np.ndarray,
    k: int,
    order: list[str],
    keys: list[str],
    missing: str,
    engine: str,
) -> np.ndarray:
    """The key codes with -1 where a cell is missing or blanked: patterns of keys (least
    important first) are blanked in the records still below k until each matches k or more."""
    n = codes.shape[0]
    cur = codes.copy()  # current state: -1 where missing or suppressed
    pool = np.flatnonzero(sizes < k)  # positions of records still below k
    col = {c: i for i, c in enumerate(keys)}
    cell_of, spare = None, {}
    for pattern in _patterns(order[::-1]):
        if pool.size == 0:
            break
        idx = [col[c] for c in pattern]
        cand = cur[pool].copy()
        cand[:, idx] = -1
        if missing == CATEGORY:
            # only records outside the pool, already missing in every blanked key, can share the cell
            settled = np.ones(n, dtype=bool)
            settled[pool] = False
            settled &= (cur[:, idx] == -1).all(axis=1)
            got = _cell_sizes(np.vstack([cand, cur[settled]]), engine)[: pool.size]
        else:
            # blanks only ever add matches, so counting against the current state is safe
            got = wildcard_counts(cand, cur, engine)
        ok = got >= k
        if ok.any():
            cur[np.ix_(pool[ok], np.asarray(idx))] = -1
            pool, cand, got = pool[~ok], cand[~ok], got[~ok]
        # groups nearly big enough: topping them up with donors from cells larger than k costs
        # k·|P| cells, while sending the group on to larger patterns costs at least g·(|P|+1)
        near = got * (len(idx) + 1) > k * len(idx)
        if missing == CATEGORY and near.any():
            if cell_of is None:
                cell_of, spare = _spare(codes, sizes, k)
            done = _top_up(cur, cand[near], pool[near], got[near], idx, cell_of, spare, k)
            pool = pool[~np.isin(pool, done)]
    if pool.size:
        cur[pool] = -1
        if missing == CATEGORY:
            _fill_all_blank(cur, k)
    return cur


def _apply_blanks(
    result: SuppressionResult, codes: np.ndarray, cur: np.ndarray, engine: str
) -> None:
    """Blank in ``result.frame`` the cells ``cur`` blanks (not those missing already), count
    them, and check that every record now matches k or more."""
    k, keys, missing = result.k, result.keys, result.missing
    blank = (cur == -1) & ~(codes == -1)  # a blank over a missing value changes nothing
    out = result.frame
    for c, i in {c: i for i, c in enumerate(keys)}.items():
        rows = np.flatnonzero(blank[:, i])
        result.suppressed[c] = int(rows.size)
        if rows.size:
            out[c] = with_missing(out[c], rows)
    result.records_touched = int(blank.any(axis=1).sum())
    counts = record_k(out, keys, missing, engine)
    result.k_after = int(counts.min())
    if result.k_after < k:
        raise PolicyError(
            f"suppress: internal check failed, {int((counts < k).sum())} records "
            f"still match fewer than k={k}"
        )


def _spare(codes: np.ndarray, sizes: np.ndarray, k: int):
    """Cell id of each record and how many records each cell can give away and stay ≥ k."""
    cell_of, _ = unique_rows(codes)
    return cell_of, dict(zip(cell_of.tolist(), (sizes - k).tolist(), strict=True))


def _top_up(cur, cand, members, got, idx, cell_of, spare, k) -> np.ndarray:
    """Complete small pattern groups with donors: untouched records equal to the group on the
    other keys, taken from cells with more than k records (each cell gives at most size - k)."""
    rest = [i for i in range(cur.shape[1]) if i not in idx]
    names = [f"k{i}" for i in rest]
    groups = _frame(cand, rest).assign(_pos=members, _got=got)
    gid = (
        groups.groupby(names, sort=False).ngroup().to_numpy()
        if names
        else np.zeros(len(groups), int)
    )
    groups["_gid"] = gid
    untouched = ~(cur == -1).any(axis=1)
    untouched[members] = False
    donors = _frame(cur[untouched], rest).assign(_donor=np.flatnonzero(untouched))
    heads = groups.drop_duplicates("_gid")[[*names, "_gid", "_got"]]
    pairs = (
        heads.merge(donors, on=names, how="inner") if names else heads.merge(donors, how="cross")
    )
    if pairs.empty:
        return np.array([], dtype=np.int64)
    pairs["_spare"] = [spare[cell_of[d]] for d in pairs["_donor"]]
    pairs = pairs.sort_values(
        ["_got", "_gid", "_spare", "_donor"], ascending=[False, True, False, True], kind="stable"
    )
    done: list[int] = []
    used: set[int] = set()
    for g, part in pairs.groupby("_gid", sort=False):
        need = k - int(part["_got"].iloc[0])
        chosen: list[int] = []
        taken: dict[int, int] = {}
        for d in part["_donor"].tolist():
            c = cell_of[d]
            if d in used or spare[c] - taken.get(c, 0) <= 0:
                continue
            chosen.append(d)
            taken[c] = taken.get(c, 0) + 1
            if len(chosen) == need:
                break
        if len(chosen) < need:
            continue
        for d in chosen:
            used.add(d)
            spare[cell_of[d]] -= 1
        mine = groups.loc[gid == g, "_pos"].to_numpy()
        cur[np.ix_(np.concatenate([np.asarray(chosen), mine]), idx)] = -1
        done.extend(mine.tolist())
    return np.asarray(done, dtype=np.int64)


def _fill_all_blank(cur: np.ndarray, k: int) -> None:
    """If fewer than k records are blank in every key, move records there from the current cells:
    first the spare ones of cells larger than k (largest first), then whole cells (smallest first).
    Every other cell keeps k or more; with n ≥ k this always ends."""
    short = k - int((cur == -1).all(axis=1).sum())
    if short <= 0:
        return
    free = np.flatnonzero(~(cur == -1).all(axis=1))
    cell, sizes = unique_rows(cur[free])
    order = np.argsort(-sizes, kind="stable")
    for c in order:
        give = min(int(sizes[c]) - k, short)
        if give > 0:
            cur[free[cell == c][:give]] = -1
            short -= give
        if short <= 0:
            return
    left = np.flatnonzero(~(cur == -1).all(axis=1))
    cell, sizes = unique_rows(cur[left])
    for c in np.argsort(sizes, kind="stable"):
        cur[left[cell == c]] = -1
        short -= int(sizes[c])
        if short <= 0:
            return


def with_missing(s: pd.Series, rows: np.ndarray) -> pd.Series:
    """Set rows to missing keeping the column's kind: integers become nullable integers."""
    if pd.api.types.is_integer_dtype(s.dtype) and not isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype("Int64")
    elif pd.api.types.is_bool_dtype(s.dtype):
        s = s.astype("boolean")
    else:
        s = s.copy()
    pos = s.index[rows]
    s.loc[pos] = pd.NA if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) else None
    return s


@register("suppress")
class LocalSuppression(Transform):
    """Local suppression to k-anonymity on ``keys``; ``importance`` lists keys most important
    first (suppressed last). ``suppressed_`` holds the suppressed cell count per variable."""

    param_docs: ClassVar[dict[str, str]] = {
        "keys": "key variables",
        "k": "every record must share its key values with at least k records",
        "importance": "keys most important first (suppressed last)",
        "missing": "category (a missing value is a category of its own) or wildcard (sdcMicro's rule)",
    }

    def __init__(
        self, keys, k: int = 5, importance: Sequence[str] | None = None, missing: str = CATEGORY
    ):
        self.keys = as_columns(keys)
        self.k = int(k)
        self.importance = list(importance) if importance else None
        self.missing = missing

    def fit(self, frame: pd.DataFrame) -> LocalSuppression:
        self.result_ = local_suppression(
            frame, self.keys, self.k, self.importance, missing=self.missing
        )
        self.suppressed_ = dict(self.result_.suppressed)
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Which cells to blank depends on the whole table, so it is worked out on ``frame``."""
        return local_suppression(
            frame, self.keys, self.k, self.importance, missing=self.missing
        ).frame

    def fit_transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.fit(frame).result_.frame.copy()
