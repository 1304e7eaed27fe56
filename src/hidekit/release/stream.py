"""A release plan run by chunks on a large file (CSV, Parquet, Stata, SPSS, SAS): two passes over
the file, memory bounded by the distinct combinations the steps read, not by records × columns.

1. **Fit.** One scan (Arrow batches from the input's reader, ``stream_readers``: DuckDB reading a
   CSV as text, typed as ``read_table`` would by ``stream_source``) counts the distinct
   combinations of the columns each step fits on, with their first record (``stream_tables``).
   Each step is fitted, and run once, on its table (``stream_steps``); the risk after every step
   comes from the key table carried through the steps.
2. **Apply.** A second scan takes the records ``chunk_rows`` at a time through the fitted steps and
   hands each chunk to ``write`` (the release job appends it to the output file, written
   atomically). The cells each step changed, the information lost and the PII scan's sample are
   gathered on the way.

The release is the one ``apply_plan`` makes in memory, byte for byte: same output, same audit
figures, same crosswalk (tests compare both on the same plans, with chunks smaller than the file).
A plan with a step that needs the whole table in record order (clusters, text columns, Mondrian,
individual risk, ...) raises ``StreamUnsupported`` before reading: the job runs it in memory.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.io.atomic import discard_part, part_writer
from hidekit.release.plan import IDENTIFIER_STEPS, Plan
from hidekit.release.runner import ReleaseResult, StepRecord, _problems, _risk_dict
from hidekit.release.stream_fork import forked
from hidekit.release.stream_scan import Scan, fit_scan
from hidekit.release.stream_steps import (
    JitterStep,
    RemoveStep,
    StreamStep,
    SuppressStep,
    ValuesStep,
)
from hidekit.release.stream_tables import (
    CountTable,
    StreamUnsupported,
    arrow_counts,
)
from hidekit.risk.metrics import report_from_sizes
from hidekit.scan.scanner import DEFAULT_SAMPLE, sample_rows
from hidekit.secrets import public_params
from hidekit.transforms.loss import VariableLoss, loss_warnings, same_cells

CHUNK_ROWS = 250_000
WORKERS: int | None = None  # processes for the chunk pass (None: 2 when there are 2 cores)
# Encrypting a crosswalk row costs about a tenth of releasing a record (1.3 and 12 CPU µs):
# this process seals the crosswalks while the other ends its half, so that half is longer by
# half the cost, in records, of the rows sealed.
SEAL_SHARE = 0.05


def plan_source(plan: Plan):
    """The plan's input read by chunks (``stream_readers``: a CSV, Parquet, Stata, SPSS or SAS
    file), or StreamUnsupported."""
    from hidekit.release.stream_readers import plan_reader

    return plan_reader(Path(plan.input), plan.sep)


def plan_steps(plan: Plan, columns: list[str], labels: dict | None = None) -> list[StreamStep]:
    """The plan's steps as chunked steps, or StreamUnsupported naming the first that is not."""
    if plan.population.active:
        raise StreamUnsupported("individual risk against the population runs in memory")
    out: list[StreamStep] = []
    cols = list(columns)
    for i, step in enumerate(plan.steps, 1):
        transform = step.make(plan.key).with_value_labels(labels or {})
        scope = getattr(type(transform), "spark_scope", "table")
        if step.use == "remove":
            s: StreamStep = RemoveStep(i, step, transform)
            cols = [c for c in cols if c not in transform.columns]
        elif step.use == "jitter":
            s = JitterStep(i, step, transform)
        elif step.use == "suppress":
            s = SuppressStep(i, step, transform)
        elif scope == "values":
            s = ValuesStep(i, step, transform, transform.reads(cols))
        else:
            raise StreamUnsupported(f"step {step.use} runs in memory")
        missing = [c for c in s.reads if c not in cols]
        if missing:
            raise StreamUnsupported(f"step {step.use} reads {missing}, not in the table then")
        out.append(s)
    return out


