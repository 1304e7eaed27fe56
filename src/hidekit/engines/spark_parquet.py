"""A Parquet file read and written by Spark, the records never all on the driver, with the
records and types ``hidekit.io`` gives (``pd.read_parquet``, ``DataFrame.to_parquet``).

Reading: Parquet keeps its own types, so no typing pass is needed: Spark reads the file, each
record gets its row number in the file (``spark_io._numbered``, from one count per block), and
each column's pandas type is the one ``pd.read_parquet`` gives the whole file (its pandas
metadata; whole numbers or booleans with a missing value are floats or objects there: such whole
numbers are cast to double on Spark too). A file with another kind of column (dates, times,
decimals, categories, lists) is not read here (``None``): the caller reads it on the driver.
Writing: the table's partitions, in record order, are turned into Arrow on the executors as the
chunk writer turns a frame (``parquet_tables_spark``) and come to the driver a batch at a time,
for ``hidekit.io.parquet_chunks`` to append to the file (the bytes of the whole write).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from hidekit.engines.spark_engine import _ROW, get_spark
from hidekit.engines.spark_io import _BLOCK, _ID, _numbered
from hidekit.engines.spark_steps import SparkTable, restore_types, spark_column
from hidekit.io import Dataset
from hidekit.io.parquet_layout import parquet_layout

_BATCH_ROWS = 1 << 17  # records a partition of the written table holds, about


def _pandas_types(path: Path) -> dict | None:
    """Each column's type as ``pd.read_parquet`` reads the whole file, or ``None`` when a column
    is of a kind Spark would read differently."""
    layout = parquet_layout(path)
    if not layout.records:
        return None  # no record: nothing to spare the driver
    schema, gaps = layout.schema, layout.gaps
    simple = (pa.types.is_string, pa.types.is_large_string, pa.types.is_signed_integer)
    dtypes = {}
    for name, dtype in schema.empty_table().to_pandas().dtypes.items():
        arrow = schema.field(name).type
        plain = pa.types.is_boolean(arrow) and name not in gaps
        if plain or (pa.types.is_floating(arrow) and arrow.bit_width > 16):
            dtypes[name] = dtype
        elif not any(test(arrow) for test in simple):
            return None
        elif pa.types.is_integer(arrow) and name in gaps and isinstance(dtype, np.dtype):
            dtypes[name] = np.dtype("float64")  # pandas' float for whole numbers with gaps
        else:
            dtypes[name] = dtype
    if any(not isinstance(t, np.dtype | pd.Int64Dtype) for t in dtypes.values()):
        return None  # pandas extension types other than Int64 (strings, other ints)
    return dtypes


def read_parquet_spark(path, spark=None) -> tuple[SparkTable, Dataset] | None:
    """``path`` as a Spark table (row numbers in file order) and the Dataset ``read_table``
    would give, holding the column types only; ``None`` for a file read on the driver."""
    from pyspark.sql import functions as F

    path = Path(path)
    dtypes = _pandas_types(path)
    if dtypes is None or not dtypes or _ROW in dtypes:
        return None
    spark = spark or get_spark()
    raw = spark.read.parquet(str(path))
    if raw.columns != list(dtypes):
        return None  # names Spark reads apart (duplicates, case)
    sdf = raw.select(
        "*",
        F.input_file_block_start().alias(_BLOCK),
        F.monotonically_increasing_id().alias(_ID),
    )
    found = (
        sdf.groupBy(_BLOCK).agg(F.count(F.lit(1)).alias("n"), F.min(_ID).alias("first")).toPandas()
    )
    cols = [
        (spark_column(c).cast("double") if t == np.dtype("float64") else spark_column(c)).alias(c)
        for c, t in dtypes.items()
    ]
    # not kept: reading again reads only the columns a question needs, in file order again
    table = SparkTable(_numbered(sdf, found, cols), dtypes)
    return table, Dataset(table.empty_frame(), "parquet", path)


def parquet_tables_spark(table: SparkTable) -> Iterator[pa.Table]:
    """The table's records in record order, a few at a time, as the Arrow tables
    ``ChunkedParquet.write`` makes of the frames the local engine would hold (types restored,
    then ``Table.from_pandas``): made on the executors, so the driver only appends them to the
    file (no record becomes a Python object there). One partition on the driver at a time."""
    columns, dtypes = table.columns, table.dtypes
    spark = table.sdf.sparkSession

    def arrow(batches):
        for part in batches:
            if len(part):
                frame = restore_types(part[columns], dtypes).reset_index(drop=True)
                data = pa.Table.from_pandas(frame, preserve_index=False)
                sink = pa.BufferOutputStream()
                with pa.ipc.new_stream(sink, data.schema) as out:
                    out.write(data)
                yield pd.DataFrame({"value": [sink.getvalue().to_pybytes()]})

    n = table.sdf.count()
    parts = max(spark.sparkContext.defaultParallelism, -(-n // _BATCH_ROWS), 1)
    ordered = (
        table.sdf.select(*[spark_column(c) for c in columns], _ROW)
        .repartitionByRange(parts, _ROW)
        .sortWithinPartitions(_ROW)
    )
    for row in ordered.mapInPandas(arrow, "value binary").toLocalIterator(True):
        yield pa.ipc.open_stream(row[0]).read_all()
