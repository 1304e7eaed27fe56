"""Mondrian on Spark, for tables that outgrow one machine.

The first cuts are decided on the driver from aggregated counts — per class, key code and
sensitive code — with the very function the local cutter uses (``evaluate_cuts``). Once the
table is split into a few classes, each is cut to the end on a worker (``applyInPandas``) by the
local cutter. A class's cuts depend only on its own records and the global key encodings, so the
result is the one the local cutter gives; only where the work happens differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from hidekit.anonymize.diversity import DiversityRule
from hidekit.anonymize.mondrian_cuts import (
    HIERARCHY,
    Dimension,
    check_params,
    class_labels,
    encode_key,
    evaluate_cuts,
    partition,
)
from hidekit.errors import InputError, OptionError
from hidekit.io.hierarchy import read_hierarchies

PART, SENS, DIM, CODE, NEWP = "__hk_p", "__hk_s", "__hk_d", "__hk_c", "__hk_np"


def _code_col(i: int) -> str:
    return f"__hk_c{i}"


def _encode(spark, sdf, key: str, hierarchy, order) -> tuple[Any, Dimension]:
    """Global codes of one key: a small (value, code) table joined onto the data."""
    distinct = sdf.select(key).distinct().toPandas()[key]
    dim = encode_key(distinct, key, hierarchy, order)
    lookup = spark.createDataFrame(pd.DataFrame({key: distinct.to_numpy(), "__code": dim.codes}))
    return lookup, replace(dim, codes=np.empty(0, dtype=np.int64))


def _refuse_missing(sdf, keys) -> None:
    from pyspark.sql import functions as F

    counts = sdf.select([F.sum(F.col(k).isNull().cast("long")).alias(k) for k in keys]).first()
    for key in keys:
        if counts[key]:
            raise InputError(
                f"key {key!r} has {counts[key]:,} missing value(s): Mondrian cannot place a missing "
                "value inside a range; fill them (e.g. with 'unknown') or drop those records"
            )


def _histograms(sdf, active: np.ndarray, n_dims: int, with_sens: bool) -> list[tuple]:
    """For each key, rows (local class, code, sensitive code, count) sorted — one Spark job."""
    from pyspark.sql import functions as F

    part = sdf.where(F.col(PART).isin([int(a) for a in active]))
    extra = [SENS] if with_sens else []
    pieces = [
        part.groupBy(PART, F.col(_code_col(i)).alias(CODE), *extra)
        .count()
        .withColumn(DIM, F.lit(i))
        for i in range(n_dims)
    ]
    union = pieces[0]
    for piece in pieces[1:]:
        union = union.unionByName(piece)
    rows = union.toPandas()
    local = pd.Series(np.arange(active.size), index=active)
    rows[PART] = local.reindex(rows[PART].to_numpy()).to_numpy()
    out = []
    for i in range(n_dims):
        r = rows[rows[DIM] == i].sort_values([PART, CODE, *extra], kind="stable")
        out.append(
            (
                r[PART].to_numpy(np.int64),
                r[CODE].to_numpy(np.int64),
                r[SENS].to_numpy(np.int64) if with_sens else None,
                r["count"].to_numpy(np.int64),
            )
        )
    return out


def _driver_cuts(spark, sdf, dims, k, rule, levels: int):
    """Cut the first ``levels`` levels on the driver; returns the data with a class column."""
    from pyspark.sql import functions as F

    sdf = sdf.withColumn(PART, F.lit(0).cast("long")).localCheckpoint()
    active, next_id = np.array([0]), 1
    for _ in range(levels):
        if not active.size:
            break
        n = active.size
        spreads, cuts, hists = np.zeros((n, len(dims))), [], []
        hist_rows = _histograms(sdf, active, len(dims), rule is not None)
        for i, dim in enumerate(dims):
            p, c, s, w = hist_rows[i]
            first = np.searchsorted(p, np.arange(n))
            last = np.searchsorted(p, np.arange(n), "right") - 1
            spreads[:, i] = dim.spread(c[first], c[last])
            cuts.append(evaluate_cuts(dim, p, c, s, w, n, k, rule))
            hists.append((p, c))
        allowed = np.column_stack([cu.ok for cu in cuts]) & (spreads > 0)
        best = np.where(allowed, spreads, -1.0).argmax(axis=1)
        cut_here = allowed[np.arange(n), best]
        mapping = []
        for j in np.flatnonzero(cut_here):
            i, dim = best[j], dims[best[j]]
            p, c = hists[i]
            codes = np.unique(c[p == j])
            if dim.kind == HIERARCHY:
                child = dim.anc[cuts[i].cut[j] - 1, codes]
                _, side = np.unique(child, return_inverse=True)
            else:
                side = (codes > cuts[i].cut[j]).astype(np.int64)
            side = side.ravel()
            mapping.append(
                pd.DataFrame({PART: active[j], DIM: int(i), CODE: codes, NEWP: next_id + side})
            )
            next_id += int(side.max()) + 1
        if not mapping:
            break
        table = pd.concat(mapping, ignore_index=True)
        small = spark.createDataFrame(table)
        dims_of = F.broadcast(small.select(PART, DIM).distinct())
        code_of = F.element_at(
            F.array(*[F.col(_code_col(i)) for i in range(len(dims))]), (F.col(DIM) + 1).cast("int")
        )
        sdf = (
            sdf.join(dims_of, PART, "left")
            .withColumn(CODE, code_of)
            .join(F.broadcast(small.select(PART, CODE, NEWP)), [PART, CODE], "left")
            .withColumn(PART, F.coalesce(F.col(NEWP), F.col(PART)).cast("long"))
            .drop(DIM, CODE, NEWP)
            .localCheckpoint()
        )
        active = np.sort(table[NEWP].unique())
    return sdf


def spark_mondrian(
    sdf,
    keys: Sequence[str],
    k: int,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    l_kind: str = "distinct",
    c: float | None = None,
    hierarchies: dict | None = None,
    order: dict | None = None,
    driver_levels: int = 3,
    spark=None,
):
    """A Spark DataFrame with ``keys`` generalized (strict Mondrian, k-anonymous, l-diverse)."""
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import get_spark

    spark = spark or get_spark()
    keys = list(keys)
    rule = _check_options(sdf, keys, k, l, sensitive, l_kind, c)
    hier, order = read_hierarchies(hierarchies), order or {}
    original_cols = list(sdf.columns)
    _refuse_missing(sdf, keys)
    dims = []
    for i, key in enumerate(keys):
        lookup, dim = _encode(spark, sdf, key, hier.get(key), order.get(key))
        sdf = sdf.join(F.broadcast(lookup.withColumnRenamed("__code", _code_col(i))), key, "left")
        dims.append(dim)
    if rule is not None:
        sdf = _encode_sensitive(spark, sdf, str(sensitive), rule)
    sdf = sdf.persist()
    sdf = _driver_cuts(spark, sdf, dims, int(k), rule, driver_levels)
    return _finish_partitions(sdf, dims, int(k), rule, keys, original_cols)


def _check_options(sdf, keys: list[str], k, l, sensitive, l_kind: str, c) -> DiversityRule | None:  # noqa: E741
    """The columns exist, 1 <= k <= records, l-diversity has a sensitive column: the rule."""
    missing = [col for col in keys + ([sensitive] if sensitive else []) if col not in sdf.columns]
    if missing:
        raise InputError(f"columns not in the data: {', '.join(map(repr, missing))}")
    if int(k) < 1:
        raise OptionError(f"k must be at least 1, got {k}")
    n = sdf.count()
    if int(k) > n:
        raise InputError(
            f"k = {k} is larger than the number of records ({n:,}): no class can be that large"
        )
    rule = DiversityRule(int(l), l_kind, c) if l is not None else None
    if rule is not None and not sensitive:
        raise OptionError("l-diversity needs a sensitive column (--sensitive)")
    return rule


def _encode_sensitive(spark, sdf, sensitive: str, rule: DiversityRule):
    """The sensitive column as integer codes (column SENS); refuses a table that is not
    l-diverse as a whole (no partition of it could be)."""
    from pyspark.sql import functions as F

    from hidekit.anonymize.diversity import group_diverse

    values = sdf.select(sensitive).distinct().toPandas()[sensitive]
    lookup = spark.createDataFrame(
        pd.DataFrame({"__v": values.astype(object), SENS: np.arange(values.size)})
    )
    sdf = sdf.join(F.broadcast(lookup), sdf[sensitive].eqNullSafe(lookup["__v"]), "left").drop(
        "__v"
    )
    counts = sdf.groupBy(SENS).count().toPandas()
    whole_ok = group_diverse(
        np.zeros(len(counts), np.int64),
        counts[SENS].to_numpy(np.int64),
        counts["count"].to_numpy(np.int64),
        1,
        rule,
    )[0]
    if not whole_ok:
        raise InputError(
            f"the whole table does not meet {rule.describe()} on {sensitive!r}, so no release can be"
        )
    return sdf


def _finish_partitions(sdf, dims: list, kk: int, rule, keys: list[str], original_cols: list[str]):
    """Each driver partition cut further by Mondrian in pandas (applyInPandas), its keys
    replaced by their class labels; the original columns, keys as strings."""
    from pyspark.sql import types as T

    fields = [
        T.StructField(f.name, T.StringType() if f.name in keys else f.dataType, True)
        for f in sdf.schema.fields
        if f.name in original_cols
    ]
    schema = T.StructType(fields)

    def finish(group: pd.DataFrame) -> pd.DataFrame:
        local = [
            replace(d, codes=group[_code_col(i)].to_numpy(np.int64)) for i, d in enumerate(dims)
        ]
        sens = group[SENS].to_numpy(np.int64) if rule is not None else None
        classes = partition(local, kk, sens, rule)
        out = group[original_cols].copy()
        for d in local:
            out[d.name] = class_labels(d, classes)[classes.record_class]
        return out

    return sdf.groupBy(PART).applyInPandas(finish, schema=schema)


def spark_partition(
    frame: pd.DataFrame,
    keys,
    k,
    l,  # noqa: E741
    sensitive,
    l_kind,
    c,
    hierarchies,
    order,  # noqa: E741
    driver_levels: int = 3,
) -> pd.DataFrame:
    """The pandas bridge used by ``mondrian(engine="spark")``: the frame with keys generalized."""
    from hidekit.engines.spark_engine import _spark_ready, get_spark

    spark = get_spark()
    row = "__hk_row"
    data = _spark_ready(frame.reset_index(drop=True)).assign(**{row: np.arange(len(frame))})
    sdf = spark.createDataFrame(data)
    out = spark_mondrian(
        sdf, keys, k, l, sensitive, l_kind, c, hierarchies, order, driver_levels, spark
    ).toPandas()
    out = out.sort_values(row).reset_index(drop=True).drop(columns=[row])
    result = frame.reset_index(drop=True).copy()
    for key in keys:
        result[key] = out[key].to_numpy()
    return result


def mondrian_table(step, table):
    """The Mondrian step ``step`` on a ``SparkTable`` (``hidekit.engines.spark_steps``): the
    checks of the default engine, ``spark_mondrian``'s cuts, then the rows in the step's order
    (a keyed shuffle: the permutation, not the records, goes from the driver to Spark)."""
    from hidekit.engines.spark_engine import _ROW
    from hidekit.engines.spark_steps import SparkTable, spark_column

    sdf = table.sdf
    n = int(sdf.count())

    def counts() -> np.ndarray:
        by = sdf.groupBy(spark_column(step.sensitive)).count().toPandas()
        return by["count"].to_numpy(np.int64)

    keys, _ = check_params(
        table.columns, n, counts, step.keys, step.k, step.l, step.sensitive, step.l_kind, step.c
    )
    step.hierarchies_for(keys)  # refuses a hierarchy or order of a column that is not a key
    out = spark_mondrian(
        sdf,
        keys,
        int(step.k),
        step.l,
        step.sensitive,
        step.l_kind,
        step.c,
        step.hierarchies,
        step.order,
        spark=sdf.sparkSession,
    )
    if step.shuffle:
        new = "__hk_new_row"
        moves = pd.DataFrame({_ROW: step.order_(n).astype(np.int64), new: np.arange(n)})
        out = (
            out.join(sdf.sparkSession.createDataFrame(moves), _ROW)
            .drop(_ROW)
            .withColumnRenamed(new, _ROW)
        )
    step.n_records_ = n
    dtypes = {c: (np.dtype(object) if c in keys else table.dtypes[c]) for c in table.columns}
    columns = [spark_column(c) for c in table.columns]
    return SparkTable(out.select(*columns, _ROW), dtypes, keys, reordered=step.shuffle)
