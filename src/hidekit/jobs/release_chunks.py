"""The released file of a plan run by chunks (``hidekit.release.stream``), in the input's format:
a CSV or Parquet file appended chunk by chunk (byte for byte as the whole table's write; a second
process may write the second half as a part, appended after the first), or a Stata, SPSS or SAS
file written whole from the released chunks with the input's labels (their writers take one
frame)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

from hidekit.io import Dataset, write_table

Writers = tuple[Callable[[pd.DataFrame], None], tuple | None]


@contextlib.contextmanager
def released_chunks(target: Path, source, plan) -> Iterator[Writers]:
    """(``write``, ``split``) for ``stream_plan``: ``write`` takes each released chunk in record
    order; ``split`` (a chunk's rows as bytes, how a part of them is appended, a free path for
    it) is None where only this process writes. The file is complete when the block ends.
    Chunks Parquet would type apart raise ``StreamUnsupported`` (the job runs in memory)."""
    protect = (plan.input,)
    if source.format == "csv":
        from hidekit.io.csv_chunks import chunked_csv

        with chunked_csv(
            target, sep=source.sep, neutralize=plan.neutralize_formulas, protect=protect
        ) as out:
            yield out.write, (out.rows, out.append_file, out.part_path())
        return
    if source.format == "parquet":
        from hidekit.io.parquet_chunks import ChunksTypedApart, chunked_parquet
        from hidekit.release.stream_tables import StreamUnsupported

        try:
            with chunked_parquet(target, protect=protect) as parquet:
                yield parquet.write, (parquet.rows, parquet.append_file, parquet.part_path())
        except ChunksTypedApart as exc:
            raise StreamUnsupported(str(exc)) from exc
        return
    chunks: list[pd.DataFrame] = []
    yield chunks.append, None
    frame = pd.concat(chunks, ignore_index=True) if chunks else pd.DataFrame()
    ds = Dataset(
        pd.DataFrame(),
        source.format,
        Path(source.path),
        variable_labels=dict(source.variable_labels),
        value_labels=dict(source.value_labels),
    ).with_frame(frame)
    write_table(ds, target, protect=protect, neutralize=plan.neutralize_formulas)
