"""Top and bottom coding: outlying values become one readable class (``250000+``, ``<=1000``).

Thresholds are given as values or as percentiles of the data (learned in ``fit``, so the same
threshold applies to later data). With ``labels`` the column becomes text (``52000``, ``250000+``);
with ``labels = false`` values are capped at the thresholds and the column stays numeric (a mean
or a regression still runs on it); ``flag`` then adds ``<column>_topcoded`` saying which values
were capped (1 top-coded, -1 bottom-coded, 0 as observed), so a capped 90 is not read as exactly 90.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.errors import OptionError, require_columns, require_number
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import as_columns, number_text, numeric_column


def _check_percentile(name: str, p):
    if p is not None and not 0 < require_number(f"topcode: {name}", p) < 100:
        raise OptionError(f"topcode: {name} must be between 0 and 100 (exclusive), got {p}")


@register("topcode")
class TopCode(Transform):
    """Values ≥ ``top`` read ``top+``; values ≤ ``bottom`` read ``<=bottom``."""

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "numeric column(s)",
        "top": "values at or above read top+",
        "bottom": "values at or below read <=bottom",
        "top_percentile": "top threshold as a percentile of the data (0-100)",
        "bottom_percentile": "bottom threshold as a percentile of the data (0-100)",
        "labels": "true: text labels (250000+); false: values capped at the thresholds, the column stays numeric",
        "flag": "add <column>_topcoded: 1 top-coded, -1 bottom-coded, 0 as observed",
    }

    def __init__(
        self,
        columns,
        top: float | None = None,
        bottom: float | None = None,
        top_percentile: float | None = None,
        bottom_percentile: float | None = None,
        labels: bool = True,
        flag: bool = False,
    ):
        self.columns = as_columns(columns)
        self.top = top
        self.bottom = bottom
        self.top_percentile = top_percentile
        self.bottom_percentile = bottom_percentile
        self.labels = labels
        self.flag = bool(flag)
        if top is not None and top_percentile is not None:
            raise OptionError("topcode: give top or top_percentile, not both")
        if bottom is not None and bottom_percentile is not None:
            raise OptionError("topcode: give bottom or bottom_percentile, not both")
        if all(v is None for v in (top, bottom, top_percentile, bottom_percentile)):
            raise OptionError("topcode: give a top and/or bottom threshold (value or percentile)")
        for name, v in (("top", top), ("bottom", bottom)):
            if v is not None:
                require_number(f"topcode: {name}", v)
        _check_percentile("top_percentile", top_percentile)
        _check_percentile("bottom_percentile", bottom_percentile)

    def fit(self, frame: pd.DataFrame) -> TopCode:
        return self._fit(frame, None)

    def fit_counts(self, frame: pd.DataFrame, counts: np.ndarray) -> TopCode:
        """The fit of the table where distinct row i stands for ``counts[i]`` records, without
        repeating the rows: a percentile is the order statistic the repeated rows would give."""
        self.check_params()
        return self._fit(frame, np.asarray(counts, dtype=np.int64))

    def _fit(self, frame: pd.DataFrame, counts: np.ndarray | None) -> TopCode:
        require_columns(frame.columns, self.columns)
        self.thresholds_: dict[str, tuple[float | None, float | None]] = {}
        for col in self.columns:
            values = numeric_column(frame, col)
            present = values.notna().to_numpy()
            x = values.to_numpy()[present]
            w = None if counts is None else counts[present]
            top = self.top if self.top_percentile is None else _pct(x, self.top_percentile, w)
            bottom = (
                self.bottom
                if self.bottom_percentile is None
                else _pct(x, self.bottom_percentile, w)
            )
            if top is not None and bottom is not None and float(bottom) >= float(top):
                raise OptionError(f"topcode {col!r}: bottom {bottom} is not below top {top}")
            self.thresholds_[col] = (
                None if top is None else float(top),
                None if bottom is None else float(bottom),
            )
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "thresholds_"):
            raise OptionError("topcode: call fit (or fit_transform) before transform")
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            top, bottom = self.thresholds_[col]
            x = numeric_column(frame, col)
            hi = x >= top if top is not None else pd.Series(False, index=x.index)
            lo = x <= bottom if bottom is not None else pd.Series(False, index=x.index)
            if self.flag:
                if f"{col}_topcoded" in frame.columns:
                    raise OptionError(f"topcode: column {col}_topcoded exists already")
                mark = np.where(hi.fillna(False), 1, np.where(lo.fillna(False), -1, 0))
                out[f"{col}_topcoded"] = pd.Series(mark.astype(np.int8), index=frame.index)
            if not self.labels:
                out[col] = x.clip(lower=bottom, upper=top)
                if pd.api.types.is_integer_dtype(frame[col].dtype) and all(
                    t is None or float(t).is_integer() for t in (top, bottom)
                ):
                    out[col] = out[col].astype(frame[col].dtype)
                continue
            codes, uniques = pd.factorize(x)
            text = np.array([number_text(u) for u in uniques] + [None], dtype=object)[codes]
            if top is not None:
                text[hi.to_numpy()] = f"{number_text(top)}+"
            if bottom is not None:
                text[lo.to_numpy()] = f"<={number_text(bottom)}"
            out[col] = pd.Series(text, index=frame.index, dtype=object)
        return out


def _pct(x: np.ndarray, p, counts: np.ndarray | None = None) -> float:
    """The ``p``-th percentile of ``x`` (each value ``counts`` times when given)."""
    if x.size == 0:
        raise OptionError("topcode: cannot take a percentile of a column with no values")
    # 'higher' keeps the threshold an observed value, so the label names a value in the data.
    if counts is None:
        return float(np.percentile(x, float(p), method="higher"))
    order = np.argsort(x, kind="stable")
    ends = np.cumsum(counts[order])  # the repeated sorted values: x[order][i] ends at ends[i]
    # the place numpy picks among ends[-1] sorted values (the same index whatever the values)
    at = int(np.percentile(np.arange(int(ends[-1])), float(p), method="higher"))
    return float(x[order][np.searchsorted(ends, at, side="right")])
