"""A Parquet file written by chunks, byte for byte as pandas' ``to_parquet`` writes the whole table.

``to_parquet(path, index=False)`` turns the frame into Arrow (``Table.from_pandas``: the schema
and its pandas metadata come from the values) and writes row groups of 1024 × 1024 records
(pyarrow's default) with Snappy. Here each chunk is turned into Arrow alike and held until a row
group is full; each row group is written from one contiguous table, so the pages, dictionaries
and statistics are those of the whole write. Memory holds one row group of Arrow data at most.

The whole table's schema is inferred from all its values; a chunk's from its own. A text column
missing in every record of a chunk is Arrow's null type there: it takes the type the other chunks
give it (the first row group's chunks fix the file's schema). When two chunks type a column
differently otherwise, the file cannot be the whole write's: ``ChunksTypedApart`` is raised and the
caller, whose output is still a temporary file, writes the table another way.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from hidekit.io.atomic import atomic_path, check_output_file

ROW_GROUP = 1024 * 1024  # pyarrow's write_table default (row_group_size=None)


class ChunksTypedApart(Exception):
    """Two chunks give different Arrow schemas: the file would not be the whole write's."""


class ChunkedParquet:
    """Chunks appended to one Parquet file (``write``), closed by ``chunked_parquet``."""

    def __init__(self, path: Path, row_group: int = ROW_GROUP):
        self._path, self._group = Path(path), int(row_group)
        self._schema: pa.Schema | None = None  # the file's, fixed by the first row group
        self._writer: Any = None
        self._held: list[pa.Table] = []
        self._rows = 0
        self._empty: pd.DataFrame | None = None

    def write(self, frame: pd.DataFrame) -> None:
        """Append ``frame``'s records (a frame without records only sets the columns of an
        empty file)."""
        if not len(frame):
            if self._empty is None:
                self._empty = frame
            return
        self._add(pa.Table.from_pandas(frame, preserve_index=False))

    def write_arrow(self, table: pa.Table) -> None:
        """Append records already turned into Arrow as ``write`` turns a frame
        (``Table.from_pandas(frame, preserve_index=False)``, by another process)."""
        if table.num_rows:
            self._add(table)

    def rows(self, frame: pd.DataFrame) -> bytes:
        """``frame``'s records as Arrow (as ``write`` turns them), for a part written by another
        process and appended with ``append_file``: an IPC stream after its length."""
        table = pa.Table.from_pandas(frame, preserve_index=False)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        data = sink.getvalue().to_pybytes()
        return len(data).to_bytes(8, "little") + data

    def append_file(self, part: Path) -> None:
        """The records of the file ``part`` (pieces written with ``rows``) appended one piece
        at a time, then ``part`` deleted."""
        with open(part, "rb") as src:
            while head := src.read(8):
                data = src.read(int.from_bytes(head, "little"))
                self._add(pa.ipc.open_stream(pa.py_buffer(data)).read_all())
        Path(part).unlink()

    def part_path(self) -> Path:
        """A path beside the file being written, for a part written by another process."""
        return Path(str(self._path) + ".part")

    def _add(self, table: pa.Table) -> None:
        if self._writer is not None:
            table = _as_schema(table, self._schema)
        self._held.append(table)
        self._rows += table.num_rows
        while self._rows >= self._group:
            self._flush(self._group)

    def _flush(self, rows: int) -> None:
        import pyarrow.parquet as pq

        if self._writer is None:
            self._schema = _joined_schema([t.schema for t in self._held])
            self._writer = pq.ParquetWriter(str(self._path), self._schema, compression="snappy")
        held = [_as_schema(t, self._schema) for t in self._held]
        whole = pa.concat_tables(held).combine_chunks()
        self._writer.write_table(whole.slice(0, rows), row_group_size=rows)
        rest = whole.slice(rows)
        self._held, self._rows = ([rest] if rest.num_rows else []), rest.num_rows

    def close(self) -> None:
        """Write the records held and the file's footer."""
        if self._rows:
            self._flush(self._rows)
        if self._writer is None:
            if self._empty is None:
                raise ChunksTypedApart("no chunk was written")
            self._empty.to_parquet(self._path, index=False)
            return
        self._writer.close()
        self._writer = None

    def abandon(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def _unknown(field: pa.Field, meta: dict) -> bool:
    """A column missing in every record of its chunk: the whole table's other values type it."""
    return pa.types.is_null(field.type) and meta.get("pandas_type") == "empty"


def _columns_meta(schema: pa.Schema) -> tuple[dict, list[dict]]:
    meta = json.loads(schema.metadata[b"pandas"]) if schema.metadata else {}
    return meta, list(meta.get("columns", []))


def _joined_schema(schemas: list[pa.Schema]) -> pa.Schema:
    """The schema ``Table.from_pandas`` gives the chunks joined: each column typed by the chunks
    that hold a value in it; ``ChunksTypedApart`` when two chunks type it differently."""
    first = schemas[0]
    meta, columns = _columns_meta(first)
    fields = list(first)
    for schema in schemas[1:]:
        other, other_columns = _columns_meta(schema)
        same_rest = {k: v for k, v in other.items() if k != "columns"} == {
            k: v for k, v in meta.items() if k != "columns"
        }
        if schema.names != first.names or len(other_columns) != len(columns) or not same_rest:
            raise ChunksTypedApart("two chunks of the release have different columns")
        for i, field in enumerate(schema):
            if fields[i].equals(field) and columns[i] == other_columns[i]:
                continue
            if _unknown(field, other_columns[i]):
                continue
            if not _unknown(fields[i], columns[i]):
                raise ChunksTypedApart(f"two chunks type column {field.name!r} apart")
            fields[i], columns[i] = field, other_columns[i]
    if not meta:
        return pa.schema(fields)
    text = json.dumps({**meta, "columns": columns}).encode("utf8")
    return pa.schema(fields, metadata={**first.metadata, b"pandas": text})


def _as_schema(table: pa.Table, schema: pa.Schema | None) -> pa.Table:
    """``table`` under ``schema``: its all-missing columns take the schema's types."""
    assert schema is not None
    if table.schema.equals(schema, check_metadata=True):
        return table
    if not _joined_schema([schema, table.schema]).equals(schema, check_metadata=True):
        raise ChunksTypedApart("a chunk types a column apart from the file's first row group")
    arrays = [
        pa.nulls(table.num_rows, f.type) if pa.types.is_null(c.type) else c
        for c, f in zip(table.columns, schema, strict=True)
    ]
    return pa.Table.from_arrays(arrays, schema=schema)


@contextlib.contextmanager
def chunked_parquet(
    target: Path, *, protect: Sequence = (), row_group: int = ROW_GROUP
) -> Iterator[ChunkedParquet]:
    """A Parquet file written chunk by chunk into a temporary sibling and renamed onto ``target``
    when the block ends without error (``hidekit.io.atomic``): never half-written."""
    check_output_file(target, protect)
    with atomic_path(Path(target), protect=protect) as tmp:
        out = ChunkedParquet(tmp, row_group)
        try:
            yield out
        except BaseException:
            out.abandon()
            raise
        out.close()
