"""Suppression by individual risk on a Spark DataFrame, without weights: the class table (one
row per combination of the keys and its records) counted by Spark in one ``GROUP BY``, the blanks
decided on that small table on the driver (``suppress_classes``, the default engine's own
search), then joined back onto the records (a broadcast join of the classes blanked). With
weights (their checks name rows) or ``missing="any"`` (a blank matches other classes), the step
runs on the driver over the columns it reads.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.base import COUNT_COLUMN
from hidekit.engines.spark_engine import _ROW
from hidekit.engines.spark_steps import SparkTable, _by_table, restore_types, spark_column, to_spark
from hidekit.errors import require_columns
from hidekit.transforms.suppression_rules import with_missing

_FLAG = "__hk_blank"


def spark_suppress_risk(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with the key values of risky records blanked (``step``: a
    ``hidekit.risk.suppression.RiskSuppression``)."""
    from pyspark.sql import functions as F

    step.check_params()
    if step.weights is not None or step.missing != "category":
        return _by_table(table, step, fit)
    require_columns(table.columns, step.keys)
    keys = list(step.keys)
    counted = (
        table.sdf.groupBy(*[spark_column(c) for c in keys])
        .count()
        .withColumnRenamed("count", COUNT_COLUMN)
        .toPandas()
    )
    values = restore_types(counted[keys], table.dtypes)
    blanks = step.blanks_on_classes(values, counted[COUNT_COLUMN].to_numpy(np.int64))
    dtypes = dict(table.dtypes)
    if not blanks:
        return SparkTable(table.sdf, dtypes, [], cells={}, keep=False)
    flagged = np.logical_or.reduce(list(blanks.values()))
    alias = {c: f"__hk_k{i}" for i, c in enumerate(keys)}
    marks = values[flagged].rename(columns=alias)
    names = {c: f"{_FLAG}{i}" for i, c in enumerate(blanks)}
    for c, flag in blanks.items():
        marks[names[c]] = flag[flagged]
    marks = to_spark(table.sdf.sparkSession, marks.reset_index(drop=True))
    cond = reduce(lambda a, b: a & b, [table.sdf[c].eqNullSafe(marks[alias[c]]) for c in keys])
    joined = table.sdf.join(F.broadcast(marks), cond, "left")
    cols = []
    for c in table.columns:
        if c in blanks:
            cols.append(
                F.when(F.col(names[c]).eqNullSafe(True), None).otherwise(spark_column(c)).alias(c)
            )
            dtypes[c] = with_missing(pd.Series([], dtype=dtypes[c]), np.array([], int)).dtype
        else:
            cols.append(spark_column(c))
    sdf = joined.select(*cols, _ROW)
    cells = {c: n for c, n in step.suppressed_.items() if n}
    return SparkTable(sdf, dtypes, list(blanks), cells=cells)
