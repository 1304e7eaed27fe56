"""What local suppression on either engine shares: the rules for a missing value, the result and
its figures, the options' checks, counting under the wildcard rule, and the search run on the
classes (``search_classes``) that ``local_suppression`` and the Spark engine both call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from hidekit.engines import COUNT_COLUMN, make_engine
from hidekit.errors import OptionError, PolicyError
from hidekit.transforms.loss import DEFAULT_MAX_LOSS, VariableLoss, loss_summary
from hidekit.transforms.suppression_search import (
    CATEGORY,
    WILDCARD,
    Blocks,
    search,
    weighted_sizes,
)

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
    records: int | None = None  # records searched, when ``frame`` does not hold them (Spark)

    @property
    def total(self) -> int:
        return int(sum(self.suppressed.values()))

    @property
    def loss(self) -> list[VariableLoss]:
        """Information lost per key: suppression only blanks cells, it never changes one."""
        n = len(self.frame) if self.records is None else self.records
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


def _pattern_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct missing patterns (as boolean rows) and each row's pattern index."""
    bits = (codes == -1).astype(np.int64) @ (1 << np.arange(codes.shape[1], dtype=np.int64))
    ids, inverse = np.unique(bits, return_inverse=True)
    masks = ((ids[:, None] >> np.arange(codes.shape[1])) & 1).astype(bool)
    return masks, inverse.ravel()


def wildcard_counts(
    target: np.ndarray,
    codes: np.ndarray,
    engine: str = "duckdb",
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """For each target row, how many rows of ``codes`` it matches when a missing value (-1), on
    either side, matches anything (sdcMicro's rule). Counted per pair of missing patterns, with
    one engine over ``codes`` asked for the cells of the keys both patterns show. With
    ``weights``, row i of ``codes`` stands for ``weights[i]`` records (summed by pandas)."""
    out = np.zeros(len(target), dtype=np.int64)
    tpat, tinv = _pattern_ids(target)
    fpat, finv = _pattern_ids(codes)
    table = _frame(codes, range(codes.shape[1])).assign(_q=finv)
    eng = make_engine(table, engine) if weights is None else None
    w = np.ones(len(codes), np.int64) if weights is None else np.asarray(weights, np.int64)
    per_q = np.bincount(finv, weights=w, minlength=len(fpat)).astype(np.int64)
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
                cache[tuple(vis)] = (
                    eng.cell_counts(["_q", *names])
                    if eng is not None
                    else table.assign(**{COUNT_COLUMN: w})
                    .groupby(["_q", *names], sort=False)[COUNT_COLUMN]
                    .sum()
                    .reset_index()
                )
            counts = cache[tuple(vis)]
            counts = counts.loc[counts["_q"] == q, [*names, COUNT_COLUMN]]
            hit = _frame(target[trows], vis).merge(counts, on=names, how="left")
            out[trows] += hit[COUNT_COLUMN].fillna(0).to_numpy(dtype=np.int64)
    return out


def search_classes(
    result: SuppressionResult, codes: np.ndarray, counts: np.ndarray, engine: str = "duckdb"
) -> Blocks | None:
    """The search on the classes (``codes``: their key codes, numbered by first record;
    ``counts``: their sizes): fills ``result``'s figures and gives the blocks, None when no record
    is below k. Both engines call it, so they blank the same cells."""
    k, keys, missing = result.k, result.keys, result.missing
    n = int(counts.sum())

    def wild(target, rows, weights):
        return wildcard_counts(target, rows, engine, weights=weights)

    sizes = counts if missing == CATEGORY else wild(codes, codes, counts)
    result.k_before = int(sizes.min())
    result.at_risk_before = int(counts[sizes < k].sum())
    if result.at_risk_before == 0:
        result.k_after = result.k_before
        return None
    if n < k:
        raise PolicyError(f"suppress: {n} records cannot be {k}-anonymous, whatever is suppressed")
    col = {c: i for i, c in enumerate(keys)}
    patterns = [tuple(col[c] for c in p) for p in _patterns(result.importance[::-1])]
    blocks = search(codes, counts, k, patterns, missing, wild)
    blank = (blocks.cur == -1) & ~(codes[blocks.cls] == -1)  # blanks over missing change nothing
    for i, c in enumerate(keys):
        result.suppressed[c] = int(blocks.w[blank[:, i]].sum())
    result.records_touched = int(blocks.w[blank.any(axis=1)].sum())
    live = blocks.w > 0
    after = (
        weighted_sizes(blocks.cur[live], blocks.w[live])
        if missing == CATEGORY
        else wild(blocks.cur[live], blocks.cur[live], blocks.w[live])
    )
    result.k_after = int(after.min())
    if result.k_after < k:
        raise PolicyError(
            f"suppress: internal check failed, {int(blocks.w[live][after < k].sum())} records "
            f"still match fewer than k={k}"
        )
    return blocks


def check_options(
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


def importance_order(
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


def search_class_table(
    values: pd.DataFrame,
    counts: np.ndarray,
    keys: list[str],
    k: int,
    importance: Sequence[str] | None,
    missing: str,
    max_loss: float = DEFAULT_MAX_LOSS,
):
    """The search on a class table (``values``: each key combination once, numbered by first
    record; ``counts``: their sizes): the result's figures, the classes' key codes and the
    blocks (None when nothing is blanked). A table read by chunks is suppressed this way."""
    k = check_options(values, keys, k, "duckdb", 16, missing)
    result = SuppressionResult(
        frame=values.iloc[:0],
        keys=keys,
        k=k,
        importance=importance_order(values, keys, importance),
        suppressed={c: 0 for c in keys},
        missing=missing,
        max_loss=max_loss,
        records=int(counts.sum()),
    )
    codes = key_codes(values, keys)
    blocks = search_classes(result, codes, counts) if len(values) else None
    return result, codes, blocks
