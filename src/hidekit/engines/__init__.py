"""Engines count cells of key sets. ``make_engine`` picks one by its registered name."""

from __future__ import annotations

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine, register_engine
from hidekit.engines.duckdb_engine import DuckDBEngine
from hidekit.registry import ENGINES


def check_engine(name: str) -> str:
    """``name`` if an engine is registered under it, else a one-line ``OptionError``."""
    ENGINES.lookup(name)
    return name


def make_engine(data, engine: str = "duckdb", sep: str | None = None) -> Engine:
    """An engine over ``data`` (a path, Dataset, pandas/Polars/Arrow table, or an Engine)."""
    if isinstance(data, Engine):
        return data
    return ENGINES.lookup(engine).open(data, sep=sep)


__all__ = [
    "COUNT_COLUMN",
    "ENGINES",
    "CellStats",
    "DuckDBEngine",
    "Engine",
    "check_engine",
    "make_engine",
    "register_engine",
]
