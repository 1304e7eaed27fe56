"""Risk per record against the population: weighted class figures, individual and household risk,
and (on request) SUDA2 scores, put together for one key set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hidekit.engines import Engine
from hidekit.errors import OptionError
from hidekit.risk.individual import (
    RiskSummary,
    household_risk,
    individual_risk,
    sample_risk,
    summarize,
)
from hidekit.risk.weighted import ClassFigures, class_figures

if TYPE_CHECKING:
    from hidekit.risk.suda import SudaResult

BF_MODEL = "Benedetti-Franconi negative binomial (sdcMicro indivRisk, method approx)"


@dataclass
class RecordRisk:
    """Per-record risk of one key set and what it adds up to."""

    figures: ClassFigures
    risk: np.ndarray
    summary: RiskSummary
    household: np.ndarray | None = None
    household_summary: RiskSummary | None = None
    suda: SudaResult | None = None  # when asked for
    estimate_risk: np.ndarray | None = None  # E[1/F | f] under the log-linear model
    warnings: list[str] = field(default_factory=list)

    def per_record(self) -> pd.DataFrame:
        """One row per input record, input order: fk, Fk, risk (+ household_risk, suda, dis)."""
        out = pd.DataFrame({"fk": self.figures.fk, "Fk": self.figures.Fk, "risk": self.risk})
        if self.household is not None:
            out["household_risk"] = self.household
        if self.suda is not None:
            out["suda"] = self.suda.score
            out["dis"] = self.suda.dis
        if self.estimate_risk is not None:
            out["risk_loglinear"] = self.estimate_risk
        return out

    def to_dict(self) -> dict:
        """The ``weighted`` section of the risk JSON (sdcMicro's figures)."""
        d = {
            "global_risk": self.summary.global_risk,
            "expected_reidentifications": self.summary.expected_reidentifications,
            "risk_threshold": self.summary.threshold,
            "records_above_threshold": self.summary.above_threshold,
            "share_above_threshold": self.summary.share_above_threshold,
            "max_risk": self.summary.max_risk,
            "weights": self.figures.weighted,
            "model": BF_MODEL if self.figures.weighted else "1 / fk (no weights: sample only)",
            "missing_rule": self.figures.missing,
            "missing_note": self.figures.missing_note,
            "sample_uniques": int((self.figures.fk == 1).sum()),
            "sample_pairs": int((self.figures.fk == 2).sum()),
        }
        if self.household_summary is not None:
            d["household"] = {
                "global_risk": self.household_summary.global_risk,
                "expected_reidentifications": self.household_summary.expected_reidentifications,
                "records_above_threshold": self.household_summary.above_threshold,
            }
        if self.suda is not None:
            d["suda"] = self.suda.to_dict()
        return d


def assess_records(
    engine: Engine,
    keys: Sequence[str],
    *,
    weights: str | None = None,
    household: str | None = None,
    missing: str = "category",
    threshold: float = 0.05,
    suda: bool = False,
    suda_max_size: int | None = None,
) -> RecordRisk:
    """Individual (and household) risk of every record; SUDA2 scores with ``suda=True``."""
    keys = list(keys)
    figures = class_figures(engine, keys, weights, missing)
    risk = individual_risk(figures.fk, figures.Fk) if weights else sample_risk(figures.fk)
    result = RecordRisk(figures, risk, summarize(risk, threshold))
    if household is not None:
        hh_ids = household_column(engine, household, keys, weights, result.warnings)
        result.household = household_risk(risk, hh_ids)
        result.household_summary = summarize(result.household, threshold)
    if suda:
        from hidekit.risk.suda import suda2

        result.suda = suda2(engine.record_codes(keys), keys, max_size=suda_max_size)
    return result


def household_column(
    engine: Engine, household: str, keys: list[str], weights: str | None, warnings: list[str]
) -> np.ndarray:
    """The household id per record; warns when it splits household-level key values."""
    engine.check_keys([household])
    if household in keys or household == weights:
        raise OptionError(f"household id {household!r} is also a key or the weight column")
    codes = engine.record_codes([household, *keys])
    hh = codes[:, 0]
    if (hh < 0).any():
        from hidekit.errors import InputError

        raise InputError(
            f"household id {household!r} is missing in {int((hh < 0).sum())} record(s); "
            f"every record needs one"
        )
    warnings.extend(split_household_warnings(hh, codes[:, 1:], keys, household))
    return hh


def split_household_warnings(
    hh: np.ndarray, codes: np.ndarray, keys: list[str], household: str
) -> list[str]:
    """A key constant within almost every household (a household-level variable such as region)
    but varying inside a few suggests those few ids join records of different households."""
    out: list[str] = []
    sizes = np.bincount(hh)
    multi = sizes[hh] > 1
    if not multi.any():
        return out
    n_multi = int((sizes > 1).sum())
    for j, key in enumerate(keys):
        frame = pd.DataFrame({"h": hh[multi], "v": codes[multi, j]})
        varying = frame.groupby("h")["v"].nunique()
        split = int((varying > 1).sum())
        if 0 < split <= 0.05 * n_multi:
            out.append(
                f"household id {household!r}: key {key!r} is constant within "
                f"{n_multi - split} of {n_multi} households but varies within {split}; "
                f"check the household id"
            )
    return out
