"""Aggregation of indirect identifiers: numeric bins, coarser dates, value maps, ARX hierarchies.

Each transform replaces values by coarser ones so that more records share each combination of
key values. Records are never dropped or reordered; missing values stay missing. What a transform
could not map cleanly (values a hierarchy does not list) is logged and kept in ``warnings_``, so the
release report can show it: nothing is coarsened silently.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns, require_number
from hidekit.io.hierarchy import Hierarchy as HierarchyFile
from hidekit.transforms.base import Transform, register

log = logging.getLogger("hidekit.transforms")

DATE_UNITS = ("year", "quarter", "month")


def as_columns(columns: str | Sequence[str]) -> list[str]:
    """Accept one column name or a list of them (plans and the CLI give either)."""
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise OptionError("name at least one column")
    return cols


def number_text(v) -> str:
    """A number as people write it: 250000 not 250000.0, 2.5 stays 2.5."""
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    f = float(v)
    if math.isfinite(f) and f.is_integer():
        return str(int(f))
    return f"{f:g}"


def value_key(v) -> str | None:
    """The text form used to match data values with map keys or hierarchy rows (None if missing)."""
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return number_text(v)
    return str(v)


def numeric_column(frame: pd.DataFrame, column: str) -> pd.Series:
    """The column as floats; a clear error naming the first value that is not a number."""
    s = frame[column]
    num = pd.to_numeric(s, errors="coerce")
    bad = s.notna() & num.isna()
    if bad.any():
        raise InputError(f"column {column!r} must be numeric; found {s[bad].iloc[0]!r}")
    return num.astype("float64")


def _warn(store: list[str], message: str) -> None:
    log.warning(message)
    store.append(message)


def _labelled(values: pd.Series, labels: np.ndarray, keep: pd.Series) -> pd.Series:
    out = pd.Series(labels, index=values.index, dtype=object)
    out[~keep] = None
    return out


@register("bin")
class Bin(Transform):
    """Numeric values into intervals: fixed ``width`` from ``origin``, or explicit ``edges``.

    Labels read like ``20-29`` for integer data and whole-number edges (``[20, 30)``), like
    ``2.5-<5`` otherwise; with edges, values below the first read ``<e0`` and from the last on ``eN+``.
    """

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "column(s) to bin",
        "width": "bin width (give width or edges)",
        "edges": "explicit bin edges, increasing (give width or edges)",
        "origin": "where the first bin of width starts",
    }

    def __init__(
        self,
        columns,
        width: float | None = None,
        edges: Sequence[float] | None = None,
        origin: float = 0.0,
    ):
        self.columns = as_columns(columns)
        self.width = width
        self.edges = list(edges) if edges is not None else None
        self.origin = origin
        if (width is None) == (edges is None):
            raise OptionError("bin: give either width or edges")
        if width is not None:
            require_number("bin: width", width, positive=True)
        require_number("bin: origin", origin)
        if edges is not None:
            if isinstance(edges, (str, bytes)) or not isinstance(edges, Sequence):
                raise OptionError(f"bin: edges must be a list of numbers, got {edges!r}")
            e = [require_number("bin: each edge", x) for x in edges]
            if len(e) < 1 or any(b <= a for a, b in zip(e, e[1:], strict=False)):
                raise OptionError(f"bin: edges must be increasing, got {edges}")

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            x = numeric_column(frame, col)
            integer = bool(np.all(np.mod(x.dropna(), 1) == 0))
            out[col] = self._labels(x, integer)
        return out

    def _labels(self, x: pd.Series, integer: bool) -> pd.Series:
        keep = x.notna()
        v = x.fillna(0).to_numpy()
        if self.width is not None:
            w, o = float(self.width), float(self.origin)
            lo = o + np.floor((v - o) / w) * w
            whole = integer and w.is_integer() and o.is_integer()
            uniq = {b: self._range(b, b + w, whole) for b in np.unique(lo[keep.to_numpy()])}
            return _labelled(x, np.array([uniq.get(b, "") for b in lo], dtype=object), keep)
        assert self.edges is not None  # no width: edges were given (checked in __init__)
        e = np.array([float(b) for b in self.edges])
        whole = integer and all(float(b).is_integer() for b in e)
        idx = np.searchsorted(e, v, side="right")  # 0: below e0; len(e): from the last edge on
        names = [f"<{number_text(e[0])}"]
        names += [self._range(a, b, whole) for a, b in zip(e[:-1], e[1:], strict=True)]
        names += [f"{number_text(e[-1])}+"]
        return _labelled(x, np.array(names, dtype=object)[idx], keep)

    @staticmethod
    def _range(lo: float, hi: float, whole: bool) -> str:
        if whole:
            return f"{number_text(lo)}-{number_text(hi - 1)}"
        return f"{number_text(lo)}-<{number_text(hi)}"


@register("coarsen_date")
class CoarsenDate(Transform):
    """Dates to ``year`` (``2023``), ``quarter`` (``2023-Q2``) or ``month`` (``2023-04``)."""

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "date column(s)",
        "to": "year, quarter or month",
    }

    def __init__(self, columns, to: str = "year"):
        self.columns = as_columns(columns)
        if to not in DATE_UNITS:
            raise OptionError(
                f"coarsen_date: 'to' must be one of {', '.join(DATE_UNITS)}, got {to!r}"
            )
        self.to = to

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            d = parse_dates(frame, col)
            if self.to == "year":
                text = d.dt.year.astype("Int64").astype(str)
            elif self.to == "quarter":
                text = (
                    d.dt.year.astype("Int64").astype(str)
                    + "-Q"
                    + d.dt.quarter.astype("Int64").astype(str)
                )
            else:
                text = d.dt.strftime("%Y-%m")
            out[col] = text.where(d.notna(), None).astype(object)
        return out


def parse_dates(frame: pd.DataFrame, column: str) -> pd.Series:
    """The column as datetimes; a clear error naming the first value that is not a date.

    Surveys often store dates as numbers: ``20040404`` (YYYYMMDD, the J-PAL fixture's birth
    dates) and ``2004`` (a year) are read as such, whether the column holds numbers or digit text.
    Other numbers (``1234``, ``200404``) are refused, never read as nanoseconds since 1970.
    """
    s = frame[column]
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        return s
    present = s.notna()
    keys = s[present].map(value_key)
    digits = keys.str.fullmatch(r"[-+]?\d+")
    result = pd.Series(pd.NaT, index=s.index, dtype="datetime64[ns]")
    if digits.any():
        numbers = keys[digits]
        year = numbers.str.fullmatch(r"\d{4}")
        ymd = numbers.str.fullmatch(r"\d{8}")
        neither = ~(year | ymd)
        if neither.any():
            raise InputError(
                f"column {column!r} must hold dates; found the number "
                f"{numbers[neither].iloc[0]!r} (write dates as YYYY-MM-DD, YYYYMMDD or YYYY)"
            )
        parsed = pd.Series(pd.NaT, index=numbers.index, dtype="datetime64[ns]")
        parsed[year] = pd.to_datetime(numbers[year], format="%Y", errors="coerce")
        parsed[ymd] = pd.to_datetime(numbers[ymd], format="%Y%m%d", errors="coerce")
        bad = parsed.isna()
        if bad.any():
            raise InputError(
                f"column {column!r} must hold dates; {numbers[bad].iloc[0]!r} is not a "
                "valid date (as YYYYMMDD or YYYY)"
            )
        result[numbers.index] = parsed
    others = keys[~digits]
    if len(others):
        if s.dtype.kind in "fc":  # numbers with fractions: never dates
            raise InputError(
                f"column {column!r} must hold dates; found the number {others.iloc[0]!r}"
            )
        d = pd.to_datetime(others.astype(object), errors="coerce", format="mixed")
        bad = d.isna()
        if bad.any():
            raise InputError(f"column {column!r} must hold dates; found {others[bad].iloc[0]!r}")
        result[others.index] = d
    return result


@register("map_values")
class MapValues(Transform):
    """Replace values through a user map ({"Widowed": "Other", ...}); unmapped values are kept,
    or replaced by ``other`` when given. Keys match the value's text (``"3"`` matches 3)."""

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "column(s) to recode",
        "mapping": "table of value = replacement (keys match the value's text)",
        "other": "replacement for every value the mapping does not list (default: keep it)",
    }

    def __init__(self, columns, mapping: dict, other: str | None = None):
        self.columns = as_columns(columns)
        if not isinstance(mapping, dict) or not mapping:
            raise OptionError(
                "map_values: mapping must be a non-empty table of value = replacement"
            )
        self.mapping = mapping
        self.other = other

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        table = {value_key(k): v for k, v in self.mapping.items()}
        out = frame.copy()
        for col in self.columns:
            codes, uniques = pd.factorize(frame[col])
            mapped = []
            for u in uniques:
                key = value_key(u)
                mapped.append(table.get(key, u if self.other is None else self.other))
            arr = np.array(mapped + [None], dtype=object)
            out[col] = pd.Series(arr[codes], index=frame.index, dtype=object)
        return out


