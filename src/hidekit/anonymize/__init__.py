"""Statistical de-identification of tables: Mondrian k-anonymity with l-diversity (HIDE)."""

from hidekit.anonymize.diversity import (
    DiversityRule,
    is_l_diverse,
    l_diversity,
    recursive_c_for,
    t_closeness,
)
from hidekit.anonymize.modes import MODES
from hidekit.anonymize.mondrian import AnonymizationResult, Mondrian, mondrian
from hidekit.io.hierarchy import Hierarchy

__all__ = [
    "MODES",
    "AnonymizationResult",
    "DiversityRule",
    "Hierarchy",
    "Mondrian",
    "is_l_diverse",
    "l_diversity",
    "mondrian",
    "recursive_c_for",
    "t_closeness",
]
