"""Jitter on a Spark DataFrame: fitted on aggregates, the records displaced on the executors.

The driver sees only the distinct values of the urban column (in order of first appearance, for
the same decisions as the default engine), the number of records without coordinates and the
first coordinate out of range. Each partition then runs the step's own ``transform``: a record's
draws come from the key and its cluster's name (``hidekit.transforms.geo``), never from where it
sits, so the points are the default engine's. With a cluster column, each cluster's records are
first brought into one partition in row order, so its mean point is summed in the same order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW
from hidekit.engines.spark_steps import (
    SparkTable,
    map_rows,
    restore_types,
    spark_column,
)
from hidekit.errors import require_columns

_FIRST = "__hk_first"
_NEW = "__hk_point"


def spark_jitter(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with every record's coordinates replaced by its cluster's displaced point
    (``step``: a ``hidekit.transforms.geo.Jitter``)."""
    require_columns(table.columns, step._columns())
    if fit:
        _fit(step, table)
    if not step.cluster and _numeric(table, (step.lat, step.lon)):
        return _by_record(step, table)
    source = None
    if step.cluster:
        cluster = spark_column(step.cluster)
        source = table.sdf.repartition(cluster).sortWithinPartitions(cluster, _ROW)
    return map_rows(table, step, lambda frame, rows: step.transform(frame, rows), source)


def _numeric(table: SparkTable, columns) -> bool:
    from pyspark.sql.types import NumericType

    types = {f.name: f.dataType for f in table.sdf.schema.fields}
    return all(isinstance(types[c], NumericType) for c in columns)


def _by_record(step: Any, table: SparkTable) -> SparkTable:
    """Each record its own cluster: its point depends on its coordinates, its urban value and its
    row number only, so only those columns go through the Python workers (a scalar pandas UDF
    over any batches), and the cells changed are counted in the pass that keeps the result."""
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf

    reads = [c for c in (step.lat, step.lon, step.urban) if c]
    dtypes = {c: table.dtypes[c] for c in reads}
    fields = [f"c{i}" for i in range(len(reads))]

    def displaced(batch: pd.DataFrame) -> pd.DataFrame:
        frame = restore_types(batch[fields].set_axis(reads, axis=1), dtypes)
        out = step.transform(frame, batch[_ROW].to_numpy())
        return pd.DataFrame({"lat": out[step.lat].to_numpy(), "lon": out[step.lon].to_numpy()})

    udf = pandas_udf(displaced, "lat double, lon double")  # type: ignore[call-overload]
    point = udf(
        F.struct(*[spark_column(c).alias(f) for c, f in zip(reads, fields, strict=True)], _ROW)
    )
    staged = table.sdf.withColumn(_NEW, point)
    new = {step.lat: F.col(_NEW)["lat"], step.lon: F.col(_NEW)["lon"]}
    sums = [
        F.sum(F.when(_same(spark_column(c), new[c]), 0).otherwise(1)).alias(f"n{i}")
        for i, c in enumerate((step.lat, step.lon))
    ]
    row = staged.agg(*sums).first()  # the UDF over the columns it reads, not kept
    cells = {c: int(row[f"n{i}"]) for i, c in enumerate((step.lat, step.lon)) if row[f"n{i}"]}
    cols = [new[c].alias(c) if c in new else spark_column(c) for c in table.columns]
    dtypes_out = {**table.dtypes, step.lat: np.dtype("float64"), step.lon: np.dtype("float64")}
    out = staged.select(*cols, _ROW)
    return SparkTable(out, dtypes_out, [step.lat, step.lon], cells=cells)


def _same(old, new):
    """Same cell: equal, or missing on both sides (null, or NaN as pandas reads it)."""
    from pyspark.sql import functions as F

    gone = F.isnull(old) | F.isnan(old)
    return old.eqNullSafe(new) | (gone & (F.isnull(new) | F.isnan(new)))


def _fit(step: Any, table: SparkTable) -> None:
    """One pass: the urban column's distinct values by first appearance, the first record with a
    coordinate out of range, the records without coordinates."""
    from pyspark.sql import functions as F

    numeric = [c for c in (step.lat, step.lon) if _numeric(table, (c,))]
    limits = {step.lat: 90.0, step.lon: 180.0}
    absent = [spark_column(c).cast("double") for c in (step.lat, step.lon)]
    missing = F.isnull(absent[0]) | F.isnan(absent[0]) | F.isnull(absent[1]) | F.isnan(absent[1])
    aggs = [F.min(_ROW).alias(_FIRST), F.sum(missing.cast("long")).alias("missing")]
    aggs += [
        F.min(F.when(F.abs(spark_column(c)) > limits[c], F.col(_ROW))).alias(f"bad{i}")
        for i, c in enumerate(numeric)
    ]
    groups = [spark_column(step.urban)] if step.urban else []
    found = table.sdf.groupBy(*groups).agg(*aggs).toPandas().sort_values(_FIRST)
    values = None
    if step.urban:
        values = restore_types(found[[step.urban]], table.dtypes)[step.urban].reset_index(drop=True)
    step.fit_urban(values)
    for i, col in enumerate(numeric):  # the first coordinate out of range, lat before lon
        bad = found[f"bad{i}"].dropna()
        if len(bad):
            at = int(bad.min())
            value = table.sdf.where(F.col(_ROW) == at).select(spark_column(col)).first()[0]
            raise step.out_of_range(col, float(value), at, limits[col])
    step.note_missing(int(found["missing"].sum()) if len(found) else 0)
