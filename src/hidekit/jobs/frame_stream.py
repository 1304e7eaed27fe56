"""A table file read as typed pandas frames of ``chunk_rows`` records, for a job that releases
records one by one (``anonymize --method optimal``): only one chunk is in memory. ``frame_source``
also decides when ``anonymize`` (Mondrian) and ``suppress`` run by chunks
(``hidekit.jobs.anonymize_stream``, reading through ``hidekit.jobs.chunk_readers``).

Each frame holds the records ``read_table`` would hold in those rows, typed alike: a CSV is read
by DuckDB as text (``hidekit.io.direct``) and typed by a first scan of its distinct values
(``release.stream_source``, as ``read_table`` types the whole file); Parquet and Stata / SPSS / SAS
files carry their own types (``hidekit.io.frame_chunks``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from hidekit.io.direct import DirectSource

CHUNK_ROWS = 250_000
STAT_FORMATS = ("stata", "spss", "sas")
STREAM_ROWS = 1_000_000  # a Parquet file of this many records is read by chunks, whatever its size
STREAM_BYTES = 64 * 2**20  # files from this size are read by chunks when the job allows
OUTPUT_FORMATS = ("csv", "parquet")  # released by chunks (io.csv_chunks, io.parquet_chunks)


@dataclass
class FrameSource:
    """A file read by chunks: its format, columns and the delimiter its CSV release takes (the
    input's own for a CSV, a comma otherwise, as ``write_table`` does)."""

    path: Path
    format: str
    columns: list[str]
    sep: str
    rows: int
    csv: DirectSource | None = None
    kinds: dict[str, str] | None = None  # a CSV's column types, once a scan has seen them

    def frames(self, columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
        """The records in file order, ``rows`` at a time, typed as ``read_table`` types them
        (a Parquet file's ``columns`` only, when named: the others are not read)."""
        from hidekit.io.frame_chunks import parquet_frames, stat_frames

        if self.csv is not None:
            yield from _csv_frames(self.csv, self.columns, self.rows, self.kinds)
        elif self.format == "parquet":
            yield from parquet_frames(self.path, self.rows, columns)
        else:
            yield from stat_frames(self.path, self.format, self.rows)


def frame_source(
    data, out, *, sep: str | None, chunk_rows: int | None, columns: Sequence[str]
) -> FrameSource | None:
    """``data`` read by chunks when it should be: a CSV, Parquet, Stata, SPSS or SAS file of 64 MB
    or more (a Parquet file of ``STREAM_ROWS`` records or more: it is compressed; any size,
    given ``chunk_rows``) holding every named ``columns``, released to a CSV or Parquet file;
    else None (the caller reads the table whole, and words what is wrong)."""
    from hidekit.io.direct import direct_source
    from hidekit.io.readers import detect_format

    path, target = Path(data), Path(out)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    if target.suffix and detect_format(target) not in OUTPUT_FORMATS:
        return None
    try:
        fmt = detect_format(path)
    except Exception:
        return None
    if chunk_rows is None and path.stat().st_size < STREAM_BYTES and not many_rows(path, fmt):
        return None
    rows = int(chunk_rows or CHUNK_ROWS)
    source, names = None, None
    if fmt == "csv":
        source = direct_source(path, sep=sep)
        if source is None or source.format != "csv":
            return None
        names = list(source.columns)
    elif fmt == "parquet":
        parquet = direct_source(path)  # None for what read_table must read (nested, an index)
        names = list(parquet.columns) if parquet is not None else None
    elif fmt in STAT_FORMATS:
        names = _stat_columns(path, fmt)
    if names is None or any(c not in names for c in columns):
        return None
    delimiter = source.options["sep"] if source is not None else ","
    return FrameSource(path, fmt, names, delimiter, rows, source)


def many_rows(path: Path, fmt: str) -> bool:
    """A Parquet file of ``STREAM_ROWS`` records or more (from its footer)."""
    if fmt != "parquet":
        return False
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path).metadata.num_rows >= STREAM_ROWS
    except Exception:
        return False


def _stat_columns(path: Path, fmt: str) -> list[str] | None:
    """A statistical file's column names from its metadata (None when it cannot be read)."""
    from hidekit.io.stat_chunks import stat_reader

    try:
        _, meta = stat_reader(path, fmt)(str(path), metadataonly=True)
    except Exception:
        return None
    return list(meta.column_names)


def counted_csv(source: FrameSource, counted: Sequence[str]):
    """One scan of a CSV source: every column's type (kept on ``source``, so ``frames`` reads
    the file once more, not twice) and the count table of ``counted`` typed as ``read_table``
    types them (``release.stream_tables.CountTable``; None for a file without records)."""
    from hidekit.engines.connection import connect
    from hidekit.release.stream_tables import typed_counts

    assert source.csv is not None
    with connect() as con:
        kinds, counts, n = count_scan(con, source.csv, source.columns, list(counted), source.rows)
    source.kinds = kinds
    return typed_counts(counts, list(counted), kinds) if n else None


def count_scan(con, source: DirectSource, read: list[str], cols: list[str], rows: int):
    """One pass: the type of each column read, the count table of ``cols``, the records."""
    from hidekit.release.stream_source import ColumnTypes, batches
    from hidekit.release.stream_tables import arrow_counts, batch_counts

    types = ColumnTypes(read)
    parts: list = []
    start = 0
    for batch in batches(con, source, read, rows):
        types.see(batch)
        parts.append(batch_counts(batch, cols, start))
        if len(parts) >= 16:
            parts = [arrow_counts(parts, cols)]
        start += batch.num_rows
    return types.kinds(), arrow_counts(parts, cols) if parts else None, start


def _csv_frames(
    source: DirectSource, columns: list[str], rows: int, kinds: dict[str, str] | None
) -> Iterator[pd.DataFrame]:
    """A CSV's records by chunks: a scan types every column from its distinct texts (unless
    ``kinds`` are known), the next turns each batch into the frame ``read_table`` holds for
    those rows."""
    from hidekit.engines.connection import connect
    from hidekit.release.stream_source import ColumnTypes, batches, typed_frame

    with connect() as con:
        if kinds is None:
            types = ColumnTypes(columns)
            for batch in batches(con, source, columns, rows):
                types.see(batch)
            kinds = types.kinds()
        for batch in batches(con, source, columns, rows):
            yield typed_frame(batch, kinds, 0)


@contextlib.contextmanager
def chunked_table(
    target: Path, *, sep: str, neutralize: bool, protect: Sequence = ()
) -> Iterator[Callable[[pd.DataFrame], None]]:
    """The function that appends a chunk of the release to ``target``, a CSV (``sep``,
    ``neutralize``: ``io.csv_chunks``) or a Parquet file (``io.parquet_chunks``), each byte for
    byte as the whole table's write; renamed onto ``target`` when the block ends without error.
    Chunks that Parquet would type apart raise ``StreamUnsupported`` (nothing is written)."""
    from hidekit.io.readers import detect_format

    target = Path(target)
    if target.suffix and detect_format(target) == "parquet":
        from hidekit.io.parquet_chunks import ChunksTypedApart, chunked_parquet
        from hidekit.release.stream_tables import StreamUnsupported

        try:
            with chunked_parquet(target, protect=protect) as parquet:
                yield parquet.write
        except ChunksTypedApart as exc:
            raise StreamUnsupported(str(exc)) from exc
        return
    from hidekit.io.csv_chunks import chunked_csv

    with chunked_csv(target, sep=sep, neutralize=neutralize, protect=protect) as csv:
        yield csv.write
