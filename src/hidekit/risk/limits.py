"""Limits on a whole release measured against the population, as privacy models of the optimal
search (``hidekit.anonymize.optimal``), registered in ``hidekit.registry.PRIVACY_LIMITS``.

``population_uniqueness``: the share of the *population* that is unique on the keys, estimated from
the released classes by Pitman, Zayatz, SNB or Dankar's rule among them (``risk.population``), at
most ``limit`` — ARX's ``PopulationUniqueness`` model (uniques / population size).

Not monotone: merging classes changes the whole frequency-of-frequencies profile the estimators fit,
so a generalization of a release that meets the limit need not meet it. ARX 3.9.2 says the same
(its ``PopulationUniqueness`` is not monotone with suppression, and monotone with generalization
only for Zayatz); the search therefore never tags a node by it, it checks each node.
An estimator that does not converge counts as failing the limit (ARX would count it as 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from hidekit.errors import OptionError
from hidekit.registry import PRIVACY_LIMITS
from hidekit.risk.population import MODELS, estimate_population, resolve_population

EPS = 1e-10
ESTIMATORS = ("dankar", *MODELS)


@PRIVACY_LIMITS.register("population_uniqueness")
@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniques / population size ≤ ``limit``. ``records``: the sample's
    size before suppression (with ``sampling_fraction`` it gives the population size)."""

    limit: float
    records: int
    population: float | None = None
    sampling_fraction: float | None = None
    estimator: str = "dankar"
    size: float = field(init=False)
    monotone = False

    def __post_init__(self) -> None:
        if not 0 <= float(self.limit) <= 1:
            raise OptionError(f"population uniqueness limit must be in [0, 1], got {self.limit!r}")
        if self.estimator not in ESTIMATORS:
            raise OptionError(
                f"population estimator must be one of {', '.join(ESTIMATORS)}, "
                f"got {self.estimator!r}"
            )
        size, _ = resolve_population(self.records, self.population, self.sampling_fraction)
        object.__setattr__(self, "size", size)

    def uniques(self, kept_sizes: np.ndarray) -> float | None:
        """Population uniques the released classes imply (None: the estimator failed)."""
        est = estimate_population(kept_sizes, population=self.size)
        return getattr(est, self.estimator)

    def holds(self, kept_sizes: np.ndarray) -> bool:
        if not len(kept_sizes) or int(np.sum(kept_sizes)) == 0:
            return True
        uniques = self.uniques(np.asarray(kept_sizes, dtype=np.int64))
        return (
            uniques is not None
            and math.isfinite(uniques)
            and (uniques / self.size <= self.limit + EPS)
        )

    def describe(self) -> str:
        return (
            f"population uniqueness ({self.estimator}, population {self.size:,.0f}) ≤ {self.limit}"
        )
