"""The input of a release by chunks, as Arrow record batches of ``rows`` records in file order,
each turned into the pandas frame ``read_table`` holds for those records.

- ``CsvReader``: a CSV read by DuckDB as text; each column typed from its distinct texts by the
  fitting scan (``stream_source.ColumnTypes``), as ``read_table`` types the whole file.
- ``ParquetReader``: Parquet's own types, read by row groups (``iter_batches``: the row groups
  before a forked half's first record are not read); a batch becomes pandas as
  ``pd.read_parquet`` turns the whole file (its pandas metadata; whole numbers or booleans
  missing anywhere in the file typed as pandas types them with a gap, in every batch).
- ``StatReader``: a Stata, SPSS or SAS file by pyreadstat's row offsets (``read_file_in_chunks``)
  with ``read_table``'s cleaning; each chunk goes to Arrow under one schema for the whole file
  (so the count tables of all chunks join) and back. Variable and value labels come from the
  file's metadata: the steps read them, the released file carries them.

The count tables the scan builds on the batches (Arrow group-bys) are typed by the same reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from hidekit.io.direct import DirectSource
from hidekit.release.stream_source import ColumnTypes, batches, rebatched, typed_frame
from hidekit.release.stream_tables import CountTable, StreamUnsupported, typed_counts

NATIVE = "native"  # a column that arrives typed (Parquet, pyreadstat): nothing to infer
STAT_FORMATS = ("stata", "spss", "sas")
_HEAD_ROWS = 10_000  # a statistical file's first records, read to fix its Arrow schema


class NativeTypes:
    """``ColumnTypes`` for batches that carry their types: every column ``NATIVE``."""

    def __init__(self, columns: Sequence[str]):
        self._columns = list(columns)

    def see(self, batch: pa.RecordBatch) -> None:
        return None

    def merge(self, other: NativeTypes) -> None:
        return None

    def kinds(self) -> dict[str, str]:
        return dict.fromkeys(self._columns, NATIVE)


def _middle(records: int | None, rows: int) -> int | None:
    """A chunk boundary at about half of ``records`` (None: fewer than two chunks)."""
    if not records:
        return None
    chunks = -(-int(records) // rows)
    return rows * ((chunks + 1) // 2) if chunks >= 2 else None


@dataclass
class CsvReader:
    """A CSV that DuckDB reads with hidekit's semantics (``io.direct``), every cell as text."""

    source: DirectSource
    format: str = "csv"
    variable_labels: dict[str, str] = field(default_factory=dict)
    value_labels: dict[str, dict] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return Path(self.source.path)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.source.columns

    @property
    def sep(self) -> str:
        return self.source.options["sep"]

    def batches(self, con, columns, rows: int, first: int = 0, stop: int | None = None):
        return batches(con, self.source, columns, rows, first, stop)

    def types(self, columns: Sequence[str]) -> ColumnTypes:
        return ColumnTypes(columns)

    def frame(self, batch: pa.RecordBatch, kinds: dict[str, str], start: int) -> pd.DataFrame:
        return typed_frame(batch, kinds, start)

    def counts(self, table: pa.Table, columns, kinds: dict[str, str]) -> CountTable:
        return typed_counts(table, columns, kinds)

    def half_way(self, rows: int) -> int | None:
        from hidekit.release.stream_fork import half_way

        return half_way(self.source, rows)


class _TypedReader:
    """What the Parquet and statistical readers share: typed batches, typed count tables."""

    path: Path
    format: str
    columns: tuple[str, ...]
    records: int | None
    sep = ","  # a CSV written from them takes a comma, as write_table does
    variable_labels: dict[str, str]
    value_labels: dict[str, dict]

    def types(self, columns: Sequence[str]) -> NativeTypes:
        return NativeTypes(columns)

    def typed(self, table: pa.Table) -> pd.DataFrame:
        raise NotImplementedError

    def frame(self, batch: pa.RecordBatch, kinds: dict[str, str], start: int) -> pd.DataFrame:
        frame = self.typed(pa.Table.from_batches([batch]))
        frame.index = pd.RangeIndex(start, start + batch.num_rows)
        return frame

    def counts(self, table: pa.Table, columns, kinds: dict[str, str]) -> CountTable:
        return typed_counts(table, columns, kinds, lambda t: self.typed(t.select(list(columns))))

    def half_way(self, rows: int) -> int | None:
        return _middle(self.records, rows)


