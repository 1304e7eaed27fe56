"""Parquet and Stata / SPSS / SAS files read as pandas frames of a few records at a time, each
typed as ``read_table`` types those records of the whole file.

Parquet keeps its own types: Arrow's record batches (``iter_batches``) turned into pandas as
``pd.read_parquet`` turns the whole table (the file's pandas metadata included). Statistical files
come through pyreadstat's row offsets (``read_file_in_chunks``) with ``read_table``'s cleaning (the
empty text is missing). A CSV's types depend on the whole file, so its chunks are typed after a
scan (``hidekit.jobs.frame_stream``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hidekit.errors import InputError


def parquet_frames(
    path: Path, rows: int, columns: list[str] | None = None
) -> Iterator[pd.DataFrame]:
    """``path``'s records (its ``columns`` only, when named), ``rows`` at a time, as
    ``pd.read_parquet`` reads them (numbered from 0 in each frame). pandas turns whole numbers
    (or booleans) with a missing value into floats (or objects): a column missing somewhere in
    the file is turned so in every chunk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        schema = handle.schema_arrow
        gaps = columns_with_gaps(handle)
        if columns is not None:
            schema = pa.schema([schema.field(c) for c in columns], metadata=schema.metadata)
            gaps = [c for c in gaps if c in columns]
        for batch in handle.iter_batches(batch_size=int(rows), columns=columns):
            yield arrow_frame(pa.Table.from_batches([batch], schema=schema), gaps)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot read as Parquet: {exc}") from exc


def arrow_frame(table, gaps: Sequence[str]) -> pd.DataFrame:
    """Records of a Parquet file (an Arrow table under the file's schema and pandas metadata) as
    ``pd.read_parquet`` holds them in the whole file, numbered from 0: the columns of ``gaps``
    (whole numbers or booleans missing somewhere in the file) typed as pandas types them with a
    missing value (floats, objects) even where these records miss none."""
    import pyarrow as pa

    widen = [c for c in gaps if c in table.column_names and not table.column(c).null_count]
    if not widen or not table.num_rows:
        return table.to_pandas().reset_index(drop=True)
    # one more record, missing in those columns, makes pandas type them as the file
    extra = table.slice(0, 1)
    for name in widen:
        at = extra.schema.get_field_index(name)
        extra = extra.set_column(at, extra.field(at), pa.nulls(1, extra.field(at).type))
    frame = pa.concat_tables([table, extra]).to_pandas()
    return frame.iloc[: table.num_rows].reset_index(drop=True)


def parquet_batches(
    path: Path, rows: int, columns: Sequence[str], first: int = 0, stop: int | None = None
) -> Iterator:
    """``path``'s ``columns`` as Arrow record batches of ``rows`` records (the last: the rest),
    records ``first`` to ``stop`` (exclusive; None: the end): the row groups before ``first``
    are not read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        meta = handle.metadata
        stop = meta.num_rows if stop is None else min(int(stop), meta.num_rows)
        groups: list[int] = []
        skip, at = 0, 0
        for g in range(meta.num_row_groups):
            n = meta.row_group(g).num_rows
            if at + n > first and at < stop:
                if not groups:
                    skip = first - at
                groups.append(g)
            at += n
        left = stop - first
        if not groups or left <= 0:
            return
        parts = handle.iter_batches(batch_size=int(rows), row_groups=groups, columns=list(columns))
        yield from _sliced(parts, skip, left)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot read as Parquet: {exc}") from exc


def _sliced(parts: Iterable, skip: int, left: int) -> Iterator:
    """``parts`` (record batches) without their first ``skip`` records, ``left`` records in all."""
    for batch in parts:
        if skip >= batch.num_rows:
            skip -= batch.num_rows
            continue
        batch = batch.slice(skip, min(left, batch.num_rows - skip))
        skip, left = 0, left - batch.num_rows
        if batch.num_rows:
            yield batch
        if left <= 0:
            return


def columns_with_gaps(handle) -> list[str]:
    """The whole-number and boolean columns with a missing value anywhere in the file (from the
    row groups' statistics, else counted in a scan of those columns)."""
    import pyarrow as pa

    schema = handle.schema_arrow
    names = [f.name for f in schema if pa.types.is_integer(f.type) or pa.types.is_boolean(f.type)]
    if not names:
        return []
    meta = handle.metadata
    leaves = {meta.schema.column(i).path: i for i in range(meta.num_columns)}
    found, unknown = set(), []
    for name in names:
        at = leaves.get(name)
        counts: list[int | None] = []
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(at).statistics if at is not None else None
            counts.append(stats.null_count if stats is not None and stats.has_null_count else None)
        if None in counts:
            unknown.append(name)
        elif any(counts):
            found.add(name)
    for batch in handle.iter_batches(columns=unknown) if unknown else ():
        found.update(c for c in unknown if batch.column(c).null_count)
    return [n for n in names if n in found]


def stat_frames(
    path: Path,
    fmt: str,
    rows: int,
    encoding: str | None = None,
    first: int = 0,
    stop: int | None = None,
) -> Iterator[pd.DataFrame]:
    """``path`` (a Stata, SPSS or SAS file, ``fmt`` from ``detect_format``) ``rows`` records at
    a time, as ``read_table`` reads them: records ``first`` to ``stop`` (exclusive; None: the
    end), by pyreadstat's row offsets (the records before ``first`` are not read)."""
    import pyreadstat

    from hidekit.io.stat_chunks import stat_reader

    kwargs: dict[str, Any] = {"encoding": encoding} if encoding else {}
    if stop is not None and int(stop) <= int(first):
        return
    try:
        chunks = pyreadstat.read_file_in_chunks(
            stat_reader(path, fmt),
            str(path),
            chunksize=int(rows),
            offset=int(first),
            limit=0 if stop is None else int(stop) - int(first),
            **kwargs,
        )
        for frame, _meta in chunks:
            frame = frame.replace({"": None}) if len(frame) else frame
            yield pd.DataFrame(frame).reset_index(drop=True)
    except InputError:
        raise
    except Exception as exc:  # pyreadstat raises its own ReadstatError / PyreadstatError
        raise InputError(f"{path}: cannot read as {fmt} file: {exc}") from exc
