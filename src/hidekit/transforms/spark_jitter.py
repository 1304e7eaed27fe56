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

from hidekit.engines.spark_engine import _ROW
from hidekit.engines.spark_steps import SparkTable, map_rows, restore_types, spark_column
from hidekit.errors import require_columns

_FIRST = "__hk_first"


def spark_jitter(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with every record's coordinates replaced by its cluster's displaced point
    (``step``: a ``hidekit.transforms.geo.Jitter``)."""
    require_columns(table.columns, step._columns())
    if fit:
        _fit(step, table)
    source = None
    if step.cluster:
        cluster = spark_column(step.cluster)
        source = table.sdf.repartition(cluster).sortWithinPartitions(cluster, _ROW)
    return map_rows(table, step, lambda frame, rows: step.transform(frame, rows), source)


def _fit(step: Any, table: SparkTable) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType

    values = None
    if step.urban:
        firsts = (
            table.sdf.groupBy(spark_column(step.urban))
            .agg(F.min(_ROW).alias(_FIRST))
            .orderBy(_FIRST)
            .toPandas()
        )
        values = restore_types(firsts[[step.urban]], table.dtypes)[step.urban]
    step.fit_urban(values)
    types = {f.name: f.dataType for f in table.sdf.schema.fields}
    numeric = [c for c in (step.lat, step.lon) if isinstance(types[c], NumericType)]
    for col, limit in ((step.lat, 90.0), (step.lon, 180.0)):
        if col not in numeric:
            continue  # text coordinates: checked where they are read, on the executors
        bad = table.sdf.where(F.abs(spark_column(col)) > limit).orderBy(_ROW).limit(1).collect()
        if bad:
            raise step.out_of_range(col, float(bad[0][col]), int(bad[0][_ROW]), limit)
    absent = [spark_column(c).cast("double") for c in (step.lat, step.lon)]
    missing = F.isnull(absent[0]) | F.isnan(absent[0]) | F.isnull(absent[1]) | F.isnan(absent[1])
    step.note_missing(int(table.sdf.where(missing).count()))
