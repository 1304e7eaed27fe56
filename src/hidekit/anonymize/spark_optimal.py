"""The ``optimal`` step on a Spark DataFrame: the search fitted on Spark's counts, the release
joined onto the records.

The search reads only the counts of distinct key combinations (and of the sensitive column), so
it is fitted on ``SparkEngine.cell_codes`` over the table (one ``GROUP BY`` on the executors; the
class table is put in one canonical order, so the optimum is the default engine's to the bit).
A record's release depends only on its key values: each key's label at the chosen level, ``*`` on
every key when its generalized class fails the models. So it is worked out on the distinct key
combinations (the ``values`` way, ``hidekit.engines.spark_steps``) and joined back. With
``suppressed = "drop"`` (records dropped, which a release plan refuses anyway) the step runs on
the driver over the columns it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from hidekit.engines.spark_steps import SparkTable, _by_table, _by_values


class _Release:
    """The fitted step's release of distinct key combinations (what ``_by_values`` applies)."""

    def __init__(self, step: Any):
        self.step = step
        self.name = step.name

    def reads(self, columns: Sequence[str]) -> list[str]:
        return [c for c in columns if c in self.step.keys]

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.step.result_.apply(frame, suppressed="star")


def spark_optimal(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` released under the optimal generalization (``step``: a
    ``hidekit.anonymize.optimal.transform.OptimalGeneralization``), fitted here unless ``fit``
    is false."""
    if step.suppressed != "star":
        return _by_table(table, step, fit)
    if fit:
        step.fit_data(table.engine())
    elif not hasattr(step, "result_"):
        step.transform(table.empty_frame())  # the step's own error: fit before transform
    return _by_values(table, _Release(step), fit=False)
