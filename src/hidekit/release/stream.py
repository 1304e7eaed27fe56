"""A release plan run by chunks on a large CSV: two passes over the file, memory bounded by the
distinct combinations the steps read, not by records × columns.

1. **Fit.** One scan (DuckDB reading the file, Arrow batches) types every column as
   ``read_table`` would (``stream_source``) and counts the distinct combinations of the columns each
   step fits on, with their first record (``stream_tables``). Each step is fitted, and run once,
   on its table (``stream_steps``); the risk after every step comes from the key table carried
   through the steps.
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

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.io.direct import DirectSource, direct_source
from hidekit.release.plan import IDENTIFIER_STEPS, Plan
from hidekit.release.runner import ReleaseResult, StepRecord, _problems, _risk_dict
from hidekit.release.stream_source import ColumnTypes, batches, typed_frame
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
    batch_counts,
    typed_counts,
)
from hidekit.risk.metrics import report_from_sizes
from hidekit.scan.scanner import DEFAULT_SAMPLE, sample_rows
from hidekit.secrets import public_params
from hidekit.transforms.loss import VariableLoss, loss_warnings, same_cells

CHUNK_ROWS = 1_000_000


def plan_source(plan: Plan) -> DirectSource:
    """The plan's input as DuckDB reads it with hidekit's semantics (a CSV), or
    StreamUnsupported."""
    source = direct_source(Path(plan.input), sep=plan.sep)
    if source is None or source.format != "csv":
        raise StreamUnsupported("only CSV files DuckDB reads as hidekit does are streamed")
    return source


def plan_steps(plan: Plan, columns: list[str]) -> list[StreamStep]:
    """The plan's steps as chunked steps, or StreamUnsupported naming the first that is not."""
    if plan.population.active:
        raise StreamUnsupported("individual risk against the population runs in memory")
    out: list[StreamStep] = []
    cols = list(columns)
    for i, step in enumerate(plan.steps, 1):
        transform = step.make(plan.key)
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


@dataclass
class Scan:
    """What the fitting scan learnt: column types, count tables, records, points without
    coordinates."""

    kinds: dict[str, str]
    tables: dict[tuple[str, ...], pa.Table]
    records: int
    no_point: dict[tuple[str, str], int] = field(default_factory=dict)


def fit_scan(con, source: DirectSource, read: list[str], sets, pairs, rows: int) -> Scan:
    """One pass over the file: types of ``read``, the count table of each column set of
    ``sets``, the records missing either coordinate of each pair of ``pairs``."""
    types = ColumnTypes(read)
    parts: dict[tuple[str, ...], list[pa.Table]] = {s: [] for s in sets}
    no_point = dict.fromkeys(pairs, 0)
    start = 0
    for batch in batches(con, source, read, rows):
        types.see(batch)
        for s in sets:
            parts[s].append(batch_counts(batch, s, start))
            if _merge_due(parts[s]):
                parts[s] = [arrow_counts(parts[s], s)]
        for lat, lon in pairs:
            gone = pa.compute.or_(batch.column(lat).is_null(), batch.column(lon).is_null())
            no_point[(lat, lon)] += int(pa.compute.sum(gone).as_py() or 0)
        start += batch.num_rows
    tables = {s: arrow_counts(p, s) for s, p in parts.items() if p}
    return Scan(types.kinds(), tables, start, no_point)


def _merge_due(parts: list[pa.Table]) -> bool:
    """Whether to merge a set's partial count tables now: every 16 parts, once the new parts
    hold as many rows as the merged table (a table with one row per record, as record IDs
    give, would otherwise be regrouped whole every 16 parts: quadratic in the records)."""
    if len(parts) < 16:
        return False
    return sum(p.num_rows for p in parts[1:]) >= parts[0].num_rows


def fitted_table(scan: Scan, steps: list[StreamStep], cols: tuple[str, ...], upto: int):
    """The count table of ``cols`` as the data stand before step ``upto``."""
    if cols not in scan.tables:
        return CountTable(
            pd.DataFrame({c: [] for c in cols}), np.zeros(0, np.int64), np.zeros(0, np.int64)
        )
    table = typed_counts(scan.tables[cols], cols, scan.kinds)
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
    con, source: DirectSource, scan: Scan, steps: list[StreamStep], rows: int, write, measured
) -> Chunked:
    """The second pass: each chunk through the fitted steps, to ``write``."""
    read = list(scan.kinds)
    picks = scan_rows(scan.records)
    out = Chunked()
    start = 0
    for batch in batches(con, source, read, rows):
        frame = typed_frame(batch, scan.kinds, start)
        before = frame
        for s in steps:
            frame = s.timed(frame)
            if start == 0:
                out.columns.append(list(frame.columns))
        write(frame)
        for c in measured(list(frame.columns)):
            blank, changed = _lost(before[c], frame[c])
            acc = out.lost.setdefault(c, [0, 0])
            acc[0] += blank
            acc[1] += changed
        lo, hi = np.searchsorted(picks, [start, start + batch.num_rows])
        if hi > lo:
            out.sample.append(frame.loc[picks[lo:hi]])
        start += batch.num_rows
        out.chunks += 1
    return out


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


def stream_plan(
    plan: Plan,
    source: DirectSource,
    write: Callable[[pd.DataFrame], None],
    *,
    chunk_rows: int = CHUNK_ROWS,
    scan: bool = True,
    progress: Callable[..., None] | None = None,
) -> tuple[ReleaseResult, list]:
    """Run ``plan`` on ``source`` (``plan_source``) by chunks, each released chunk handed to
    ``write`` (in record order); the result and the crosswalks. Raises StreamUnsupported before writing when the
    plan or the file needs the in-memory run, PolicyError (after writing: the caller discards
    the output) when the release does not pass."""
    from hidekit.engines.connection import connect
    from hidekit.errors import PolicyError

    columns = list(source.columns)
    wanted = plan.named_columns() + plan.population.columns()
    if any(c not in columns for c in wanted):
        raise StreamUnsupported("a named column is missing (the in-memory run says which)")
    steps = plan_steps(plan, columns)
    sets, pairs, risk_cols = _fit_sets(steps, plan.keys)
    skipped = _skipped(steps, columns)
    read = [c for c in columns if c not in skipped]
    needed = sorted({*sets.values(), risk_cols})
    with connect() as con:
        t0 = time.perf_counter()
        fitting = fit_scan(con, source, read, needed, pairs, chunk_rows)
        if fitting.records == 0:
            raise StreamUnsupported("an empty table is released in memory")
        fitting.kinds = {c: fitting.kinds[c] for c in read}
        _fit(fitting, steps, sets)
        after = _columns_after(steps, columns)
        cell_min = int(plan.cell_min or plan.k)
        before, trail = _risk_trail(fitting, steps, risk_cols, plan.keys, after, cell_min)
        fit_seconds = time.perf_counter() - t0
        handled = {
            c
            for s in steps
            if s.step.use in IDENTIFIER_STEPS
            for c in s.transform.handled_columns()
        }

        def measured(cols: list[str]) -> list[str]:
            return [c for c in cols if c not in handled and c not in plan.direct]

        chunked = apply_chunks(con, source, fitting, steps, chunk_rows, write, measured)
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
    crosswalks = [
        (s.step, s.transform.crosswalk_) for s in steps if hasattr(s.transform, "crosswalk_")
    ]
    return result, crosswalks
