"""The DuckDB engine over a file that DuckDB reads itself (CSV, Parquet).

Nothing is loaded at open. One key set's cells are counted by DuckDB over the file (a parallel,
out-of-core GROUP BY: memory bounded by the number of distinct combinations); questions about
records (cell size per record, many key sets at once) load only the columns they name, as integer
codes streamed from the file, and hand them to the in-memory ``DuckDBEngine``. The values a user
sees are decoded from the codes with hidekit's reading semantics (numbers inferred from the
distinct values, the empty cell missing). When DuckDB cannot read the file the way ``read_table``
would (a ragged line, another encoding), the engine reads it with ``read_table`` instead, which also
words any error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import duckdb
import numpy as np
import pandas as pd

from hidekit.engines.base import (
    COUNT_COLUMN,
    CellStats,
    Engine,
    check_cell_min,
    numeric_values,
)
from hidekit.engines.codes import combine, dense_limit, densify
from hidekit.engines.connection import connect
from hidekit.io.direct import ColumnCodes, DirectSource, stream_cells, stream_codes
from hidekit.io.line_cells import line_cells

T = TypeVar("T")


class FileEngine(Engine):
    """Counts cells of a file's key sets without reading the file into pandas."""

    name = "duckdb"

    def __init__(
        self,
        source: DirectSource,
        *,
        sep: str | None = None,
        threads: int | None = None,
        frame_engine: Callable[..., Engine] | None = None,
    ):
        """``frame_engine`` builds the in-memory engine over loaded codes (default: the
        registered ``duckdb`` engine, looked up so this module does not import it)."""
        if frame_engine is None:
            from hidekit.registry import ENGINES

            frame_engine = ENGINES.lookup("duckdb")
        self._frame_engine = frame_engine
        self.source = source
        self._sep = sep
        self._threads = threads
        self._connection: duckdb.DuckDBPyConnection | None = None
        self._coded: dict[str, ColumnCodes] = {}
        self._inner: Engine | None = None  # over the loaded codes
        self._cells: tuple[tuple[str, ...], dict[str, ColumnCodes], np.ndarray] | None = None
        self._n: int | None = None
        self._fallback: Engine | None = None

    # Reading ---------------------------------------------------------------
    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        if self._connection is None:
            self._connection = connect(self._threads)
        return self._connection

    def _direct(self, work: Callable[[], T], fallback: Callable[[Engine], T]) -> T:
        """``work`` through DuckDB; when DuckDB cannot read the file, ``fallback`` on the table
        ``read_table`` reads (its errors are hidekit's one-line errors)."""
        if self._fallback is None:
            try:
                return work()
            except duckdb.Error:
                self._use_read_table()
        assert self._fallback is not None
        return fallback(self._fallback)

    def _use_read_table(self) -> None:
        from hidekit.io import read_table

        frame = read_table(self.source.path, sep=self._sep).frame
        self._fallback = self._frame_engine(frame, threads=self._threads)
        self._coded.clear()
        self._inner, self._cells = None, None

    def load(self, columns: Sequence[str]) -> Engine:
        """An in-memory engine over the codes of ``columns`` (read from the file once)."""
        todo = [c for c in columns if c not in self._coded]
        if todo:
            self._coded.update(stream_codes(self._con, self.source, todo))
            # copy=False: the frame keeps the code arrays themselves (no second copy of them)
            frame = pd.DataFrame({c: cc.codes for c, cc in self._coded.items()}, copy=False)
            self._inner = self._frame_engine(frame, threads=self._threads)
            self._n = len(frame)
        assert self._inner is not None
        return self._inner

    def cells(self, keys: Sequence[str]) -> tuple[dict[str, ColumnCodes], np.ndarray]:
        """Distinct combinations of ``keys`` as codes, and their counts (cached for one set)."""
        keys = tuple(keys)
        if self._cells is None or self._cells[0] != keys:
            found = line_cells(self._con, self.source, keys)
            codes, counts = found or stream_cells(self._con, self.source, keys)
            self._cells = (keys, codes, counts)
            self._n = int(counts.sum())
        return self._cells[1], self._cells[2]

    # Engine interface ------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        if self._fallback is not None:
            return self._fallback.columns
        return list(self.source.columns)

    @property
    def n_records(self) -> int:
        if self._n is None:
            sql = f"SELECT count(*) FROM {self.source.relation}"
            self._n = self._direct(
                lambda: int(self._con.execute(sql).fetchall()[0][0]), lambda e: e.n_records
            )
        return self._n

    def has_records(self) -> bool:
        if self._n is not None:
            return self._n > 0
        sql = f"SELECT 1 FROM {self.source.relation} LIMIT 1"
        return self._direct(
            lambda: len(self._con.execute(sql).fetchall()) > 0, lambda e: e.n_records > 0
        )

    def class_sizes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)
        if not keys:
            return super().class_sizes(keys)
        if self._fallback is None and set(keys) <= set(self._coded):
            return self.load(keys).class_sizes(keys)
        return self._direct(lambda: _sizes(*self.cells(keys)), lambda e: e.class_sizes(keys))

    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        keys = self.check_keys(keys)
        if not keys:
            return pd.DataFrame({COUNT_COLUMN: [self.n_records]})
        return self._direct(lambda: _decode(*self.cells(keys)), lambda e: e.cell_counts(keys))

    def cell_codes(self, keys: Sequence[str]) -> tuple[list[pd.Series], np.ndarray, np.ndarray]:
        """DuckDB's GROUP BY over the file, as codes: no record is read into pandas."""
        keys = self.check_keys(keys)
        if not keys:
            return super().cell_codes(keys)

        def direct() -> tuple[list[pd.Series], np.ndarray, np.ndarray]:
            codes, counts = self.cells(keys)
            table = np.stack([codes[k].codes for k in keys]).astype(np.int64, copy=False)
            return [codes[k].values.reset_index(drop=True) for k in keys], table, counts

        return self._direct(direct, lambda e: e.cell_codes(keys))

    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        """Each key set's cells summed from the cells of all the keys named (one GROUP BY over
        the file, then sums over the combinations: no record is loaded)."""
        cell_min = check_cell_min(cell_min)
        keysets = [self.check_keys(ks) for ks in keysets]
        used = list(dict.fromkeys(k for ks in keysets for k in ks))
        if not used:  # only the empty key set: every record in one cell
            n = self.n_records
            whole = np.array([n] if n else [], np.int64)
            return [CellStats.from_sizes(ks, whole, cell_min) for ks in keysets]
        if self._fallback is None and set(used) <= set(self._coded):
            return self._direct(
                lambda: self.load(used).keyset_stats(keysets, cell_min),
                lambda e: e.keyset_stats(keysets, cell_min),
            )

        def direct() -> list[CellStats]:
            cached = self._cells
            if cached is None or not set(used) <= set(cached[0]):
                self.cells(used)
            assert self._cells is not None
            _, codes, counts = self._cells
            return [CellStats.from_sizes(ks, _sizes(codes, counts, ks), cell_min) for ks in keysets]

        return self._direct(direct, lambda e: e.keyset_stats(keysets, cell_min))

    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)
        return self._direct(
            lambda: self.load(keys).record_cell_sizes(keys), lambda e: e.record_cell_sizes(keys)
        )

    def record_weighted_sizes(
        self, keys: Sequence[str], weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        keys = self.check_keys(keys)
        return self._direct(
            lambda: self.load(keys).record_weighted_sizes(keys, weights),
            lambda e: e.record_weighted_sizes(keys, weights),
        )

    def numeric_column(self, column: str) -> np.ndarray:
        self.check_keys([column])

        def direct() -> np.ndarray:
            self.load([column])
            cc = self._coded[column]
            return numeric_values(cc.values, column)[cc.codes]

        return self._direct(direct, lambda e: e.numeric_column(column))

    def record_codes(self, keys: Sequence[str]) -> np.ndarray:
        keys = self.check_keys(keys)

        def direct() -> np.ndarray:
            self.load(keys)
            out = np.empty((self.n_records, len(keys)), dtype=np.int64)
            for j, col in enumerate(keys):
                cc = self._coded[col]
                out[:, j] = np.where(cc.codes == cc.missing, -1, cc.codes)
            return out

        return self._direct(direct, lambda e: e.record_codes(keys))

    def split(self, by: str) -> list[tuple[object, Engine]]:
        """Subgroups need the records themselves: the file is read into a table for them."""
        self.check_keys([by])
        if self._fallback is None:
            self._use_read_table()
        assert self._fallback is not None
        return self._fallback.split(by)


def _cell_ids(codes: dict[str, ColumnCodes], keys: Sequence[str]) -> tuple[np.ndarray, int]:
    """Dense id of each combination row; rows that decode to the same values share one id.

    The rows are the file's distinct combinations, few beside its records: a sort numbers them
    (``densify``'s compiled hash would load numba for a few milliseconds of work)."""
    rows = len(next(iter(codes.values())).codes) if codes else 0
    ids, card = np.zeros(rows, np.int64), 1  # no keys: one cell
    for k in keys:
        ids, card = combine(ids, card, codes[k].codes, max(codes[k].cardinality, 1))
    if card <= dense_limit(len(ids)):
        return densify(ids, card)
    uniques, dense = np.unique(ids, return_inverse=True)
    return dense.reshape(-1), max(len(uniques), 1)


def _sizes(
    codes: dict[str, ColumnCodes], counts: np.ndarray, keys: Sequence[str] | None = None
) -> np.ndarray:
    """Cell sizes of ``keys`` (default: every key counted) from counted combinations."""
    ids, card = _cell_ids(codes, list(codes) if keys is None else keys)
    return np.bincount(ids, weights=counts, minlength=card).astype(np.int64)


def _decode(codes: dict[str, ColumnCodes], counts: np.ndarray) -> pd.DataFrame:
    """The cells with their values as ``read_table`` types them, and their sizes."""
    keys = list(codes)
    ids, card = _cell_ids(codes, keys)
    first = np.full(card, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1, dtype=np.int64)
    out = pd.DataFrame(
        {k: codes[k].values.take(codes[k].codes[first]).reset_index(drop=True) for k in keys}
    )
    out[COUNT_COLUMN] = np.bincount(ids, weights=counts, minlength=card).astype(np.int64)
    return out
