"""``hidekit anonymize`` (Mondrian) and ``hidekit suppress`` on a large CSV, Parquet, Stata, SPSS
or SAS file by chunks: memory bounded by the distinct key combinations and one chunk, not by
records × columns.

1. **Count.** One scan (``jobs.chunk_readers``: DuckDB reading a CSV in Arrow batches and typing
   every column as ``read_table`` would; the other formats in typed frames) counts the distinct combinations of the keys and the
   sensitive column (``release.stream_tables``). Mondrian cuts that table
   (``anonymize.mondrian_table``): the classes, labels and figures of the in-memory run.
2. **Release.** A second scan replaces each record's keys by its combination's labels and writes
   the rows by chunks (``io.csv_chunks`` or ``io.parquet_chunks``, byte for byte as the whole
   write). The released rows are shuffled by the very permutation the in-memory run draws: each
   chunk's records go to the part of an owner-only scratch folder (Arrow files, removed whatever
   happens) that holds their output positions, and each part is then written in order. The permutation itself (8 bytes a
   record) is the one thing kept per record.

The output file is the in-memory run's, byte for byte (tests compare both with chunks smaller
than the file). A file or a request the chunked run cannot vouch for returns None from
``chunked_source`` and runs in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.anonymize.mondrian import AnonymizationResult
from hidekit.jobs.frame_stream import FrameSource, chunked_table, frame_source

MAX_PARTS = 256  # scratch parts open at once while the records are shuffled
_ROW, _POS = "__hk_row", "__hk_pos"


def chunked_source(
    data, out, *, sep: str | None, chunk_rows: int | None, columns: Sequence[str]
) -> FrameSource | None:
    """``data`` read by chunks, when ``anonymize`` should run so: a CSV (read by DuckDB as
    hidekit reads it), Parquet, Stata, SPSS or SAS file of ``STREAM_BYTES`` or more (any, given
    ``chunk_rows``), holding every named ``columns``, released to a CSV or Parquet file
    (``jobs.frame_stream``); else None."""
    return frame_source(data, out, sep=sep, chunk_rows=chunk_rows, columns=columns)


@dataclass
class Chunked:
    """The result, and the released rows the PII scan reads (its seeded sample)."""

    result: AnonymizationResult
    sample: pd.DataFrame
    chunks: int = 0
    parts: list[int] = field(default_factory=list)


def anonymize_by_chunks(
    source: FrameSource,
    target: Path,
    *,
    keys: Sequence[str],
    k: int,
    mondrian_options: dict,
    rand,
    shuffle: bool,
    identifiers: Sequence[str],
    neutralize: bool,
    chunk_rows: int | None,
    protect: Sequence = (),
    on_level: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> Chunked:
    """Mondrian on ``source`` by chunks of ``chunk_rows`` records, written to ``target``.
    Raises ``StreamUnsupported`` before writing when the data needs the in-memory run."""
    from hidekit.anonymize.mondrian_table import mondrian_table
    from hidekit.engines.connection import connect
    from hidekit.jobs.chunk_readers import chunk_reader
    from hidekit.release.stream_tables import StreamUnsupported

    sensitive = mondrian_options.get("sensitive")
    counted_cols = list(dict.fromkeys([*keys, *([sensitive] if sensitive else [])]))
    read = [c for c in source.columns if c not in set(identifiers) or c in counted_cols]
    with connect() as con:
        reader = chunk_reader(con, source, read)
        table, n = reader.count(counted_cols)
        if table is None:
            raise StreamUnsupported("an empty table is anonymized in memory")
        if on_total:
            on_total(n)
        release = mondrian_table(
            list(source.columns),
            table.frame,
            table.counts,
            keys,
            k,
            **mondrian_options,
            identifiers=identifiers,
            rand=rand,
            shuffle=shuffle,
            on_level=on_level,
        )
        if not release.columns:
            raise StreamUnsupported("a release without columns is written in memory")
        order = rand.rng("row-shuffle").permutation(n) if shuffle else None
        need = release.mode == "statistical" or (release.needs_order and order is not None)
        combos = reader.lookup(table.frame) if need else None
        first_out = table.first.copy()  # each combination's first released row (unshuffled)
        release.result.source_rows = order if order is not None else np.arange(n)
        typed = [c for c in release.columns if c not in release.generalized]
        scan = (reader, source.rows)
        with chunked_table(target, sep=source.sep, neutralize=neutralize, protect=protect) as out:
            writer = SampleWriter(out, n, release.columns)
            if order is None:
                _in_order(scan, typed, release, combos, writer)
            else:
                first_out[:] = n
                _shuffled(scan, typed, order, target, (release, combos, first_out), writer)
        if release.needs_order:
            release.diversity_in_order(first_out)
    return Chunked(release.result, writer.sample(), writer.chunks)


class SampleWriter:
    """Released chunks, in output order, to the file; the PII scan's rows kept on the way."""

    def __init__(self, write: Callable[[pd.DataFrame], None], n: int, columns: list[str]):
        from hidekit.release.stream import scan_rows

        self._write, self.columns = write, columns
        self._picks = scan_rows(n)
        self._taken: list[pd.DataFrame] = []
        self.start = self.chunks = 0

    def __call__(self, chunk: pd.DataFrame) -> None:
        self._write(chunk)
        lo, hi = np.searchsorted(self._picks, [self.start, self.start + len(chunk)])
        if hi > lo:
            self._taken.append(chunk.iloc[self._picks[lo:hi] - self.start])
        self.start += len(chunk)
        self.chunks += 1

    def sample(self) -> pd.DataFrame:
        if not self._taken:
            return pd.DataFrame(columns=self.columns)
        return pd.concat(self._taken, ignore_index=True)


