"""Write a Dataset in the format it came in, labels kept, atomically."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hidekit.errors import OptionError
from hidekit.io.atomic import atomic_path
from hidekit.io.dataset import Dataset, as_text
from hidekit.io.readers import detect_format

# SAS7BDAT cannot be written by any open library: SAS data goes out as transport (.xpt).
_OUTPUT_SUFFIX = {
    "stata": ".dta",
    "spss": ".sav",
    "sas": ".xpt",
    "parquet": ".parquet",
    "excel": ".xlsx",
    "csv": ".csv",
    "frame": ".csv",
}


def output_suffix(fmt: str) -> str:
    return _OUTPUT_SUFFIX.get(fmt, ".csv")


def _stat_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """pyreadstat wants plain dtypes: nullable ints become floats, objects become strings."""
    out = frame.copy()
    for col in out.columns:
        s = out[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            s = s.astype(object)
        if pd.api.types.is_extension_array_dtype(s.dtype) and pd.api.types.is_numeric_dtype(
            s.dtype
        ):
            s = s.astype("float64")
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            s = as_text(s)
        out[col] = s
    return out


def write_table(
    ds: Dataset | pd.DataFrame, target, *, private: bool = False, protect: tuple = ()
) -> Path:
    """Write ``ds`` to ``target`` (format from its suffix), never half-written."""
    if isinstance(ds, pd.DataFrame):
        ds = Dataset(ds)
    target = Path(target)
    protect = tuple(protect) + ((ds.path,) if ds.path else ())
    fmt = detect_format(target) if target.suffix else "csv"
    with atomic_path(target, private=private, protect=protect) as tmp:
        frame = ds.frame
        if fmt == "csv":
            frame.to_csv(
                tmp, index=False, sep=ds.options.get("sep", ",") if ds.format == "csv" else ","
            )
        elif fmt == "parquet":
            frame.to_parquet(tmp, index=False)
        elif fmt == "excel":
            frame.to_excel(tmp, index=False, engine="openpyxl")
        else:
            import pyreadstat

            labels = [ds.variable_labels.get(c) for c in frame.columns]
            value_labels = {c: v for c, v in ds.value_labels.items() if c in frame.columns}
            data = _stat_frame(frame)
            if fmt == "stata":
                pyreadstat.write_dta(
                    data,
                    str(tmp),
                    column_labels=labels,
                    variable_value_labels=_numeric_keys(value_labels, data),
                )
            elif fmt == "spss":
                pyreadstat.write_sav(
                    data,
                    str(tmp),
                    column_labels=labels,
                    variable_value_labels=_numeric_keys(value_labels, data),
                )
            elif fmt == "sas":
                if target.suffix.lower() != ".xpt":
                    raise OptionError("SAS output is written as transport files (.xpt)")
                pyreadstat.write_xport(data, str(tmp), column_labels=labels)
            else:  # pragma: no cover
                raise OptionError(f"cannot write format {fmt}")
    return target


def _numeric_keys(value_labels: dict, data: pd.DataFrame) -> dict:
    """Value labels survive only on numeric columns (Stata/SPSS rule); drop those that no longer fit."""
    out = {}
    for col, mapping in value_labels.items():
        if col in data.columns and pd.api.types.is_numeric_dtype(data[col].dtype):
            out[col] = mapping
    return out
