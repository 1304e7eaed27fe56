"""File in, file out: read a table, find the optimal generalization (ARX's lattice search),
write the release and a report. ``anonymize --method optimal`` and ``generalize --optimal``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.anonymize.optimal.api import optimal_generalization
from hidekit.anonymize.optimal.report import optimal_report
from hidekit.errors import InputError, PolicyError, require_chunk_rows
from hidekit.io import read_table, write_table
from hidekit.io.atomic import check_output_file
from hidekit.jobs.checks import identifiers_left
from hidekit.jobs.files import save_report
from hidekit.jobs.frame_stream import FrameSource, chunked_table, counted_csv, frame_source
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.transforms.loss import (
    DEFAULT_MAX_LOSS,
    VariableLoss,
    information_loss,
    loss_summary,
    require_max_loss,
)


def key_loss(
    before: pd.DataFrame, starred: pd.DataFrame, keys: list[str], weights=None
) -> list[VariableLoss]:
    """Cells lost per key: a ``*`` (a suppressed record, or the hierarchy's top) counts as
    suppressed, any other new label as generalized (``hidekit.transforms.loss``); ``weights``:
    the records each row stands for."""
    blanked = starred[keys].astype(object).where(starred[keys].astype(str) != "*", None)
    return information_loss(before, blanked, keys, weights)


# key columns whose equal values (as pandas factorizes them) lose cells alike
_PAIRED_KINDS = {"string", "integer", "empty"}


def paired_key_loss(
    before: pd.DataFrame, starred: pd.DataFrame, keys: list[str]
) -> list[VariableLoss]:
    """``key_loss``, judged once per distinct pair of a key's value and its released label and
    counted by the records holding the pair (a float or mixed key: record by record)."""
    out: list[VariableLoss] = []
    for key in keys:
        a, b = before[key].reset_index(drop=True), starred[key].reset_index(drop=True)
        if pd.api.types.infer_dtype(a, skipna=True) not in _PAIRED_KINDS:
            out += key_loss(before, starred, [key])
            continue
        ca, _ = pd.factorize(a, use_na_sentinel=True)
        cb, ub = pd.factorize(b, use_na_sentinel=True)
        pair = (ca.astype(np.int64) + 1) * (len(ub) + 1) + (cb.astype(np.int64) + 1)
        _, first, counts = np.unique(pair, return_index=True, return_counts=True)
        rows, released = a.iloc[first].to_frame(key), b.iloc[first].to_frame(key)
        out += key_loss(rows, released, [key], counts)
    return out


def anonymize_optimal(
    data,
    out,
    *,
    keys: list[str],
    hierarchies: dict,
    sep: str | None = None,
    report=None,
    suppressed: str = "star",
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
    max_loss: float = DEFAULT_MAX_LOSS,
    chunk_rows: int | None = None,
    **options,
) -> JobResult:
    """Release ``data`` into ``out`` under the least-loss generalization; figures are
    ``transformation``, ``information_loss``, ``suppressed``, ``classes``,
    ``transformations_checked``, ``lattice_size`` … (``options``: k, l, t, suppression, metric
    and the rest of :func:`hidekit.anonymize.optimal.api.optimal_generalization`).

    A CSV, Parquet, Stata, SPSS or SAS file of 64 MB or more (any, given ``chunk_rows``)
    released to a CSV or Parquet file is read and written by chunks of ``chunk_rows`` records
    (``hidekit.jobs.frame_stream``): the same file and figures, one chunk in memory."""
    data = Path(data)
    max_loss = require_max_loss(max_loss)
    chunk_rows = require_chunk_rows(chunk_rows)
    out = check_output_file(out, (data,))
    if report is not None:
        report = check_output_file(report, (data, out))
    advance, seen = progress_or_quiet(progress), [0]

    def checked(done: int, total: int) -> None:
        advance(done - seen[0], total=total)
        seen[0] = done

    sensitive = options.get("sensitive")
    counted = [*keys, *([sensitive] if sensitive and sensitive not in keys else [])]
    chunks = frame_source(data, out, sep=sep, chunk_rows=chunk_rows, columns=counted)
    # the search counts the file through the engine (DuckDB reads a large CSV or Parquet file
    # itself); the records are read only to write the release. A CSV by chunks is typed by a
    # scan before it is written: that scan counts the keys too, and the search runs on it
    source = _search_source(data, chunks, counted, options)
    result = optimal_generalization(source, keys, hierarchies, progress=checked, sep=sep, **options)
    title = f"Optimal generalization of {data.name}"
    if not result.found:
        if report is not None:
            save_report(optimal_report(result, title), report)
        raise PolicyError(result.notes[-1] if result.notes else "no transformation found")

    def save(loss: list[VariableLoss]) -> None:
        if report is not None:
            save_report(optimal_report(result, title, loss, max_loss), report)

    done = None
    if chunks is not None:  # one chunk of the records in memory at a time
        done = _release_by_chunks(result, chunks, data, out, suppressed, neutralize)
    if done is not None:
        loss, released = done
        save(loss)  # the loss is known once every chunk is written
    else:
        loss, released = _release_whole(result, data, out, sep, suppressed, neutralize, save)
    figures = {
        **result.to_dict(),
        "cells_lost": loss_summary(loss, max_loss),
        "input": data.name,
        "output": str(out),
        "report": str(report) if report is not None else None,
        "suppressed_records": suppressed,
    }
    warnings = identifiers_left(released, keys)
    return JobResult(
        "anonymize optimal", {"data": data}, {"data": out, "report": report}, figures, warnings
    )


def _search_source(data: Path, chunks: FrameSource | None, counted: list[str], options: dict):
    """What the search counts: the file itself, or for a CSV read by chunks on the default
    engine the counted table of one scan that also types the columns for the write
    (``frame_stream.counted_csv``): the file is read twice, not three times."""
    if chunks is None or chunks.csv is None or options.get("engine", "duckdb") != "duckdb":
        return data
    from hidekit.engines.counted import CountedEngine

    table = counted_csv(chunks, counted)
    return data if table is None else CountedEngine(table.frame, table.counts)


def _release_whole(result, data: Path, out: Path, sep, suppressed: str, neutralize: bool, save):
    """(loss per key, released table): the table read whole, released, the report saved
    (``save``) before the table is written."""
    ds = read_table(data, sep=sep)
    released = result.apply(ds.frame, suppressed=suppressed)
    loss = key_loss(ds.frame, result.apply(ds.frame, suppressed="star"), result.keys)
    save(loss)
    # generalized keys no longer carry their original value labels
    labels = {c: v for c, v in ds.value_labels.items() if c not in result.keys}
    write_table(
        replace(ds.with_frame(released), value_labels=labels),
        out,
        protect=(data,),
        neutralize=neutralize,
    )
    return loss, released


def _release_by_chunks(
    result, chunks: FrameSource, data: Path, out: Path, suppressed: str, neutralize: bool
) -> tuple[list[VariableLoss], pd.DataFrame] | None:
    """(loss per key, the released rows the PII scan reads): each chunk of records released
    and written in turn (a chunk's release depends on its records only), the cells lost summed;
    None (nothing written) when chunks of a Parquet release are typed apart."""
    from hidekit.release.stream_tables import StreamUnsupported

    try:
        return _write_chunks(result, chunks, data, out, suppressed, neutralize)
    except StreamUnsupported:
        return None


def _write_chunks(result, chunks: FrameSource, data: Path, out: Path, suppressed, neutralize):
    from hidekit.jobs.anonymize_stream import SampleWriter

    keys = result.keys
    total = {key: [0, 0, 0] for key in keys}  # records, suppressed, generalized
    records = result.records - (result.suppressed if suppressed == "drop" else 0)
    with chunked_table(out, sep=chunks.sep, neutralize=neutralize, protect=(data,)) as write:
        writer = SampleWriter(write, records, chunks.columns)
        for frame in chunks.frames():
            starred = result.apply(frame, suppressed="star")
            for v in paired_key_loss(frame, starred, keys):
                for i, n in enumerate((v.records, v.suppressed, v.generalized)):
                    total[v.column][i] += n
            writer(starred if suppressed == "star" else result.apply(frame, suppressed=suppressed))
        if writer.start != records:  # the file changed since the search counted it
            raise InputError(
                f"{data}: {writer.start:,} records written, {records:,} expected: "
                "was the file changed while it was read?"
            )
    return [VariableLoss(key, *total[key]) for key in keys], writer.sample()
