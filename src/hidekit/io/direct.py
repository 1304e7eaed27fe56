"""Files read by DuckDB itself: in parallel, out of core, never through pandas object columns.

``direct_source`` decides whether a file can be handed to DuckDB with hidekit's reading semantics
(every CSV cell is text first, the empty cell is missing, the same delimiter detection and header
names) and gives the SQL that reads it. Files it cannot vouch for (another encoding than UTF-8, a
header pandas would rename, Excel, Stata/SPSS/SAS) return ``None``: the caller reads them with
``read_table``, which also words the errors. ``stream_codes`` turns chosen columns into integer
codes batch by batch (Arrow dictionary encoding), so only codes and distinct values stay in memory.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hidekit.errors import check_separator
from hidekit.io.readers import bom_encoding, detect_delimiter, detect_format, infer_values
from hidekit.io.stat_chunks import CHUNK_ROWS, LARGE_BYTES, chunked_folder, stat_to_parquet

SAMPLE_BYTES = 1 << 16
BATCH_ROWS = 1 << 20


def sql_string(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def quote(name: str) -> str:
    """Quote an identifier for SQL: column names may hold spaces, slashes, quotes."""
    return '"' + str(name).replace('"', '""') + '"'


@dataclass(frozen=True)
class DirectSource:
    """A file DuckDB reads with hidekit's semantics: ``relation`` is the SQL table expression."""

    path: Path
    format: str
    relation: str
    columns: tuple[str, ...]
    options: dict = field(default_factory=dict)
    text: bool = True  # every column arrives as text: numbers are inferred from distinct values
    variable_labels: dict[str, str] = field(default_factory=dict)
    value_labels: dict[str, dict] = field(default_factory=dict)
    keep: object = None  # what must live as long as the source (a folder of Parquet parts)


