"""The records of a file read by chunks for a job that counts its keys first and writes its
records after (``hidekit.jobs.anonymize_stream``: Mondrian, local suppression).

Two readers answer alike: ``count`` (one scan: the count table of some columns, typed as
``read_table`` types them, and the records), ``items`` (the records again, chunk by chunk),
``typed`` (a chunk's columns as the typed frame ``read_table`` holds for those rows),
``payload`` / ``from_payload`` (a chunk's columns as Arrow for a scratch file, and back) and
``lookup`` (each record's row in the count table).

- ``CsvChunks``: a CSV as DuckDB reads it, in batches of raw text typed after the count scan
  (``release.stream_source``); records are looked up from their raw texts.
- ``FrameChunks``: Parquet, Stata, SPSS or SAS files, whose chunks are typed frames already
  (``io.frame_chunks``); the count is summed over the chunks' own count tables.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.io.direct import DirectSource
from hidekit.jobs.frame_stream import FrameSource, count_scan


class CsvChunks:
    """A CSV read by DuckDB (``con``) in batches of ``rows`` raw-text records."""

    def __init__(self, con, source: DirectSource, read: list[str], rows: int):
        self.con, self.source, self.read, self.rows = con, source, read, rows
        self.kinds: dict[str, str] = {}

    def count(self, cols: list[str]):
        """(count table of ``cols`` or None when empty, records): also types every column."""
        from hidekit.release.stream_tables import typed_counts

        self.kinds, counts, n = count_scan(self.con, self.source, self.read, cols, self.rows)
        return (typed_counts(counts, cols, self.kinds) if n else None), n

    def items(self) -> Iterator[pa.RecordBatch]:
        from hidekit.release.stream_source import batches

        yield from batches(self.con, self.source, self.read, self.rows)

    def typed(self, item: pa.RecordBatch, columns: list[str], start: int) -> pd.DataFrame:
        from hidekit.release.stream_source import typed_frame

        return typed_frame(item.select(columns), self.kinds, start)

    def payload(self, item: pa.RecordBatch, columns: list[str]) -> pa.RecordBatch:
        return item.select(columns)

    def from_payload(self, table: pa.Table, columns: list[str], start: int) -> pd.DataFrame:
        from hidekit.release.stream_source import typed_frame

        batch = pa.RecordBatch.from_arrays(
            [table.column(c).combine_chunks() for c in columns], columns
        )
        return typed_frame(batch, self.kinds, start)

    def lookup(self, table: pd.DataFrame) -> _Combos:
        return _Combos(table, self.kinds)


class FrameChunks:
    """A Parquet, Stata, SPSS or SAS file read as typed frames of ``source.rows`` records; every
    chunk must be typed as the first (else ``StreamUnsupported``: the job runs in memory)."""

    def __init__(self, source: FrameSource, read: list[str]):
        self.source, self.read = source, read
        self._dtypes: pd.Series | None = None
        self._schema: pa.Schema | None = None

    def _checked(self, frame: pd.DataFrame) -> pd.DataFrame:
        from hidekit.release.stream_tables import StreamUnsupported

        if self._dtypes is None:
            self._dtypes = frame.dtypes
        elif not frame.dtypes.equals(self._dtypes):
            raise StreamUnsupported("the chunks of the file are not typed alike")
        return frame

    def count(self, cols: list[str]):
        from hidekit.release.stream_tables import CountTable

        parts: list = []
        n = 0
        for frame in self.source.frames(cols if self.source.format == "parquet" else None):
            m = len(frame)
            part = CountTable(
                frame[cols].reset_index(drop=True),
                np.ones(m, np.int64),
                np.arange(n, n + m, dtype=np.int64),
            )
            parts.append(part.regroup(cols))
            if len(parts) >= 16:
                parts = [_merged(parts, cols)]
            n += m
        return (_merged(parts, cols) if n else None), n

    def items(self) -> Iterator[pd.DataFrame]:
        for frame in self.source.frames():
            yield self._checked(frame[self.read])

    def typed(self, item: pd.DataFrame, columns: list[str], start: int) -> pd.DataFrame:
        frame = item[columns]
        frame.index = pd.RangeIndex(start, start + len(frame))
        return frame

    def payload(self, item: pd.DataFrame, columns: list[str]) -> pa.RecordBatch:
        from hidekit.release.stream_tables import StreamUnsupported

        try:
            batch = pa.RecordBatch.from_pandas(
                item[columns], preserve_index=False, schema=self._schema
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise StreamUnsupported(f"a chunk cannot be kept as Arrow: {exc}") from exc
        self._schema = self._schema or batch.schema
        return batch

    def from_payload(self, table: pa.Table, columns: list[str], start: int) -> pd.DataFrame:
        from hidekit.release.stream_tables import StreamUnsupported

        assert self._schema is not None and self._dtypes is not None
        kept = pa.Table.from_arrays([table.column(c) for c in columns], schema=self._schema)
        frame = kept.to_pandas()
        if not frame.dtypes.equals(self._dtypes[columns]):
            raise StreamUnsupported("a chunk does not come back from Arrow as it was typed")
        frame.index = pd.RangeIndex(start, start + len(frame))
        return frame

    def lookup(self, table: pd.DataFrame) -> _FrameLookup:
        return _FrameLookup(table)


def _merged(parts: list, cols: list[str]):
    from hidekit.release.stream_tables import CountTable

    frame = pd.concat([p.frame for p in parts], ignore_index=True)
    counts = np.concatenate([p.counts for p in parts])
    first = np.concatenate([p.first for p in parts])
    return CountTable(frame, counts, first).regroup(cols)


class _FrameLookup:
    """Each record's row in the count table, from its typed values."""

    def __init__(self, table: pd.DataFrame):
        from hidekit.release.stream_tables import Lookup

        self.columns = list(table.columns)
        self._lookup = Lookup(table)

    def rows(self, frame: pd.DataFrame) -> np.ndarray:
        return self._lookup.rows(frame[self.columns])


def chunk_reader(con, source: FrameSource, read: Sequence[str]) -> CsvChunks | FrameChunks:
    """The reader of ``source``'s columns ``read``."""
    if source.csv is not None:
        return CsvChunks(con, source.csv, list(read), source.rows)
    return FrameChunks(source, list(read))


class _Combos:
    """Each record's row in the count table, found from its batch's raw text: each column's
    distinct texts are typed once (as ``read_table`` types them) and numbered among the table's
    values (``stream_tables.Lookup``, which finds the rows)."""

    def __init__(self, table: pd.DataFrame, kinds: dict[str, str]):
        from hidekit.release.stream_tables import Lookup

        self.kinds = kinds
        self._lookup = Lookup(table)

    def rows(self, batch: pa.RecordBatch) -> np.ndarray:
        """The table row of each record of ``batch`` (raw text columns)."""
        import pyarrow.compute as pc

        from hidekit.release.stream_source import typed_column

        look = self._lookup
        ids = np.zeros(batch.num_rows, np.int64)
        unseen = np.zeros(batch.num_rows, bool)
        for c, index, span in zip(look.columns, look.indexes, look.spans, strict=True):
            encoded = pc.dictionary_encode(batch.column(c))
            values = typed_column(encoded.dictionary, self.kinds[c])
            known = index.get_indexer(values)
            known[values.isna().to_numpy()] = len(index)
            at = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            codes = np.append(known, len(index))[at]  # a null index (-1) takes the last: missing
            unseen |= codes < 0
            ids = ids * span + codes
        ids[unseen] = -1
        return look.found(ids)
