"""The release-plan step ``optimal``: ARX-style optimal generalization in the transform shape
(configure, ``fit`` searches the lattice, ``transform`` releases the records it was fitted on)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pandas as pd

from hidekit.anonymize.optimal.api import OptimalResult, optimal_generalization
from hidekit.errors import InputError, OptionError, PolicyError
from hidekit.transforms.base import Transform, register


@register("optimal")
class OptimalGeneralization(Transform):
    """Generalize ``keys`` with their ``hierarchies`` to the least-loss level combination that
    satisfies k-anonymity (and l-diversity / t-closeness of ``sensitive``), suppressing at most
    ``suppression`` of the records (kept as ``*`` rows, or dropped with ``suppressed="drop"``)."""

    param_docs: ClassVar[dict[str, str]] = {
        "keys": "key variables to generalize",
        "hierarchies": "table key = ARX hierarchy file, one per key",
        "k": "smallest class size",
        "l": "l-diversity of the sensitive column (needs sensitive)",
        "l_kind": "distinct, entropy or recursive",
        "c": "c of recursive (c, l)-diversity",
        "t": "t-closeness of the sensitive column (equal ground distance, or hierarchical with "
        "t_hierarchy)",
        "t_hierarchy": "ARX hierarchy file of the sensitive column: t-closeness then uses the "
        "hierarchical ground distance",
        "sensitive": "sensitive column",
        "suppression": "largest share of records that may be suppressed",
        "metric": "loss, ncp, precision, discernibility, aecs or entropy (what the search minimizes)",
        "weights": "one weight per key (ARX's attribute weights)",
        "unknown_values": "error (a value missing from its hierarchy) or top (released as the top level)",
        "suppressed": "star (suppressed records kept as * rows) or drop",
        "time_limit": "seconds; past it the search turns heuristic and says it is not proven optimal",
        "max_avg_risk": "largest average prosecutor risk of the release (classes / records)",
        "max_rp": "largest risk proportion of the release (share of records in classes < cell_min)",
        "cell_min": "class size below which records count at risk for max_rp (default: k, at least 2)",
        "max_population_uniqueness": "largest share of the population estimated unique "
        "(needs population or sampling_fraction; not monotone: checked at every candidate node)",
        "population": "population size (for max_population_uniqueness)",
        "sampling_fraction": "records / population size (for max_population_uniqueness)",
        "population_estimator": "dankar (Dankar et al.'s rule), pitman, zayatz or snb",
    }

    # fitted on Spark's counts, the release joined onto the records (``anonymize.spark_optimal``)
    spark_scope: ClassVar[str] = "spark"

    def __init__(
        self,
        keys: Sequence[str],
        hierarchies: dict,
        k: int = 2,
        l: float | None = None,  # noqa: E741
        l_kind: str = "distinct",
        c: float | None = None,
        t: float | None = None,
        sensitive: str | None = None,
        suppression: float = 0.0,
        metric: str = "loss",
        weights: Sequence[float] | None = None,
        unknown_values: str = "error",
        suppressed: str = "star",
        time_limit: float | None = None,
        max_avg_risk: float | None = None,
        max_rp: float | None = None,
        cell_min: int | None = None,
        t_hierarchy: str | None = None,
        max_population_uniqueness: float | None = None,
        population: float | None = None,
        sampling_fraction: float | None = None,
        population_estimator: str = "dankar",
    ):
        self.keys = list(keys)
        self.hierarchies = hierarchies
        self.k = k
        self.l = l
        self.l_kind = l_kind
        self.c = c
        self.t = t
        self.sensitive = sensitive
        self.suppression = suppression
        self.metric = metric
        self.weights = weights
        self.unknown_values = unknown_values
        self.suppressed = suppressed
        self.time_limit = time_limit
        self.max_avg_risk = max_avg_risk
        self.max_rp = max_rp
        self.cell_min = cell_min
        self.t_hierarchy = t_hierarchy
        self.max_population_uniqueness = max_population_uniqueness
        self.population = population
        self.sampling_fraction = sampling_fraction
        self.population_estimator = population_estimator

    def fit(self, frame: pd.DataFrame) -> OptimalGeneralization:
        return self.fit_data(frame)

    def fit_data(self, data) -> OptimalGeneralization:
        """``fit`` on ``data``: a frame, or an engine that counts the records (Spark)."""
        self.check_params()
        if self.suppressed not in ("star", "drop"):
            raise OptionError(f"suppressed must be star or drop, got {self.suppressed!r}")
        # every constructor parameter but these three is an option of the search, by name
        options = {
            k: v
            for k, v in self.get_params().items()
            if k not in ("keys", "hierarchies", "suppressed")
        }
        result: OptimalResult = optimal_generalization(
            data, self.keys, dict(self.hierarchies or {}), **options
        )
        if not result.found:
            raise PolicyError(result.notes[-1] if result.notes else "no transformation found")
        self.result_ = result
        self.n_records_ = result.records
        self.warnings_ = list(result.notes)
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "result_"):
            raise OptionError("fit the optimal step before transform")
        if len(frame) != self.n_records_:
            raise InputError("the optimal step releases the records it was fitted on")
        return self.result_.apply(frame, suppressed=self.suppressed)

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table: the search on Spark's counts, the release of each distinct key
        combination joined onto the records (``hidekit.anonymize.spark_optimal``)."""
        from hidekit.anonymize.spark_optimal import spark_optimal

        return spark_optimal(self, table, fit)
