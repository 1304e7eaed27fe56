"""A CSV's cells counted on its raw lines: one parse of each distinct line, not of each record.

Parsing a CSV into columns is most of what counting its cells costs (issue 17: 4–5 CPU s of the
10M-row risk). When the key variables are (nearly) all the file's columns, records that are the
same line of bytes are the same cell, so DuckDB groups the file's lines as single text values
(no quote or delimiter handling, about a third of the work) and only the distinct lines are
split into fields, by Python's ``csv`` module, as pandas would split them. The sizes of the cells
then follow from the lines' counts.

It is used only where it pays and is safe; anything else returns ``None`` and the caller counts
columns as before: a sample of the file must show the lines hardly more varied than the key
combinations (a record id would make every line distinct), every distinct line must be a whole
record (an even number of quotes: no line break inside a quoted field) with the header's number of
fields, and there must be no more than ``LINE_CAP`` distinct lines. The sample also estimates the
file's distinct lines (Chao1, from the lines seen once and twice), so a file of mostly distinct
lines is not grouped by line only to find it over the cap (10M such rows: 3 CPU s wasted).
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Sequence

import duckdb
import numpy as np
import pyarrow as pa

from hidekit.io.direct import ColumnCodes, DirectSource, encode_query, quote, sql_string

SAMPLE_BYTES = 1 << 20
LINE_CAP = 1_000_000
VARIETY = 1.25  # distinct lines per distinct key combination in the sample, at most
_NO_DELIMITER = "\x01"  # a line holding it is refused (strict mode): the column reading follows


def line_cells(
    con: duckdb.DuckDBPyConnection,
    source: DirectSource,
    keys: Sequence[str],
    *,
    force: bool = False,
) -> tuple[dict[str, ColumnCodes], np.ndarray] | None:
    """The distinct combinations of ``keys`` and their counts, from the file's distinct lines;
    ``None`` when this reading does not apply (``force`` skips the sample's verdict only)."""
    if source.format != "csv" or len(source.columns) < 2:
        return None
    sep = source.options["sep"]
    at = [source.columns.index(k) for k in keys]
    if not force and not _pays(source, at, sep):
        return None
    try:
        lines = con.sql(
            f"SELECT line, count(*) AS n FROM {_line_relation(source)} "
            "WHERE line IS NOT NULL GROUP BY ALL"
        ).to_arrow_table()
    except duckdb.Error:
        return None
    if lines.num_rows > LINE_CAP:
        return None
    fields = _split(lines.column("line").to_pylist(), sep, len(source.columns))
    if fields is None:
        return None
    table = pa.table(
        {
            **{
                f"k{j}": pa.array([f[i] or None for f in fields], pa.string())
                for j, i in enumerate(at)
            },
            "__n": lines.column("n"),
        }
    )
    con.register("__hidekit_lines", table)
    try:
        named = ", ".join(f"k{j} AS {quote(k)}" for j, k in enumerate(keys))
        sql = f"SELECT {named}, sum(__n)::BIGINT AS __n FROM __hidekit_lines GROUP BY ALL"
        codes, extra = encode_query(con, sql, keys, source.text, keep=("__n",))
    finally:
        con.unregister("__hidekit_lines")
    return codes, extra["__n"].astype(np.int64, copy=False)


def _line_relation(source: DirectSource) -> str:
    """The file after its header, each line one text value, nothing unquoted or split."""
    return (
        f"read_csv({sql_string(str(source.path))}, header = true, auto_detect = false, "
        f"delim = {sql_string(_NO_DELIMITER)}, quote = '', escape = '', "
        "columns = {'line': 'VARCHAR'}, null_padding = false, strict_mode = true)"
    )


def _split(lines: list[str], sep: str, width: int) -> list[list[str]] | None:
    """Each line's fields, or None when a line is not one whole record of ``width`` fields."""
    if any(line.count('"') % 2 for line in lines):
        return None  # a line break inside a quoted field: lines are not records
    try:
        rows = list(csv.reader(lines, delimiter=sep, quotechar='"', strict=True))
    except csv.Error:
        return None
    if len(rows) != len(lines) or any(len(r) != width for r in rows):
        return None
    return rows


def _pays(source: DirectSource, at: list[int], sep: str) -> bool:
    """Whether the lines of the file's first megabyte are hardly more varied than their key
    combinations (with a record id, every line would be distinct: the column reading is better)."""
    with source.path.open("rb") as fh:
        raw = fh.read(SAMPLE_BYTES)
    lines = raw.decode("utf-8-sig", errors="replace").splitlines()[1:]
    if len(raw) == SAMPLE_BYTES:
        lines = lines[:-1]  # maybe cut
    lines = [line for line in lines if line]
    fields = _split(lines, sep, len(source.columns))
    if not fields:
        return False
    combos = {tuple(f[i] for i in at) for f in fields}
    seen = Counter(lines)
    return len(seen) <= VARIETY * len(combos) and chao1(seen.values()) <= LINE_CAP


def chao1(counts: Iterable[int]) -> float:
    """Chao's (bias-corrected) estimate of the number of distinct values in the whole from a
    sample's counts: the values seen once and twice tell how many were never seen."""
    counts = list(counts)
    once = sum(1 for c in counts if c == 1)
    twice = sum(1 for c in counts if c == 2)
    return len(counts) + once * (once - 1) / (2 * (twice + 1))
