"""One way to open an in-process DuckDB connection, shared by the in-memory and file engines."""

from __future__ import annotations

import duckdb


def connect(threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """An in-process DuckDB connection, limited to ``threads`` when given."""
    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads TO {int(threads)}")
    return con
