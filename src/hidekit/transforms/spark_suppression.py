"""Local suppression on a Spark DataFrame: the records never leave the executors.

One ``GROUP BY`` of the keys gives the classes (each combination's size and first row), which is
all the search needs (``hidekit.transforms.suppression_search``); the driver runs the search the
default engine runs, on that table. The cells to blank go back to the records by a join on the
keys: a class is blanked as a whole, or, where the search took only its first records, by each
record's rank in its class (a window over the rows of those few classes only).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hidekit.engines.spark_steps import (
    SparkTable,
    keep_columns,
    restore_types,
    spark_column,
    to_spark,
)
from hidekit.transforms.suppression_rules import (
    SuppressionResult,
    check_options,
    search_class_table,
    with_missing,
)

_N, _FIRST, _LO, _HI = "__hk_n", "__hk_first", "__hk_lo", "__hk_hi"
# records of split classes whose flags may come to the driver (one pass over the records);
# beyond, the records are kept and read twice (a window over the split classes, a join)
ROWS_FLAGGED = 2_000_000


def _key(i: int) -> str:
    return f"__hk_k{i}"


def _flag(i: int) -> str:
    return f"__hk_b{i}"


def spark_suppression(
    table: SparkTable, keys: list[str], k: int, importance, missing: str, max_loss: float
) -> tuple[SparkTable, SuppressionResult]:
    """``table`` with key cells blanked until every record matches k or more, and the figures:
    the very cells ``local_suppression`` blanks on the same records."""
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import _ROW

    k = check_options(pd.DataFrame(columns=table.columns), keys, k, "duckdb", 16, missing)
    grouped = table.sdf.groupBy(*[spark_column(c) for c in keys]).agg(
        F.count(F.lit(1)).alias(_N), F.min(_ROW).alias(_FIRST)
    )
    classes = grouped.toPandas().sort_values(_FIRST, kind="stable").reset_index(drop=True)
    values = restore_types(classes[keys], table.dtypes)
    counts = classes[_N].to_numpy(np.int64)
    result, codes, blocks = search_class_table(
        values, counts, keys, k, importance, missing, max_loss
    )
    unchanged = SparkTable(table.sdf, table.dtypes, [], cells={})
    if blocks is None or not result.total:
        return unchanged, result
    blank = (blocks.cur == -1) & ~(codes[blocks.cls] == -1)
    hit = np.flatnonzero(blank.any(axis=1) & (blocks.w > 0))
    split = np.bincount(blocks.cls[blocks.w > 0], minlength=len(counts)) > 1
    marks = values.iloc[blocks.cls[hit]].reset_index(drop=True)
    marks.columns = [_key(i) for i in range(len(keys))]
    marks[_LO] = blocks.lo[hit]
    marks[_HI] = blocks.lo[hit] + blocks.w[hit]
    for i in range(len(keys)):
        marks[_flag(i)] = blank[hit, i]
    inside = split[blocks.cls[hit]]  # marks of classes the search split
    parts = values.iloc[np.flatnonzero(split)]
    whole = blocks.lo[hit][~inside] == 0  # a class not split is one block, from its first record
    if int(counts[split].sum()) <= ROWS_FLAGGED and whole.all():
        sdf = _flag_rows(table, keys, marks, inside, parts)
    else:
        sdf = _join_marks(table, keys, marks, parts)
    blanked = [c for c in keys if result.suppressed[c]]
    for i, c in enumerate(keys):
        if c in blanked:
            sdf = sdf.withColumn(c, F.when(F.col(_flag(i)), F.lit(None)).otherwise(spark_column(c)))
    dtypes = dict(table.dtypes)
    for c in blanked:
        dtypes[c] = with_missing(pd.Series([], dtype=table.dtypes[c]), np.array([], int)).dtype
    out = SparkTable(sdf.select(*[spark_column(c) for c in table.columns], _ROW), dtypes, blanked)
    out.cells = {c: result.suppressed[c] for c in blanked}
    out.blanks_only = True
    return out, result


def _on(sdf, keys: list[str], other, names: list[str]):
    """Null-safe equality of ``sdf``'s keys and ``other``'s columns ``names``."""
    conds = [sdf[c].eqNullSafe(other[n]) for c, n in zip(keys, names, strict=True)]
    out = conds[0]
    for cond in conds[1:]:
        out = out & cond
    return out


def _flag_rows(table: SparkTable, keys: list[str], marks, inside: np.ndarray, split):
    """The records with their blank flags, in one pass over them: a whole class's flags by a
    join on the keys; in the split classes (at most ``ROWS_FLAGGED`` records), each record's
    rank is counted over the keys and row numbers alone (the steps before read only for
    those), and the flags of those records come to the driver and go back by row number."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import _ROW

    spark, sdf = table.sdf.sparkSession, table.sdf
    names = [_key(i) for i in range(len(keys))]
    flags = [_flag(i) for i in range(len(keys))]
    rows = pd.DataFrame({_ROW: np.array([], np.int64), **{f: np.array([], bool) for f in flags}})
    if inside.any():
        parts = F.broadcast(to_spark(spark, split.set_axis(names, axis=1).reset_index(drop=True)))
        narrow = sdf.select(_ROW, *[spark_column(c) for c in keys])
        ranked = narrow.join(parts, _on(narrow, keys, parts, names), "left_semi").withColumn(
            "__hk_rank",
            F.row_number().over(Window.partitionBy(*[spark_column(c) for c in keys]).orderBy(_ROW))
            - 1,
        )
        m = F.broadcast(to_spark(spark, marks[inside].reset_index(drop=True)))
        cond = _on(ranked, keys, m, names)
        cond = cond & (ranked["__hk_rank"] >= m[_LO]) & (ranked["__hk_rank"] < m[_HI])
        rows = ranked.join(m, cond).select(_ROW, *flags).toPandas()
        rows = rows.astype({_ROW: "int64", **dict.fromkeys(flags, bool)})
    whole = marks[~inside].reset_index(drop=True)
    out = sdf
    if len(whole):
        m = to_spark(spark, whole.drop(columns=[_LO, _HI]))
        m = F.broadcast(m) if len(whole) <= 200_000 else m
        out = out.join(m, _on(out, keys, m, names), "left").drop(*names)
    else:
        out = out.select("*", *[F.lit(None).cast("boolean").alias(f) for f in flags])
    got = F.broadcast(to_spark(spark, rows.set_axis([_ROW, *names], axis=1)))
    kept = [spark_column(c) for c in table.sdf.columns]
    out = out.join(got, _ROW, "left")
    both = [
        F.coalesce(F.col(f), F.col(n), F.lit(False)).alias(f)
        for f, n in zip(flags, names, strict=True)
    ]
    return out.select(*kept, *both)


