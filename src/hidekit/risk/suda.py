"""SUDA2: minimal sample uniques (MSUs), SUDA and DIS scores, as sdcMicro's ``suda2`` defines them.

An MSU of a record is a set of its key values that no other record shares, while no smaller
subset of it is unique. Only records unique on the full key set have MSUs. A record's SUDA score
adds, for each MSU of size k, the weight ∏_{j=k}^{M}(m - j) (Elliot's "original" scores, sdcMicro's
default with M = m - 1: (m - k)!) or, with ``scores="corrected"``, (2^(m-k) - 1)·k!(m-k)!/m!.
A missing value is never part of an MSU (and matches no other value).

The DIS score turns SUDA scores into a probability of a correct match (Elliot & Skinner's
DIS-SUDA, as sdcMicro computes it with ``DisFraction`` d):

    dis = 1 / (1 + P·(1 - d) / d / (score^Q · Σ score^-Q)),   Q = 1 + (8 - m) / 20,

with P the number of records in sample pairs (classes of size 2) and the sum over scored records.
sdcMicro evaluates Q and the ratio in single precision; the difference is below 1e-7 relative.

Each variable's contribution is the share of the score coming from MSUs it is part of.

The search (``hidekit.risk.suda_search``, compiled) splits groups of records depth first and only
follows groups that still hold a sample unique; see that module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import factorial

import numpy as np
import pandas as pd

from hidekit.engines.codes import combine, densify
from hidekit.errors import OptionError

SCORES = ("original", "corrected")


@dataclass
class SudaResult:
    keys: list[str]
    max_size: int
    score: np.ndarray  # per record
    dis: np.ndarray  # per record
    contributions: np.ndarray  # records × keys, share of each record's score (0 where no score)
    msu_counts: np.ndarray  # number of MSUs per size 1..max_size
    dis_fraction: float
    scores: str

    def attribute_contributions(self) -> dict[str, float]:
        """Per variable, percent of the total score from MSUs holding it (sdcMicro's table)."""
        total = self.score.sum()
        if total == 0:
            return dict.fromkeys(self.keys, 0.0)
        part = (self.contributions * self.score[:, None]).sum(axis=0)
        return {k: float(100 * v / total) for k, v in zip(self.keys, part, strict=False)}

    def level_contributions(self, values: pd.DataFrame) -> pd.DataFrame:
        """Per variable and value, percent of the variable's contribution (sdcMicro's
        ``attribute_level_contributions``); ``values`` holds the key columns, row order."""
        rows = []
        weighted = self.contributions * self.score[:, None]
        for j, key in enumerate(self.keys):
            tot = weighted[:, j].sum()
            col = values[key]
            for level in sorted(col.dropna().unique()):
                share = weighted[(col == level).to_numpy(), j].sum()
                rows.append(
                    {
                        "variable": key,
                        "attribute": level,
                        "contribution": 100 * share / tot if tot else float("nan"),
                    }
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "max_size": self.max_size,
            "scores": self.scores,
            "dis_fraction": self.dis_fraction,
            "records_with_msu": int((self.score > 0).sum()),
            "msus_by_size": {str(i + 1): int(c) for i, c in enumerate(self.msu_counts)},
            "sum_score": float(self.score.sum()),
            "max_score": float(self.score.max(initial=0)),
            "mean_dis": float(self.dis.mean()) if self.dis.size else 0.0,
            "max_dis": float(self.dis.max(initial=0)),
            "attribute_contributions": self.attribute_contributions(),
        }


def msu_weights(m: int, max_size: int, scores: str = "original") -> np.ndarray:
    """Weight of an MSU of size k = 1..max_size (index k - 1)."""
    if scores not in SCORES:
        raise OptionError(f"unknown SUDA scores {scores!r} (choose from {', '.join(SCORES)})")
    top = min(max_size, m - 1)
    if scores == "original":
        return np.array(
            [float(np.prod([m - j for j in range(k, top + 1)])) for k in range(1, max_size + 1)]
        )
    return np.array(
        [
            (2.0 ** (m - k) - 1) * factorial(k) * factorial(m - k) / factorial(m)
            for k in range(1, max_size + 1)
        ]
    )


def suda2(
    codes: np.ndarray,
    keys: Sequence[str],
    *,
    max_size: int | None = None,
    dis_fraction: float = 0.01,
    scores: str = "original",
) -> SudaResult:
    """SUDA2 over a records × keys code matrix (-1 = missing), sdcMicro's defaults."""
    codes = np.asarray(codes, dtype=np.int64)
    n, m = codes.shape
    keys = list(keys)
    if m == 0:
        raise OptionError("SUDA needs at least one key variable")
    max_size = m if max_size is None else int(max_size)
    if not 1 <= max_size <= m:
        raise OptionError(f"SUDA maximum MSU size must be between 1 and {m}, got {max_size}")
    if not 0 < dis_fraction < 1:
        raise OptionError(f"DIS sampling fraction must be between 0 and 1, got {dis_fraction}")
    # sdcMicro pads one or two keys with constant columns: weights use at least 3 variables
    m_eff = max(m, 3)
    weights = msu_weights(m_eff, max_size, scores)
    full_ids, full_card = _ids(codes, range(m))
    full_sizes = np.bincount(full_ids, minlength=full_card)
    from hidekit.risk.suda_search import search  # numba: loaded when SUDA is asked for

    score, contrib, msu_counts = search(codes, full_ids, full_sizes, max_size, weights)
    pairs = 2 * int((full_sizes == 2).sum())
    dis = dis_scores(score, pairs, m_eff, dis_fraction)
    return SudaResult(keys, max_size, score, dis, contrib, msu_counts, dis_fraction, scores)


def dis_scores(score: np.ndarray, pairs: int, m: int, dis_fraction: float) -> np.ndarray:
    """DIS-SUDA score per record from its SUDA score (see the module docstring)."""
    dis = np.zeros_like(score, dtype=np.float64)
    scored = score > 0
    if not scored.any():
        return dis
    q = 1.0 + (8.0 - m) / 20.0
    powered = score[scored] ** q
    adjust = (1.0 / powered).sum()
    odds = pairs * (1.0 - dis_fraction) / dis_fraction
    dis[scored] = 1.0 / (1.0 + odds / (powered * adjust))
    return dis


def _ids(codes: np.ndarray, columns) -> tuple[np.ndarray, int]:
    ids, card = np.zeros(len(codes), dtype=np.int64), 1
    for j in columns:
        ids, card = combine(ids, card, codes[:, j] + 1, int(codes[:, j].max(initial=-1)) + 2)
    return densify(ids, card)