def _in_order(scan: tuple, typed: list[str], release, combos, writer: SampleWriter) -> None:
    reader, _ = scan
    for item in reader.items():
        frame = reader.typed(item, typed, writer.start)
        writer(release.chunk(frame, combos.rows(item) if combos is not None else None))


def _shuffled(scan: tuple, typed: list[str], order, target, how: tuple, writer) -> None:
    """The records in the order ``order`` (output row i is input record ``order[i]``): each
    chunk's released columns, with each record's combination and output position, go to the
    scratch part of their positions; each part is then sorted and released. ``how``: the
    release, the combinations' lookup and the array of their first output rows (filled)."""
    from hidekit.io.atomic import scratch_dir

    reader, rows = scan
    release, combos, first_out = how
    n = len(order)
    where = np.empty(n, np.int64)
    where[order] = np.arange(n)
    per_part = max(int(rows), -(-n // MAX_PARTS))
    n_parts = -(-n // per_part)
    with scratch_dir(target) as folder:
        paths = [folder / f"part-{i:05d}.arrow" for i in range(n_parts)]
        writers: list = [None] * n_parts
        start = 0
        try:
            for item in reader.items():
                m = len(item)
                pos = where[start : start + m]
                extra = {_POS: pa.array(pos)}
                if combos is not None:
                    combo = combos.rows(item)
                    np.minimum.at(first_out, combo, pos)
                    extra[_ROW] = pa.array(combo)
                kept = reader.payload(item, typed)
                whole = pa.RecordBatch.from_arrays(
                    [*kept.columns, *extra.values()], [*typed, *extra]
                )
                part = pos // per_part
                by = np.argsort(part, kind="stable")
                bounds = np.searchsorted(part[by], np.arange(n_parts + 1))
                for p in range(n_parts):
                    lo, hi = bounds[p], bounds[p + 1]
                    if hi == lo:
                        continue
                    if writers[p] is None:
                        writers[p] = pa.ipc.new_file(str(paths[p]), whole.schema)
                    writers[p].write_batch(whole.take(pa.array(by[lo:hi])))
                start += m
        finally:
            for w in writers:
                if w is not None:
                    w.close()
        del where
        for p in range(n_parts):
            if writers[p] is None:
                continue
            with pa.memory_map(str(paths[p])) as src:
                table = pa.ipc.open_file(src).read_all()
            table = table.take(pa.compute.sort_indices(table, [(_POS, "ascending")]))
            frame = reader.from_payload(table, typed, writer.start)
            combo = table.column(_ROW).to_numpy() if _ROW in table.column_names else None
            del table
            writer(release.chunk(frame, combo))
            paths[p].unlink()


def suppress_by_chunks(
    source: FrameSource,
    target: Path,
    *,
    keys: Sequence[str],
    k: int,
    importance: Sequence[str] | None,
    missing: str,
    max_loss: float,
    neutralize: bool,
    chunk_rows: int | None,
    protect: Sequence = (),
):
    """Local suppression (``hidekit suppress``) of ``source`` by chunks: the search on the count
    table of the keys, the blanks applied to each chunk in record order (the release plan's
    chunked step, ``release.stream_steps.SuppressStep``), written to ``target``. Returns the
    search's ``SuppressionResult`` and the records; ``StreamUnsupported`` before writing when
    the data needs the in-memory run."""
    from hidekit.engines.connection import connect
    from hidekit.jobs.chunk_readers import chunk_reader
    from hidekit.release.stream_steps import SuppressStep
    from hidekit.release.stream_tables import StreamUnsupported
    from hidekit.transforms.suppression import LocalSuppression

    read, keys = list(source.columns), list(keys)
    with connect() as con:
        reader = chunk_reader(con, source, read)
        table, n = reader.count(keys)
        if table is None:
            raise StreamUnsupported("an empty table is suppressed in memory")
        step = SuppressStep(1, None, LocalSuppression(keys, k, importance, missing))
        step.fit(table)
        result = step.transform.result_
        result.max_loss = max_loss
        with chunked_table(target, sep=source.sep, neutralize=neutralize, protect=protect) as out:
            start = 0
            for item in reader.items():
                out(_blanked_alike(step.apply_chunk(reader.typed(item, read, start)), result))
                start += len(item)
    return result, n


def _blanked_alike(frame: pd.DataFrame, result) -> pd.DataFrame:
    """A chunk's keys typed as the whole run types them: a key blanked anywhere in the file
    takes ``with_missing``'s type (whole numbers: nullable) in chunks where it is blanked nowhere
    too, as the whole column does (a CSV prints both alike; Parquet records the type)."""
    from hidekit.transforms.suppression_rules import with_missing

    for c, cells in result.suppressed.items():
        if cells and c in frame.columns:
            kind = with_missing(frame[c].iloc[:0], np.zeros(0, np.int64)).dtype
            if frame[c].dtype != kind:
                frame = frame.assign(**{c: frame[c].astype(kind)})
    return frame
