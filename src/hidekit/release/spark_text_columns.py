"""The ``text_columns`` step on a Spark DataFrame: detection and a text operator on the executors.

The detector's state (model bytes, configuration, allow and deny lists, profile) is broadcast
once (``hidekit.text.spark_detect.detector_state``); each partition rebuilds the detector and runs
the step's own ``rewrite`` over its records (``mapInPandas``), so every cell is rewritten as on
the default engine. Beside each column the partition gives the labels of the spans found in each
cell (null for a cell not read); the decisions (cells read, cells holding PHI, spans per label,
the text risk) are counted from those by Spark, and only the counts come to the driver. Redact and
tag rewrite each cell on its own; keyed surrogates keep state across the cells in record order (a
name's surrogate depends on the names met before it), so that operator, and text columns that
Spark does not hold as text, run on the driver over the columns the step reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW, _spark_ready
from hidekit.engines.spark_steps import SparkTable, _by_table, restore_types, spark_column
from hidekit.errors import require_columns


def spark_ready(step: Any, table: SparkTable) -> bool:
    from pyspark.sql.types import StringType

    types = {f.name: f.dataType for f in table.sdf.schema.fields}
    return step.operator != "surrogate" and all(
        isinstance(types.get(c), StringType) for c in step.columns
    )


def spark_text_columns(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with the step's text columns rewritten (``step``: a
    ``hidekit.release.text_columns.TextColumns``); ``step.decisions_`` counted on Spark."""
    from pyspark.sql import types as T

    from hidekit.text.detection.detector import load_model
    from hidekit.text.spark_detect import detector_state

    require_columns(table.columns, step.columns)
    if not spark_ready(step, table):
        return _by_table(table, step, fit)
    spark = table.sdf.sparkSession
    state = spark.sparkContext.broadcast(
        detector_state(load_model(step.model, profile=step.profile))
    )
    columns, dtypes = table.columns, table.dtypes
    labels = {c: f"__hk_labels{i}" for i, c in enumerate(step.columns)}
    fields = list(table.sdf.schema.fields)
    fields += [T.StructField(labels[c], T.ArrayType(T.StringType()), True) for c in step.columns]
    names = [f.name for f in fields]

    def run(parts: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        from hidekit.text.detection.detector import Detector

        worker = Detector.from_state(state.value)
        for part in parts:
            part = part.reset_index(drop=True)
            new, found = step.rewrite(restore_types(part[columns], dtypes), worker)
            out = _spark_ready(new).assign(**{_ROW: part[_ROW].to_numpy()})
            for col, docs in found.items():
                read = [isinstance(v, str) and v.strip() != "" for v in part[col]]
                cells: list = [None] * len(part)
                it = iter(docs)
                for i in np.flatnonzero(read):
                    cells[i] = [s.label for s in next(it).spans]
                out[labels[col]] = cells
            yield out[names]

    mapped = table.sdf.mapInPandas(run, T.StructType(fields)).localCheckpoint()
    step.decisions_ = {c: _decisions(step, mapped, labels[c]) for c in step.columns}
    sdf = mapped.select(*[spark_column(c) for c in columns], _ROW)
    types = {c: (np.dtype(object) if c in step.columns else t) for c, t in dtypes.items()}
    return SparkTable(sdf, types, list(step.columns))


def _decisions(step: Any, mapped, column: str) -> dict:
    """One column's decisions from the labels per cell, counted by Spark."""
    from pyspark.sql import functions as F

    cells = F.col(column)
    row = mapped.agg(
        F.count(cells).alias("n"), F.sum((F.size(cells) > 0).cast("long")).alias("phi")
    ).first()
    spans = mapped.select(F.explode(cells).alias("l")).groupBy("l").count().collect()
    holding = (
        mapped.select(F.explode(F.array_distinct(cells)).alias("l")).groupBy("l").count().collect()
    )
    return step.summary(
        int(row["n"]),
        int(row["phi"] or 0),
        {r["l"]: int(r["count"]) for r in spans},
        {r["l"]: int(r["count"]) for r in holding},
    )
