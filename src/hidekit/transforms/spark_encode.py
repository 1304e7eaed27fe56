"""Encode on a Spark DataFrame: each value's code from the key, the crosswalk never on the driver.

A flat column's codes are the ranks of a keyed hash of its values (``keyed_order`` in
``hidekit.transforms.identifiers``: SHA-256 of the column's secret prefix and the value), which
Spark computes per value with ``sha2``. Each record's hash's first 60 bits come to the driver
(8 bytes a record), where sorted and made unique they give each value its rank; the sorted
prefixes go to the Python workers once (a broadcast variable) and the records get their codes by
binary search there (a pandas UDF of the prefix alone), where they are: no record is shuffled,
and no hash table is built in the JVM by each query that reads the codes (a broadcast join did,
costing a third of the 10M plan's encode). The crosswalk is the distinct values in hash order; it stays a Spark DataFrame (``SparkCrosswalk``) until the release writes
it, encrypted, partition by partition. Should two values share their hash's first 60 bits, the
column is ranked the older way: the records range-partitioned on the hash's first byte and
sorted by the hash within each partition (a value's rank is its dense rank within its byte plus
the number of distinct values in the bytes before it).

Hierarchies, an earlier crosswalk and columns that are neither text nor whole numbers take the
general path (``values``: the distinct values through the step's own ``fit`` on the driver).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW
from hidekit.engines.spark_steps import SparkTable, _by_values, spark_column
from hidekit.errors import require_columns

_H, _B, _R, _F, _O, _C, _P = (
    "__hk_hash",
    "__hk_byte",
    "__hk_rank",
    "__hk_first",
    "__hk_off",
    "__hk_code",
    "__hk_prefix",
)


@dataclass
class SparkCrosswalk:
    """An encode crosswalk held by Spark: one DataFrame per column (``value``, ``code``, in code
    order), read back partition by partition when the release encrypts it."""

    parts: list  # (column name, DataFrame of value and code)
    columns: list  # the crosswalk's columns: column, parent, value, code

    def json_rows(self) -> Iterator[bytes]:
        """The crosswalk's rows as JSON arrays (``[column, parent, value, code]``), joined by
        ``", "`` into one piece per partition, in code order: the bytes the default engine's
        payload holds (``json_pieces``), made on the executors (Arrow builds the text of plain
        IDs); one partition on the driver at a time."""
        from hidekit.transforms.crosswalk import json_pieces

        names = list(self.columns)
        for column, sdf in self.parts:

            def pieces(batches, column=column):
                for part in batches:
                    if len(part):
                        frame = pd.DataFrame(
                            {
                                names[0]: column,
                                names[1]: "",
                                names[2]: part["value"].to_numpy(object),
                                names[3]: part["code"].to_numpy(object),
                            }
                        )
                        text = b", ".join(json_pieces(frame, rows=len(frame)))
                        yield pd.DataFrame({"rows": [text]})

            for row in sdf.mapInPandas(pieces, "rows binary").toLocalIterator():
                yield bytes(row[0])

    def to_pandas(self) -> pd.DataFrame:
        """The whole crosswalk on the driver (small tables and tests)."""
        frames = [
            sdf.toPandas().assign(column=column, parent="")[self.columns]
            for column, sdf in self.parts
        ]
        if not frames:
            return pd.DataFrame(columns=self.columns, dtype=object)
        return pd.concat(frames, ignore_index=True).astype(object)


def spark_ready(step: Any, table: SparkTable) -> bool:
    """Whether the keyed Spark path applies: flat text or whole-number columns, no earlier
    crosswalk (its codes were drawn on the driver)."""
    from pyspark.sql.types import IntegralType, StringType

    if not step.keyed_only():
        return False
    types = {f.name: f.dataType for f in table.sdf.schema.fields}
    return all(isinstance(types.get(c), StringType | IntegralType) for c in step.columns)


def spark_encode(step: Any, table: SparkTable, fit: bool = True) -> SparkTable:
    """``table`` with each flat column replaced by its codes (``step``: a
    ``hidekit.transforms.identifiers.Encode``); ``step.crosswalk_`` a ``SparkCrosswalk``."""
    require_columns(table.columns, step.columns + step.hierarchy)
    if not fit or not spark_ready(step, table):
        return _by_values(table, step, fit)
    sdf, parts, cells = table.sdf, [], {}
    for col in step.columns:
        sdf, crosswalk, changed = _encode_column(sdf, col, step)
        parts.append((col, crosswalk))
        if changed:
            cells[col] = changed
    step.crosswalk_ = SparkCrosswalk(parts, list(step.crosswalk_columns))
    dtypes = {c: (np.dtype(object) if c in step.columns else t) for c, t in table.dtypes.items()}
    out = sdf.select(*[spark_column(c) for c in table.columns], _ROW)
    return SparkTable(out, dtypes, list(step.columns), cells=cells)


def _encode_column(sdf, col: str, step: Any):
    """(records with ``col`` replaced by its codes, the column's crosswalk, cells changed).

    Each record's hash's first 60 bits come to the driver (8 bytes a record, one column read),
    where sorted and made unique they are every value's rank; that sorted array goes to the
    Python workers once (a broadcast variable), where a record's rank is found by binary search
    (``np.searchsorted``, a pandas UDF over the prefix alone): no record is shuffled, no value
    counted apart, and no hash table is built in the JVM for each query that reads the codes.
    Two values whose hashes share 60 bits (about 1 in 20,000 for 10 million values; checked on
    the prefixes found more than once) make the column take the ranked path instead."""
    from pyspark.sql import functions as F

    text = spark_column(col).cast("string")
    prefix = _prefix(text, step.code_prefix(col))
    found = sdf.where(text.isNotNull()).select(prefix.alias(_P)).toPandas()[_P]
    table, counts = np.unique(found.to_numpy(np.int64), return_counts=True)
    if _shared_prefixes(sdf, text, prefix, table[counts > 1]):
        return _encode_column_ranked(sdf, col, step)
    width = step.code_width(len(table), col)
    known = sdf.sparkSession.sparkContext.broadcast(table)
    # a missing value's prefix is null: 0 goes to the UDF (a long column without nulls stays
    # int64 in pandas, exact), and the code is null again
    rank = _rank_udf(known)(F.coalesce(prefix, F.lit(0).cast("long")))
    code = F.when(text.isNotNull(), F.lpad(rank.cast("string"), width, "0"))
    # a value can be its own code only if it has the codes' width, in digits: look up those alone
    maybe = sdf.select(text.alias("value"), prefix.alias(_P)).where(
        (F.length("value") == width) & F.col("value").rlike("^[0-9]+$")
    )
    same = maybe.select(_lpad_rank(known, width)).where(F.col("code") == F.col("value")).count()
    crosswalk = _crosswalk(sdf.where(text.isNotNull()), text, prefix, known, width)
    out = sdf.select(*[code.alias(col) if c == col else spark_column(c) for c in sdf.columns])
    return out, crosswalk, len(found) - int(same)


def _rank_udf(known):
    """A pandas UDF: each prefix's rank (1 on) among the sorted prefixes ``known`` holds."""
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("long")
    def rank(p: pd.Series) -> pd.Series:
        return pd.Series(np.searchsorted(known.value, p.to_numpy(np.int64)) + 1)

    return rank


def _lpad_rank(known, width: int):
    """The value and its code (``value``, ``code``) of records with a value and a prefix."""
    from pyspark.sql import functions as F

    rank = _rank_udf(known)(F.col(_P))
    return [F.col("value"), F.lpad(rank.cast("string"), width, "0").alias("code")]


def _shared_prefixes(sdf, text, prefix, repeated: np.ndarray) -> bool:
    """Whether two different values have one of the ``repeated`` prefixes."""
    from pyspark.sql import functions as F

    if not len(repeated):
        return False
    spark = sdf.sparkSession
    kept = spark.createDataFrame(pd.DataFrame({_P: repeated}), schema=f"{_P} long")
    pairs = sdf.select(text.alias("value"), prefix.alias(_P)).join(F.broadcast(kept), _P)
    values = pairs.groupBy(_P).agg(F.countDistinct("value").alias("n"))
    return bool(values.where(F.col("n") > 1).limit(1).count())


def _crosswalk(records, text, prefix, known, width: int):
    """The column's distinct values and codes in code order (lazy: read when it is written):
    the values and prefixes range-partitioned and sorted by prefix, each prefix's first kept,
    its rank found in the sorted prefixes ``known`` (a broadcast variable)."""
    from pyspark.sql import functions as F

    parts = max(1, int(records.sparkSession.conf.get("spark.sql.shuffle.partitions", "4")))

    def first_of_each(batches):
        last = None
        for part in batches:
            p = part[_P].to_numpy(np.int64)
            new = np.ones(len(p), dtype=bool)
            new[1:] = p[1:] != p[:-1]
            if len(p) and last is not None:
                new[0] = p[0] != last
            if len(p):
                last = p[-1]
            ranks = np.searchsorted(known.value, p[new]) + 1
            yield pd.DataFrame({"value": part["value"].to_numpy()[new], _R: ranks})

    ordered = (
        records.select(text.alias("value"), prefix.alias(_P))
        .repartitionByRange(parts, F.col(_P))
        .sortWithinPartitions(_P)
    )
    firsts = ordered.mapInPandas(first_of_each, f"value string, {_R} long")
    return firsts.select("value", F.lpad(F.col(_R).cast("string"), width, "0").alias("code"))


def _keyed_digest(text, secret: str):
    """SHA-256(secret + value) in hex, the default engine's ``keyed_words`` (null for a missing
    value); both encode paths rank values by it."""
    from pyspark.sql import functions as F

    return F.sha2(F.concat(F.lit(secret), text), 256)


def _prefix(text, secret: str):
    """The first 60 bits of the value's keyed SHA-256 as a long (null for a missing value):
    where two hashes' prefixes differ, they order the hashes as their hex digits do."""
    from pyspark.sql import functions as F

    return F.conv(F.substring(_keyed_digest(text, secret), 1, 15), 16, 10).cast("long")


def _encode_column_ranked(sdf, col: str, step: Any):
    """``_encode_column`` by ranking the records themselves: shuffled by the hash's first byte,
    sorted by the hash within each byte."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    spark = sdf.sparkSession
    text = spark_column(col).cast("string")
    digest = _keyed_digest(text, step.code_prefix(col))
    parts = max(1, int(spark.conf.get("spark.sql.shuffle.partitions", "4")))
    ordered = (
        sdf.withColumn(_H, digest)
        .withColumn(_B, F.conv(F.substring(_H, 1, 2), 16, 10).cast("int"))
        .repartitionByRange(parts, _B)
        .sortWithinPartitions(_B, _H)
    )
    by_byte = Window.partitionBy(_B).orderBy(_H)
    ranked = (
        ordered.withColumn(_R, F.dense_rank().over(by_byte))
        .withColumn(_F, F.coalesce(F.lag(_H).over(by_byte) != F.col(_H), F.lit(True)))
        .drop(_H)  # 64 characters a record: the rank and the byte say all that is needed next
        .localCheckpoint()  # the counts below, the crosswalk and the step's output all read it
    )
    counts = (
        ranked.where(F.col(_B).isNotNull())
        .groupBy(_B)
        .agg(F.max(_R).alias("n"), F.count(F.lit(1)).alias("records"))
        .toPandas()
        .sort_values(_B)
    )
    n = int(counts["n"].sum())
    width = step.code_width(n, col)
    sizes = counts["n"].to_numpy(np.int64)
    offsets = pd.DataFrame({_B: counts[_B].to_numpy(np.int32), _O: np.cumsum(sizes) - sizes})
    off = spark.createDataFrame(offsets, schema=f"{_B} int, {_O} long")
    code = F.when(F.col(_B).isNotNull(), F.lpad((F.col(_O) + F.col(_R)).cast("string"), width, "0"))
    coded = ranked.join(F.broadcast(off), _B, "left").withColumn(_C, code)
    crosswalk = coded.where(F.col(_B).isNotNull() & F.col(_F)).select(
        text.alias("value"), F.col(_C).alias("code")
    )
    same = coded.where(F.col(_C) == text).count()  # 7 encoded as "7": a cell not changed
    out = coded.drop(col, _B, _R, _F, _O).withColumnRenamed(_C, col)
    return out, crosswalk, int(counts["records"].sum()) - int(same)
