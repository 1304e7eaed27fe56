"""The HIPAA Safe Harbor preset for the indirect identifiers it names (45 CFR 164.514(b)(2)).

Ages over 89 become ``90+``; dates keep only their year; ZIP codes keep their first three digits,
and a three-digit area with fewer than 20,000 people becomes ``000`` when a population table is
given (areas missing from the table are treated as small: the safe side). Direct identifiers are
not this preset's job: encode, redact or remove them with the identifier steps.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import CoarsenDate, as_columns, value_key
from hidekit.transforms.topcode import TopCode

log = logging.getLogger("hidekit.transforms")

MIN_POPULATION = 20_000


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
    path = Path(source)
    if not path.is_file():
        raise InputError(f"population table not found: {path}")
    table = pd.read_csv(path, dtype={"zip3": str}, sep=None, engine="python")
    require_columns(table.columns, ["zip3", "population"])
    return {
        str(z).zfill(3): int(p) for z, p in zip(table["zip3"], table["population"], strict=True)
    }


@register("safe_harbor")
class SafeHarbor(Transform):
    """HIPAA Safe Harbor for ages (over 89 -> 90+), dates (-> year) and ZIP codes (-> 3 digits,
    000 for areas under 20,000 people)."""

    param_docs: ClassVar[dict[str, str]] = {
        "ages": "age column(s): over 89 -> 90+",
        "dates": "date column(s): -> year",
        "zips": "ZIP column(s): -> first 3 digits",
        "population": "CSV zip3,population (plan-relative): areas under min_population -> 000",
        "min_population": "smallest ZIP3 population kept",
        "numeric_ages": "ages over 89 become 90 (numeric) plus an <age>_topcoded flag, instead of the text 90+",
    }

    def __init__(
        self,
        ages=(),
        dates=(),
        zips=(),
        population=None,
        min_population: int = MIN_POPULATION,
        numeric_ages: bool = False,
    ):
        self.ages = as_columns(ages) if ages else []
        self.dates = as_columns(dates) if dates else []
        self.zips = as_columns(zips) if zips else []
        if not (self.ages or self.dates or self.zips):
            raise OptionError("safe_harbor: name at least one age, date or ZIP column")
        self.population = population
        self.min_population = int(min_population)
        self.numeric_ages = bool(numeric_ages)

    def fit(self, frame: pd.DataFrame) -> SafeHarbor:
        require_columns(frame.columns, self.ages + self.dates + self.zips)
        self.population_ = None if self.population is None else read_population(self.population)
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
        out = frame
        if self.ages:
            # "90+" as text, or (numeric_ages) 90 with an <age>_topcoded flag column
            out = TopCode(
                self.ages, top=90, labels=not self.numeric_ages, flag=self.numeric_ages
            ).fit_transform(out)
        if self.dates:
            out = CoarsenDate(self.dates, to="year").transform(out)
        out = out.copy() if out is frame else out
        for col in self.zips:
            codes, uniques = pd.factorize(frame[col])
            mapped = [self._zip3(u, col) for u in uniques] + [None]
            out[col] = pd.Series([mapped[c] for c in codes], index=frame.index, dtype=object)
        return out

    def _zip3(self, value, col: str) -> str:
        try:
            z = zip3(value)
        except InputError as exc:
            raise InputError(f"column {col!r}: {exc}") from None
        if self.population_ is not None and self.population_.get(z, 0) < self.min_population:
            return "000"
        return z
