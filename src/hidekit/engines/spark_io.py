"""A CSV read and written by Spark under hidekit's own rules, so a table of any size never
passes through the driver, and the result is byte for byte what ``hidekit.io`` gives.

Reading: Spark's CSV reader takes every column as text (quotes doubled, a blank cell missing);
the header's names are pandas' own (``read_csv``), and each column's type is decided as
``hidekit.io.readers.infer_values`` decides it, by one aggregation over all columns (leading
zeros keep text; all whole numbers give Int64; all numbers give float64), then cast on Spark.
Writing: each partition, in record order, goes through pandas' own ``to_csv`` (formula-looking
cells neutralized the same way) as text chunks that Spark writes to a private temporary folder;
the header and the parts are then joined into the one file the user gets, moved into place at once.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW, get_spark
from hidekit.engines.spark_steps import SparkTable, restore_types, spark_column
from hidekit.errors import InputError
from hidekit.io import Dataset
from hidekit.io.atomic import concatenate_files, scratch_dir
from hidekit.io.files import file_encoding, file_holds, read_head_text
from hidekit.io.readers import (
    DECIMAL,
    LEADING_ZERO,
    SPACE,
    WHOLE,
    csv_header_names,
    detect_delimiter,
)
from hidekit.io.writers import check_column_names, neutralize_formulas

_JAVA_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "cp1252": "windows-1252",
    "latin-1": "ISO-8859-1",
}
_BYTE_QUOTE = ("utf-8", "utf-8-sig", "cp1252", "latin-1")  # encodings where '"' is byte 0x22
_BLOCK, _ID = "__hk_block", "__hk_id"
_BAD = "__hk_bad"  # Spark's copy of a record whose fields do not match the header
# read_table's own patterns (ASCII digits and white space), anchored for Java's find
_LEADING_ZERO = f"^{LEADING_ZERO}"
_WHOLE = f"^{WHOLE}$"
_DECIMAL = f"^{DECIMAL}$"
_INT64_MAX = str(2**63 - 1)
_INT64_MIN_DIGITS = str(2**63)  # the digits of the smallest int64, without its sign
_SAMPLE = 1000  # first records whose words make their columns text without a test


def read_csv_spark(path, sep: str | None = None, spark=None) -> tuple[SparkTable, Dataset]:
    """``path`` as a Spark table (row numbers in file order) and the Dataset ``read_table`` would
    give, holding the column types only (no record)."""
    from pyspark.sql import functions as F

    spark = spark or get_spark()
    path = Path(path)
    encoding = file_encoding(path)
    head = read_head_text(path, 1 << 16, encoding=encoding, newline="")
    if head.startswith("\ufeff"):
        head = head[1:]
    if not head.strip():
        raise InputError(f"{path}: the file is empty")
    delimiter = sep or detect_delimiter(head)
    names = csv_header_names(head, delimiter, path)
    quoted = encoding not in _BYTE_QUOTE or file_holds(path, b'"')
    text = [f"__hk_c{i}" for i in range(len(names))]
    schema = ", ".join(f"`{c}` STRING" for c in [*text, _BAD])
    reader = spark.read.option("header", True).option("escape", '"')
    # quoted line breaks need one reader per file; without a quote the file is split
    raw = (
        reader.option("encoding", _JAVA_NAMES.get(encoding, encoding))
        .option("multiLine", quoted)
        .option("columnNameOfCorruptRecord", _BAD)
        .schema(schema)
        .csv(str(path), sep=delimiter)
    )
    sdf = raw.select(
        *[F.when(F.col(c) != "", F.col(c)).alias(c) for c in text],  # "" is missing
        _BAD,
        F.input_file_block_start().alias(_BLOCK),
        F.monotonically_increasing_id().alias(_ID),
    )
    # a word among the first records makes a column text whatever follows: those columns need
    # no test over the whole file (Spark's own values, so the same as the pass below would see)
    first = sdf.select(*text).limit(_SAMPLE).toPandas()
    tested = [i for i, c in enumerate(text) if not _has_word(first[c])]
    # one pass: per block of the file, its records, first id, what the other columns hold, and
    # how many records do not have the header's number of fields
    blocks = sdf.groupBy(_BLOCK).agg(
        F.count(F.lit(1)).alias("n"),
        F.min(_ID).alias("first"),
        F.count(_BAD).alias("bad"),
        *_kind_aggregates(tested),
        # the other columns read too: with columns pruned, Spark flags no record as too long
        *[F.count(c).alias(f"p{i}") for i, c in enumerate(text) if i not in tested],
    )
    found = blocks.toPandas().sort_values(_BLOCK).reset_index(drop=True)
    if found["bad"].sum():
        _refuse_long_records(sdf, delimiter, len(text), path)
    kinds = _column_kinds(found, len(text), tested)
    cast = {"int": "long", "float": "double"}
    cols = [
        (F.col(c).cast(cast[k]) if k in cast else F.col(c)).alias(n)
        for c, n, k in zip(text, names, kinds, strict=True)
    ]
    parts = max(1, spark.sparkContext.defaultParallelism)
    sdf = _numbered(sdf, found, cols)
    sdf = (sdf.repartition(parts) if quoted else sdf).localCheckpoint(eager=False)
    dtypes = {
        n: {"int": pd.Int64Dtype(), "float": np.dtype("float64")}.get(k, np.dtype("O"))
        for n, k in zip(names, kinds, strict=True)
    }
    table = SparkTable(sdf, dtypes)
    options = {"sep": delimiter, "encoding": encoding}
    return table, Dataset(table.empty_frame(), "csv", path, options=options)


def _numbered(sdf, found: pd.DataFrame, cols: list):
    """``cols`` of ``sdf`` (which has the block columns ``_BLOCK`` and ``_ID``) with each record's
    row number in the file: the records of the blocks before it (``found``: per block, its
    records ``n`` and ``first`` id), plus its place in its block. Spark reads a file's blocks in
    any order (largest first), but a block's records in file order with consecutive ids."""
    from pyspark.sql import functions as F

    found = found.sort_values(_BLOCK).reset_index(drop=True)
    found["base"] = found["n"].cumsum() - found["n"] - found["first"]
    bases = sdf.sparkSession.createDataFrame(found[[_BLOCK, "base"]].astype("int64"))
    row = (F.col(_ID) + F.col("base")).alias(_ROW)
    return sdf.join(F.broadcast(bases), _BLOCK).select(*cols, row)


