"""A release plan's input read by DuckDB in Arrow batches, typed as ``read_table`` types it.

``read_table`` decides each CSV column's type from all its present values (text, Int64 or
float64: ``hidekit.io.readers.infer_values``). A file read batch by batch must decide first, for
the whole file, so every batch comes out typed alike: ``ColumnTypes`` screens each batch's distinct
texts with the same patterns (Arrow's RE2 on ASCII text; any value outside ASCII is judged by
``infer_values`` itself) and combines the verdicts. ``typed_frame`` then turns a batch into the
pandas frame ``read_table`` would hold for those rows: the text of each distinct value converted
once (``pd.to_numeric``, as ``infer_values``), spread to the rows by Arrow's dictionary codes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hidekit.io.direct import DirectSource, quote
from hidekit.io.readers import DECIMAL, LEADING_ZERO, WHOLE, beyond_int64, infer_values

TEXT, INT, FLOAT = "text", "int", "float"
# read_table's own patterns, anchored for RE2's search
_LEADING_ZERO = f"^{LEADING_ZERO}"
_INTEGER = f"^{WHOLE}$"
_DECIMAL = f"^{DECIMAL}$"
_NOT_ASCII = r"[^\x00-\x7f]"


@dataclass
class _Verdict:
    """What the present values of one column showed so far."""

    present: bool = False
    leading_zero: bool = False
    all_int: bool = True
    all_number: bool = True
    wide: bool = False  # a whole number beyond 64 bits: an all-whole column stays text
    odd: list = field(default_factory=list)  # values outside ASCII, judged by infer_values

    def see(self, values: pa.Array) -> None:
        values = values.drop_null()
        if not len(values):
            return
        self.present = True
        if not self.all_number or self.leading_zero:
            return  # text whatever comes next
        odd = pc.match_substring_regex(values, _NOT_ASCII)
        if pc.any(odd).as_py():
            self.odd.extend(values.filter(odd).to_pylist())
            values = values.filter(pc.invert(odd))
        if not len(values):
            return
        self.leading_zero = pc.any(pc.match_substring_regex(values, _LEADING_ZERO)).as_py()
        ints = self.all_int and pc.all(pc.match_substring_regex(values, _INTEGER)).as_py()
        self.all_int = bool(ints)
        if ints and not self.wide:
            long = values.filter(pc.greater_equal(pc.utf8_length(values), 19))
            self.wide = beyond_int64(long.to_pylist())
        if not ints:  # integers are decimal numbers: the second pattern only for the others
            self.all_number = pc.all(pc.match_substring_regex(values, _DECIMAL)).as_py()

    def merge(self, other: _Verdict) -> None:
        """What ``other`` saw of the records after these, added (as if ``see`` had met them:
        the verdicts that stop looking only ever say text)."""
        self.present |= other.present
        self.leading_zero |= other.leading_zero
        self.all_int &= other.all_int
        self.all_number &= other.all_number
        self.wide |= other.wide
        self.odd += other.odd

    def kind(self) -> str:
        if self.odd:  # the same rules on the odd values, by Python's own patterns
            judged = infer_values(pd.Series(sorted(set(self.odd)), dtype=object))
            if judged.dtype == object:
                return TEXT
            ints = pd.api.types.is_integer_dtype(judged.dtype)
            self.present, self.all_int = True, self.all_int and ints
        if not self.present or self.leading_zero:
            return TEXT
        if self.all_int:
            return TEXT if self.wide else INT
        return FLOAT if self.all_number else TEXT


class ColumnTypes:
    """Each text column's type for the whole file, from its batches' distinct values."""

    def __init__(self, columns: Sequence[str]):
        self._verdicts = {c: _Verdict() for c in columns}

    def see(self, batch: pa.RecordBatch) -> None:
        for name, verdict in self._verdicts.items():
            verdict.see(pc.unique(batch.column(name)))

    def merge(self, other: ColumnTypes) -> None:
        """The verdicts of ``other`` (a scan of later records) joined to these."""
        for name, verdict in self._verdicts.items():
            verdict.merge(other._verdicts[name])

    def kinds(self) -> dict[str, str]:
        return {c: v.kind() for c, v in self._verdicts.items()}


def _whole_numbers(array: pa.Array) -> pd.Series | None:
    """An INT column's texts as Int64 by Arrow's own parsing (plain digits and a minus sign),
    the numbers ``pd.to_numeric`` reads from them; None when a text needs pandas (a plus sign,
    spaces): then the distinct texts go through ``pd.to_numeric``."""
    try:
        ints = pc.cast(array, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if isinstance(ints, pa.ChunkedArray):
        ints = ints.combine_chunks()
    values = ints.fill_null(0).to_numpy(zero_copy_only=False)
    mask = ints.is_null().to_numpy(zero_copy_only=False)
    return pd.Series(pd.arrays.IntegerArray(values.astype(np.int64, copy=False), mask))


def typed_column(array: pa.Array, kind: str) -> pd.Series:
    """One batch column as ``read_table`` types it (missing: NaN in text, <NA> in Int64)."""
    if kind == INT and (ints := _whole_numbers(array)) is not None:
        return ints
    encoded = pc.dictionary_encode(array)
    indices = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    texts = pd.Series(encoded.dictionary.to_pylist(), dtype=object)
    if kind == INT:
        values = pd.array(pd.to_numeric(texts, dtype_backend="numpy_nullable"), dtype="Int64")
    elif kind == FLOAT:
        try:
            numbers = pd.to_numeric(texts).astype(np.float64)
        except ValueError:  # a whole number beyond 64 bits among decimals, as infer_values
            numbers = texts.astype(np.float64)
        values = pd.array(numbers, dtype=np.float64)
    else:
        values = pd.array(texts.to_numpy(dtype=object), dtype=object)
        if len(values) == 0:
            return pd.Series(np.full(len(indices), np.nan, dtype=object), dtype=object)
    column = values.take(indices, allow_fill=True)
    if kind == TEXT:
        column = np.asarray(column, dtype=object)
        column[indices < 0] = np.nan  # pandas' read_csv leaves NaN in missing text cells
    return pd.Series(column)


def typed_frame(batch: pa.RecordBatch, kinds: dict[str, str], start: int) -> pd.DataFrame:
    """The batch as a pandas frame typed like ``read_table``, indexed by row number."""
    n = batch.num_rows
    frame = pd.DataFrame(
        {name: typed_column(batch.column(name), kinds[name]) for name in batch.schema.names}
    )
    frame.index = pd.RangeIndex(start, start + n)
    return frame


def batches(
    con: duckdb.DuckDBPyConnection,
    source: DirectSource,
    columns: Sequence[str],
    rows: int,
    first: int = 0,
    stop: int | None = None,
) -> Iterator[pa.RecordBatch]:
    """The file's ``columns`` (all text) in record order, ``rows`` records at a time: records
    ``first`` to ``stop`` (exclusive; None: the end)."""
    cols = ", ".join(quote(c) for c in columns) if columns else "NULL AS __hk_none"
    sql = f"SELECT {cols} FROM {source.relation}"
    if stop is not None:
        sql += f" LIMIT {int(stop) - int(first)}"
    if first:
        sql += f" OFFSET {int(first)}"
    reader = con.sql(sql).to_arrow_reader(rows)
    yield from rebatched(reader, rows)


def rebatched(parts: Iterable[pa.RecordBatch], rows: int) -> Iterator[pa.RecordBatch]:
    """``parts`` cut and joined into batches of exactly ``rows`` records (the last: the rest).
    DuckDB hands back batches of its own size (about 37,000 rows of a large CSV, whatever is
    asked): every chunk's fixed costs would be paid 27 times per million records."""
    held: list[pa.RecordBatch] = []
    count = 0
    for part in parts:
        while part.num_rows:
            take = min(rows - count, part.num_rows)
            held.append(part.slice(0, take))
            part, count = part.slice(take), count + take
            if count == rows:
                yield _joined(held)
                held, count = [], 0
    if count:
        yield _joined(held)


def _joined(parts: list[pa.RecordBatch]) -> pa.RecordBatch:
    if len(parts) == 1:
        return parts[0]
    return pa.Table.from_batches(parts).combine_chunks().to_batches()[0]
