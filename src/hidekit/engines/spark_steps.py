"""Table steps on Spark DataFrames: each step's own pandas code, run where Spark can run it.

A step says once, in ``Transform.spark_scope``, how its output depends on the data, and that
decides how Spark applies it (never a second copy of the step's logic):

- ``values``: a record's output depends only on its own values in the columns the step reads
  (``Transform.reads``), and fitting needs only how often each combination occurs. The step is
  fitted on the engine's counts (``Transform.fit_counts``), its own ``transform`` is applied to
  the small table of distinct combinations, and that mapping table is joined onto the data.
- ``rows``: nothing is learned from the data and a record's output depends only on the record:
  the step's ``transform`` runs on each partition (``mapInPandas``), shipped to the executors
  (``map_rows``, which ``spark`` steps use too).
- ``values`` with a ``spark_apply``: a values step with Spark code of its own, which need not
  bring the distinct combinations to the driver (encode: each value's code from the key).
- ``spark``: the step has its own Spark code, ``spark_apply(table, fit)``, which works on the
  DataFrame itself (local suppression: a ``GROUP BY`` of the keys, the search on the driver over
  that small table, a join to mark the records).
- ``table``: the output depends on the whole table in record order (random draws over the
  records, a search over all records). The step runs its own ``fit_transform`` on the driver over
  the columns it reads and the row number only; the result is joined back by row number, so
  steps that reorder records (Mondrian's shuffle) keep their order too.

A ``SparkTable`` carries the pandas type of every column beside the Spark DataFrame, so the
frame that comes back (``to_pandas``) is the one the local engine gives, type for type.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

from hidekit.engines.base import COUNT_COLUMN
from hidekit.engines.spark_engine import _ROW, _spark_ready, get_spark

SCOPES = ("values", "rows", "spark", "table")
_MAP = "__hidekit_map"  # id of a distinct combination in a mapping table
_SRC = "__hidekit_src"  # row a table-scope output row comes from


def placeholders(sub: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``sub`` widened to all ``columns`` (in order), the ones it lacks as cheap int8 zeros:
    a step sees the table's full shape while only the columns it reads hold data."""
    zero = np.zeros(len(sub), dtype=np.int8)
    data = {c: (sub[c].to_numpy() if c in sub.columns else zero) for c in columns}
    out = pd.DataFrame(data, index=sub.index)
    for c in sub.columns:  # keep extension and object dtypes exactly
        out[c] = sub[c]
    return out


def _spark_schema(frame: pd.DataFrame):
    """A Spark schema for ``frame`` (text columns, and all-missing ones, as strings)."""
    import pyarrow as pa
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import from_arrow_type

    fields = []
    for col in frame.columns:
        s = frame[col]
        kind: T.DataType
        if s.dtype == object or isinstance(s.dtype, pd.CategoricalDtype | pd.StringDtype):
            kind = T.StringType()
        else:
            arrow = pa.Array.from_pandas(s).type
            kind = T.StringType() if pa.types.is_null(arrow) else from_arrow_type(arrow)
        fields.append(T.StructField(str(col), kind, True))
    return T.StructType(fields)


def to_spark(spark, frame: pd.DataFrame):
    ready = _spark_ready(frame.reset_index(drop=True))
    return spark.createDataFrame(ready, schema=_spark_schema(ready))


def restore_types(frame: pd.DataFrame, dtypes: dict) -> pd.DataFrame:
    """Give each column the pandas type the local engine would have (Spark has fewer types)."""
    out = {}
    for col in frame.columns:
        s, want = frame[col], dtypes.get(col)
        if want is None or s.dtype == want:
            out[col] = s
        elif getattr(want, "kind", None) == "O":
            out[col] = s.astype(object).where(s.notna(), None)
        else:
            out[col] = s.astype(want)
    return pd.DataFrame(out, index=frame.index)


def keep_columns(sdf):
    """``sdf`` kept once computed, column by column (Spark's in-memory columnar cache, spilled to
    disk when memory runs short): a later query reads only the columns it needs, where a
    checkpoint's rows are read whole. Lazy: kept by the first query that reads it, not by a pass
    of its own (a plan keeps only its last table, ``SparkPlanTable.final``)."""
    from pyspark import StorageLevel

    return sdf.persist(StorageLevel.MEMORY_AND_DISK)


