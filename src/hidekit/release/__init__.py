"""Release plans: a TOML file of roles, steps and a risk limit, run into a checked output folder."""

from hidekit.release.plan import IDENTIFIER_STEPS, Plan, Step, load_plan
from hidekit.release.runner import ReleaseResult, run_plan
from hidekit.release.tables import cells_changed

__all__ = [
    "IDENTIFIER_STEPS",
    "Plan",
    "ReleaseResult",
    "Step",
    "cells_changed",
    "load_plan",
    "run_plan",
]
