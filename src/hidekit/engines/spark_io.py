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

import codecs
import io
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.engines.spark_engine import _ROW, get_spark
from hidekit.engines.spark_steps import SparkTable, restore_types, spark_column
from hidekit.errors import InputError
from hidekit.io import Dataset
from hidekit.io.readers import NUMBER, _refuse_repeated_names, decode_text, detect_delimiter
from hidekit.io.writers import check_column_names, neutralize_formulas

_JAVA_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "cp1252": "windows-1252",
    "latin-1": "ISO-8859-1",
}
_CHUNK = 1 << 24  # bytes read at a time when telling the file's encoding
# Java regexes with Unicode classes, as Python's ``re`` reads ``\s`` and ``\d`` in text
_LEADING_ZERO = r"(?U)^\s*[-+]?0\d"
_WHOLE = r"(?U)^\s*[-+]?\d+\s*$"
_DECIMAL = rf"(?U)^\s*{NUMBER}\s*$"


def file_encoding(path: Path) -> str:
    """The encoding ``read_csv`` would use for the whole file (a byte-order mark, else the first
    of UTF-8, cp1252, latin-1 that decodes every byte), read by chunks rather than all at once."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    marked = decode_text(head, path)[1]
    if marked not in ("utf-8", "cp1252", "latin-1"):  # a byte-order mark decides
        return marked
    for name in ("utf-8", "cp1252"):
        decoder = codecs.getincrementaldecoder(name)()
        try:
            with open(path, "rb") as fh:
                while chunk := fh.read(_CHUNK):
                    decoder.decode(chunk)
            decoder.decode(b"", final=True)
            return name
        except UnicodeDecodeError:
            continue
    return "latin-1"


def read_csv_spark(path, sep: str | None = None, spark=None) -> tuple[SparkTable, Dataset]:
    """``path`` as a Spark table (row numbers in file order) and the Dataset ``read_table`` would
    give, holding the column types only (no record)."""
    from pyspark.sql import functions as F

    spark = spark or get_spark()
    path = Path(path)
    encoding = file_encoding(path)
    with open(path, encoding=encoding, errors="replace", newline="") as fh:
        head = fh.read(1 << 16)
    if head.startswith("\ufeff"):
        head = head[1:]
    if not head.strip():
        raise InputError(f"{path}: the file is empty")
    delimiter = sep or detect_delimiter(head)
    _refuse_repeated_names(head, delimiter, path)
    names = list(pd.read_csv(io.StringIO(head), sep=delimiter, nrows=0, dtype=str).columns)
    sdf = (
        spark.read.option("header", True)
        .option("encoding", _JAVA_NAMES.get(encoding, encoding))
        .option("multiLine", True)  # quoted line breaks: one reader per file, in file order
        .option("escape", '"')
        .csv(str(path), sep=delimiter, inferSchema=False)
    )
    if len(sdf.columns) != len(names):
        raise InputError(f"{path}: cannot parse as CSV with delimiter {delimiter!r}")
    sdf = sdf.toDF(*[f"__hk_c{i}" for i in range(len(names))])
    sdf = sdf.select(
        *[F.when(F.col(c) != "", F.col(c)).alias(c) for c in sdf.columns]  # "" is missing
    )
    if sdf.rdd.getNumPartitions() != 1:  # pragma: no cover - multiLine reads a file whole
        raise InputError(f"{path}: Spark split the file; read it with the default engine")
    sdf = sdf.withColumn(_ROW, F.monotonically_increasing_id())  # one partition: 0..n-1
    kinds = _column_kinds(sdf, len(names))
    cast = {"int": "long", "float": "double"}
    cols = [
        (F.col(f"__hk_c{i}").cast(cast[k]) if k in cast else F.col(f"__hk_c{i}")).alias(n)
        for i, (n, k) in enumerate(zip(names, kinds, strict=True))
    ]
    parts = max(1, spark.sparkContext.defaultParallelism)
    sdf = sdf.select(*cols, _ROW).repartitionByRange(parts, _ROW).localCheckpoint()
    dtypes = {
        n: {"int": pd.Int64Dtype(), "float": np.dtype("float64")}.get(k, np.dtype("O"))
        for n, k in zip(names, kinds, strict=True)
    }
    table = SparkTable(sdf, dtypes)
    options = {"sep": delimiter, "encoding": encoding}
    return table, Dataset(table.empty_frame(), "csv", path, options=options)


def _column_kinds(sdf, n: int) -> list[str]:
    """Each column's type as ``infer_values`` decides it: "text", "int" or "float"."""
    from pyspark.sql import functions as F

    aggs = []
    for i in range(n):
        c = F.col(f"__hk_c{i}")
        aggs += [
            F.max(c.rlike(_LEADING_ZERO).cast("int")).alias(f"z{i}"),
            F.min(c.rlike(_WHOLE).cast("int")).alias(f"w{i}"),
            F.min(c.rlike(_DECIMAL).cast("int")).alias(f"d{i}"),
        ]
    row = sdf.agg(*aggs).first() if aggs else None
    kinds = []
    for i in range(n):
        if row is None or row[f"w{i}"] is None or row[f"z{i}"]:  # all missing, or leading zeros
            kinds.append("text")
        else:
            kinds.append("int" if row[f"w{i}"] else "float" if row[f"d{i}"] else "text")
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
    folder = Path(tempfile.mkdtemp(prefix=".hidekit-spark-", dir=target.parent))  # owner-only
    try:
        out = folder / "parts"
        ordered.mapInPandas(chunks, "value string").write.text(str(out))
        with open(target, "wb") as fh:
            fh.write(header.encode("utf-8"))
            for name in sorted(os.listdir(out)):
                if name.startswith("part-"):
                    with open(out / name, "rb") as src:
                        shutil.copyfileobj(src, fh, 1 << 20)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
