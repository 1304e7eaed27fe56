"""Suppression by individual risk on a Spark DataFrame: the class table (one row per combination
of the keys, its records and, with weights, their sum) counted by Spark in one ``GROUP BY``, the
blanks decided on that small table on the driver (``suppress_classes``, the default engine's own
search, under either missing rule: records of one class share their risk), then joined back onto
the records (a broadcast join of the classes blanked). The weights are checked on Spark too (one
aggregate: the faults the default engine names, with their first row). A weight column of text
(its numbers parsed as the default engine parses them) runs on the driver over the columns the
step reads.
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
from hidekit.risk.weighted import WeightFaults
from hidekit.transforms.suppression_rules import with_missing

_FLAG = "__hk_blank"
_WEIGHT = "__hk_weight"


def _numeric(table: SparkTable, column: str) -> bool:
    from pyspark.sql.types import NumericType

    kind = {f.name: f.dataType for f in table.sdf.schema.fields}[column]
    return isinstance(kind, NumericType)


def check_spark_weights(table: SparkTable, column: str) -> None:
    """``check_weights`` on Spark: the same one-line error, from one aggregate (counts of each
    fault and the first offending row and value, in record order)."""
    from pyspark.sql import functions as F

    w = spark_column(column).cast("double")
    missing = F.isnull(w) | F.isnan(w)
    bad = ~missing & ((F.abs(w) == float("inf")) | (w <= 0))
    low = ~missing & ~bad & (w < 1)

    def first(flag):  # (row, value) of the first record flagged, by row number
        return F.min(F.when(flag, F.struct(F.col(_ROW).alias("r"), w.alias("v"))))

    row = table.sdf.agg(
        *[F.sum(f.cast("long")).alias(f"n{i}") for i, f in enumerate((missing, bad, low))],
        *[first(f).alias(f"f{i}") for i, f in enumerate((missing, bad, low))],
    ).first()
    if row is None:
        return
    n = [int(row[f"n{i}"] or 0) for i in range(3)]
    f = [row[f"f{i}"] for i in range(3)]
    WeightFaults(
        missing=n[0],
        first_missing=int(f[0]["r"]) if f[0] else 0,
        bad=n[1],
        first_bad=int(f[1]["r"]) if f[1] else 0,
        bad_value=float(f[1]["v"]) if f[1] else 0.0,
        low=n[2],
        low_value=float(f[2]["v"]) if f[2] else 0.0,
    ).check(column)


def spark_suppress_risk(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with the key values of risky records blanked (``step``: a
    ``hidekit.risk.suppression.RiskSuppression``)."""
    from pyspark.sql import functions as F

    step.check_params()
    require_columns(table.columns, step.keys)
    require_columns(table.columns, [step.weights] if step.weights else [])
    if step.weights is not None and not _numeric(table, step.weights):
        return _by_table(table, step, fit)
    keys = list(step.keys)
    sums = [F.count(F.lit(1)).alias(COUNT_COLUMN)]
    if step.weights is not None:
        check_spark_weights(table, step.weights)
        sums.append(F.sum(spark_column(step.weights).cast("double")).alias(_WEIGHT))
    counted = table.sdf.groupBy(*[spark_column(c) for c in keys]).agg(*sums).toPandas()
    values = restore_types(counted[keys], table.dtypes)
    w = counted[_WEIGHT].to_numpy(np.float64) if step.weights is not None else None
    blanks = step.blanks_on_classes(values, counted[COUNT_COLUMN].to_numpy(np.int64), w)
    dtypes = dict(table.dtypes)
    if not blanks:
        return SparkTable(table.sdf, dtypes, [], cells={})
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
