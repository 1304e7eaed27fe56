"""Suppression by individual risk (sdcMicro's ``localSupp``): blank a key value of every record
whose individual risk is above a threshold.

sdcMicro blanks one key variable in one pass. Here ``columns`` may name several: the first is
blanked for every record above the threshold, the risk is measured again, and the next column is
blanked only for the records still above it, and so on. With one column the result is sdcMicro's
(under ``missing="any"``, its counting rule). Records still above the threshold after the last
column are counted and reported, never hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.engines import make_engine
from hidekit.errors import OptionError, require_fraction
from hidekit.risk.individual import individual_risk, sample_risk
from hidekit.risk.records import assess_records
from hidekit.risk.weighted import (
    check_missing_rule,
    check_weights,
    counts_missing_matches_any,
)
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import as_columns
from hidekit.transforms.suppression_rules import with_missing


def record_risk(
    frame: pd.DataFrame, keys: Sequence[str], weights: str | None, missing: str
) -> np.ndarray:
    """Individual risk of every record of ``frame`` (Benedetti–Franconi with weights, 1/fk
    without), counted through the engine interface."""
    engine = make_engine(frame, "duckdb")
    return assess_records(engine, list(keys), weights=weights, missing=missing).risk


@register("suppress_risk")
class RiskSuppression(Transform):
    """Blank key values of records whose individual risk is above ``threshold`` (sdcMicro's
    ``localSupp``), one column after another. ``suppressed_`` counts blanks per column;
    ``above_after_`` the records still above the threshold."""

    param_docs: ClassVar[dict[str, str]] = {
        "keys": "key variables the individual risk is measured on",
        "columns": "key variables to blank, in order (sdcMicro takes one); default: the first key",
        "threshold": "records whose individual risk is above this are suppressed (sdcMicro: 0.15)",
        "weights": "column of sampling weights (without: risk is 1/fk, the sample alone)",
        "missing": "category (a blank is a value of its own) or any (sdcMicro's rule: a blank "
        "matches any value)",
    }

    # a class table counted by Spark, the blanks joined back (with weights: the driver)
    spark_scope: ClassVar[str] = "spark"

    def __init__(
        self,
        keys,
        columns=None,
        threshold: float = 0.15,
        weights: str | None = None,
        missing: str = "category",
    ):
        self.keys = as_columns(keys)
        self.columns = as_columns(columns) if columns is not None else None
        self.threshold = threshold
        self.weights = weights
        self.missing = missing

    def check_params(self) -> None:
        super().check_params()
        if not self.keys:
            raise OptionError("suppress_risk: name at least one key variable")
        require_fraction("suppress_risk threshold", self.threshold)
        check_missing_rule(self.missing)
        stray = [c for c in self.columns or [] if c not in self.keys]
        if stray:
            raise OptionError(
                f"suppress_risk: columns {', '.join(stray)} are not among the keys "
                f"({', '.join(self.keys)}); only key values change the risk"
            )
        if self.weights is not None and self.weights in self.keys:
            raise OptionError(f"suppress_risk: weight column {self.weights!r} is also a key")

    def order(self) -> list[str]:
        return list(self.columns) if self.columns else self.keys[:1]

    def fit(self, frame: pd.DataFrame) -> RiskSuppression:
        """Nothing to learn: which records are above the threshold depends on the table that
        is transformed."""
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self._suppress(frame)[0]

    def fit_transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        self.fit(frame)
        out, suppressed, before, after = self._suppress(frame)
        self._note(suppressed, before, after)
        return out

    def _note(self, suppressed: dict[str, int], above_before: int, above_after: int) -> None:
        """What the step did: blanks per column, records above before and after, the warning."""
        self.suppressed_, self.above_before_, self.above_after_ = (
            suppressed,
            above_before,
            above_after,
        )
        self.warnings_ = (
            [
                f"{above_after} record(s) still have individual risk above "
                f"{self.threshold:g} after blanking {', '.join(self.order())}"
            ]
            if above_after
            else []
        )

    def blanks_on_classes(
        self, values: pd.DataFrame, n: np.ndarray, w: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """On a table of classes counted elsewhere (Spark; ``w``: each class's sum of weights,
        when the step has weights): which classes are blanked per column
        (``suppress_classes``, under the step's missing rule), the step's figures noted."""
        blanks, suppressed, before, after = suppress_classes(
            values, n, w, self.order(), self.threshold, self.missing
        )
        self._note(suppressed, before, after)
        return blanks

    def _suppress(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int], int, int]:
        """The suppressed frame, blanks per column, records above before and after."""
        if self.missing == "category":  # risk is a figure of each record's class: class table
            return self._suppress_by_classes(frame)
        return self._suppress_by_records(frame)

    def _suppress_by_records(
        self, frame: pd.DataFrame
    ) -> tuple[pd.DataFrame, dict[str, int], int, int]:
        """``_suppress`` measuring every record's risk again after each column (the rule
        ``missing="any"``, under which a blank matches other classes)."""
        out = frame.copy()
        risk = record_risk(out, self.keys, self.weights, self.missing)
        above_before = int((risk > self.threshold).sum())
        suppressed: dict[str, int] = {}
        for col in self.order():
            rows = np.flatnonzero((risk > self.threshold) & out[col].notna().to_numpy())
            if rows.size == 0:
                continue
            out[col] = with_missing(out[col], rows)
            suppressed[col] = int(rows.size)
            risk = record_risk(out, self.keys, self.weights, self.missing)
        return out, suppressed, above_before, int((risk > self.threshold).sum())

    def _suppress_by_classes(
        self, frame: pd.DataFrame
    ) -> tuple[pd.DataFrame, dict[str, int], int, int]:
        """``_suppress`` through the table of classes (``suppress_classes``): each record
        blanked as its class is."""
        from hidekit.engines.codes import unique_rows

        engine = make_engine(frame, "duckdb")
        inverse, n = unique_rows(engine.record_codes(self.keys))
        first = np.unique(inverse, return_index=True)[1]
        w = None
        if self.weights is not None:
            weights = check_weights(engine.numeric_column(self.weights), self.weights)
            w = np.bincount(inverse, weights=weights, minlength=len(n))
        values = frame[self.keys].iloc[first].reset_index(drop=True)
        blanks, suppressed, before, after = suppress_classes(
            values, n, w, self.order(), self.threshold
        )
        out = frame.copy()
        for col, flag in blanks.items():
            out[col] = with_missing(out[col], np.flatnonzero(flag[inverse]))
        return out, suppressed, before, after

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table, without weights: the class table counted by Spark, the blanks
        decided on the driver (``suppress_classes``) and joined back onto the records
        (``hidekit.risk.spark_suppression``); otherwise the whole table on the driver."""
        from hidekit.risk.spark_suppression import spark_suppress_risk

        return spark_suppress_risk(self, table, fit)


