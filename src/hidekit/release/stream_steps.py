"""Plan steps run by chunks: each fitted once from count tables, then applied chunk by chunk.

- ``ValuesStep``: a step whose output for a record depends only on the record's values in the
  columns it reads, fitted on their distinct combinations (``spark_scope = "values"``: bin,
  map_values, safe_harbor, topcode, encode, ...). Its transform runs once, on the combinations;
  chunks look their rows up. The changed cells are counted on the combinations, weighted.
- ``RemoveStep``: columns dropped.
- ``JitterStep``: DHS displacement without clusters: every record is its own point, its draws a
  keyed hash of its row number (``Jitter``), the same in a chunk as in the whole table.
- ``SuppressStep``: local suppression's search on the class table (each key combination's size
  and first record); a chunk's records find their block by their rank in their class.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from hidekit.release.stream_tables import CountTable, Lookup, StreamUnsupported
from hidekit.transforms.loss import same_cells
from hidekit.transforms.suppression_rules import search_class_table, with_missing

# Steps whose fit reads only the set of distinct values (or nothing): fitted on the combinations
# themselves, not on records repeated by their counts.
FIT_ON_DISTINCT = {"encode", "safe_harbor"}


class StreamStep:
    """One plan step in a chunked run."""

    reads: list[str]

    def __init__(self, index: int, step, transform):
        self.index, self.step, self.transform = index, step, transform
        self.cells: dict[str, int] = {}
        self.seconds = 0.0

    def writes(self) -> set[str]:
        return set(self.reads)

    def apply_table(self, table: CountTable) -> CountTable:
        """The step's effect on a count table holding its columns."""
        raise StreamUnsupported(f"step {self.step.use} cannot update a count table")

    def apply_chunk(self, frame: pd.DataFrame) -> pd.DataFrame:
        raise NotImplementedError

    def timed(self, frame: pd.DataFrame) -> pd.DataFrame:
        t0 = time.perf_counter()
        out = self.apply_chunk(frame)
        self.seconds += time.perf_counter() - t0
        return out


