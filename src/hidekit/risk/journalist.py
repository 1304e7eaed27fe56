"""El Emam's journalist and marketer risk: the sample matched against its population.

A prosecutor knows the target is in the sample, so the chance of a right match is 1 / f_k. A
journalist picks anyone in the population and looks them up: for a sample class k with F_k people
in the population the chance is 1 / F_k. A marketer matches everyone it can and counts the right
matches: a sample class yields f_k / F_k correct matches on average. With n records and J the
sample's classes (El Emam, *Guide to the De-identification of Personal Health Information*, as ARX's
``RiskModelSampleSummary`` computes it):

    journalist highest     = 1 / min_{k∈J} F_k
    journalist average     = max(|J| / Σ_{k∈J} F_k,  marketer)
    records above τ        = Σ_{k∈J: 1/F_k > τ} f_k / n
    marketer               = Σ_{k∈J} f_k / F_k / n        (expected correct matches / n)

F_k comes from a population table (a file with the key columns and a count per combination) or,
with sampling weights, from the estimated population (F_k = the sum of the class's weights).
Without either, F_k = f_k and journalist risk equals prosecutor risk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.engines.base import numeric_values
from hidekit.errors import InputError, OptionError

WEIGHTS_SOURCE = "estimated population (sum of the sampling weights per class)"
_NA = "\x00missing"


@dataclass
class JournalistMarketer:
    """The journalist and marketer figures of one key set against one population."""

    source: str
    threshold: float
    journalist_highest: float
    journalist_average: float
    classes_over_population: float  # |J| / Σ F_k, El Emam's first average
    journalist_above_threshold: float
    marketer: float
    expected_matches: float  # Σ f_k / F_k
    smallest_population_class: float

    def to_dict(self) -> dict:
        return {
            "journalist": {
                "highest": self.journalist_highest,
                "average": self.journalist_average,
                "classes_over_population": self.classes_over_population,
                "records_above_threshold": self.journalist_above_threshold,
                "threshold": self.threshold,
                "smallest_population_class": self.smallest_population_class,
                "source": self.source,
            },
            "marketer": {
                "success_rate": self.marketer,
                "expected_matches": self.expected_matches,
                "source": self.source,
            },
        }


def journalist_marketer(
    f: np.ndarray, F: np.ndarray, threshold: float, source: str, per_record: bool = False
) -> JournalistMarketer:
    """The figures from the sample (``f``) and population (``F``) size of each class; with
    ``per_record`` the arrays hold one entry per record (each class counted f_k times)."""
    f = np.asarray(f, dtype=np.float64)
    F = np.asarray(F, dtype=np.float64)
    share = 1.0 / f if per_record else np.ones_like(f)  # how much of its class a row is
    n = float((f * share).sum())
    if n == 0:
        raise InputError("the sample has no records to match against the population")
    expected = float((share * f / F).sum())
    classes_over = float(share.sum() / (share * F).sum())
    above = float((f * share)[threshold + 1e-12 < 1.0 / F].sum() / n)
    smallest = float(F.min())
    return JournalistMarketer(
        source=source,
        threshold=float(threshold),
        journalist_highest=1.0 / smallest,
        journalist_average=max(classes_over, expected / n),
        classes_over_population=classes_over,
        journalist_above_threshold=above,
        marketer=expected / n,
        expected_matches=expected,
        smallest_population_class=smallest,
    )


def population_count_column(table: pd.DataFrame, keys: Sequence[str], count: str | None) -> str:
    """The count column: the one named, else the only column that is not a key."""
    missing = [k for k in keys if k not in table.columns]
    if missing:
        raise InputError(f"population table has no column {', '.join(map(repr, missing))}")
    if count is not None:
        if count not in table.columns:
            raise InputError(f"population table has no count column {count!r}")
        if count in keys:
            raise OptionError(f"population count column {count!r} is also a key variable")
        return count
    others = [c for c in table.columns if c not in keys]
    if len(others) != 1:
        raise OptionError(
            f"population table has {len(others)} columns besides the keys "
            f"({', '.join(others[:5]) or 'none'}); name the count with --population-count"
        )
    return others[0]


def canonical(series: pd.Series) -> pd.Series:
    """Key values as text that matches across files: 30, 30.0 and "30" all read "30"."""
    kind = series.dtype.kind
    if kind in "iub" and not series.isna().any():
        return series.astype(str).astype(object)
    if kind == "f" and isinstance(series.dtype, np.dtype):
        values = series.to_numpy(dtype=np.float64)
        whole = (np.abs(values) < 2**53) & (values == np.round(values))
        out = series.astype(str).to_numpy(dtype=object)
        out[whole] = values[whole].astype(np.int64).astype(str)
        out[np.isnan(values)] = _NA
        return pd.Series(out, index=series.index, dtype=object)
    return series.astype(object).map(_canonical_value)


def _canonical_value(v) -> str:
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and np.isnan(v)):
        return _NA
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def match_population(
    sample: pd.DataFrame, table: pd.DataFrame, keys: Sequence[str], count: str
) -> pd.DataFrame:
    """Each sample class (keys + ``_n``) with its population count ``F``; refuses classes the
    table lacks, counts below the sample's, duplicates and counts that are not numbers."""
    keys = list(keys)
    F = numeric_values(table[count], f"population count {count!r}")
    if np.isnan(F).any():
        raise InputError(
            f"population count {count!r} is missing in {int(np.isnan(F).sum())} row(s)"
        )
    pop = pd.DataFrame({k: canonical(table[k]) for k in keys})
    pop["F"] = F
    dup = pop.duplicated(keys)
    if dup.any():
        raise InputError(
            f"population table has {int(dup.sum())} repeated key combination(s), e.g. "
            f"{_describe(pop[dup].iloc[0], keys)}; give one count per combination"
        )
    samp = pd.DataFrame({k: canonical(sample[k]) for k in keys})
    samp["_n"] = sample["_n"].to_numpy()
    joined = samp.merge(pop, on=keys, how="left", validate="one_to_one")
    lacking = joined["F"].isna()
    if lacking.any():
        raise InputError(
            f"population table has no count for {int(lacking.sum())} key combination(s) of the "
            f"sample, e.g. {_describe(joined[lacking].iloc[0], keys)}"
        )
    low = joined["F"] < joined["_n"]
    if low.any():
        row = joined[low].iloc[0]
        raise InputError(
            f"population count is below the sample count for {int(low.sum())} key "
            f"combination(s), e.g. {_describe(row, keys)}: {row['F']:g} < {int(row['_n'])}"
        )
    return joined


def _describe(row: pd.Series, keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={'(missing)' if row[k] == _NA else row[k]}" for k in keys)


def against_table(
    sample: pd.DataFrame,
    table: pd.DataFrame,
    keys: Sequence[str],
    count: str | None,
    threshold: float,
    name: str,
) -> JournalistMarketer:
    """Journalist and marketer risk of the sample classes against a population table."""
    count = population_count_column(table, keys, count)
    joined = match_population(sample, table, keys, count)
    source = f"population table {name} (count column {count!r})"
    return journalist_marketer(joined["_n"].to_numpy(), joined["F"].to_numpy(), threshold, source)


def read_population_table(source, sep: str | None = None) -> pd.DataFrame:
    """The population table (a path in any format hidekit reads, or an in-memory table)."""
    from hidekit.io.readers import read_table

    return read_table(source, sep=sep).frame
