"""Engines count cells of key sets. ``make_engine`` picks one by name."""

from __future__ import annotations

from pathlib import Path

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine
from hidekit.engines.duckdb_engine import DuckDBEngine
from hidekit.errors import OptionError

ENGINES = ("duckdb", "spark")


SPARK_NATIVE = (".csv", ".tsv", ".txt", ".parquet", ".pq")


def make_engine(data, engine: str = "duckdb", sep: str | None = None) -> Engine:
    """An engine over ``data`` (a path, Dataset, pandas/Polars/Arrow table, or an Engine)."""
    if isinstance(data, Engine):
        return data
    from hidekit.io import Dataset, read_table

    if engine not in ENGINES:
        raise OptionError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    if engine == "spark":
        from hidekit.engines.spark_engine import SparkEngine

        if isinstance(data, (str, Path)) and Path(data).suffix.lower() in SPARK_NATIVE:
            return SparkEngine.from_path(data, sep=sep)  # Spark reads it: no driver-side copy
        ds = data if isinstance(data, Dataset) else read_table(data, sep=sep)
        return SparkEngine(ds.frame)
    ds = data if isinstance(data, Dataset) else read_table(data, sep=sep)
    return DuckDBEngine(ds.frame)


__all__ = ["COUNT_COLUMN", "ENGINES", "CellStats", "DuckDBEngine", "Engine", "make_engine"]
