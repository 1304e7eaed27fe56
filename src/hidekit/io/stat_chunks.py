"""Large Stata / SPSS / SAS files to Parquet in chunks, so DuckDB can count them out of core.

pyreadstat reads ``chunk_rows`` records at a time (its row offsets); each chunk is written as one
Parquet part with the same cleaning ``read_table`` applies (the empty text is missing), and the
parts are read together by DuckDB (``union_by_name`` widens a column that is whole numbers in one
chunk and has a missing value in another, as one whole-file read would). Variable and value labels
are read once from the file's metadata and travel beside the parts.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from hidekit.errors import InputError

LARGE_BYTES = 256 << 20  # smaller statistical files are read whole by read_table
CHUNK_ROWS = 500_000


def stat_reader(path: Path, fmt: str):
    """The pyreadstat function that reads ``path`` (format from ``detect_format``)."""
    import pyreadstat

    suffix = path.suffix.lower()
    return {
        "stata": pyreadstat.read_dta,
        "spss": pyreadstat.read_por if suffix == ".por" else pyreadstat.read_sav,
        "sas": pyreadstat.read_xport if suffix == ".xpt" else pyreadstat.read_sas7bdat,
    }[fmt]


def labels_of(meta) -> tuple[dict[str, str], dict[str, dict]]:
    """(variable labels, value labels per column) from pyreadstat's metadata."""
    var_labels = {
        name: label
        for name, label in zip(meta.column_names, meta.column_labels or [], strict=False)
        if label
    }
    value_labels = {
        col: meta.value_labels.get(lbl, {})
        for col, lbl in (meta.variable_to_label or {}).items()
        if lbl in (meta.value_labels or {})
    }
    return var_labels, value_labels


def stat_to_parquet(
    path: Path, fmt: str, folder: Path, *, chunk_rows: int = CHUNK_ROWS, encoding: str | None = None
) -> tuple[list[Path], dict[str, str], dict[str, dict]]:
    """Write ``path`` as Parquet parts in ``folder``: (parts, variable labels, value labels)."""
    import pyreadstat

    kwargs: dict[str, Any] = {"encoding": encoding} if encoding else {}
    parts: list[Path] = []
    labels: tuple[dict[str, str], dict[str, dict]] = ({}, {})
    try:
        chunks = pyreadstat.read_file_in_chunks(
            stat_reader(path, fmt),
            str(path),
            chunksize=chunk_rows,
            output_format="pandas",
            **kwargs,
        )
        for i, (frame, meta) in enumerate(chunks):
            if i == 0:
                labels = labels_of(meta)
            frame = frame.replace({"": None}) if len(frame) else frame
            part = folder / f"part-{i:05d}.parquet"
            pd.DataFrame(frame).to_parquet(part, index=False)
            parts.append(part)
    except InputError:
        raise
    except Exception as exc:  # pyreadstat raises its own ReadstatError / PyreadstatError
        raise InputError(f"{path}: cannot read as {fmt} file: {exc}") from exc
    return parts, labels[0], labels[1]


def chunked_folder() -> tempfile.TemporaryDirectory:
    """An owner-only temporary folder for the parts (they hold the records)."""
    return tempfile.TemporaryDirectory(prefix="hidekit-chunks-")
