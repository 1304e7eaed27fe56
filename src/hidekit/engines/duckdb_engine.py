"""DuckDB engine: the default, embedded, in-process engine for tables that fit one machine.

Each column is encoded once to dense integer codes (missing is a code of its own) and cached; a
key set's cell id per record is the mixed-radix combination of its codes. One key set's cell sizes
are then a single ``bincount``; many key sets are counted together in one DuckDB query (parallel
hash aggregation over integer columns); cells with their values come from SQL over the table.

Key sets that share a base (forward selection: S plus one candidate) are counted incrementally:
the base's cell id per record is computed once, and each candidate's cells are the distinct pairs
(cell id, candidate code) — one integer GROUP BY per candidate, all candidates in one query.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.engines.base import (
    COUNT_COLUMN,
    CellStats,
    Engine,
    check_cell_min,
    numeric_values,
    register_engine,
)
from hidekit.engines.codes import (
    INT64_LIMIT,
    combine,
    dense_limit,
    densify,
    encode,
    stats_from_counts,
)
from hidekit.engines.connection import connect

_CELL_ID_CACHE = 4
_DUCKDB_FROM = 200_000  # below this many records a hash in numpy beats opening a query
DIRECT_FROM_BYTES = 8 << 20  # smaller files: read_table and the in-memory engine are quicker


def quote(name: str) -> str:
    """Quote an identifier for SQL: column names may hold spaces, slashes, quotes."""
    return '"' + str(name).replace('"', '""') + '"'


@register_engine("duckdb")
class DuckDBEngine(Engine):
    name = "duckdb"

    def __init__(self, frame: pd.DataFrame, threads: int | None = None):
        idx = frame.index
        plain = isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1
        self._frame = frame if plain else frame.reset_index(drop=True)  # no copy when not needed
        self._threads = threads
        self._connection: duckdb.DuckDBPyConnection | None = None
        self._codes: dict[str, tuple[np.ndarray, int]] = {}
        self._cell_ids: OrderedDict[frozenset, tuple[np.ndarray, int]] = OrderedDict()

    @classmethod
    def open(cls, data, sep: str | None = None) -> Engine:  # type: ignore[override]
        """A CSV or Parquet path of ``DIRECT_FROM_BYTES`` or more (and a large Stata / SPSS /
        SAS file, through Parquet parts) is read by DuckDB itself (``FileEngine``); anything else
        through ``read_table``, which is quicker on small files."""
        if isinstance(data, (str, Path)) and _file_size(data) >= DIRECT_FROM_BYTES:
            from hidekit.engines.file_engine import FileEngine
            from hidekit.io.direct import direct_source

            source = direct_source(data, sep=sep)
            if source is not None:
                return FileEngine(source, sep=sep, frame_engine=cls)
        return super().open(data, sep=sep)

    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, opened on first use (counting from codes needs none)."""
        if self._connection is None:
            self._connection = connect(self._threads)
            self._connection.register("data", self._frame)
        return self._connection

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
            self._codes[column] = encode(self._frame[column])
        return self._codes[column]

    def cell_ids(self, keys: Sequence[str]) -> tuple[np.ndarray, int]:
        """Dense cell id per record for ``keys`` and the number of cells (cached per key set).

        Built from a cached subset one column smaller when there is one (the previous step of a
        forward selection), else column by column.
        """
        key = frozenset(keys)
        if key in self._cell_ids:
            self._cell_ids.move_to_end(key)
            return self._cell_ids[key]
        parent = next(
            (k for k in reversed(self._cell_ids) if len(k) == len(key) - 1 and k < key), None
        )
        if parent is not None:
            ids, card = self._cell_ids[parent]
            todo = sorted(key - parent)
        else:
            ids, card = np.zeros(self.n_records, dtype=np.int64), 1
            todo = sorted(key)
        for col in todo:
            ids, card = combine(ids, card, *self.codes(col))
        if todo:
            ids, card = densify(ids, card)
        self._cell_ids[key] = (ids, card)
        while len(self._cell_ids) > _CELL_ID_CACHE:  # each entry is one int64 per record
            self._cell_ids.popitem(last=False)
        return ids, card

    # Engine interface -----------------------------------------------------
    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        keys = self.check_keys(keys)
        if not keys:
            return pd.DataFrame({COUNT_COLUMN: [self.n_records]})
        if self.n_records < _DUCKDB_FROM:  # cached codes and a bincount beat a query
            ids, card = self.cell_ids(keys)
            first = _first_rows(ids, card)
            cells = self._frame[keys].iloc[first[first >= 0]].reset_index(drop=True)
            counts = np.bincount(ids, minlength=card)
            cells[COUNT_COLUMN] = counts[counts > 0]
            return cells
        cols = ", ".join(quote(k) for k in keys)
        sql = f"SELECT {cols}, count(*) AS {COUNT_COLUMN} FROM data GROUP BY {cols}"
        return self._con.execute(sql).df()

    def cell_codes(self, keys: Sequence[str]) -> tuple[list[pd.Series], np.ndarray, np.ndarray]:
        """From the cached column codes: no value is compared again (a frame's cells as codes)."""
        keys = self.check_keys(keys)
        if not keys:
            return super().cell_codes(keys)
        from hidekit.engines.classes import count_cells  # compiled: numba loads on first use

        coded = [self.codes(key) for key in keys]
        counted = count_cells([c for c, _ in coded], [n for _, n in coded])
        if counted is not None:
            first, sizes = counted
        else:  # keys too wide for one 62-bit id: the cached cell ids
            ids, card = self.cell_ids(keys)
            first = _first_rows(ids, card)
            present = first >= 0
            sizes, first = np.bincount(ids, minlength=card)[present], first[present]
        values, table = [], np.empty((len(keys), len(first)), dtype=np.int64)
        for j, (key, (codes, n)) in enumerate(zip(keys, coded, strict=True)):
            table[j] = codes[first]
            # one record per value: the first record of some cell that holds it (codes are
            # dense, so every value is in a cell)
            record = np.empty(n, dtype=np.int64)
            record[table[j]] = first
            column = self._frame[key]  # the array's own take: iloc and reset_index cost more
            values.append(pd.Series(column.array.take(record), name=column.name, copy=False))
        return values, table, sizes.astype(np.int64, copy=False)

    def class_sizes(self, keys: Sequence[str]) -> np.ndarray:
        """Cell sizes from cached integer codes: one bincount, no strings hashed twice."""
        keys = self.check_keys(keys)
        if not keys or self.n_records == 0:
            return super().class_sizes(keys)
        key = frozenset(keys)
        if key in self._cell_ids:
            return np.bincount(self._cell_ids[key][0])
        ids, card = np.zeros(self.n_records, dtype=np.int64), 1
        for col in sorted(key):
            ids, card = combine(ids, card, *self.codes(col))
        if card <= dense_limit(self.n_records):
            counts = np.bincount(ids)
            return counts[counts > 0]
        if self.n_records < _DUCKDB_FROM:
            return np.bincount(densify(ids, card)[0])
        # wide ids: DuckDB's parallel hash aggregation beats a single-threaded factorize
        self._con.register("ids", pa.table({"id": ids}))
        try:
            return (
                self._con.execute("SELECT count(*) FROM ids GROUP BY id")
                .fetchnumpy()["count_star()"]
                .astype(np.int64)
            )
        finally:
            self._con.unregister("ids")

    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)
        if not keys:
            return np.full(self.n_records, self.n_records, dtype=np.int64)
        ids, _ = self.cell_ids(keys)
        return np.bincount(ids)[ids]

    def record_weighted_sizes(
        self, keys: Sequence[str], weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        keys = self.check_keys(keys)
        weights = np.asarray(weights, dtype=np.float64)
        if not keys:
            n = self.n_records
            return np.full(n, n, dtype=np.int64), np.full(n, weights.sum())
        ids, _ = self.cell_ids(keys)
        return np.bincount(ids)[ids], np.bincount(ids, weights=weights)[ids]

    def numeric_column(self, column: str) -> np.ndarray:
        self.check_keys([column])
        return numeric_values(self._frame[column], column)

    def record_codes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)
        out = np.empty((self.n_records, len(keys)), dtype=np.int64)
        for j, col in enumerate(keys):
            codes, _ = self.codes(col)
            out[:, j] = np.where(self._frame[col].isna().to_numpy(), -1, codes)
        return out

    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        cell_min = check_cell_min(cell_min)
        keysets = [self.check_keys(ks) for ks in keysets]
        if not keysets:
            return []
        if self.n_records == 0:
            return [CellStats(tuple(ks), 0, 0, 0, 0, 0, cell_min) for ks in keysets]
        if len(keysets) == 1:  # one set: a bincount beats a query
            return [self._from_counts(keysets[0], self.class_sizes(keysets[0]), cell_min)]
        base = sorted(set(keysets[0]).intersection(*map(set, keysets[1:])))
        base_ids, base_card = (
            self.cell_ids(base) if base else (np.zeros(self.n_records, np.int64), 1)
        )
        results: dict[int, CellStats] = {}
        columns: dict[str, np.ndarray] = {"__base": base_ids}
        exprs: dict[int, str] = {}
        limit = dense_limit(self.n_records)
        buf = None  # reused for every candidate's pair ids
        for i, ks in enumerate(keysets):
            extras = [k for k in ks if k not in base]
            if not extras:
                results[i] = self._from_counts(ks, np.bincount(base_ids), cell_min)
                continue
            if len(extras) == 1 and base_card * self.codes(extras[0])[1] <= limit:
                # the incremental path: cells of S ∪ {v} are the pairs (cell of S, code of v)
                codes, n = self.codes(extras[0])
                if buf is None:
                    buf = np.empty_like(base_ids)
                np.multiply(base_ids, n, out=buf)
                np.add(buf, codes, out=buf)
                results[i] = self._from_counts(ks, np.bincount(buf), cell_min)
                continue
            expr, card = "__base", base_card
            for col in extras:
                codes, n = self.codes(col)
                if card * n >= INT64_LIMIT:  # too wide for one integer: precompute this set's ids
                    name = f"__set{i}"
                    columns[name] = self.cell_ids(ks)[0]
                    expr = name
                    break
                name = f"__c{self._code_slot(col)}"
                columns[name] = codes
                expr = f"({expr}) * {n} + {name}"
                card *= n
            exprs[i] = expr
        if exprs:
            results.update(self._query_stats(keysets, exprs, columns, cell_min))
        return [results[i] for i in range(len(keysets))]

    def _from_counts(self, keys, counts: np.ndarray, cell_min: int) -> CellStats:
        cells, k, uniques, at_risk = stats_from_counts(counts, cell_min)
        return CellStats(tuple(keys), self.n_records, cells, k, uniques, at_risk, cell_min)

    def _query_stats(
        self, keysets, exprs: dict[int, str], columns: dict[str, np.ndarray], cell_min: int
    ) -> dict[int, CellStats]:
        """Many key sets in one DuckDB query: a parallel integer GROUP BY per set, UNION ALL."""
        self._con.register("codes", pa.table(columns))
        parts = [
            f"SELECT {i} AS i, count(*) AS cells, min(n) AS k, "
            f"count(*) FILTER (WHERE n = 1) AS uniques, "
            f"coalesce(sum(n) FILTER (WHERE n < {cell_min}), 0) AS at_risk "
            f"FROM (SELECT count(*) AS n FROM codes GROUP BY {expr})"
            for i, expr in exprs.items()
        ]
        try:
            rows = self._con.execute(" UNION ALL ".join(parts)).fetchall()
        finally:
            self._con.unregister("codes")
        return {
            i: CellStats(
                tuple(keysets[i]),
                self.n_records,
                int(cells),
                int(k),
                int(uniques),
                int(at_risk),
                cell_min,
            )
            for i, cells, k, uniques, at_risk in rows
        }

    def _code_slot(self, column: str) -> int:
        return self.columns.index(column)

    def split(self, by: str) -> list[tuple[object, Engine]]:
        self.check_keys([by])
        groups = self._frame.groupby(by, dropna=False, sort=True).indices
        return [
            (
                None if _is_missing(value) else value,
                DuckDBEngine(self._frame.iloc[idx].reset_index(drop=True)),
            )
            for value, idx in groups.items()
        ]


def _first_rows(ids: np.ndarray, card: int) -> np.ndarray:
    """The first row of each id 0..card-1 (-1 for an id no row has)."""
    first = np.full(card, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1, dtype=np.int64)
    return first


def _file_size(path) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return -1  # read_table words the error


def _is_missing(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
