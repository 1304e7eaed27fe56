"""Shared fixtures: paths to the in-repo data, a Spark session shared by the whole run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: a loaded 2-core CI machine is slow, not wrong. On CI the examples are
# derandomized, so a red run is reproducible; locally they vary, which finds more.
settings.register_profile("hidekit", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "hidekit")

FIXTURES = Path(__file__).parent / "fixtures"
ADULT = FIXTURES / "adult" / "adult.csv"
ADULT_KEYS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def adult_frame():
    from hidekit.io import read_table

    return read_table(ADULT).frame


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the run; tests using it are skipped where Java is missing."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Java is not installed: Spark tests skipped")
    from hidekit.engines.spark_engine import get_spark

    return get_spark()
