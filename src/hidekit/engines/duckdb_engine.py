"""DuckDB engine: the default, embedded, in-process engine for tables that fit one machine.

Key sets that share a base (forward selection: S plus one candidate) are counted incrementally:
the base's cell id per record is computed once, and each candidate's cells are the distinct pairs
(cell id, candidate code) — one integer GROUP BY per candidate, all candidates in one query.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine, check_cell_min

_INT64_LIMIT = 2**62


def quote(name: str) -> str:
    """Quote an identifier for SQL: column names may hold spaces, slashes, quotes."""
    return '"' + str(name).replace('"', '""') + '"'


class DuckDBEngine(Engine):
    name = "duckdb"

    def __init__(self, frame: pd.DataFrame, threads: int | None = None):
        self._frame = frame.reset_index(drop=True)
        self._con = duckdb.connect()
        if threads:
            self._con.execute(f"SET threads TO {int(threads)}")
        self._con.register("data", self._frame)
        self._codes: dict[str, tuple[np.ndarray, int]] = {}
        self._cell_ids: dict[frozenset, tuple[np.ndarray, int]] = {}

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def columns(self) -> list[str]:
        return list(self._frame.columns)

    @property
    def n_records(self) -> int:
        return len(self._frame)

    # Codes and cell ids ---------------------------------------------------
    def codes(self, column: str) -> tuple[np.ndarray, int]:
        """Dense integer codes of a column (missing is its own code) and the number of codes."""
        if column not in self._codes:
            s = self._frame[column]
            if isinstance(s.dtype, pd.CategoricalDtype):
                s = s.astype(object)
            codes, uniques = pd.factorize(s, use_na_sentinel=False)
            self._codes[column] = (codes.astype(np.int64, copy=False), max(len(uniques), 1))
        return self._codes[column]

    def cell_ids(self, keys: Sequence[str]) -> tuple[np.ndarray, int]:
        """Dense cell id per record for ``keys`` and the number of cells (cached per key set)."""
        key = frozenset(keys)
        if key in self._cell_ids:
            return self._cell_ids[key]
        ids = np.zeros(self.n_records, dtype=np.int64)
        card = 1
        for col in sorted(keys):  # sorted: the same set gives the same ids whatever the order
            codes, n = self.codes(col)
            if card * n >= _INT64_LIMIT:
                ids, uniq = pd.factorize(ids)
                card = max(len(uniq), 1)
            ids = ids * n + codes
            card *= n
        ids, uniq = pd.factorize(ids)
        result = (ids.astype(np.int64, copy=False), max(len(uniq), 1))
        if len(self._cell_ids) > 64:
            self._cell_ids.clear()
        self._cell_ids[key] = result
        return result

    # Engine interface -----------------------------------------------------
    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        keys = self.check_keys(keys)
        if not keys:
            return pd.DataFrame({COUNT_COLUMN: [self.n_records]})
        cols = ", ".join(quote(k) for k in keys)
        sql = f"SELECT {cols}, count(*) AS {COUNT_COLUMN} FROM data GROUP BY {cols}"
        return self._con.execute(sql).df()

    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)
        if not keys:
            return np.full(self.n_records, self.n_records, dtype=np.int64)
        ids, _ = self.cell_ids(keys)
        return np.bincount(ids)[ids]

    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        cell_min = check_cell_min(cell_min)
        keysets = [self.check_keys(ks) for ks in keysets]
        if not keysets:
            return []
        if self.n_records == 0:
            return [CellStats(tuple(ks), 0, 0, 0, 0, 0, cell_min) for ks in keysets]
        base = set(keysets[0]).intersection(*map(set, keysets[1:]))
        base_ids, base_card = self.cell_ids(sorted(base)) if base else (None, 1)
        columns: dict[str, np.ndarray] = {}
        if base_ids is not None:
            columns["__base"] = base_ids
        exprs = []
        for i, ks in enumerate(keysets):
            extras = [k for k in ks if k not in base]
            expr, card = ("__base" if base_ids is not None else "__zero"), base_card
            for j, col in enumerate(extras):
                codes, n = self.codes(col)
                if card * n >= _INT64_LIMIT:  # too wide for one integer: precompute this set's ids
                    ids, _ = self.cell_ids(ks)
                    name = f"__set{i}"
                    columns[name] = ids
                    expr = name
                    break
                name = f"__c{self._code_slot(col)}"
                columns[name] = codes
                expr = f"({expr}) * {n} + {name}" if expr != "__zero" else name
                card *= n
            exprs.append(expr)
        if "__zero" in exprs or not columns:
            columns["__zero"] = np.zeros(self.n_records, dtype=np.int64)
        self._con.register("codes", pa.table(columns))
        parts = [
            f"SELECT {i} AS i, count(*) AS cells, min(n) AS k, "
            f"count(*) FILTER (WHERE n = 1) AS uniques, "
            f"coalesce(sum(n) FILTER (WHERE n < {cell_min}), 0) AS at_risk "
            f"FROM (SELECT count(*) AS n FROM codes GROUP BY {expr})"
            for i, expr in enumerate(exprs)
        ]
        rows = self._con.execute(" UNION ALL ".join(parts)).fetchall()
        self._con.unregister("codes")
        by_index = {r[0]: r for r in rows}
        out = []
        for i, ks in enumerate(keysets):
            _, cells, k, uniques, at_risk = by_index[i]
            out.append(CellStats(tuple(ks), self.n_records, int(cells), int(k), int(uniques),
                                 int(at_risk), cell_min))
        return out

    def _code_slot(self, column: str) -> int:
        return self.columns.index(column)

    def split(self, by: str) -> list[tuple[object, Engine]]:
        self.check_keys([by])
        groups = self._frame.groupby(by, dropna=False, sort=True).indices
        return [
            (None if _is_missing(value) else value,
             DuckDBEngine(self._frame.iloc[idx].reset_index(drop=True)))
            for value, idx in groups.items()
        ]


def _is_missing(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