@dataclass
class SparkTable:
    """A Spark DataFrame with a dense row number (0..n-1, the record order) and the pandas type
    of each column."""

    sdf: Any  # a pyspark.sql.DataFrame (pyspark is imported only when Spark runs)
    dtypes: dict
    changed: list = field(default_factory=list)  # columns the last step may have changed
    reordered: bool = False  # whether the last step reordered the records
    cells: dict | None = None  # cells the last step changed per column, when it counted them
    # the last step's distinct inputs, their outputs and counts (a ``values`` step): what the
    # cells it changed are counted from, without bringing records to the driver
    by_values: tuple | None = None
    # whether the last step only blanked cells: ``cells`` then counts the present values it made
    # missing, per column (what the information loss counts as suppressed)
    blanks_only: bool = False

    @classmethod
    def from_pandas(cls, frame: pd.DataFrame, spark=None) -> SparkTable:
        spark = spark or get_spark()
        frame = frame.reset_index(drop=True)
        data = frame.assign(**{_ROW: np.arange(len(frame), dtype=np.int64)})
        return cls(to_spark(spark, data), dict(frame.dtypes))

    @property
    def columns(self) -> list[str]:
        return [c for c in self.sdf.columns if c != _ROW]

    def select(self, columns: Sequence[str]) -> SparkTable:
        keep = {c: self.dtypes[c] for c in columns}
        return SparkTable(self.sdf.select(*[spark_column(c) for c in columns], _ROW), keep)

    def empty_frame(self) -> pd.DataFrame:
        """No record, every column with its pandas type."""
        empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in self.columns})
        return restore_types(empty, self.dtypes)

    def to_pandas(self) -> pd.DataFrame:
        frame = self.sdf.orderBy(_ROW).toPandas().drop(columns=[_ROW]).reset_index(drop=True)
        return restore_types(frame, self.dtypes)

    def engine(self):
        """The Spark counting engine over this table (same record order)."""
        from hidekit.engines.spark_engine import SparkEngine

        return SparkEngine(self.sdf, cache=False)  # the plan keeps what is worth keeping

    def apply(self, step, fit: bool = True) -> SparkTable:
        """``step`` (fitted here unless ``fit`` is false) applied the way its scope says."""
        scope = getattr(step, "spark_scope", "table")
        if scope not in SCOPES:
            raise ValueError(f"{step.name}: spark_scope must be one of {SCOPES}, got {scope!r}")
        if scope == "spark" or (scope == "values" and hasattr(step, "spark_apply")):
            return step.spark_apply(self, fit)
        return {"values": _by_values, "rows": _by_rows, "table": _by_table}[scope](self, step, fit)


def _result(
    table: SparkTable, sdf, out: pd.DataFrame, changed: list[str], reordered: bool = False
) -> SparkTable:
    """The new table: columns in the order of the step's own output ``out``."""
    order = [c for c in out.columns if c != _ROW]
    dtypes = {c: (out[c].dtype if c in changed else table.dtypes[c]) for c in order}
    return SparkTable(
        sdf.select(*[spark_column(c) for c in order], _ROW), dtypes, changed, reordered
    )


def spark_column(name: str):
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _outputs(table: SparkTable, reads: list[str], out: pd.DataFrame) -> list[str]:
    """Columns of the step's output that it may have changed: those it reads, and new ones."""
    return [c for c in out.columns if c != _ROW and (c in reads or c not in table.columns)]