class ParquetReader(_TypedReader):
    """A Parquet file read by row groups in its own types."""

    def __init__(self, path: Path):
        from hidekit.io.parquet_layout import parquet_layout

        layout = parquet_layout(Path(path))
        self.path, self.format = Path(path), "parquet"
        self.schema = layout.schema
        self.columns = tuple(self.schema.names)
        self.records = layout.records
        self.gaps = tuple(sorted(layout.gaps))
        self.variable_labels, self.value_labels = {}, {}

    def batches(self, con, columns, rows: int, first: int = 0, stop: int | None = None):
        from hidekit.io.frame_chunks import parquet_batches

        parts = parquet_batches(self.path, rows, list(columns), first, stop)
        return rebatched(parts, rows)

    def typed(self, table: pa.Table) -> pd.DataFrame:
        from hidekit.io.frame_chunks import arrow_frame

        return arrow_frame(table.replace_schema_metadata(self.schema.metadata), self.gaps)


class StatReader(_TypedReader):
    """A Stata, SPSS or SAS file read by pyreadstat's row offsets, labels kept."""

    def __init__(self, path: Path, fmt: str):
        from hidekit.io.frame_chunks import stat_frames
        from hidekit.io.stat_chunks import labels_of, stat_reader

        self.path, self.format = Path(path), fmt
        try:
            _, meta = stat_reader(self.path, fmt)(str(path), metadataonly=True)
        except Exception as exc:  # pyreadstat's own errors: read_table words them
            raise StreamUnsupported(f"{path}: {exc}") from exc
        self.columns = tuple(meta.column_names)
        rows = getattr(meta, "number_rows", None)
        self.records = int(rows) if rows is not None and rows >= 0 else None
        self.variable_labels, self.value_labels = labels_of(meta)
        head = next(iter(stat_frames(self.path, fmt, _HEAD_ROWS, stop=_HEAD_ROWS)), None)
        if head is None or not len(head):
            raise StreamUnsupported("an empty table is released in memory")
        self.schema = _stat_schema(head, meta.readstat_variable_types or {})

    def batches(self, con, columns, rows: int, first: int = 0, stop: int | None = None):
        return self._batches(list(columns), rows, first, stop)

    def _batches(self, columns: list[str], rows: int, first: int, stop: int | None):
        from hidekit.io.frame_chunks import stat_frames

        schema = pa.schema([self.schema.field(c) for c in columns])
        for frame in stat_frames(self.path, self.format, rows, first=first, stop=stop):
            try:
                table = pa.Table.from_pandas(frame[columns], schema=schema, preserve_index=False)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise StreamUnsupported(f"a chunk's values do not fit one type: {exc}") from exc
            yield from table.replace_schema_metadata(None).to_batches(max_chunksize=rows)

    def typed(self, table: pa.Table) -> pd.DataFrame:
        return table.replace_schema_metadata(None).to_pandas().reset_index(drop=True)


def _stat_schema(head: pd.DataFrame, readstat_types: dict[str, str]) -> pa.Schema:
    """One Arrow type per column of a statistical file, from its first records as pyreadstat
    types them; a column missing in all of them: text if the file says so, else a date (the one
    object column pyreadstat gives that is not text)."""
    inferred = pa.Schema.from_pandas(head, preserve_index=False)
    fields = []
    for f in inferred:
        if pa.types.is_null(f.type):
            text = readstat_types.get(f.name) == "string"
            f = pa.field(f.name, pa.string() if text else pa.date32())
        fields.append(f)
    return pa.schema(fields)


def plan_reader(path: Any, sep: str | None) -> CsvReader | ParquetReader | StatReader:
    """The reader of a plan's input: a CSV DuckDB reads as hidekit does, a flat Parquet file
    (no nested or dictionary columns, no stored index), or a Stata / SPSS / SAS file; else
    StreamUnsupported (the job reads the table whole)."""
    from hidekit.io.direct import direct_source
    from hidekit.io.readers import detect_format

    path = Path(path)
    try:
        fmt = detect_format(path)
    except Exception as exc:  # read_table words it
        raise StreamUnsupported(str(exc)) from exc
    if fmt in STAT_FORMATS and path.is_file():
        return StatReader(path, fmt)
    source = direct_source(path, sep=sep) if fmt in ("csv", "parquet") else None
    if source is None:
        raise StreamUnsupported("only CSV, flat Parquet, Stata, SPSS and SAS files are streamed")
    if source.format == "parquet":
        return ParquetReader(path)
    return CsvReader(source)
