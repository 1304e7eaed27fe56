"""The HIPAA Safe Harbor preset for the indirect identifiers it names (45 CFR 164.514(b)(2)).

Ages over 89 become ``90+``; dates keep only their year; ZIP codes keep their first three digits,
and a three-digit area with fewer than 20,000 people becomes ``000`` when a population table is
given (areas missing from the table are treated as small: the safe side). Direct identifiers are
not this preset's job: encode, redact or remove them with the identifier steps.

The rule removes "all ages over 89 and all elements of dates (including year) indicative of such
age", which may be aggregated into one category of age 90 or older (J-PAL Table 3: year of birth
is a HIPAA identifier "if individual over age 89"). So a birth year must not survive beside
``90+``: in a record whose age is over 89, every date column named here reads ``90+`` instead of
its year; and a birth-date column (``births``) reads ``90+`` when the person is 90 or older on
``as_of`` (by year, the safe side: born in or before ``as_of - 90``), even with no age column.
"""

from __future__ import annotations

import datetime as _dt
import logging
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import (
    CoarsenDate,
    as_columns,
    number_text,
    numeric_column,
    parse_dates,
    value_key,
)
from hidekit.transforms.topcode import TopCode

log = logging.getLogger("hidekit.transforms")

MIN_POPULATION = 20_000
OLDEST_AGE = 89  # ages over this are aggregated
AGGREGATE = "90+"


def zip3(value) -> str | None:
    """First three digits of a US ZIP (``2139`` read as a number is ``02139``): ``021``."""
    key = value_key(value)
    if key is None:
        return None
    digits = key.strip().split("-")[0]
    if not digits.isdigit() or len(digits) > 5:
        raise InputError(f"not a US ZIP code: {value!r}")
    return digits.zfill(5)[:3]


def read_population(source) -> dict[str, int]:
    """ZIP3 → population from a dict or a CSV with columns ``zip3`` and ``population``."""
    if isinstance(source, dict):
        return {str(k).zfill(3): int(v) for k, v in source.items()}
    from hidekit.io.readers import read_csv

    path = Path(source)
    if not path.is_file():
        raise InputError(f"population table not found: {path}")
    table = read_csv(path).frame
    require_columns(table.columns, ["zip3", "population"])
    out: dict[str, int] = {}
    for row, (z, p) in enumerate(zip(table["zip3"], table["population"], strict=True), 2):
        key = value_key(z)
        if key is None or not key.isdigit() or len(key) > 3:
            raise InputError(
                f"population table {path}: line {row}: not a ZIP3 area (value not shown)"
            )
        count = value_key(p)
        if count is None or not count.isdigit():
            raise InputError(
                f"population table {path}: line {row}: population is not a whole number (value not shown)"
            )
        out[key.zfill(3)] = int(count)
    return out


@register("safe_harbor")
class SafeHarbor(Transform):
    """HIPAA Safe Harbor for ages (over 89 -> 90+), dates (-> year) and ZIP codes (-> 3 digits,
    000 for areas under 20,000 people)."""

    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "ages": "age column(s): over 89 -> 90+",
        "dates": "date column(s): -> year (90+ in records aged over 89)",
        "zips": "ZIP column(s): -> first 3 digits",
        "population": "CSV zip3,population (plan-relative): areas under min_population -> 000",
        "min_population": "smallest ZIP3 population kept",
        "numeric_ages": "ages over 89 become 90 (numeric) plus an <age>_topcoded flag, instead of the text 90+",
        "births": "birth-date column(s): -> year, or 90+ when aged 90 or older on as_of",
        "as_of": "year ages are reckoned at for births (default: this year)",
    }

    def __init__(
        self,
        ages=(),
        dates=(),
        zips=(),
        population=None,
        min_population: int = MIN_POPULATION,
        numeric_ages: bool = False,
        births=(),
        as_of: int | None = None,
    ):
        self.ages = as_columns(ages) if ages else []
        self.dates = as_columns(dates) if dates else []
        self.zips = as_columns(zips) if zips else []
        self.births = as_columns(births) if births else []
        if not (self.ages or self.dates or self.zips or self.births):
            raise OptionError("safe_harbor: name at least one age, date, birth-date or ZIP column")
        self.population = population
        self.min_population = int(min_population)
        self.numeric_ages = bool(numeric_ages)
        if as_of is not None and (
            isinstance(as_of, bool) or not isinstance(as_of, int) or not 1000 <= as_of <= 9999
        ):
            raise OptionError(f"safe_harbor: as_of must be a year such as 2026, got {as_of!r}")
        self.as_of = as_of

    def fit(self, frame: pd.DataFrame) -> SafeHarbor:
        require_columns(frame.columns, self.ages + self.dates + self.zips + self.births)
        self.population_ = None if self.population is None else read_population(self.population)
        self.as_of_ = self.as_of if self.as_of is not None else _dt.date.today().year
        self.warnings_: list[str] = []
        if self.zips and self.population_ is None:
            msg = (
                "safe_harbor: no population table given, so small ZIP3 areas (< 20,000 people) "
                "are not set to 000"
            )
            log.warning(msg)
            self.warnings_.append(msg)
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "population_"):
            raise OptionError("safe_harbor: call fit (or fit_transform) before transform")
        out = frame.copy()
        old = pd.Series(False, index=frame.index)  # records of people aged 90 or older
        for col in self.ages:
            x = numeric_column(frame, col)
            over = (x > OLDEST_AGE).fillna(False)
            old |= over
            if self.numeric_ages:
                continue
            codes, uniques = pd.factorize(x)
            text = np.array([number_text(u) for u in uniques] + [None], dtype=object)[codes]
            text[over.to_numpy()] = AGGREGATE
            out[col] = pd.Series(text, index=frame.index, dtype=object)
        if self.ages and self.numeric_ages:
            # 90 with an <age>_topcoded flag column instead of the text "90+"
            out = TopCode(self.ages, top=90, labels=False, flag=True).fit_transform(out)
        for col in self.births:
            born = parse_dates(frame, col)
            old |= (born.dt.year <= self.as_of_ - OLDEST_AGE - 1).fillna(False)
        dated = self.dates + [c for c in self.births if c not in self.dates]
        if dated:
            out[dated] = CoarsenDate(dated, to="year").transform(frame)[dated]
            for col in dated:
                out[col] = out[col].astype(object).where(~old | frame[col].isna(), AGGREGATE)
        for col in self.zips:
            codes, uniques = pd.factorize(frame[col])
            mapped = [self._zip3(u, col) for u in uniques] + [None]
            out[col] = pd.Series([mapped[c] for c in codes], index=frame.index, dtype=object)
        return out

    def _zip3(self, value, col: str) -> str | None:
        try:
            z = zip3(value)
        except InputError as exc:
            raise InputError(f"column {col!r}: {exc}") from None
        if (
            z is not None
            and self.population_ is not None
            and self.population_.get(z, 0) < self.min_population
        ):
            return "000"
        return z