def _by_values(table: SparkTable, step, fit: bool) -> SparkTable:
    from pyspark.sql import functions as F

    spark = table.sdf.sparkSession
    reads = step.reads(table.columns)
    keyed = (
        table.sdf.groupBy(*[spark_column(c) for c in reads])
        .count()
        .withColumnRenamed("count", COUNT_COLUMN)
        .withColumn(_MAP, F.monotonically_increasing_id())
        .localCheckpoint()  # the ids are fixed from here on
    )
    counts = keyed.toPandas()
    distinct = restore_types(counts[reads], table.dtypes)
    if fit:
        step.fit_counts(placeholders(distinct, table.columns), counts[COUNT_COLUMN].to_numpy())
    out = step.transform(placeholders(distinct, table.columns))
    changed = _outputs(table, reads, out)
    mapping = out[changed].assign(**{_MAP: counts[_MAP].to_numpy()})
    alias = {c: f"__hidekit_k{i}" for i, c in enumerate(reads)}
    keys = keyed.select(_MAP, *[spark_column(c).alias(alias[c]) for c in reads])
    cond = reduce(lambda a, b: a & b, [table.sdf[c].eqNullSafe(keys[alias[c]]) for c in reads])
    sdf = (
        table.sdf.join(F.broadcast(keys), cond, "left")
        .drop(*reads, *alias.values())
        .join(F.broadcast(to_spark(spark, mapping)), _MAP, "left")
    )
    result = _result(table, sdf, out, changed)
    result.by_values = (distinct, out[changed], counts[COUNT_COLUMN].to_numpy(np.int64))
    return result


def _by_rows(table: SparkTable, step, fit: bool) -> SparkTable:
    if fit:
        step.fit(restore_types(table.sdf.limit(0).toPandas(), table.dtypes).drop(columns=[_ROW]))
    return map_rows(table, step)


def map_rows(table: SparkTable, step, call=None, source=None) -> SparkTable:
    """Each partition's records through ``call(frame, rows)`` (default: the step's own
    ``transform``; ``rows``: the records' row numbers) on the executors. ``source``: the table's
    DataFrame arranged first (say, a cluster's records brought into one partition)."""
    columns, dtypes = table.columns, table.dtypes
    call = call or (lambda frame, rows: step.transform(frame))
    sample = restore_types(table.sdf.limit(64).toPandas(), dtypes)
    probe = call(sample.drop(columns=[_ROW]), sample[_ROW].to_numpy())
    schema = _spark_schema(_spark_ready(probe.assign(**{_ROW: sample[_ROW].to_numpy()})))
    names = [f.name for f in schema.fields]

    def run(parts):
        for part in parts:
            rows = part[_ROW].to_numpy()
            out = call(restore_types(part[columns], dtypes), rows).assign(**{_ROW: rows})
            yield _spark_ready(out)[names]

    sdf = (table.sdf if source is None else source).mapInPandas(run, schema)
    return _result(table, sdf, probe, _outputs(table, step.reads(columns), probe))


def _by_table(table: SparkTable, step, fit: bool) -> SparkTable:
    spark = table.sdf.sparkSession
    reads = step.reads(table.columns)
    sub = table.sdf.select(_ROW, *[spark_column(c) for c in reads]).orderBy(_ROW).toPandas()
    sub = restore_types(sub, table.dtypes)
    frame = placeholders(sub, [*table.columns, _ROW])
    out = step.fit_transform(frame) if fit else step.transform(frame)
    changed = _outputs(table, reads, out)
    back = out[changed].assign(**{_SRC: out[_ROW].to_numpy(), _ROW: np.arange(len(out))})
    sdf = (
        table.sdf.drop(*[c for c in reads if c in table.columns])
        .withColumnRenamed(_ROW, _SRC)
        .join(to_spark(spark, back), _SRC, "right")
        .drop(_SRC)
    )
    reordered = not np.array_equal(out[_ROW].to_numpy(), sub[_ROW].to_numpy())
    return _result(table, sdf, out, changed, reordered)


def joined_rows(rows) -> Iterator[str]:
    """The strings of the one-column DataFrame ``rows`` joined by ", ", one piece per
    partition, brought to the driver a partition at a time (a crosswalk or link file is
    encrypted as its pieces arrive, never held whole)."""

    def joined(batches):
        for batch in batches:
            if len(batch):
                yield pd.DataFrame({"rows": [", ".join(batch.iloc[:, 0].tolist())]})

    for row in rows.mapInPandas(joined, "rows string").toLocalIterator():
        yield row[0]
