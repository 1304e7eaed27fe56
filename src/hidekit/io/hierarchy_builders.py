"""Build generalization hierarchies for the common cases instead of writing them by hand.

Each builder takes the values of a column and returns a ``Hierarchy`` (ARX's shape: the value,
then ever coarser labels, the top last), which ``Hierarchy.write`` saves in ARX's CSV format.
Every builder gives nested levels, as the optimal search requires.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import pandas as pd

from hidekit.errors import InputError, OptionError
from hidekit.io.hierarchy import Hierarchy

TOP = "*"
DATE_LEVELS = ("month", "quarter", "year", "decade")


def _distinct(values: Iterable) -> list:
    seen = pd.Series(list(values)).dropna().unique().tolist()
    if not seen:
        raise InputError("no values to build a hierarchy from")
    return seen


def _num_text(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def intervals(values: Iterable, width: float, levels: int = 3, factor: int = 2) -> Hierarchy:
    """Numeric bins of ``width``, then ``width·factor``, ``width·factor²`` … (``levels`` of
    them), then the top. Bins start at multiples of their width, so they nest. Integer data get
    labels like ``20-24``; other numbers ``[20, 25)``."""
    if not (width > 0 and math.isfinite(width)):
        raise OptionError(f"interval width must be a positive number, got {width}")
    if levels < 1 or factor < 2 or int(factor) != factor:
        raise OptionError("levels must be ≥ 1 and factor a whole number ≥ 2")
    raw = _distinct(values)
    try:
        nums = [float(v) for v in raw]
    except (TypeError, ValueError):
        raise InputError("interval hierarchies need numbers") from None
    integer = all(float(v).is_integer() for v in nums) and float(width).is_integer()
    rows = []
    for text, v in zip(raw, nums, strict=True):
        row = [_num_text(v) if not isinstance(text, str) else text]
        for i in range(levels):
            w = width * factor**i
            lo = math.floor(v / w) * w
            if integer:
                row.append(f"{int(lo)}-{int(lo + w - 1)}")
            else:
                row.append(f"[{_num_text(lo)}, {_num_text(lo + w)})")
        rows.append(row + [TOP])
    return Hierarchy.from_rows(rows, source="interval hierarchy")


def dates(values: Iterable, levels: Sequence[str] = DATE_LEVELS) -> Hierarchy:
    """Dates to month (2004-04), quarter (2004-Q2), year (2004), decade (2000s), then the top;
    any ordered subset of those levels."""
    unknown = [lv for lv in levels if lv not in DATE_LEVELS]
    order = [DATE_LEVELS.index(lv) for lv in levels]
    if unknown or order != sorted(order) or not levels:
        raise OptionError(f"date levels must be an ordered subset of {', '.join(DATE_LEVELS)}")
    raw = _distinct(values)
    parsed = pd.to_datetime(pd.Series(raw, dtype=object).astype(str), errors="coerce")
    bad = [str(r) for r, p in zip(raw, parsed, strict=True) if pd.isna(p)]
    if bad:
        raise InputError(f"values that are not dates: {', '.join(bad[:5])}")
    label = {
        "month": lambda d: f"{d.year:04d}-{d.month:02d}",
        "quarter": lambda d: f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}",
        "year": lambda d: f"{d.year:04d}",
        "decade": lambda d: f"{d.year // 10 * 10}s",
    }
    rows = [
        [str(r)] + [label[lv](d) for lv in levels] + [TOP] for r, d in zip(raw, parsed, strict=True)
    ]
    return Hierarchy.from_rows(rows, source="date hierarchy")


def masking(values: Iterable, keep_min: int = 0) -> Hierarchy:
    """Codes (ZIP, postcodes) masked from the right one character a level: 02139, 0213*, 021**,
    … down to ``keep_min`` kept characters, then the top. Codes of different lengths are padded
    with ``*`` to the longest, so levels stay aligned."""
    raw = [str(v) for v in _distinct(values)]
    width = max(len(v) for v in raw)
    if not 0 <= keep_min < width:
        raise OptionError(f"keep_min must be between 0 and {width - 1}")
    rows = []
    for v in raw:
        padded = v.ljust(width, "*")
        masked = [padded[: width - i] + "*" * i for i in range(1, width - keep_min)]
        rows.append([v, *masked, TOP])  # fully masked is the top itself
    return Hierarchy.from_rows(rows, source="masking hierarchy")


def ordered_groups(order: Sequence[str], fan: int = 2, values: Iterable | None = None) -> Hierarchy:
    """Group ordered categories (e.g. education levels) ``fan`` at a time, then ``fan²`` …, up
    to the top; each group is labelled by its first and last value (``HS–BA``)."""
    order = [str(v) for v in order]
    if len(set(order)) != len(order) or not order:
        raise OptionError("the order must list each category once")
    if fan < 2:
        raise OptionError("fan must be at least 2")
    if values is not None:
        missing = sorted({str(v) for v in _distinct(values)} - set(order))
        if missing:
            raise InputError(f"values not in the order: {', '.join(missing[:5])}")
    rows = [[v] for v in order]
    size = fan
    while size < len(order):
        for i, row in enumerate(rows):
            lo = i // size * size
            hi = min(lo + size, len(order)) - 1
            row.append(order[lo] if lo == hi else f"{order[lo]}–{order[hi]}")
        size *= fan
    for row in rows:
        row.append(TOP)
    return Hierarchy.from_rows(rows, source="ordered hierarchy")
