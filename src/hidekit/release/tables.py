"""The table a release plan works on, on either engine: one small interface so the plan's loop
(fit a step, count the cells it changed, measure the risk) is written once.

``LocalTable`` holds a pandas frame and counts with DuckDB; ``SparkPlanTable`` holds a Spark
DataFrame (``hidekit.engines.spark_steps``), applies each step on the executors and counts with
the Spark engine. Both give the same frame, cell counts and risk figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from hidekit.io import Dataset
from hidekit.risk import measure_risk
from hidekit.risk.metrics import RiskReport
from hidekit.scan.scanner import DEFAULT_SAMPLE, sample_rows
from hidekit.transforms.loss import VariableLoss, information_loss, same_cells


@dataclass
class EngineDataset(Dataset):
    """A Dataset whose records live on an engine (``table``, a Spark table) and whose ``frame``
    holds only the column types: what a release on Spark reads and writes."""

    table: Any = None


def cells_changed(
    before: pd.DataFrame, after: pd.DataFrame, counts: np.ndarray | None = None
) -> dict[str, int]:
    """Cells a step changed per column of ``after`` (rows compared in order; a new column counts
    every record). With ``counts``, row i stands for ``counts[i]`` records."""
    w = np.ones(len(after), np.int64) if counts is None else np.asarray(counts, np.int64)
    out = {}
    for col in after.columns:
        if col not in before.columns:
            out[col] = int(w.sum())
            continue
        n = int(w[~same_cells(before[col], after[col])].sum())
        if n:
            out[col] = n
    return out


class LocalTable:
    """The plan's table as a pandas frame; cells counted with DuckDB."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def __len__(self) -> int:
        return len(self.frame)

    def apply(self, transform) -> tuple[LocalTable, dict[str, int]]:
        """``transform`` fitted and applied; the new table and the cells it changed."""
        new = transform.fit_transform(self.frame)
        return LocalTable(new), cells_changed(self.frame, new)

    def risk(self, keys: list[str], cell_min: int) -> RiskReport:
        """Counted over the key columns only: the engine checks and encodes what it is given."""
        wanted = list(dict.fromkeys(keys))
        whole = not set(wanted) <= set(self.frame.columns)  # then the engine names what is missing
        frame = self.frame if whole else self.frame[wanted]
        return measure_risk(frame, keys, cell_min=cell_min).overall

    def to_pandas(self) -> pd.DataFrame:
        return self.frame

    def loss(self, original: LocalTable, columns: Sequence[str]) -> list[VariableLoss]:
        """Information lost per column against ``original`` (records matched by position)."""
        return information_loss(original.frame, self.frame, columns)

    def scan_frame(self) -> pd.DataFrame:
        """The records the PII scan reads (its seeded sample)."""
        return sample_rows(self.frame, DEFAULT_SAMPLE, 0)

    def released(self, ds: Dataset) -> Dataset:
        return ds.with_frame(self.frame)


def spark_cells_changed(old, new, touched: list[str]) -> tuple[dict[str, int], int]:
    """``cells_changed`` between two Spark tables (rows matched by row number), on Spark, and
    the new table's number of records (counted in the same pass): a column that keeps its type
    is compared there (missing equals missing); one whose type changed brings only its distinct
    (before, after) pairs and their counts to the driver, where ``same_cells`` judges them as
    the local engine does."""
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import _ROW
    from hidekit.engines.spark_steps import restore_types, spark_column

    if not touched:
        return {}, int(new.sdf.count())
    common = [c for c in touched if c in old.columns]
    a = {c: f"__hk_a{i}" for i, c in enumerate(common)}
    b = {c: f"__hk_b{i}" for i, c in enumerate(touched)}
    joined = old.sdf.select(_ROW, *[spark_column(c).alias(a[c]) for c in common]).join(
        new.sdf.select(_ROW, *[spark_column(c).alias(b[c]) for c in touched]), _ROW, "right"
    )
    kept = [c for c in common if old.dtypes[c] == new.dtypes[c]]
    if len(kept) < len(common):  # a query per column whose type changed: join the tables once
        joined = joined.localCheckpoint()
    sums = [
        F.sum(F.when(F.col(a[c]).eqNullSafe(F.col(b[c])), 0).otherwise(1)).alias(b[c]) for c in kept
    ]
    row = joined.agg(F.count(F.lit(1)).alias("__hk_n"), *sums).first()
    out = {}
    for c in touched:
        if c not in old.columns:
            n = int(row["__hk_n"])
        elif c in kept:
            n = int(row[b[c]] or 0)
        else:
            pairs = joined.groupBy(a[c], b[c]).count().toPandas()
            before = restore_types(pairs[[a[c]]].set_axis([c], axis=1), old.dtypes)[c]
            after = restore_types(pairs[[b[c]]].set_axis([c], axis=1), new.dtypes)[c]
            w = pairs["count"].to_numpy(np.int64)
            n = int(w[~same_cells(before, after)].sum())
        if n:
            out[c] = n
    return out, int(row["__hk_n"])


