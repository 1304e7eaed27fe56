"""Individual risk of re-identification against the population (Benedetti & Franconi, 1998).

The negative-binomial model gives each sample record the probability that an intruder who finds
its key combination in the population picks the right person, given the sample count ``f_k`` and
the estimated population count ``F_k`` (sum of weights). sdcMicro's ``indivRisk`` (method
"approx") evaluates it with closed forms for ``f_k`` = 1 and 2 and an approximation beyond:

    p = f_k / F_k
    f_k = 1:  p / (1 - p) * log(1 / p)
    f_k = 2:  p / (1 - p) - (p / (1 - p))² * log(1 / p)
    f_k ≥ 3:  p / (f_k - (1 - p))
    and 1 / f_k where the class is the whole population (f_k = F_k).

Global risk is the mean of the individual risks, expected re-identifications their sum. The
household risk (sdcMicro's hierarchical risk) is the chance that at least one member of a
household is re-identified: 1 - ∏(1 - r_i) over its members, given to every member.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.errors import InputError, require_fraction


def individual_risk(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """Benedetti–Franconi risk per record (sdcMicro's ``indivRisk``, method "approx")."""
    fk = np.asarray(fk, dtype=np.float64)
    Fk = np.asarray(Fk, dtype=np.float64)
    risk = np.zeros(fk.shape, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = fk / Fk
        odds = p / (1.0 - p)
        log_inv = np.log(1.0 / p)
        one, two, more = fk == 1, fk == 2, fk > 2
        risk[one] = (odds * log_inv)[one]
        risk[two] = (odds - odds**2 * log_inv)[two]
        risk[more] = (p / (fk - (1.0 - p)))[more]
    whole = fk == Fk
    risk[whole] = 1.0 / fk[whole]
    return risk


def sample_risk(fk: np.ndarray) -> np.ndarray:
    """Without weights the sample is the population: 1 / f_k (sdcMicro's ``survey = FALSE``)."""
    return 1.0 / np.asarray(fk, dtype=np.float64)


def household_risk(risk: np.ndarray, households: np.ndarray) -> np.ndarray:
    """1 - ∏(1 - r_i) over each household's members, per record (sdcMicro's hier_risk)."""
    ids, _ = pd.factorize(pd.Series(households), use_na_sentinel=True)
    if (ids < 0).any():
        raise InputError(
            f"household id is missing in {int((ids < 0).sum())} record(s); every record needs one"
        )
    # product of (1 - r) as a sum of logs; log1p keeps small risks exact
    with np.errstate(divide="ignore"):
        logs = np.log1p(-np.asarray(risk, dtype=np.float64))
    total = np.bincount(ids, weights=logs)
    certain = np.bincount(ids, weights=(risk >= 1.0).astype(np.float64)) > 0
    hh = -np.expm1(total)
    hh[certain] = 1.0
    return hh[ids]


@dataclass
class RiskSummary:
    """What the individual risks add up to."""

    global_risk: float
    expected_reidentifications: float
    threshold: float
    above_threshold: int
    share_above_threshold: float
    max_risk: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def summarize(risk: np.ndarray, threshold: float = 0.05) -> RiskSummary:
    """Mean (global risk), sum (expected re-identifications), records strictly above τ."""
    require_fraction("risk threshold", threshold)
    risk = np.asarray(risk, dtype=np.float64)
    n = risk.size
    above = int((risk > threshold).sum())
    return RiskSummary(
        global_risk=float(risk.mean()) if n else 0.0,
        expected_reidentifications=float(risk.sum()),
        threshold=float(threshold),
        above_threshold=above,
        share_above_threshold=above / n if n else 0.0,
        max_risk=float(risk.max()) if n else 0.0,
    )