def direct_source(
    path,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    large_bytes: int = LARGE_BYTES,
    chunk_rows: int = CHUNK_ROWS,
) -> DirectSource | None:
    """The DuckDB reading of ``path``, or None when only ``read_table`` reads it faithfully.

    Stata / SPSS / SAS files of ``large_bytes`` or more are first written to Parquet parts,
    ``chunk_rows`` records at a time; smaller ones are read whole by ``read_table``."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        fmt = detect_format(path)
    except Exception:
        return None
    if fmt == "parquet":
        return _parquet_source(path)
    if fmt in ("stata", "spss", "sas") and path.stat().st_size >= large_bytes:
        return _stat_source(path, fmt, encoding, chunk_rows)
    if fmt != "csv" or encoding not in (None, "utf-8", "utf8", "utf-8-sig"):
        return None
    return _csv_source(path, sep)


def _csv_source(path: Path, sep: str | None) -> DirectSource | None:
    with path.open("rb") as fh:
        raw = fh.read(SAMPLE_BYTES)
    marked = bom_encoding(raw)
    if marked not in (None, "utf-8-sig") or b"\x00" in raw[:4096]:
        return None
    try:
        sample = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(raw) - 4:  # not merely a character cut at the sample's end
            return None
        sample = raw[: exc.start].decode("utf-8-sig")
    if not sample.strip():
        return None
    if sep is not None:
        sep = check_separator({"\\t": "\t", "tab": "\t"}.get(sep, sep))
    delimiter = sep or detect_delimiter(sample)
    names = _header(sample, delimiter)
    if names is None:
        return None
    columns = ", ".join(f"{sql_string(n)}: 'VARCHAR'" for n in names)
    relation = (
        f"read_csv({sql_string(str(path))}, header = true, auto_detect = false, "
        f"delim = {sql_string(delimiter)}, quote = '\"', escape = '\"', "
        f"columns = {{{columns}}}, null_padding = false, strict_mode = true)"
    )
    return DirectSource(
        path, "csv", relation, tuple(names), {"sep": delimiter, "encoding": "utf-8"}
    )


def _header(sample: str, delimiter: str) -> list[str] | None:
    """Column names of the first line, or None when pandas might read them otherwise (a blank
    first line, a quoted line break, empty, repeated or space-padded names)."""
    first = sample.splitlines()[0] if sample else ""
    if not first.strip() or first.count('"') % 2:
        return None
    try:
        names = next(csv.reader(io.StringIO(first), delimiter=delimiter, quotechar='"'))
    except (csv.Error, StopIteration):
        return None
    if not names or len(set(names)) != len(names):
        return None
    if any(not n or n.strip() != n for n in names):
        return None
    return names


def _parquet_source(path: Path) -> DirectSource | None:
    try:
        schema = pq.read_schema(path)
    except Exception:
        return None  # read_table words the error
    if any(pa.types.is_nested(f.type) or pa.types.is_dictionary(f.type) for f in schema):
        return None  # lists or maps are refused there; categories keep their pandas reading
    meta = schema.pandas_metadata or {}
    if any(isinstance(c, str) for c in meta.get("index_columns", [])):
        return None  # a stored pandas index: read_table restores it
    names = tuple(f.name for f in schema)
    return DirectSource(
        path, "parquet", f"read_parquet({sql_string(str(path))})", names, text=False
    )


def _stat_source(
    path: Path, fmt: str, encoding: str | None, chunk_rows: int
) -> DirectSource | None:
    folder = chunked_folder()
    parts, var_labels, value_labels = stat_to_parquet(
        path, fmt, Path(folder.name), chunk_rows=chunk_rows, encoding=encoding
    )
    if not parts:
        folder.cleanup()
        return None
    files = ", ".join(sql_string(str(p)) for p in parts)
    names = tuple(pq.read_schema(parts[0]).names) if parts else ()
    return DirectSource(
        path,
        fmt,
        f"read_parquet([{files}], union_by_name = true)",
        names,
        text=False,
        variable_labels=var_labels,
        value_labels=value_labels,
        keep=folder,
    )


@dataclass
class ColumnCodes:
    """One column as integer codes (int32 while the distinct values fit): ``values[codes[i]]`` is record i's value (as hidekit reads
    it), ``missing`` the code of the missing value (or -1 when none is missing)."""

    codes: np.ndarray
    values: pd.Series
    missing: int

    @property
    def cardinality(self) -> int:
        return len(self.values)


def stream_codes(
    con: duckdb.DuckDBPyConnection,
    source: DirectSource,
    columns: Sequence[str],
    batch_rows: int = BATCH_ROWS,
) -> dict[str, ColumnCodes]:
    """Codes of ``columns`` in row order, read in batches of ``batch_rows`` records: memory holds
    one batch, the codes, and the distinct values."""
    cols = ", ".join(quote(c) for c in columns)
    codes, _ = encode_query(
        con, f"SELECT {cols} FROM {source.relation}", columns, source.text, batch_rows=batch_rows
    )
    return codes


def stream_cells(
    con: duckdb.DuckDBPyConnection, source: DirectSource, keys: Sequence[str]
) -> tuple[dict[str, ColumnCodes], np.ndarray]:
    """The distinct combinations of ``keys`` in the file, counted by DuckDB (one parallel hash
    aggregation: memory bounded by the combinations, not the records), as codes and counts."""
    cols = ", ".join(quote(c) for c in keys)
    sql = f"SELECT {cols}, count(*) AS __n FROM {source.relation} GROUP BY ALL"
    codes, extra = encode_query(con, sql, keys, source.text, keep=("__n",))
    return codes, extra["__n"].astype(np.int64, copy=False)


def encode_query(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    columns: Sequence[str],
    text: bool,
    *,
    keep: Sequence[str] = (),
    batch_rows: int = BATCH_ROWS,
) -> tuple[dict[str, ColumnCodes], dict[str, np.ndarray]]:
    """Run ``sql`` and encode its ``columns`` batch by batch; ``keep`` columns come back as
    plain arrays."""
    columns = list(columns)
    chunks: dict[str, list] = {c: [] for c in [*columns, *keep]}
    for batch in con.sql(sql).to_arrow_reader(batch_rows):
        for name in keep:
            chunks[name].append(batch.column(name).to_numpy(zero_copy_only=False))
        for name in columns:  # only the batch's small dictionary and its indices are kept
            chunks[name].append(pc.dictionary_encode(_as_nullable(batch.column(name))))
    codes = {c: _finish(chunks[c], text) for c in columns}
    extra = {k: np.concatenate(chunks[k]) if chunks[k] else np.zeros(0) for k in keep}
    return codes, extra


def _as_nullable(array: pa.Array) -> pa.Array:
    """Float NaN is missing, as in pandas."""
    if pa.types.is_floating(array.type):
        return pc.if_else(pc.is_nan(array), pa.scalar(None, array.type), array)
    return array


def _finish(chunks: list[pa.DictionaryArray], text: bool) -> ColumnCodes:
    """One dictionary for all batches (Arrow unifies them); typed distinct values; equal typed
    values share one code; missing gets the last code."""
    if chunks:
        unified = pa.chunked_array(chunks).unify_dictionaries()
        raw = unified.chunk(0).dictionary.to_pylist()
        idx = pa.chunked_array([c.indices for c in unified.chunks]).fill_null(-1)
        codes = idx.to_numpy()  # Arrow's int32 indices: half the memory of int64 codes
    else:
        raw, codes = [], np.zeros(0, np.int32)
    values = pd.Series(raw, dtype=object)
    if text:
        values = infer_values(values)
    elif len(raw):
        values = pd.Series(raw)  # the file's own types
    # numeric inference can make distinct texts equal (" 5" and "5"): merge their codes
    merged, uniques = pd.factorize(values)
    if len(uniques) < len(values):
        codes = np.where(codes >= 0, merged[np.maximum(codes, 0)], -1)
        values = pd.Series(uniques, dtype=values.dtype)
    missing = -1
    if (codes < 0).any():
        missing = len(values)
        codes = np.where(codes < 0, missing, codes)
        if values.dtype.kind in "iub":  # a file's own integers or booleans: nullable, as pandas
            values = values.astype("Int64" if values.dtype.kind != "b" else "boolean")
        values = pd.concat([values, pd.Series([None], dtype=values.dtype)], ignore_index=True)
    values = values.reset_index(drop=True)
    return ColumnCodes(codes.astype(code_dtype(len(values)), copy=False), values, missing)


def code_dtype(cardinality: int) -> type[np.signedinteger]:
    """int32 codes while the distinct values (missing included) fit, else int64."""
    return np.int32 if cardinality < np.iinfo(np.int32).max else np.int64
