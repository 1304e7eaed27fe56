"""Is a corpus big enough for the normal intervals of the text risk's Monte Carlo?

The paper (section 2.3.8) draws each share from a normal law; with few documents on one side of a
share that law is too narrow, so the assessment warns where Agresti & Coull's Wilson interval
reaches further on the side that raises the risk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hidekit.evaluation.text_risk_corpus import CorpusStats

Z95 = 1.959963984540054
SAMPLE_SIDE = 5  # documents needed on each side of a share for its normal law (k·p, k·(1−p))
SAMPLE_MARGIN = 0.01  # how much further the Wilson interval may reach before we warn
SAMPLE_RULE = (
    "The intervals draw each share - W_i over n documents, R_i over s_i, R_q over s_q - from a "
    "normal law (section 2.3.8, after Agresti & Coull 1998, the paper's [23]). That law holds "
    f"when at least {SAMPLE_SIDE} documents lie on each side of the share (k·p ≥ {SAMPLE_SIDE} "
    f"and k·(1-p) ≥ {SAMPLE_SIDE}); with fewer it is too narrow (zero width when nothing "
    "leaked). The sample is too small for the interval when a share fails that rule and its "
    "Wilson score interval (Agresti & Coull's choice) reaches at least "
    f"{SAMPLE_MARGIN} further on the side that raises the risk."
)


def wilson_interval(p: float, k: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a share ``p`` observed over ``k`` trials."""
    if k <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / k
    centre = (p + z * z / (2 * k)) / denom
    half = z * math.sqrt(p * (1 - p) / k + z * z / (4 * k * k)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_interval(p: float, k: int, z: float = Z95) -> tuple[float, float]:
    """The 95% range of ``N(p, sqrt(p(1-p)/k))`` clipped to [0, 1]: what the draws span."""
    half = z * math.sqrt(p * (1 - p) / max(k, 1))
    return max(0.0, p - half), min(1.0, p + half)


@dataclass
class SampleCheck:
    """One share the intervals rest on, and whether the sample is too small for it."""

    share: str  # "W_i NAME", "R_i NAME", "R_q"
    p: float
    k: int  # documents the share is counted over
    risky_side: str  # "high" (W: more documents hold it) or "low" (R: fewer masked)
    normal: tuple[float, float]
    wilson: tuple[float, float]

    @property
    def too_small(self) -> bool:
        if min(self.k * self.p, self.k * (1 - self.p)) >= SAMPLE_SIDE:
            return False
        if self.risky_side == "high":
            return self.wilson[1] - self.normal[1] >= SAMPLE_MARGIN
        return self.normal[0] - self.wilson[0] >= SAMPLE_MARGIN

    def message(self) -> str:
        return (
            f"{self.share} = {self.p:.3f} from {self.k} documents: normal 95% range "
            f"{self.normal[0]:.3f}-{self.normal[1]:.3f}, Wilson {self.wilson[0]:.3f}-"
            f"{self.wilson[1]:.3f}"
        )

    def to_dict(self) -> dict:
        return {
            "share": self.share,
            "p": self.p,
            "k": self.k,
            "risky_side": self.risky_side,
            "normal": list(self.normal),
            "wilson": list(self.wilson),
            "too_small": self.too_small,
        }


def sample_checks(stats: CorpusStats) -> list[SampleCheck]:
    """Every share the Monte Carlo draws as a normal, checked against ``SAMPLE_RULE``."""

    def check(name: str, p: float, k: int, side: str) -> SampleCheck:
        return SampleCheck(name, p, k, side, normal_interval(p, k), wilson_interval(p, k))

    out = []
    for d in stats.direct:
        out.append(check(f"W_i {d.label}", d.w, stats.n, "high"))
        out.append(check(f"R_i {d.label}", d.r, d.documents, "low"))
    q = stats.quasi
    if q.instances:
        out.append(check("R_q", q.r_q, q.documents, "low"))
    return out
