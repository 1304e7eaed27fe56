"""Engines count cells of key sets. ``make_engine`` picks one by name."""

from __future__ import annotations

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine
from hidekit.engines.duckdb_engine import DuckDBEngine
from hidekit.errors import OptionError

ENGINES = ("duckdb", "spark")


def make_engine(data, engine: str = "duckdb") -> Engine:
    """An engine over ``data`` (a path, Dataset, pandas/Polars/Arrow table, or an Engine)."""
    if isinstance(data, Engine):
        return data
    from hidekit.io import Dataset, read_table

    if engine not in ENGINES:
        raise OptionError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    ds = data if isinstance(data, Dataset) else read_table(data)
    if engine == "spark":
        from hidekit.engines.spark_engine import SparkEngine

        return SparkEngine(ds.frame)
    return DuckDBEngine(ds.frame)


__all__ = ["COUNT_COLUMN", "ENGINES", "CellStats", "DuckDBEngine", "Engine", "make_engine"]
