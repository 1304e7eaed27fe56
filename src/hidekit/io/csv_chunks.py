"""A CSV written by chunks, byte for byte as pandas' ``to_csv`` writes the whole table.

A table too large for memory is released chunk by chunk (``hidekit.release.stream``). pandas'
``to_csv`` formats every cell in Python (5 s per million rows of the demo release); here each
column's *distinct* values are formatted by ``to_csv`` itself (so quoting, numbers and missing
cells read exactly as pandas writes them), and the rows are assembled by Arrow from those texts
and the column's codes, without a Python call per cell. Formula-looking text is neutralized per
distinct value, as ``neutralize_formulas`` does.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from hidekit.io.atomic import atomic_path, check_output_file
from hidekit.io.writers import FORMULA_START, looks_like_formula, neutralize_formulas

# ends each formatted value: text this unlikely in data lets one to_csv call format them all
_END = "\x1e\x1f\x1d\x1c\n"


def header_line(columns: Sequence[str], sep: str) -> bytes:
    """The header row as ``to_csv`` writes it."""
    return pd.DataFrame(columns=list(columns)).to_csv(index=False, sep=sep).encode("utf-8")


def _cell_texts(values: pd.Series, sep: str) -> list[str]:
    """Each value as ``to_csv`` writes it in a column of its dtype (quoted where needed)."""
    if not len(values):
        return []
    frame = pd.DataFrame({"v": values.reset_index(drop=True), "z": 0})
    text = frame.to_csv(index=False, header=False, sep=sep, lineterminator=_END)
    tail = f"{sep}0"
    parts = text.split(_END)[:-1]
    if len(parts) == len(values) and all(p.endswith(tail) for p in parts):
        return [p[: -len(tail)] for p in parts]
    return [  # a value holds the marker: one value at a time
        frame.iloc[[i]].to_csv(index=False, header=False, sep=sep, lineterminator="\n")[
            : -len(tail) - 1
        ]
        for i in range(len(values))
    ]


def _column_texts(column: pd.Series, sep: str, neutralize: bool) -> pa.Array:
    """The column's cells as ``to_csv`` writes them, formatted once per distinct value."""
    kind = pd.api.types.infer_dtype(column, skipna=True) if column.dtype == object else ""
    if column.dtype == object and kind not in ("string", "empty"):
        # mixed cells (1 and True hash alike): formatted cell by cell, as to_csv does
        if neutralize:
            column = neutralize_formulas(column.to_frame())[0].iloc[:, 0]
        return pa.array(_cell_texts(column, sep), pa.string())
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    texts = _distinct_texts(pd.Series(uniques, dtype=column.dtype), sep, kind, neutralize)
    dictionary = pa.concat_arrays([_flat(texts), pa.array([""], pa.string())])
    idx = np.where(codes < 0, len(texts), codes).astype(np.int32, copy=False)
    return dictionary.take(pa.array(idx))


def _float_texts(values: np.ndarray, special: str) -> pa.Array | None:
    """Floats as numpy's ``astype(str)`` writes them (missing: empty), without a Python
    text per cell: Arrow's shortest round-trip digits where both write them the same way (plain
    decimals with a point, well inside numpy's positional range), numpy's own text for the
    rest (whole numbers, exponents, infinities); None when a text needs quoting."""
    texts = pc.cast(pa.array(values, from_pandas=True), pa.string())
    size = np.abs(values)
    with np.errstate(invalid="ignore"):
        plain = (size >= 1e-3) & (size < 1e15)
    dotted = pc.match_substring(texts, ".").fill_null(False).to_numpy(zero_copy_only=False)
    sci = pc.match_substring(texts, "e").fill_null(False).to_numpy(zero_copy_only=False)
    redo = ~(plain & dotted & ~sci) & ~np.isnan(values)
    if redo.any():
        numpy_texts = _flat(pa.array(values[redo].astype(str), pa.string()))
        texts = pc.replace_with_mask(texts, pa.array(redo), numpy_texts)
    texts = pc.fill_null(texts, "")
    if len(texts) and pc.any(pc.match_substring_regex(texts, special)).as_py():
        return None
    return _flat(texts)


def _distinct_texts(values: pd.Series, sep: str, kind: str, neutralize: bool) -> pa.Array:
    """Distinct values as text: plain text and floats vectorized (what ``to_csv`` does with
    them: the text itself, numpy's ``astype(str)``), the rest through ``to_csv``."""
    special = f'[{re.escape(sep)}"\r\n]'
    if kind == "string":
        arr = pa.array(values.to_numpy(dtype=object), pa.string())
        if neutralize:
            arr = _neutralized(arr)
        if not pc.any(pc.match_substring_regex(arr, special)).as_py():
            return arr
        return pa.array(_cell_texts(pd.Series(arr.to_pylist(), dtype=object), sep), pa.string())
    if values.dtype == np.float64:
        floats = _float_texts(values.to_numpy(), special)
        if floats is not None:
            return floats
    if neutralize and values.dtype == object:
        values = neutralize_formulas(values.to_frame())[0].iloc[:, 0]
    return pa.array(_cell_texts(values, sep), pa.string())


