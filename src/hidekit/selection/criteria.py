"""Selection criteria: Lin & Garin's α (equation 1), the difference RP − w·CR, and global risk.

Each ranks a candidate by a score of the key set that would result, lower being better; α is
reported beside it exactly as the paper prints it. ``global_risk`` (the mean individual risk of
sdcMicro, with sampling weights when given) is also the measure the stop limit is read against.
"""

from __future__ import annotations

import math

from hidekit.engines import CellStats
from hidekit.errors import OptionError

CRITERIA = ("alpha", "diff", "global_risk")
GLOBAL_RISK = "global_risk"


def alpha_add(current: CellStats, result: CellStats) -> float:
    """α for adding: ratio(S ∪ {v}) / ratio(S); the paper prints ratio(S ∪ {v}) when ratio(S) = 0."""
    return result.ratio if current.ratio == 0 else result.ratio / current.ratio


def alpha_remove(current: CellStats, result: CellStats) -> float:
    """α for removing: ratio(S) / ratio(S \\ {v}); +inf when the result has ratio 0."""
    return math.inf if result.ratio == 0 else current.ratio / result.ratio


def score(
    result: CellStats, criterion: str, weight: float, global_risk: float | None = None
) -> float:
    """Lower is better, for additions and removals alike (the resulting set is scored)."""
    if criterion == GLOBAL_RISK:
        if global_risk is None:
            raise OptionError("the global_risk criterion needs the key set's global risk")
        return global_risk
    if criterion == "alpha":
        return result.ratio
    if criterion == "diff":
        return result.rp - weight * result.cr
    raise OptionError(f"unknown criterion {criterion!r} (choose from {', '.join(CRITERIA)})")