def _missing(column, kind):
    """Missing as pandas sees it: null, or NaN in a floating column."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, FloatType

    return (
        F.isnull(column) | F.isnan(column)
        if isinstance(kind, DoubleType | FloatType)
        else F.isnull(column)
    )


def spark_information_loss(old, new, columns: Sequence[str]) -> list[VariableLoss]:
    """``information_loss`` between two Spark tables (records matched by row number), on Spark."""
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import _ROW
    from hidekit.engines.spark_steps import restore_types, spark_column

    cols = [c for c in columns if c in old.columns and c in new.columns]
    a = {c: f"__hk_a{i}" for i, c in enumerate(cols)}
    b = {c: f"__hk_b{i}" for i, c in enumerate(cols)}
    joined = old.sdf.select(_ROW, *[spark_column(c).alias(a[c]) for c in cols]).join(
        new.sdf.select(_ROW, *[spark_column(c).alias(b[c]) for c in cols]), _ROW
    )
    kinds = {f.name: f.dataType for f in joined.schema.fields}
    kept = [c for c in cols if old.dtypes[c] == new.dtypes[c]]
    if len(kept) < len(cols):  # a query per column whose type changed: join the tables once
        joined = joined.localCheckpoint()
    sums = [F.count(F.lit(1)).alias("__hk_n")]
    for c in kept:
        was = ~_missing(F.col(a[c]), kinds[a[c]])
        gone = _missing(F.col(b[c]), kinds[b[c]])
        same = F.col(a[c]).eqNullSafe(F.col(b[c]))
        sums.append(F.sum((was & gone).cast("long")).alias("__hk_s" + b[c]))
        sums.append(F.sum((was & ~gone & ~same).cast("long")).alias("__hk_g" + b[c]))
    row = joined.agg(*sums).first()
    n = int(row["__hk_n"]) if row else 0
    out = []
    for c in cols:
        if c in kept:
            blank, changed = int(row["__hk_s" + b[c]] or 0), int(row["__hk_g" + b[c]] or 0)
        else:
            pairs = joined.groupBy(a[c], b[c]).count().toPandas()
            before = restore_types(pairs[[a[c]]].set_axis([c], axis=1), old.dtypes)[c]
            after = restore_types(pairs[[b[c]]].set_axis([c], axis=1), new.dtypes)[c]
            w = pairs["count"].to_numpy(np.int64)
            was = before.notna().to_numpy()
            gone = was & after.isna().to_numpy()
            blank = int(w[gone].sum())
            changed = int(w[was & ~gone & ~same_cells(before, after)].sum())
        out.append(VariableLoss(c, n, blank, changed))
    return out


class SparkPlanTable:
    """The plan's table as a Spark DataFrame; cells counted with the Spark engine, and the cells
    a step changed counted on Spark too (``spark_cells_changed``): records stay there."""

    def __init__(self, table):
        self.table = table  # a hidekit.engines.spark_steps.SparkTable
        self._n: int | None = None
        self._kept = False  # whether ``final`` has put the table in Spark's cache
        # columns a step may have changed since the table was read (None: any, records moved),
        # the cells blanked in columns no other step changed, and the table as read: the loss
        # compares records only in the columns touched otherwise
        self._touched: set[str] | None = set()
        self._blanked: dict[str, int] = {}
        self._start: SparkPlanTable = self

    @classmethod
    def from_pandas(cls, frame: pd.DataFrame) -> SparkPlanTable:
        from hidekit.engines.spark_steps import SparkTable

        out = cls(SparkTable.from_pandas(frame))
        out._n = len(frame)
        return out

    @property
    def columns(self) -> list[str]:
        return self.table.columns

    def __len__(self) -> int:
        if self._n is None:
            self._n = int(self.table.sdf.count())
        return self._n

    def apply(self, transform) -> tuple[SparkPlanTable, dict[str, int]]:
        """``transform`` applied, lazily: a step's table is not kept (a step's risk reads only
        the keys through the steps before it, pruned by Spark to what they need), the table
        after the last step is, once (``final``)."""
        new = applied = self.table.apply(transform)
        out = SparkPlanTable(new)
        out._start = self._start
        out._touched, out._blanked = self._touched_after(new)
        if applied.cells is not None:  # the step counted its changed cells itself, on Spark
            out._n = self._n
            return out, dict(applied.cells)
        if applied.by_values is not None:  # counted on the distinct combinations, weighted
            out._n = self._n
            return out, cells_changed(*applied.by_values)
        old_cols = set(self.columns)
        touched = [c for c in new.columns if new.reordered or c in new.changed or c not in old_cols]
        if not touched:
            out._n = self._n
            return out, {}
        changed, out._n = spark_cells_changed(self.table, new, touched)
        return out, changed

    def _touched_after(self, new) -> tuple[set[str] | None, dict[str, int]]:
        """After the step giving ``new`` (a SparkTable): the columns a step may have changed
        since the start (those it says it changed or counted, those it added), and the cells
        blanked in the others by steps that only blank (``blanks_only``: their counts add up,
        a cell blanked once being missing for the next)."""
        if self._touched is None or new.reordered:
            return None, {}
        old = set(self.columns)
        touched = self._touched | {c for c in new.columns if c not in old}
        blanked = dict(self._blanked)
        if new.blanks_only and new.cells is not None:
            for c, n in new.cells.items():
                blanked[c] = blanked.get(c, 0) + int(n)
            touched |= {c for c in new.changed if c not in new.cells}
        else:
            touched |= set(new.changed) | set(new.cells or ())
        return touched, blanked

    def risk(self, keys: list[str], cell_min: int) -> RiskReport:
        return measure_risk(self.table.engine(), keys, cell_min=cell_min).overall

    def to_pandas(self) -> pd.DataFrame:
        return self.table.to_pandas()

    def final(self):
        """The table after the last step, kept in Spark's columnar cache the first time it is
        asked for: the loss, the scan's sample and the write all read it."""
        from hidekit.engines.spark_steps import keep_columns

        if not self._kept:
            self.table = replace(self.table, sdf=keep_columns(self.table.sdf))
            self._kept = True
        return self.table

    def loss(self, original: SparkPlanTable, columns: Sequence[str]) -> list[VariableLoss]:
        """``information_loss`` against ``original``, counted on Spark (records matched by row
        number; a column whose type changed brings only its distinct before/after pairs). A
        column no step changed since ``original`` was read loses nothing, one that steps only
        blanked loses the cells they counted: neither is compared record by record."""
        n = len(self)
        known = {}  # columns no step changed but by blanking: no record compared
        if self._touched is not None and original is self._start:
            for c in columns:
                if c in self._touched or c not in original.columns or c not in self.columns:
                    continue
                if original.table.dtypes[c] == self.table.dtypes[c]:
                    known[c] = VariableLoss(c, n, self._blanked.get(c, 0), 0)
        compared = [c for c in columns if c not in known]
        if compared:
            found = spark_information_loss(original.table, self.final(), compared)
            known.update({v.column: v for v in found})
        cols = [c for c in columns if c in original.columns and c in self.columns]
        return [known[c] for c in cols]

    def scan_frame(self) -> pd.DataFrame:
        """The PII scan's seeded sample: the row numbers drawn on the driver, those records
        alone brought there."""
        from hidekit.engines.spark_steps import restore_types, to_spark

        n = len(self)
        if n <= DEFAULT_SAMPLE:
            return self.to_pandas()
        rows = sample_rows(pd.DataFrame({"r": np.arange(n)}), DEFAULT_SAMPLE, 0)["r"].to_numpy()
        from hidekit.engines.spark_engine import _ROW

        table = self.final()
        picked = to_spark(table.sdf.sparkSession, pd.DataFrame({_ROW: rows}))
        cols = table.columns
        frame = table.sdf.join(picked.hint("broadcast"), _ROW).orderBy(_ROW).toPandas()
        return restore_types(frame[cols], self.table.dtypes).reset_index(drop=True)

    def released(self, ds: Dataset) -> Dataset:
        """The released Dataset: the records stay on Spark when Spark read them."""
        if isinstance(ds, EngineDataset):
            empty = self.table.empty_frame()
            return EngineDataset(**{**_fields(ds.with_frame(empty)), "table": self.final()})
        return ds.with_frame(self.to_pandas())


def _fields(ds: Dataset) -> dict:
    return {k: getattr(ds, k) for k in Dataset.__dataclass_fields__}


def plan_table(ds: Dataset, engine: str = "duckdb"):
    """The plan's table on ``engine`` (duckdb: local pandas and DuckDB; spark: the records Spark
    read itself, else the frame sent to Spark)."""
    from hidekit.errors import OptionError

    if engine == "duckdb":
        return LocalTable(ds.frame)
    if engine == "spark":
        if isinstance(ds, EngineDataset):
            return SparkPlanTable(ds.table)
        return SparkPlanTable.from_pandas(ds.frame)
    raise OptionError(f"unknown engine {engine!r} for a release plan (known: duckdb, spark)")