def read_hierarchy(path) -> pd.DataFrame:
    """An ARX hierarchy file as a table: column 0 raw value, then coarser levels, last ``*``.

    Parsing and validation (same width, no value twice) are ``hidekit.io.hierarchy``'s, shared
    with Mondrian; here a level to generalize to must exist, and no level may be empty.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"hierarchy file not found: {path}")
    table = pd.DataFrame(list(HierarchyFile.read(path).rows), dtype=str)
    if table.shape[1] < 2:
        raise InputError(f"hierarchy file {path} needs a raw value and at least one coarser level")
    if (table == "").any().any():
        row = int(np.flatnonzero((table == "").any(axis=1))[0]) + 1
        raise InputError(f"hierarchy file {path}: row {row} has an empty level")
    return table


@register("hierarchy")
class Hierarchy(Transform):
    """Generalize one column to ``level`` of an ARX hierarchy (0 = raw, last = ``*``).

    Values the hierarchy does not list go to the top level with a warning (``unseen="top"``) or
    stop the run (``unseen="error"``). A hierarchy that lists none of the column's values is an
    error either way: it was written for other data.
    """

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "column": "the column to generalize",
        "path": "ARX hierarchy file (CSV; plan-relative)",
        "level": "level to generalize to (0 = raw, last = *)",
        "unseen": "top (unlisted values go to the top level, with a warning) or error",
    }

    def __init__(self, column: str, path: str | Path, level: int = 1, unseen: str = "top"):
        self.column = column
        self.path = str(path)
        self.level = int(level)
        if unseen not in ("top", "error"):
            raise OptionError(f"hierarchy: unseen must be 'top' or 'error', got {unseen!r}")
        self.unseen = unseen

    def fit(self, frame: pd.DataFrame) -> Hierarchy:
        require_columns(frame.columns, [self.column])
        table = read_hierarchy(self.path)
        depth = table.shape[1] - 1
        if not 0 <= self.level <= depth:
            raise OptionError(
                f"hierarchy {self.path} has levels 0 to {depth}; level {self.level} asked"
            )
        self.top_ = str(table.iloc[0, depth])
        self.map_ = dict(zip(table[0], table[self.level], strict=True))
        keys = [value_key(u) for u in pd.unique(frame[self.column])]
        present = [k for k in keys if k is not None]
        unseen = sorted(k for k in present if k not in self.map_)
        self.unseen_ = unseen
        self.warnings_: list[str] = []
        if present and len(unseen) == len(present):
            raise InputError(
                f"hierarchy {self.path} does not cover column {self.column!r}: none of its "
                f"{len(present)} values is listed (e.g. {present[0]!r})"
            )
        if unseen:
            shown = ", ".join(repr(u) for u in unseen[:5]) + (" …" if len(unseen) > 5 else "")
            if self.unseen == "error":
                raise InputError(
                    f"hierarchy {self.path} does not list {len(unseen)} value(s) of "
                    f"{self.column!r}: {shown}"
                )
            n = int(frame[self.column].map(value_key).isin(set(unseen)).sum())
            # counts only: a warning lands in the public report and audit, and the values
            # the hierarchy does not list are often the rarest, most identifying ones
            _warn(
                self.warnings_,
                f"{self.column}: {len(unseen)} value(s) not in the hierarchy went to the top "
                f"level ({n} records)",
            )
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "map_"):
            raise OptionError("hierarchy: call fit before transform")
        require_columns(frame.columns, [self.column])
        out = frame.copy()
        codes, uniques = pd.factorize(frame[self.column])
        mapped = [self.map_.get(value_key(u), self.top_) for u in uniques]
        arr = np.array(mapped + [None], dtype=object)
        out[self.column] = pd.Series(arr[codes], index=frame.index, dtype=object)
        return out
