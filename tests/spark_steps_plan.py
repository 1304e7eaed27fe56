"""The survey folder of the release plan that runs every step Spark once left to the driver
(partition, optimal, suppress_risk with weights and ``missing="any"``; text_columns when notes
are given): ``tests/test_spark_plan_steps.py`` checks both engines give the same files on it, and
``benchmarks/bench_spark_steps.py`` times them on it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

PLAN = """
[input]
path = "survey.csv"

[roles]
direct = ["record_id", "name", "ssn", "phone", "email", "street_address", "birth_date",
          "latitude", "longitude"]
keys = ["sex", "age", "state", "race", "marital_status"]

[risk]
k = 2

[[steps]]
use = "partition"
identifiers = ["record_id", "ssn"]

[[steps]]
use = "remove"
columns = ["name", "phone", "email", "street_address", "birth_date", "city", "zip",
           "latitude", "longitude"]

[[steps]]
use = "bin"
columns = ["age"]
edges = [30, 40, 50, 60, 70, 80, 90]

[[steps]]
use = "optimal"
keys = ["education", "marital_status"]
hierarchies = { education = "education.csv", marital_status = "marital.csv" }
k = 3
suppression = 0.05

[[steps]]
use = "suppress_risk"
keys = ["sex", "age", "state", "race"]
columns = ["race", "state"]
threshold = 0.3
weights = "weight"
missing = "any"

[[steps]]
use = "suppress"
keys = ["sex", "age", "state", "race", "marital_status"]
k = 2
"""
TEXT_STEP = """
[[steps]]
use = "text_columns"
columns = ["note"]
"""


def write_steps_folder(folder: Path, records: int, notes: Sequence[str] = ()):
    """The demo survey of ``records`` records with a ``weight`` column (and a ``note`` column
    cycling through ``notes``), the hierarchies of ``education`` and ``marital_status``, and
    ``plan.toml``, written to ``folder``; returns the survey frame."""
    from hidekit.demo.survey import generate_survey
    from hidekit.io import write_table

    frame = generate_survey(records, 7)
    frame["weight"] = np.random.default_rng(2).integers(1, 6, len(frame)) * 1.5
    if notes:
        frame["note"] = [notes[i % len(notes)] for i in range(len(frame))]
    write_table(frame, folder / "survey.csv")
    (folder / "plan.toml").write_text(PLAN + (TEXT_STEP if notes else ""), encoding="utf-8")
    levels = {"High school": "school", "Less than high school": "school"}
    (folder / "education.csv").write_text(
        "".join(f"{v};{levels.get(v, 'college')};*\n" for v in frame["education"].unique()),
        encoding="utf-8",
    )
    (folder / "marital.csv").write_text(
        "".join(
            f"{v};{'Married' if v == 'Married' else 'Not'};*\n"
            for v in frame["marital_status"].unique()
        ),
        encoding="utf-8",
    )
    return frame
