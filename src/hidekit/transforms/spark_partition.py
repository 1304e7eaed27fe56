"""Partition on a Spark DataFrame: the observation IDs drawn as the default engine draws them,
the records and the link kept by Spark.

The default engine gives the distinct identifier combinations, put in value order (``value_key``
of each identifier, missing first), the codes ``draw_codes`` draws for that many combinations
(one permutation from the key): the combination of rank r gets the r-th code. On Spark the
combinations are counted by one ``GROUP BY`` (first row and records of each), sorted by the same
order (text and whole-number columns: their ``value_key`` is the value as Spark writes it, and
Spark orders text by code point as Python does), ranked by a monotonically increasing id within
each sorted partition plus the sizes of the partitions before it (a small table on the driver).
Only the permutation (one integer per combination) is drawn on the driver and sent back; the
records are joined to their combination's ID on the executors, and the link (ID and
identifiers, in ID order) stays a Spark DataFrame (``SparkLink``) until the release writes it,
encrypted, partition by partition. Identifier columns of other types (floats, dates) take the
driver path (``table``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW
from hidekit.engines.spark_steps import (
    SparkTable,
    _by_table,
    joined_rows,
    restore_types,
    spark_column,
    to_spark,
)
from hidekit.errors import OptionError, require_columns
from hidekit.transforms.identifiers import _width_for, draw_codes

_M, _P, _O, _R, _N, _C = "__hk_mono", "__hk_part", "__hk_off", "__hk_rank", "__hk_n", "__hk_code"
_SHIFT = 33  # monotonically_increasing_id: the partition index above bit 33


@dataclass
class SparkLink:
    """A partition's link file held by Spark (ID and identifiers, in ID order), read back
    partition by partition when the release encrypts it."""

    sdf: Any  # a pyspark.sql.DataFrame: the ID column, then the identifiers
    columns: list
    dtypes: dict

    def json_rows(self) -> Iterator[str]:
        """The link's rows as JSON arrays joined by ``", "`` in pieces, in ID order; one
        partition on the driver at a time."""
        from pyspark.sql import functions as F

        # "[value]": each value as JSON (SQL text: Spark's column function, no file written)
        json = [F.expr("to_json(array(`" + c.replace("`", "``") + "`))") for c in self.columns]
        cells = [
            F.expr(f"substring(`__hk_j{i}`, 2, length(`__hk_j{i}`) - 2)") for i in range(len(json))
        ]
        rows = self.sdf.select(*[j.alias(f"__hk_j{i}") for i, j in enumerate(json)]).select(
            F.concat(F.lit("["), F.concat_ws(", ", *cells), F.lit("]")).alias("row")
        )

        yield from joined_rows(rows)

    def to_pandas(self) -> pd.DataFrame:
        """The whole link on the driver (small tables and tests)."""
        frame = self.sdf.toPandas()[self.columns]
        return restore_types(frame, self.dtypes).reset_index(drop=True)


def spark_ready(step: Any, table: SparkTable) -> bool:
    """Whether the Spark path applies: every identifier text or whole numbers."""
    from pyspark.sql.types import IntegralType, StringType

    types = {f.name: f.dataType for f in table.sdf.schema.fields}
    return all(isinstance(types.get(c), StringType | IntegralType) for c in step.identifiers)


def spark_partition(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with the identifiers replaced by the observation ID (``step``: a
    ``hidekit.transforms.partition.Partition``); ``step.link_`` a ``SparkLink``."""
    from pyspark.sql import functions as F

    if not fit or not spark_ready(step, table):
        return _by_table(table, step, fit)
    step.check_params()
    require_columns(table.columns, step.identifiers)
    if step.id_column in table.columns:
        raise OptionError(f"the ID column {step.id_column!r} already exists in the data")
    ids = list(step.identifiers)
    spark = table.sdf.sparkSession
    order = []
    for c in ids:  # (present, value_key or ""): missing first, then by text
        order += [
            spark_column(c).isNotNull(),
            F.coalesce(spark_column(c).cast("string"), F.lit("")),
        ]
    ranked = (
        table.sdf.groupBy(*[spark_column(c) for c in ids])
        .agg(F.count(F.lit(1)).alias(_N))
        .orderBy(*order)
        .withColumn(_M, F.monotonically_increasing_id())
        .localCheckpoint()  # the ids are fixed from here on
    )
    parts = (
        ranked.groupBy(F.shiftright(_M, _SHIFT).alias(_P))
        .agg(F.count(F.lit(1)).alias("n"), F.sum(_N).alias("records"))
        .toPandas()
        .sort_values(_P)
    )
    n = int(parts["n"].sum())
    width = _width_for(n, step.width, None, step.id_column)
    codes = np.asarray(
        draw_codes(n, set(), width, step._random.rng("partition", step.id_column)), np.int64
    )
    sizes = parts["n"].to_numpy(np.int64)
    offsets = pd.DataFrame({_P: parts[_P].to_numpy(np.int64), _O: np.cumsum(sizes) - sizes})
    drawn = to_spark(spark, pd.DataFrame({_R: np.arange(n, dtype=np.int64), _C: codes}))
    mask = (1 << _SHIFT) - 1
    link = (
        ranked.withColumn(_P, F.shiftright(_M, _SHIFT))
        .join(F.broadcast(to_spark(spark, offsets)), _P)
        .withColumn(_R, F.col(_O) + F.col(_M).bitwiseAND(F.lit(mask)))
        .join(drawn, _R)
        .select(
            F.lpad(F.col(_C).cast("string"), width, "0").alias(step.id_column),
            *[spark_column(c) for c in ids],
        )
        .localCheckpoint()
    )
    dtypes = {step.id_column: np.dtype(object), **{c: table.dtypes[c] for c in ids}}
    step.link_ = SparkLink(link.orderBy(step.id_column), [step.id_column, *ids], dtypes)
    alias = {c: f"__hk_k{i}" for i, c in enumerate(ids)}
    keys = link.select(step.id_column, *[spark_column(c).alias(alias[c]) for c in ids])
    cond = reduce(lambda a, b: a & b, [table.sdf[c].eqNullSafe(keys[alias[c]]) for c in ids])
    rest = [c for c in table.columns if c not in ids]
    sdf = table.sdf.join(keys, cond, "left").select(
        spark_column(step.id_column), *[spark_column(c) for c in rest], _ROW
    )
    out_types = {step.id_column: np.dtype(object), **{c: table.dtypes[c] for c in rest}}
    records = int(parts["records"].sum())
    return SparkTable(sdf, out_types, [step.id_column], cells={step.id_column: records})