def closure(steps: list[StreamStep], columns, upto: int) -> tuple[str, ...]:
    """The file's columns whose values decide ``columns`` as they are before step ``upto``."""
    need = set(columns)
    for s in reversed(steps[:upto]):
        if not s.writes() & need or isinstance(s, RemoveStep):
            continue  # a removed column is dropped from the table (apply_table)
        if isinstance(s, ValuesStep):
            need |= set(s.reads)
        elif isinstance(s, SuppressStep) and upto == len(steps) and need <= set(s.reads):
            need |= set(s.reads)  # the risk table: the blanks apply to whole key tables
        else:
            raise StreamUnsupported(f"step {s.step.use} changes columns a later step fits on")
    return tuple(sorted(need))


def fitted_table(
    scan: Scan, steps: list[StreamStep], cols: tuple[str, ...], upto: int, raw=None
) -> CountTable:
    """The count table of ``cols`` as the data stand before step ``upto`` (of the whole file,
    or of the Arrow count table ``raw``)."""
    raw = scan.tables.get(cols) if raw is None else raw
    if raw is None:
        return CountTable(
            pd.DataFrame({c: [] for c in cols}), np.zeros(0, np.int64), np.zeros(0, np.int64)
        )
    table = scan.reader.counts(raw, cols, scan.kinds)
    for s in steps[:upto]:
        if s.writes() & set(table.frame.columns):
            table = s.apply_table(table)
    return table


@dataclass
class Chunked:
    """What the chunk pass gathers beside the output."""

    lost: dict[str, list[int]] = field(default_factory=dict)  # column -> [blanked, changed]
    sample: list[pd.DataFrame] = field(default_factory=list)
    columns: list[list[str]] = field(default_factory=list)  # the columns after each step
    chunks: int = 0


def scan_rows(records: int) -> np.ndarray:
    """The row numbers of the PII scan's seeded sample of a table of ``records`` rows."""
    return sample_rows(pd.DataFrame({"r": np.arange(records)}), DEFAULT_SAMPLE, 0)["r"].to_numpy()


@dataclass
class SampledTable:
    """The released table as the checks see it: its columns and the scan's sample."""

    columns: list[str]
    sample: pd.DataFrame

    def scan_frame(self) -> pd.DataFrame:
        return self.sample


def _lost(before: pd.Series, after: pd.Series) -> tuple[int, int]:
    """(blanked, changed) cells between two columns, as ``information_loss`` counts them."""
    was = before.notna().to_numpy()
    blank = was & after.isna().to_numpy()
    changed = was & ~blank & ~same_cells(before, after)
    return int(blank.sum()), int(changed.sum())


def apply_chunks(
    con,
    source,
    scan: Scan,
    steps: list[StreamStep],
    rows: int,
    write,
    measured,
    first: int = 0,
    stop: int | None = None,
) -> Chunked:
    """The second pass: each chunk of records ``first`` to ``stop`` through the fitted steps,
    to ``write``."""
    read = list(scan.kinds)
    picks = scan_rows(scan.records)
    out = Chunked()
    start = first
    written = set().union(*(s.writes() for s in steps))  # other columns pass unchanged
    for batch in source.batches(con, read, rows, first, stop):
        frame = source.frame(batch, scan.kinds, start)
        before = frame
        for s in steps:
            frame = s.timed(frame)
            if start == 0:
                out.columns.append(list(frame.columns))
        write(frame)
        for c in measured(list(frame.columns)):
            acc = out.lost.setdefault(c, [0, 0])
            if c not in written:
                continue
            blank, changed = _lost(before[c], frame[c])
            acc[0] += blank
            acc[1] += changed
        lo, hi = np.searchsorted(picks, [start, start + batch.num_rows])
        if hi > lo:
            out.sample.append(frame.loc[picks[lo:hi]])
        start += batch.num_rows
        out.chunks += 1
    return out


