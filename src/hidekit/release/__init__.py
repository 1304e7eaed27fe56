"""Release plans: a TOML file of roles, steps and a risk limit, applied and checked in memory
(``apply_plan``); the release job (``hidekit.jobs.release_job``: ``run_plan``) writes the folder."""

from hidekit.release.plan import IDENTIFIER_STEPS, Plan, Step, load_plan, parse_plan
from hidekit.release.runner import ReleaseResult, apply_plan
from hidekit.release.tables import cells_changed

__all__ = [
    "IDENTIFIER_STEPS",
    "Plan",
    "ReleaseResult",
    "Step",
    "cells_changed",
    "apply_plan",
    "load_plan",
    "parse_plan",
]
