"""Optimal full-domain generalization over hierarchy lattices (ARX's core): privacy models,
information-loss metrics, a Flash-style search on class counts."""

from hidekit.anonymize.optimal.api import OptimalResult, optimal_generalization
from hidekit.anonymize.optimal.metrics import METRICS

__all__ = ["METRICS", "OptimalResult", "optimal_generalization"]
