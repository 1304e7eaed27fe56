"""Weighted class figures per record: ``f_k`` (sample count) and ``F_k`` (sum of sampling weights).

Two rules for a missing key value. ``"category"`` (hidekit's default): missing is a value of its
own. ``"any"`` (sdcMicro's ``freqCalc``): a missing value matches any value, so a record counts
every record that agrees with it wherever both have a value. sdcMicro's rule has one quirk kept
here for equality: with two or more keys, a record with no missing key does not count the records
whose keys are all missing (those records themselves count everyone).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from hidekit.engines import Engine
from hidekit.engines.codes import combine, densify
from hidekit.errors import InputError, OptionError

MISSING_RULES = {
    "category": "missing values are a category of their own",
    "any": "a missing value matches any value (sdcMicro's rule)",
}


@dataclass
class ClassFigures:
    """Per record, in row order: ``fk`` and ``Fk`` of its key combination."""

    keys: list[str]
    fk: np.ndarray
    Fk: np.ndarray
    weighted: bool
    missing: str = "category"
    total_weight: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def missing_note(self) -> str:
        return MISSING_RULES[self.missing]


def check_missing_rule(rule: str) -> str:
    if rule not in MISSING_RULES:
        raise OptionError(f"unknown missing rule {rule!r} (choose from {', '.join(MISSING_RULES)})")
    return rule


@dataclass
class WeightFaults:
    """What is wrong with a weight column, counted wherever the records are (numpy, Spark):
    rows are 0-based record numbers, values the first offending one in record order."""

    missing: int = 0
    first_missing: int = 0
    bad: int = 0  # zero, negative or infinite
    first_bad: int = 0
    bad_value: float = 0.0
    low: int = 0  # positive but below 1
    low_value: float = 0.0

    def check(self, name: str) -> None:
        """The one-line error for the first fault, as ``check_weights`` words it."""
        if self.missing:
            raise InputError(
                f"weight column {name!r} has {self.missing} missing value(s) "
                f"(first at row {self.first_missing + 1}); every record needs a weight"
            )
        if self.bad:
            raise InputError(
                f"weight column {name!r} has {self.bad} zero, negative or infinite value(s) "
                f"(row {self.first_bad + 1}: {self.bad_value:g}); a sampling weight is a "
                f"positive count"
            )
        if self.low:
            raise InputError(
                f"weight column {name!r} has {self.low} value(s) below 1 (e.g. "
                f"{self.low_value:g}): risk needs expansion weights, the number of population "
                f"units a record stands for; multiply relative weights by population size / "
                f"records"
            )


def check_weights(values: np.ndarray, name: str) -> np.ndarray:
    """Sampling weights must be finite numbers of at least 1 (population units per record)."""
    values = np.asarray(values, dtype=np.float64)
    faults = WeightFaults()
    missing = np.isnan(values)
    if missing.any():
        faults.missing, faults.first_missing = int(missing.sum()), int(np.flatnonzero(missing)[0])
        faults.check(name)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        faults.bad, faults.first_bad, faults.bad_value = int(bad.sum()), i, float(values[i])
        faults.check(name)
    low = values < 1
    if low.any():
        faults.low, faults.low_value = int(low.sum()), float(values[low][0])
        faults.check(name)
    return values


def class_figures(
    engine: Engine,
    keys: Sequence[str],
    weights: str | None = None,
    missing: str = "category",
) -> ClassFigures:
    """``fk`` and ``Fk`` per record through the engine (``Fk`` = ``fk`` without weights)."""
    missing = check_missing_rule(missing)
    keys = engine.check_keys(list(keys))
    if not keys:
        raise OptionError("name at least one key variable")
    if weights is not None:
        if weights in keys:
            raise OptionError(f"weight column {weights!r} is also a key variable")
        w = check_weights(engine.numeric_column(weights), weights)
    else:
        w = np.ones(engine.n_records)
    if missing == "any":
        fk, Fk = counts_missing_matches_any(engine.record_codes(keys), w)
    else:
        fk, Fk = engine.record_weighted_sizes(keys, w)
    fk = np.asarray(fk, dtype=np.int64)
    Fk = np.asarray(Fk, dtype=np.float64) if weights is not None else fk.astype(np.float64)
    return ClassFigures(
        keys, fk, Fk, weighted=weights is not None, missing=missing, total_weight=float(w.sum())
    )


def counts_missing_matches_any(codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """sdcMicro's counts: records agree when every key is equal or missing in one of them.

    Records are grouped by which keys they have; for each pair of groups the count is a lookup
    on the keys both groups have, so the cost is (groups²) passes, not records².
    """
    n, width = codes.shape
    present = codes >= 0
    patterns, pattern_of = np.unique(present, axis=0, return_inverse=True)
    pattern_of = pattern_of.reshape(-1)
    members = [np.flatnonzero(pattern_of == p) for p in range(len(patterns))]
    fk = np.zeros(n, dtype=np.float64)
    Fk = np.zeros(n, dtype=np.float64)
    for p, have_p in enumerate(patterns):
        rows_p = members[p]
        complete_p = bool(have_p.all())
        for q, have_q in enumerate(patterns):
            if width >= 2 and complete_p and not have_q.any():
                continue  # sdcMicro's quirk: complete records do not count all-missing ones
            rows_q = members[q]
            common = np.flatnonzero(have_p & have_q)
            if common.size == 0:
                fk[rows_p] += rows_q.size
                Fk[rows_p] += weights[rows_q].sum()
                continue
            ids, size = _cell_ids(codes[np.concatenate([rows_q, rows_p])][:, common])
            ids_q, ids_p = ids[: rows_q.size], ids[rows_q.size :]
            fk[rows_p] += np.bincount(ids_q, minlength=size)[ids_p]
            Fk[rows_p] += np.bincount(ids_q, weights=weights[rows_q], minlength=size)[ids_p]
    return fk.astype(np.int64), Fk


def _cell_ids(block: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense cell id per row of a block of non-negative codes."""
    ids, card = np.zeros(len(block), dtype=np.int64), 1
    for j in range(block.shape[1]):
        ids, card = combine(ids, card, block[:, j], int(block[:, j].max(initial=0)) + 1)
    return densify(ids, card)
