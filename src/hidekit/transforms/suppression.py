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
than k when that costs fewer cells than the next pattern size (cells with most to spare first, then
the cell whose first record comes first, earliest records first). The result is checked at the end.

The search runs on classes (records with equal keys), not records
(``hidekit.transforms.suppression_search``): the default engine and Spark
(``hidekit.transforms.spark_suppression``) run the same search on the same class table, so they
blank the same cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.engines import make_engine
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import as_columns
from hidekit.transforms.loss import DEFAULT_MAX_LOSS, require_max_loss
from hidekit.transforms.suppression_rules import (
    CATEGORY,
    SuppressionResult,
    check_options,
    importance_order,
    key_codes,
    search_classes,
    wildcard_counts,
    with_missing,
)
from hidekit.transforms.suppression_search import class_table, record_codes


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
    k = check_options(frame, keys, k, engine, max_keys, missing)
    order = importance_order(frame, keys, importance)
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
    class_codes, counts, record_class = class_table(codes)
    blocks = search_classes(result, class_codes, counts, engine)
    if blocks is not None:
        _apply_blanks(result, codes, record_codes(blocks, record_class, counts))
    return result


def _apply_blanks(result: SuppressionResult, codes: np.ndarray, cur: np.ndarray) -> None:
    """Blank in ``result.frame`` the cells ``cur`` blanks (not those missing already)."""
    blank = (cur == -1) & ~(codes == -1)  # a blank over a missing value changes nothing
    out = result.frame
    for i, c in enumerate(result.keys):
        rows = np.flatnonzero(blank[:, i])
        if rows.size:
            out[c] = with_missing(out[c], rows)


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
    spark_scope: ClassVar[str] = "spark"  # a GROUP BY, the search on the driver, a join

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

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table (``hidekit.engines.spark_steps.SparkTable``): the same cells blanked,
        the records kept on the executors (``hidekit.transforms.spark_suppression``)."""
        from hidekit.transforms.spark_suppression import spark_suppression

        self.check_params()
        keys = list(self.keys)
        out, self.result_ = spark_suppression(
            table, keys, self.k, self.importance, self.missing, DEFAULT_MAX_LOSS
        )
        self.suppressed_ = dict(self.result_.suppressed)
        return out