def suppress_classes(
    values: pd.DataFrame,
    n: np.ndarray,
    w: np.ndarray | None,
    order: Sequence[str],
    threshold: float,
    missing: str = "category",
) -> tuple[dict[str, np.ndarray], dict[str, int], int, int]:
    """Suppression by individual risk on a table of classes: ``values`` holds one row per
    distinct combination of the keys, ``n`` its records, ``w`` its weights' sum (None: no
    weights, risk 1/fk). Blanking a class's value moves it to the class with a blank there
    (``missing="category"``), or makes it match every class that agrees with it elsewhere
    (``missing="any"``, sdcMicro's counts, with each class weighted by its records): records of
    one class always share their risk, so deciding per class is deciding per record. Returns, per
    column blanked, which classes were; the records blanked per column; the records above the
    threshold before and after."""
    keys = list(values.columns)
    n = np.asarray(n, dtype=np.int64)
    current = values.reset_index(drop=True).copy()

    def sizes(engine, weights: np.ndarray) -> np.ndarray:
        if missing == "any":
            return counts_missing_matches_any(engine.record_codes(keys), weights)[1]
        return engine.record_weighted_sizes(keys, weights)[1]

    def risk() -> np.ndarray:
        engine = make_engine(current, "duckdb")
        fk = sizes(engine, n.astype(np.float64))
        if w is None:
            return sample_risk(fk)
        return individual_risk(fk, sizes(engine, np.asarray(w, dtype=np.float64)))

    r = risk()
    before = int(n[r > threshold].sum())
    blanks: dict[str, np.ndarray] = {}
    suppressed: dict[str, int] = {}
    for col in order:
        flag = (r > threshold) & current[col].notna().to_numpy()
        if not flag.any():
            continue
        current[col] = with_missing(current[col], np.flatnonzero(flag))
        blanks[col], suppressed[col] = flag, int(n[flag].sum())
        r = risk()
    return blanks, suppressed, before, int(n[r > threshold].sum())