def _join_marks(table: SparkTable, keys: list[str], marks: pd.DataFrame, split: pd.DataFrame):
    """The records with the blank flags of their block: ranks are counted in split classes only."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import _ROW

    spark = table.sdf.sparkSession
    sdf = table.sdf

    def on(other, names):
        conds = [sdf[c].eqNullSafe(other[n]) for c, n in zip(keys, names, strict=True)]
        out = conds[0]
        for cond in conds[1:]:
            out = out & cond
        return out

    names = [_key(i) for i in range(len(keys))]
    rank = "__hk_rank"
    if len(split):
        # read twice below (the split classes, the rest): kept, so the steps before it (a plan
        # keeps no step's table) run once
        sdf = keep_columns(sdf)
        parts = to_spark(spark, split.set_axis(names, axis=1).reset_index(drop=True))
        cond = on(F.broadcast(parts), names)
        inside = sdf.join(F.broadcast(parts), cond, "left_semi")
        window = Window.partitionBy(*[spark_column(c) for c in keys]).orderBy(_ROW)
        inside = inside.withColumn(rank, F.row_number().over(window) - 1)
        outside = sdf.join(F.broadcast(parts), cond, "left_anti").withColumn(rank, F.lit(0))
        sdf = inside.unionByName(outside)
    else:
        sdf = sdf.withColumn(rank, F.lit(0))
    m = to_spark(spark, marks)
    m = F.broadcast(m) if len(marks) <= 200_000 else m
    cond = on(m, names) & (sdf[rank] >= m[_LO]) & (sdf[rank] < m[_HI])
    flags = [F.coalesce(F.col(_flag(i)), F.lit(False)).alias(_flag(i)) for i in range(len(keys))]
    kept = [spark_column(c) for c in table.sdf.columns]
    return sdf.join(m, cond, "left").select(*kept, *flags)