def _refuse_long_records(sdf, delimiter: str, width: int, path: Path) -> None:
    """A record with more fields than the header is an error, as ``read_table`` makes it: Spark
    would drop the extra fields without a word. (Fewer fields are missing values, as in pandas.)"""

    def longest(batches):
        for part in batches:
            rows = csv.reader(io.StringIO("\n".join(part[_BAD])), delimiter=delimiter)
            yield pd.DataFrame({"fields": [max((len(r) for r in rows), default=0)]})

    bad = sdf.where(sdf[_BAD].isNotNull())  # every column kept: pruned, Spark flags nothing
    fields = bad.mapInPandas(longest, "fields long").agg({"fields": "max"}).collect()[0][0]
    if fields and fields > width:
        raise InputError(
            f"{path}: cannot parse as CSV with delimiter {delimiter!r}: a record has {fields} "
            f"fields where the header has {width}"
        )


def _has_word(values: pd.Series) -> bool:
    """Whether a present value is not a number (``infer_values``: the column is text)."""
    present = values.dropna()
    return bool(len(present)) and not present.str.fullmatch(DECIMAL).all()


def _kind_aggregates(columns: list[int]) -> list:
    """Per text column (by index): whether a present value is not a number (``NUMBER``), and,
    over the values that are, whether one has a leading zero, whether all are whole numbers and
    whether a whole number is beyond 64 bits: the tests of ``infer_values``. (Spark's own cast
    is no shortcut: it throws on every word.) Each value is matched against ``NUMBER`` once; the
    digits of a whole number are looked at only from 19 characters on."""
    from pyspark.sql import functions as F

    aggs = []
    for i in columns:
        c = F.col(f"__hk_c{i}")
        number = c.rlike(_DECIMAL)
        long = F.length(c) >= 19
        digits = F.regexp_replace(c, "[^0-9]", "")  # of a whole number: no leading zero left
        limit = F.when(c.rlike(f"^{SPACE}*-"), F.lit(_INT64_MIN_DIGITS)).otherwise(_INT64_MAX)
        wide = long & ((F.length(digits) > 19) | ((F.length(digits) == 19) & (digits > limit)))
        aggs += [
            F.max(F.when(c.isNotNull() & ~number, 1)).alias(f"t{i}"),
            F.max(F.when(number, c.rlike(_LEADING_ZERO).cast("int"))).alias(f"z{i}"),
            F.min(F.when(number, c.rlike(_WHOLE).cast("int"))).alias(f"w{i}"),
            F.max(F.when(number & long & c.rlike(_WHOLE) & wide, 1)).alias(f"o{i}"),
        ]
    return aggs


def _column_kinds(found: pd.DataFrame, n: int, tested: list[int]) -> list[str]:
    """Each column's type as ``infer_values`` decides it ("text", "int" or "float"), from the
    per-block aggregates (the columns not ``tested`` hold a word: text)."""
    kinds = []
    for i in range(n):
        if i not in tested:
            kinds.append("text")
            continue
        text = found[f"t{i}"].fillna(0).max() if len(found) else 0
        checked = found[[f"z{i}", f"w{i}"]].dropna()
        wide = found[f"o{i}"].fillna(0).max() if len(found) else 0
        if text or checked.empty or checked[f"z{i}"].max():
            kinds.append("text")  # words, all missing, or leading zeros
        elif checked[f"w{i}"].min():
            kinds.append("text" if wide else "int")  # beyond 64 bits: an ID, kept exact
        else:
            kinds.append("float")
    return kinds


def write_csv_spark(table: SparkTable, target: Path, sep: str, neutralize: bool = True) -> None:
    """``table`` as the CSV file ``target`` (a path that the caller moves into place): the bytes
    ``pandas.DataFrame.to_csv`` writes for the whole table, written partition by partition."""
    columns, dtypes = table.columns, table.dtypes
    check_column_names(columns, "csv")
    spark = table.sdf.sparkSession
    parts = max(1, spark.sparkContext.defaultParallelism)

    def chunks(batches):
        for part in batches:
            if not len(part):
                continue
            frame = restore_types(part[columns], dtypes)
            if neutralize:
                frame, _ = neutralize_formulas(frame)
            text = frame.to_csv(index=False, header=False, sep=sep, lineterminator="\n")
            yield pd.DataFrame({"value": [text[:-1]]})  # Spark's text writer adds the last "\n"

    ordered = (
        table.sdf.select(*[spark_column(c) for c in columns], _ROW)
        .repartitionByRange(parts, _ROW)
        .sortWithinPartitions(_ROW)
    )
    header = pd.DataFrame(columns=columns).to_csv(index=False, sep=sep, lineterminator="\n")
    with scratch_dir(target) as folder:  # owner-only, removed whatever happens
        out = folder / "parts"
        ordered.mapInPandas(chunks, "value string").write.text(str(out))
        concatenate_files(target, header.encode("utf-8"), out, prefix="part-")
