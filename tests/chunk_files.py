"""Write a test table as CSV, Parquet, Stata or SPSS, as the by-chunk readers meet them in use."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


def write_frame(frame: pd.DataFrame, path: Path, row_group_size: int = 100) -> Path:
    """``frame`` to ``path`` by its suffix. Parquet keeps whole numbers with gaps (``visits``) as
    Arrow integers in row groups of ``row_group_size``; CSV is ``;``-separated."""
    if path.suffix == ".csv":
        frame.to_csv(path, index=False, sep=";")
    elif path.suffix == ".parquet":
        table = pa.Table.from_pandas(frame, preserve_index=False)
        at = table.schema.get_field_index("visits")
        visits = pa.array(frame["visits"].astype("Int64"), pa.int64())
        pq.write_table(table.set_column(at, "visits", visits), path, row_group_size=row_group_size)
    else:
        import pyreadstat

        writer = {".dta": pyreadstat.write_dta, ".sav": pyreadstat.write_sav}[path.suffix]
        writer(frame, str(path))
    return path