def _neutralized(arr: pa.Array) -> pa.Array:
    """``neutralize_formulas`` on distinct texts: only those starting like a formula are judged
    one by one."""
    if not len(arr):
        return arr
    first = pc.utf8_slice_codeunits(arr, 0, 1)
    maybe = np.flatnonzero(
        pc.fill_null(pc.is_in(first, value_set=pa.array(list(FORMULA_START))), False).to_numpy(
            zero_copy_only=False
        )
    )
    hits = [int(i) for i in maybe if looks_like_formula(arr[int(i)].as_py())]
    if not hits:
        return arr
    values = arr.to_pylist()
    for i in hits:
        values[i] = "'" + values[i]
    return pa.array(values, pa.string())


def csv_rows(frame: pd.DataFrame, sep: str = ",", *, neutralize: bool = True) -> bytes:
    """``frame``'s rows (no header) as ``frame.to_csv(index=False, sep=sep, header=False)``
    writes them (after ``neutralize_formulas`` when ``neutralize``)."""
    if not len(frame):
        return b""
    if frame.shape[1] == 0:
        return b'""\n' * len(frame)
    cols = [_column_texts(frame[c], sep, neutralize) for c in frame.columns]
    if len(cols) == 1:  # to_csv quotes a row whose only cell is empty
        cols[0] = pc.if_else(pc.equal(cols[0], ""), '""', cols[0])
        lines = cols[0]
    elif (rows := _arrow_rows(cols, sep)) is not None:
        return rows
    else:
        lines = pc.binary_join_element_wise(*cols, sep)
    joined = pc.binary_join_element_wise(lines, pa.scalar(""), "\n")
    return _string_bytes(joined)


def _arrow_rows(cols: list[pa.Array], sep: str) -> bytes | None:
    """The cells (texts as they are to be written) joined into lines by Arrow's CSV writer,
    which adds no quotes (``quoting_style="none"``): several times faster than joining them
    element-wise. None when a cell holds the separator, a quote or a line break (the writer
    refuses it) or the separator is not one character: then they are joined element-wise."""
    if len(sep) != 1:
        return None
    table = pa.table({str(i): c for i, c in enumerate(cols)})
    sink = pa.BufferOutputStream()
    options = pcsv.WriteOptions(include_header=False, quoting_style="none", delimiter=sep)
    try:
        pcsv.write_csv(table, sink, options)
    except pa.ArrowInvalid:
        return None
    return sink.getvalue().to_pybytes()


def _flat(array) -> pa.Array:
    """One contiguous array (Arrow may hand back a chunked one)."""
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _string_bytes(array: pa.Array) -> bytes:
    """The characters of a string array, end to end (no Python object per value)."""
    array = _flat(array)
    offsets = np.frombuffer(array.buffers()[1], np.int32)[
        array.offset : array.offset + len(array) + 1
    ]
    data = array.buffers()[2]
    return data[int(offsets[0]) : int(offsets[-1])].to_pybytes() if data is not None else b""


class ChunkedCSV:
    """Chunks appended to one open file (``write``); the caller wraps it in ``chunked_csv``."""

    def __init__(self, handle: BinaryIO, sep: str, neutralize: bool):
        self._handle, self.sep, self.neutralize = handle, sep, neutralize
        self._header: list[str] | None = None

    def write(self, frame: pd.DataFrame) -> None:
        """Append ``frame``'s rows (the first chunk also writes the header)."""
        if self._header is None:
            self._header = [str(c) for c in frame.columns]
            self._handle.write(header_line(frame.columns, self.sep))
        self._handle.write(self.rows(frame))

    def rows(self, frame: pd.DataFrame) -> bytes:
        """``frame``'s rows as this file writes them (no header): for a part written apart."""
        return csv_rows(frame, self.sep, neutralize=self.neutralize)

    def append_file(self, part: Path) -> None:
        """The rows of the file ``part`` (written with ``rows``) appended, then ``part``
        deleted."""
        with open(part, "rb") as src:
            shutil.copyfileobj(src, self._handle, 16 << 20)
        Path(part).unlink()

    def part_path(self) -> Path:
        """A path beside the file being written, for a part written by another process."""
        return Path(str(self._handle.name) + ".part")


@contextlib.contextmanager
def chunked_csv(
    target: Path, *, sep: str = ",", neutralize: bool = True, protect: Sequence = ()
) -> Iterator[ChunkedCSV]:
    """A CSV written chunk by chunk into a temporary sibling and renamed onto ``target`` when the
    block ends without error (``hidekit.io.atomic``): never half-written."""
    check_output_file(target, protect)
    with atomic_path(Path(target), protect=protect) as tmp, open(tmp, "wb") as fh:
        yield ChunkedCSV(fh, sep, neutralize)
