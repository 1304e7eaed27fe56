"""What a Parquet file holds, read from its footer: its Arrow schema (pandas metadata included),
its records, and which whole-number or boolean columns have a missing value (``pd.read_parquet``
turns those into floats or objects). An engine that reads the file itself (Spark) types its
columns from this, as ``read_table`` would."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hidekit.errors import InputError
from hidekit.io.frame_chunks import columns_with_gaps


@dataclass(frozen=True)
class ParquetLayout:
    schema: Any  # pyarrow.Schema
    records: int
    gaps: frozenset  # whole-number and boolean columns with a missing value


def parquet_layout(path: Path) -> ParquetLayout:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        gaps = frozenset(columns_with_gaps(handle))
        return ParquetLayout(handle.schema_arrow, int(handle.metadata.num_rows), gaps)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot read as Parquet: {exc}") from exc
