"""The fitting scan of a release by chunks (``hidekit.release.stream``): one pass over the file
that types every column and counts the distinct combinations each step fits on; on two cores, a
forked process scans the second half of the records while this one scans the first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hidekit.release.stream_fork import forked, in_new_connection
from hidekit.release.stream_tables import arrow_counts, batch_counts

# Each chunk's count table of a suppress step's columns is kept (for the second half's start)
# while all of them hold at most this many rows; beyond, the chunks run in one process.
KEEP_ROWS = 4_000_000


@dataclass
class Scan:
    """What the fitting scan learnt: column types, count tables, records, points without
    coordinates."""

    kinds: dict[str, str]
    tables: dict[tuple[str, ...], pa.Table]
    records: int
    no_point: dict[tuple[str, str], int] = field(default_factory=dict)
    # the count tables of each chunk for the sets of ``keep`` (None: more rows than KEEP_ROWS)
    chunk_parts: dict[tuple[str, ...], list[pa.Table]] | None = None
    split: int | None = None  # where the second process's range began (both held records)
    reader: Any = None  # the input's reader (``stream_readers``): it types the count tables


@dataclass
class _Found:
    """What the scan of a range of records found (``fit_scan`` joins two ranges')."""

    types: Any  # stream_source.ColumnTypes, or stream_readers.NativeTypes
    tables: dict[tuple[str, ...], pa.Table]
    records: int
    no_point: dict[tuple[str, str], int]
    kept: dict[tuple[str, ...], list[pa.Table]] | None

    def __getstate__(self) -> dict:
        """Tables as Arrow IPC streams for the trip between processes: a pickled Arrow array
        carries whole buffers it is a slice of (16 times the record IDs' table)."""
        kept = None if self.kept is None else {s: _ipc(p) for s, p in self.kept.items()}
        tables = {s: _ipc([t]) for s, t in self.tables.items()}
        return {**self.__dict__, "tables": tables, "kept": kept}

    def __setstate__(self, state: dict) -> None:
        kept = state["kept"]
        state["kept"] = None if kept is None else {s: _tables(b) for s, b in kept.items()}
        state["tables"] = {s: _tables(b)[0] for s, b in state["tables"].items()}
        self.__dict__.update(state)


def _ipc(tables: list[pa.Table]) -> list[bytes]:
    out = []
    for table in tables:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write(table)
        out.append(sink.getvalue().to_pybytes())
    return out


def _tables(streams: list[bytes]) -> list[pa.Table]:
    return [pa.ipc.open_stream(pa.py_buffer(b)).read_all() for b in streams]


def _scan_range(con, source, read, sets, pairs, rows, keep, first=0, stop=None) -> _Found:
    """The fitting scan of records ``first`` to ``stop`` (None: the end)."""
    types = source.types(read)
    parts: dict[tuple[str, ...], list[pa.Table]] = {s: [] for s in sets}
    kept: dict[tuple[str, ...], list[pa.Table]] | None = {s: [] for s in keep}
    held = 0
    no_point = dict.fromkeys(pairs, 0)
    start = first
    for batch in source.batches(con, read, rows, first, stop):
        types.see(batch)
        for s in sets:
            part = batch_counts(batch, s, start)
            parts[s].append(part)
            if kept is not None and s in kept:
                kept[s].append(part)
                held += part.num_rows
                if held > KEEP_ROWS:
                    kept = None
            if _merge_due(parts[s]):
                parts[s] = [arrow_counts(parts[s], s)]
        for lat, lon in pairs:
            lats, lons = batch.column(lat), batch.column(lon)
            gone = pc.or_(_is_missing(lats), _is_missing(lons))
            no_point[(lat, lon)] += int(pa.compute.sum(gone).as_py() or 0)
        start += batch.num_rows
    tables = {s: arrow_counts(p, s) for s, p in parts.items() if p}
    return _Found(types, tables, start - first, no_point, kept)


def _joined_found(a: _Found, b: _Found) -> _Found:
    """Two consecutive ranges' findings as one range's."""
    a.types.merge(b.types)
    for s, table in b.tables.items():
        a.tables[s] = arrow_counts([a.tables[s], table], s) if s in a.tables else table
    for pair, n in b.no_point.items():
        a.no_point[pair] += n
    if a.kept is not None and b.kept is not None:
        for s, parts in b.kept.items():
            a.kept[s] += parts
    else:
        a.kept = None
    a.records += b.records
    return a


def fit_scan(con, source, read: list[str], sets, pairs, rows: int, keep=(), at=None) -> Scan:
    """One pass over the file: types of ``read``, the count table of each column set of
    ``sets``, the records missing either coordinate of each pair of ``pairs``; for the sets
    of ``keep``, each chunk's own count table too (while they stay small: ``KEEP_ROWS``).
    With ``at`` (a chunk boundary), a forked process scans the records from ``at`` on while
    this one scans those before (if it fails, this one scans them after)."""
    args = (source, read, sets, pairs, rows, keep)
    split = None
    if at is None:
        found = _scan_range(con, *args)
    else:
        wait = forked(lambda: in_new_connection(_scan_range, *args, at))
        try:
            found = _scan_range(con, *args, 0, at)
        except BaseException:  # the other half is of no use: its process is stopped
            wait(stop=True)
            raise
        rest = wait()
        if rest is None:
            rest = _scan_range(con, *args, at)
        split = at if found.records == at and rest.records else None
        found = _joined_found(found, rest)
    scan = Scan(found.types.kinds(), found.tables, found.records, found.no_point, found.kept)
    scan.split, scan.reader = split, source
    return scan


def _is_missing(values: pa.Array) -> pa.Array:
    """Missing cells: null, or NaN in a column of floats (pandas reads both as missing)."""
    if pa.types.is_floating(values.type):
        return pc.is_null(values, nan_is_null=True)
    return values.is_null()


def _merge_due(parts: list[pa.Table]) -> bool:
    """Whether to merge a set's partial count tables now: every 16 parts, once the new parts
    hold as many rows as the merged table (a table with one row per record, as record IDs
    give, would otherwise be regrouped whole every 16 parts: quadratic in the records)."""
    if len(parts) < 16:
        return False
    return sum(p.num_rows for p in parts[1:]) >= parts[0].num_rows