def _workers() -> int:
    """Processes for the chunk pass: two where two cores or more are ours and fork exists."""
    if WORKERS is not None:
        return WORKERS
    if "fork" not in mp.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


def _split_at(scan: Scan, rows: int, sealed: int = 0) -> int | None:
    """The first record of the second half (the fitting scan's split, a chunk boundary; else
    half the chunks), None when there is one chunk or the first half's start for suppression
    was not kept. ``sealed``: crosswalk rows this process encrypts while the other ends its
    half: the split comes that many ``SEAL_SHARE`` records earlier (whole chunks)."""
    chunks = -(-scan.records // rows)
    if chunks < 2 or scan.chunk_parts is None:
        return None
    at = scan.split or rows * (-(-chunks // 2))
    return max(rows, at - rows * round(sealed * SEAL_SHARE / rows))


def _second_half_start(scan: Scan, steps: list[StreamStep], sets: dict, at: int, rows: int):
    """Suppress steps set as they stand after the records before ``at``: each class's records
    seen so far, from the first half's chunk count tables."""
    assert scan.chunk_parts is not None
    for i, s in enumerate(steps):
        if isinstance(s, SuppressStep):
            cols = sets[i]
            raw = arrow_counts(scan.chunk_parts[cols][: at // rows], cols)
            s.start_after(fitted_table(scan, steps, cols, i, raw))


def _second_half(source, scan, steps: list[StreamStep], rows, measured, where, rows_of):
    """In the forked process: records ``at`` onwards released into ``part``; what the chunk
    pass gathered and each step's cells and seconds (what this process added)."""
    at, sets, part = where
    from hidekit.engines.connection import connect

    before = [(dict(s.cells), s.seconds) for s in steps]
    _second_half_start(scan, steps, sets, at, rows)
    with connect() as con, part_writer(part) as write:
        got = apply_chunks(
            con, source, scan, steps, rows, lambda f: write(rows_of(f)), measured, at
        )
    cells = [
        {c: n - old.get(c, 0) for c, n in s.cells.items()}
        for s, (old, _) in zip(steps, before, strict=True)
    ]
    seconds = [s.seconds - t for s, (_, t) in zip(steps, before, strict=True)]
    return got, cells, seconds


def _merged(a: Chunked, b: Chunked) -> Chunked:
    for c, (blank, changed) in b.lost.items():
        acc = a.lost.setdefault(c, [0, 0])
        acc[0] += blank
        acc[1] += changed
    a.sample += b.sample
    a.chunks += b.chunks
    return a


def apply_halves(
    con, source, scan, steps, rows, writers, measured, where, meanwhile=None
) -> Chunked:
    """The chunk pass in two processes: a forked one releases the records from ``at`` on into
    a part file (its suppress steps started from the first half's count tables) while this one
    releases those before ``at``, then runs ``meanwhile``; the part is then appended. Same
    bytes as one process. If the second process fails, this one releases the second half
    itself."""
    write, rows_of, append, part = writers
    at, sets = where
    wait = forked(
        lambda: _second_half(source, scan, steps, rows, measured, (at, sets, part), rows_of)
    )
    try:
        out = apply_chunks(con, source, scan, steps, rows, write, measured, 0, at)
        if meanwhile is not None:
            meanwhile()
    except BaseException:  # no use for the other half: the other process is stopped
        wait(stop=True)
        raise
    got = wait()
    if got is None:
        discard_part(part)
        return _merged(out, apply_chunks(con, source, scan, steps, rows, write, measured, at))
    rest, cells, seconds = got
    for s, more, t in zip(steps, cells, seconds, strict=True):
        for c, n in more.items():
            s.cells[c] = s.cells.get(c, 0) + n
        s.seconds += t
    append(part)
    return _merged(out, rest)


def _skipped(steps: list[StreamStep], columns) -> set[str]:
    """Columns a step removes before any step reads them: never read at all."""
    out: set[str] = set()
    seen: set[str] = set()
    for s in steps:
        if isinstance(s, RemoveStep):
            out |= {c for c in s.removed if c not in seen}
        seen |= set(s.reads)
    return out & set(columns)


def _fit_sets(steps: list[StreamStep], keys: list[str]) -> tuple[dict, list, tuple]:
    """The count table each step fits on (step index -> columns), the coordinate pairs whose
    missing points jitter counts, and the risk table's columns."""
    sets: dict[int, tuple[str, ...]] = {}
    pairs = []
    for i, s in enumerate(steps):
        if isinstance(s, (ValuesStep, SuppressStep)):
            sets[i] = closure(steps, s.reads, i)
        elif isinstance(s, JitterStep):
            t = s.transform
            if closure(steps, [t.lat, t.lon], i) != tuple(sorted((t.lat, t.lon))):
                raise StreamUnsupported("jitter after a step that changed the coordinates")
            pairs.append((t.lat, t.lon))
            if t.urban:
                sets[i] = closure(steps, [t.urban], i)
    return sets, pairs, closure(steps, keys, len(steps))


def _fit(scan: Scan, steps: list[StreamStep], sets: dict) -> None:
    for i, s in enumerate(steps):
        if isinstance(s, (ValuesStep, SuppressStep)):
            s.fit(fitted_table(scan, steps, sets[i], i))
        elif isinstance(s, JitterStep):
            t = s.transform
            missing = scan.no_point[(t.lat, t.lon)]
            s.fit(fitted_table(scan, steps, sets[i], i) if t.urban else None, missing)


def _columns_after(steps: list[StreamStep], columns: list[str]) -> list[list[str]]:
    """The table's columns after each step (as the whole-table run has them)."""
    out, cols = [], list(columns)
    for s in steps:
        if isinstance(s, RemoveStep):
            cols = [c for c in cols if c not in s.removed]
        elif isinstance(s, ValuesStep):
            cols = [c for c in cols if c not in s.dropped]
            cols += [c for c in s.outputs.columns if c not in cols]
        out.append(cols)
    return out


def _risk_trail(scan, steps, risk_cols, keys, after, cell_min):
    """The risk before the steps and after each (None where no key is left)."""
    table = fitted_table(scan, steps, risk_cols, 0)

    def risk(cols):
        now = [c for c in keys if c in cols]
        if not now:
            return None
        return report_from_sizes(now, table.regroup(list(dict.fromkeys(now))).counts, cell_min)

    before = risk(list(risk_cols))
    trail = []
    for s, cols in zip(steps, after, strict=True):
        if s.writes() & set(table.frame.columns):
            table = s.apply_table(table)
        trail.append(risk(cols))
    return before, trail


def _records(plan: Plan, steps, after, trail, columns) -> list[StepRecord]:
    out = []
    for s, cols, risk, prev in zip(steps, after, trail, [columns, *after[:-1]], strict=True):
        t = s.transform
        cells = {c: s.cells[c] for c in cols if s.cells.get(c)}
        out.append(
            StepRecord(
                step=s.index,
                use=s.step.use,
                parameters=public_params(s.step.params, t, plan.path.parent),
                cells_changed=cells,
                removed=[c for c in prev if c not in cols],
                warnings=list(getattr(t, "warnings_", [])),
                risk_after=_risk_dict(risk) if risk else {},
                seconds=round(s.seconds, 4),
                decisions=dict(getattr(t, "decisions_", {})),
            )
        )
    return out


def _handled(steps: list[StreamStep]) -> set[str]:
    """Columns an identifier step (encode, partition, ...) takes care of: not counted as
    information lost."""
    return {
        c for s in steps if s.step.use in IDENTIFIER_STEPS for c in s.transform.handled_columns()
    }


def stream_plan(
    plan: Plan,
    source,
    write: Callable[[pd.DataFrame], None],
    *,
    chunk_rows: int = CHUNK_ROWS,
    scan: bool = True,
    progress: Callable[..., None] | None = None,
    split: tuple[Callable[[pd.DataFrame], bytes], Callable[[Path], None], Path] | None = None,
    seal: Callable[[list], None] | None = None,
) -> tuple[ReleaseResult, list]:
    """Run ``plan`` on ``source`` (``plan_source``) by chunks, each released chunk handed to
    ``write`` (in record order); the result and the crosswalks. Raises StreamUnsupported before
    writing when the plan or the file needs the in-memory run, PolicyError (after writing: the
    caller discards the output) when the release does not pass. ``split`` (a chunk's rows as
    bytes, how a file of them is appended, a free path for it) lets a second process release
    the second half of the records (``apply_halves``) on two cores or more; then ``seal``
    (given the crosswalks) runs here while the other process ends its half (else not at all)."""
    from hidekit.engines.connection import connect
    from hidekit.errors import PolicyError

    columns = list(source.columns)
    wanted = plan.named_columns() + plan.population.columns()
    if any(c not in columns for c in wanted):
        raise StreamUnsupported("a named column is missing (the in-memory run says which)")
    steps = plan_steps(plan, columns, source.value_labels)
    sets, pairs, risk_cols = _fit_sets(steps, plan.keys)
    skipped = _skipped(steps, columns)
    read = [c for c in columns if c not in skipped]
    needed = sorted({*sets.values(), risk_cols})
    two = _workers() > 1
    halves = split is not None and two
    keep = [sets[i] for i, s in enumerate(steps) if isinstance(s, SuppressStep)] if halves else []
    at = source.half_way(chunk_rows) if two else None
    with connect() as con:
        t0 = time.perf_counter()
        fitting = fit_scan(con, source, read, needed, pairs, chunk_rows, keep, at)
        if fitting.records == 0:
            raise StreamUnsupported("an empty table is released in memory")
        fitting.kinds = {c: fitting.kinds[c] for c in read}
        _fit(fitting, steps, sets)
        after = _columns_after(steps, columns)
        cell_min = int(plan.cell_min or plan.k)
        before, trail = _risk_trail(fitting, steps, risk_cols, plan.keys, after, cell_min)
        fit_seconds = time.perf_counter() - t0
        handled = _handled(steps)

        def measured(cols: list[str]) -> list[str]:
            return [c for c in cols if c not in handled and c not in plan.direct]

        crosswalks = [
            (s.step, s.transform.crosswalk_) for s in steps if hasattr(s.transform, "crosswalk_")
        ]
        sealed = sum(len(c) for _, c in crosswalks) if seal is not None else 0
        at = _split_at(fitting, chunk_rows, sealed) if halves else None
        if at is None or split is None:
            chunked = apply_chunks(con, source, fitting, steps, chunk_rows, write, measured)
        else:
            meanwhile = (lambda: seal(crosswalks)) if seal is not None and crosswalks else None
            chunked = apply_halves(
                con, source, fitting, steps, chunk_rows, (write, *split), measured, (at, sets),
                meanwhile,
            )  # fmt: skip
    result = ReleaseResult(plan, False, [], before, None, records=fitting.records)
    final = after[-1] if after else read
    result.steps = _records(plan, steps, after, trail, columns)
    result.loss = [VariableLoss(c, fitting.records, *chunked.lost[c]) for c in measured(final)]
    result.loss_warnings = loss_warnings(result.loss, plan.max_loss)
    result.after = trail[-1] if trail else before
    sample = pd.concat(chunked.sample) if chunked.sample else pd.DataFrame(columns=final)
    result.problems = _problems(plan, SampledTable(final, sample), handled, result, scan)
    result.chunks = chunked.chunks
    result.fit_seconds = round(fit_seconds, 3)
    if progress:
        for _ in steps:
            progress(1)
    if result.problems:
        raise PolicyError("release refused: " + "; ".join(result.problems))
    return result, crosswalks
