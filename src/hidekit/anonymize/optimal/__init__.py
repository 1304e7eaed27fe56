"""Optimal full-domain generalization over hierarchy lattices (ARX's core): privacy models,
information-loss metrics, a Flash-style search on class counts."""

from hidekit.anonymize.optimal.api import (
    OptimalResult,
    evaluate_transformation,
    optimal_generalization,
    prepare,
)
from hidekit.anonymize.optimal.metrics import METRICS

__all__ = [
    "METRICS",
    "OptimalResult",
    "evaluate_transformation",
    "optimal_generalization",
    "prepare",
]