class RemoveStep(StreamStep):
    def __init__(self, index, step, transform):
        super().__init__(index, step, transform)
        self.reads = []
        self.removed = list(transform.columns)

    def writes(self) -> set[str]:
        return set(self.removed)

    def apply_table(self, table: CountTable) -> CountTable:
        kept = [c for c in table.frame.columns if c not in self.removed]
        return table.regroup(kept)

    def apply_chunk(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame.drop(columns=[c for c in self.removed if c in frame.columns])


class ValuesStep(StreamStep):
    def __init__(self, index, step, transform, reads: list[str]):
        super().__init__(index, step, transform)
        self.reads = reads

    def fit(self, table: CountTable) -> None:
        """Fit and run the transform on the distinct combinations of its columns."""
        t0 = time.perf_counter()
        # a table of exactly these columns is grouped already (regroup would give it back)
        same = list(table.frame.columns) == list(self.reads)
        grouped = table if same else table.regroup(self.reads)
        distinct = grouped.frame
        if self.step.use in FIT_ON_DISTINCT:
            out = self.transform.fit_transform(distinct)
        else:
            self.transform.fit_counts(distinct, grouped.counts)
            out = self.transform.transform(distinct)
        if len(out) != len(distinct):
            raise StreamUnsupported(f"step {self.step.use} changed the number of records")
        self.inputs, self.outputs = distinct, _numbered(out)
        self._arrays = {c: self.outputs[c].array for c in self.outputs.columns}
        self.lookup = Lookup(distinct)
        for c in out.columns:
            if c not in distinct.columns:
                self.cells[c] = int(grouped.counts.sum())
                continue
            n = int(grouped.counts[~same_cells(distinct[c], self.outputs[c])].sum())
            if n:
                self.cells[c] = n
        self.dropped = [c for c in distinct.columns if c not in out.columns]
        self.seconds += time.perf_counter() - t0

    def writes(self) -> set[str]:
        return set(self.reads) | set(getattr(self, "outputs", pd.DataFrame()).columns)

    def _put(self, frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
        frame = frame.copy(deep=False)  # new columns, the chunk before the step untouched
        for c, array in self._arrays.items():  # taken from the array: no index built
            frame[c] = pd.Series(array.take(rows), index=frame.index, copy=False)
        return frame.drop(columns=self.dropped) if self.dropped else frame

    def apply_table(self, table: CountTable) -> CountTable:
        if not set(self.reads) <= set(table.frame.columns):
            raise StreamUnsupported(f"step {self.step.use} reads columns the table lacks")
        frame = self._put(table.frame.copy(), self.lookup.rows(table.frame))
        return CountTable(frame, table.counts, table.first).regroup()

    def apply_chunk(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self._put(frame, self.lookup.rows(frame))


def _numbered(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` indexed 0, 1, ... (without a copy when it is already)."""
    index = frame.index
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return frame
    return frame.reset_index(drop=True)


class JitterStep(StreamStep):
    """Jitter without a cluster column: every record is its own point, drawn from a keyed hash
    of its row number, so a chunk's records get the points the whole-table run gives them."""

    def __init__(self, index, step, transform):
        super().__init__(index, step, transform)
        t = transform
        if t.cluster:
            raise StreamUnsupported("jitter with clusters runs in memory")
        self.reads = [c for c in (t.lat, t.lon, t.urban) if c]

    def writes(self) -> set[str]:
        return {self.transform.lat, self.transform.lon}

    def fit(self, urban: CountTable | None, missing: int) -> None:
        """Fitted on the distinct urban values (in order of first record) and the number of
        records without coordinates: all ``Jitter.fit`` reads."""
        t = self.transform
        t.fit_urban(urban.frame[t.urban] if urban is not None else None)
        t.note_missing(missing)

    def apply_chunk(self, frame: pd.DataFrame) -> pd.DataFrame:
        t = self.transform
        out = t.transform(frame, rows=frame.index.to_numpy())
        for c in (t.lat, t.lon):
            n = int((~same_cells(frame[c], out[c])).sum())
            self.cells[c] = self.cells.get(c, 0) + n
        return out


class SuppressStep(StreamStep):
    """Local suppression: the search on the whole file's classes, the blanks by chunk."""

    def __init__(self, index, step, transform):
        super().__init__(index, step, transform)
        self.reads = list(transform.keys)

    def fit(self, table: CountTable) -> None:
        t0 = time.perf_counter()
        t, keys = self.transform, self.reads
        grouped = table.regroup(keys)
        values, counts = grouped.frame, grouped.counts
        result, self.codes, self.blocks = search_class_table(
            values, counts, keys, t.k, t.importance, t.missing
        )
        t.result_, t.suppressed_ = result, dict(result.suppressed)
        self.values, self.counts = values, counts
        self.lookup = Lookup(values)
        self.seen = np.zeros(len(counts), np.int64)
        if self.blocks is not None:
            b = self.blocks
            start = np.cumsum(counts) - counts
            live = np.flatnonzero(b.w > 0)
            bstart = start[b.cls[live]] + b.lo[live]
            order = np.argsort(bstart, kind="stable")
            self._start, self._live, self._bstart = start, live[order], bstart[order]
        self.seconds += time.perf_counter() - t0

    def start_after(self, before: CountTable) -> None:
        """Set as after the records of the count table ``before`` (the records before a later
        start): each class's records seen."""
        self.seen = np.zeros(len(self.counts), np.int64)
        grouped = before.regroup(self.reads)
        if len(grouped.counts):
            np.add.at(self.seen, self.lookup.rows(grouped.frame), grouped.counts)

    def _block_codes(self, cls: np.ndarray) -> np.ndarray:
        """Each record's key codes after the search, from its class and rank in the class."""
        n = len(cls)
        order = np.argsort(cls, kind="stable")
        ranked = cls[order]
        run = np.r_[True, ranked[1:] != ranked[:-1]] if n else np.zeros(0, bool)
        run_start = np.maximum.accumulate(np.where(run, np.arange(n), 0))
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n) - run_start + self.seen[ranked]
        self.seen += np.bincount(cls, minlength=len(self.seen))
        which = np.searchsorted(self._bstart, self._start[cls] + rank, side="right") - 1
        assert self.blocks is not None  # only called when the search blanked something
        return self.blocks.cur[self._live[which]]

    def apply_chunk(self, frame: pd.DataFrame) -> pd.DataFrame:
        if self.blocks is None or not len(frame):
            return frame
        cls = self.lookup.rows(frame)
        cur = self._block_codes(cls)
        blank = (cur == -1) & (self.codes[cls] != -1)
        out = frame.copy(deep=False)
        for i, c in enumerate(self.reads):
            rows = np.flatnonzero(blank[:, i])
            if rows.size:
                out[c] = with_missing(out[c], rows)
                self.cells[c] = self.cells.get(c, 0) + int(rows.size)
        return out

    def apply_table(self, table: CountTable) -> CountTable:
        """The key table after the blanks: one row per block of the search."""
        if set(table.frame.columns) != set(self.reads):
            raise StreamUnsupported("suppress: the risk table must hold exactly its keys")
        table = table.regroup(self.reads)
        if self.blocks is None:
            return table
        b = self.blocks
        live = np.flatnonzero(b.w > 0)
        rows = self.lookup.rows(table.frame)
        where = np.empty(len(rows), np.int64)
        where[rows] = np.arange(len(rows))  # our class -> the table's row
        frame = table.frame.iloc[where[b.cls[live]]].reset_index(drop=True)
        blank = (b.cur[live] == -1) & (self.codes[b.cls[live]] != -1)
        for i, c in enumerate(self.reads):
            hit = np.flatnonzero(blank[:, i])
            if hit.size:
                frame[c] = with_missing(frame[c], hit)
        first = table.first[where[b.cls[live]]]
        return CountTable(frame, b.w[live].astype(np.int64), first).regroup()
