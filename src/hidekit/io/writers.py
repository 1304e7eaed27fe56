"""Write a Dataset in the format it came in, labels kept, atomically.

Everything a format cannot hold is refused before a byte is written (one line naming the column
and the limit): names Stata, SPSS or SAS transport do not accept, strings longer than a cell can
hold (Excel and SPSS would truncate them silently, SAS transport would be corrupted). Text that a
spreadsheet would run as a formula never becomes one: ``.xlsx`` cells are always written as text,
and CSV values are neutralized (see ``neutralize_formulas``) unless the caller opts out.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hidekit.errors import OutputError
from hidekit.io.atomic import atomic_path, check_output_file
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

# The longest text one cell holds: characters for Excel, bytes (UTF-8) for SPSS and SAS.
_TEXT_LIMIT = {"excel": (32_767, "characters"), "spss": (32_767, "bytes"), "sas": (32_767, "bytes")}
_FORMAT_NAME = {"excel": "Excel", "spss": "SPSS", "sas": "SAS transport", "stata": "Stata"}
_EXCEL_MAX_ROWS, _EXCEL_MAX_COLUMNS = 1_048_576, 16_384

# Variable-name rules (the strictest common reading of each format's manual).
_NAME_RULES = {
    "stata": (
        re.compile(r"^(?!_)[^\W\d]\w{0,31}$"),
        "1-32 letters, digits or _, starting with a letter",
    ),
    "spss": (
        re.compile(r"^[^\W\d_][\w.$#@]*(?<![._])$"),
        "letters, digits or . _ $ # @, starting with a letter, not ending in . or _",
    ),
    "sas": (
        re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$"),
        "1-32 ASCII letters, digits or _, starting with a letter",
    ),
}
_SPSS_NAME_BYTES = 64
_RESERVED = {
    "spss": {"ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO", "WITH"},
    "stata": {
        "_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long",
        "_n", "_N", "_pi", "_pred", "_rc", "_skip", "strL", "using", "with",
    },
}  # fmt: skip

# A cell that a spreadsheet reads as a formula (OWASP "CSV injection"): these first characters.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def output_suffix(fmt: str) -> str:
    return _OUTPUT_SUFFIX.get(fmt, ".csv")


def looks_like_formula(value) -> bool:
    """True for text a spreadsheet would evaluate: starts with = + - @ (or tab / carriage return)
    and is not simply a number such as ``-3`` or ``+1.5``."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def neutralize_formulas(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Prefix every formula-looking text cell with ``'`` (spreadsheets then show it as text);
    numbers and other text are untouched. Returns the new frame and the number of cells changed."""
    out, changed = frame, 0
    for col in frame.columns:
        s = frame[col]
        if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            continue
        hit = _formula_cells(s)
        n = int(hit.sum())
        if n:
            if out is frame:
                out = frame.copy()
            out[col] = s.where(~hit, "'" + s.astype(str))
            changed += n
    return out, changed


def _formula_cells(column: pd.Series) -> np.ndarray:
    """Which cells look like formulas, judged once per distinct value (Python's own equality:
    pandas' string hashing stops at a NUL character, and "-1" is a number where "-1\\0" is not)."""
    values = column.to_numpy(dtype=object)
    try:
        verdict = {v: looks_like_formula(v) for v in set(values)}
    except TypeError:  # unhashable cells (lists): one judgement per cell
        return np.fromiter(map(looks_like_formula, values), bool, len(values))
    if not any(verdict.values()):
        return np.zeros(len(values), bool)
    return np.fromiter(map(verdict.__getitem__, values), bool, len(values))


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


def check_column_names(columns, fmt: str) -> None:
    """Raise naming the first column the format cannot hold (and the rule it breaks)."""
    rule = _NAME_RULES.get(fmt)
    if rule is None:
        return
    pattern, words = rule
    reserved = _RESERVED.get(fmt, set())
    what = _FORMAT_NAME[fmt]
    for c in columns:
        name = str(c)
        if not pattern.match(name):
            raise OutputError(f"column {name!r} is not a valid {what} variable name ({words})")
        if fmt == "spss" and len(name.encode("utf-8")) > _SPSS_NAME_BYTES:
            raise OutputError(
                f"column {name!r} is not a valid SPSS variable name (at most 64 bytes)"
            )
        if name in reserved or (fmt == "spss" and name.upper() in reserved):
            raise OutputError(f"column {name!r} is a reserved word in {what}: rename it")


def check_text_lengths(frame: pd.DataFrame, fmt: str) -> None:
    """Raise naming the first column holding text longer than the format's cell limit."""
    limit = _TEXT_LIMIT.get(fmt)
    if limit is None:
        return
    most, unit = limit
    for col in frame.columns:
        s = frame[col]
        if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            continue
        text = s[s.map(lambda v: isinstance(v, str))]
        if text.empty:
            continue
        sizes = text.map(len) if unit == "characters" else text.map(lambda v: len(v.encode()))
        longest = int(sizes.max())
        if longest > most:
            raise OutputError(
                f"column {col!r} holds a value of {longest:,} {unit}; {_FORMAT_NAME[fmt]} cells "
                f"hold at most {most:,} {unit} (shorten it or write CSV or Parquet)"
            )


def _check_excel(frame: pd.DataFrame) -> None:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if len(frame) + 1 > _EXCEL_MAX_ROWS or frame.shape[1] > _EXCEL_MAX_COLUMNS:
        raise OutputError(
            f"{len(frame):,} rows × {frame.shape[1]:,} columns do not fit an Excel sheet "
            f"({_EXCEL_MAX_ROWS - 1:,} rows, {_EXCEL_MAX_COLUMNS:,} columns): write CSV or Parquet"
        )
    for col in frame.columns:
        values = [str(col)] + [v for v in frame[col] if isinstance(v, str)]
        if any(ILLEGAL_CHARACTERS_RE.search(v) for v in values):
            raise OutputError(
                f"column {col!r} holds control characters that Excel cannot store: "
                f"write CSV or Parquet"
            )


def _write_excel(frame: pd.DataFrame, path: Path) -> None:
    """Every text cell stays text: openpyxl would store ``=…`` as a live formula (and lose it)."""
    with pd.ExcelWriter(path, engine="openpyxl") as xw:
        frame.to_excel(xw, index=False)
        for ws in xw.sheets.values():
            for row in ws.iter_rows():
                for cell in row:
                    if cell.data_type == "f":
                        cell.data_type = "s"


ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the first date a zip entry can hold
_XLSX_STAMP = re.compile(rb"(<dcterms:(?:created|modified)\b[^>]*>)[^<]*(</dcterms:)")


def _pin_xlsx_times(path: Path) -> None:
    """The same table gives the same bytes: openpyxl stamps the time of writing into the
    workbook's properties and into every zip entry (and would date a release); both are set to
    ``ZIP_EPOCH``."""
    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w") as out:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = _XLSX_STAMP.sub(rb"\g<1>1980-01-01T00:00:00Z\g<2>", data)
            pinned = zipfile.ZipInfo(info.filename, date_time=ZIP_EPOCH)
            pinned.compress_type = info.compress_type
            pinned.external_attr = info.external_attr
            out.writestr(pinned, data)


def table_writer(
    ds: Dataset | pd.DataFrame, target, *, neutralize: bool = True
) -> Callable[[Path], None]:
    """Check that ``ds`` fits the format of ``target`` (from its suffix) and return the function
    that writes it to a given path. Every refusal happens here, before anything is written."""
    if isinstance(ds, pd.DataFrame):
        ds = Dataset(ds)
    target = Path(target)
    fmt = detect_format(target) if target.suffix else "csv"
    if fmt == "sas" and target.suffix.lower() != ".xpt":
        raise OutputError("SAS output is written as transport files (.xpt)")
    if target.suffix.lower() == ".por":
        raise OutputError(
            "SPSS portable files (.por) are not written: they upper-case names and drop value "
            "labels; write .sav (or .zsav, compressed)"
        )
    frame = ds.frame
    check_column_names(frame.columns, fmt)
    check_text_lengths(frame, fmt)
    if fmt == "excel":
        _check_excel(frame)
    if fmt == "csv" and neutralize:
        frame, _ = neutralize_formulas(frame)

    def write(path: Path) -> None:
        if fmt == "csv":
            sep = ds.options.get("sep", ",") if ds.format == "csv" else ","
            frame.to_csv(path, index=False, sep=sep)
        elif fmt == "parquet":
            frame.to_parquet(path, index=False)
        elif fmt == "excel":
            _write_excel(frame, path)
        else:
            _write_stat(ds, frame, path, fmt, compress=target.suffix.lower() == ".zsav")
        pin_write_times(path, fmt)

    return write


def pin_write_times(path: Path, fmt: str) -> None:
    """The same table gives the same bytes in every format: the writers that stamp the time of
    writing into a file (openpyxl, ReadStat) would date a release and make two runs with one key
    differ. CSV and Parquet carry no time."""
    if fmt == "excel":
        _pin_xlsx_times(path)
    elif fmt in ("stata", "spss", "sas"):
        _pin_stat_times(path, fmt)


def _write_stat(
    ds: Dataset, frame: pd.DataFrame, path: Path, fmt: str, compress: bool = False
) -> None:
    import pyreadstat

    labels = [ds.variable_labels.get(c) for c in frame.columns]
    value_labels = {c: v for c, v in ds.value_labels.items() if c in frame.columns}
    data = _stat_frame(frame)
    try:
        if fmt in ("stata", "spss"):
            # None = no label: pyreadstat takes it, its stubs say list[str]
            labelled: dict[str, Any] = {
                "column_labels": labels,
                "variable_value_labels": _numeric_keys(value_labels, data),
            }
            if fmt == "stata":
                pyreadstat.write_dta(data, str(path), **labelled)
            else:  # .zsav: SPSS's compressed form
                pyreadstat.write_sav(data, str(path), compress=compress, **labelled)
        elif fmt == "sas":
            # None = no label: pyreadstat takes it, its stubs say list[str]
            pyreadstat.write_xport(data, str(path), column_labels=labels)  # type: ignore[arg-type]
        else:  # pragma: no cover
            raise OutputError(f"cannot write format {fmt}")
    except (pyreadstat.PyreadstatError, pyreadstat.ReadstatError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise OutputError(f"cannot write {_FORMAT_NAME[fmt]}: {first}") from None


# ReadStat writes the time of writing into the header: Stata "dd Mon yyyy hh:mm" after a length
# byte; SPSS "dd Mon yy" + "hh:mm:ss" at bytes 92-109; SAS transport "ddMONyy:hh:mm:ss" as the
# created and modified times of the library and of the member (header records before OBS)
_STATA_STAMP = re.compile(rb"<timestamp>\x11[^<]{17}</timestamp>")
_XPT_STAMP = re.compile(rb"\d\d[A-Z]{3}\d\d:\d\d:\d\d:\d\d")
_XPT_DATA = re.compile(rb"HEADER RECORD\*{7}OBS")


def _pin_stat_times(path: Path, fmt: str) -> None:
    """The time of writing in a Stata, SPSS or SAS transport header is set to 1 January 1980, each
    field keeping its length."""
    with open(path, "r+b") as f:
        head = f.read(1 << 16)
        if fmt == "stata":
            pinned = _STATA_STAMP.sub(b"<timestamp>\x1101 Jan 1980 00:00</timestamp>", head, 1)
        elif fmt == "spss" and head[:4] in (b"$FL2", b"$FL3"):
            pinned = head[:92] + b"01 Jan 8000:00:00" + head[109:]
        elif fmt == "sas":
            end = m.start() if (m := _XPT_DATA.search(head)) else len(head)
            pinned = _XPT_STAMP.sub(b"01JAN80:00:00:00", head[:end]) + head[end:]
        else:
            return
        if pinned != head:
            f.seek(0)
            f.write(pinned)


def write_table(
    ds: Dataset | pd.DataFrame,
    target,
    *,
    private: bool = False,
    protect: Sequence = (),
    neutralize: bool = True,
) -> Path:
    """Write ``ds`` to ``target`` (format from its suffix), never half-written.

    ``neutralize`` (CSV only, on by default) makes formula-looking text inert; see
    ``neutralize_formulas``."""
    if isinstance(ds, pd.DataFrame):
        ds = Dataset(ds)
    target = Path(target)
    protect = tuple(protect) + ((ds.path,) if ds.path else ())
    check_output_file(target, protect)
    write = table_writer(ds, target, neutralize=neutralize)
    with atomic_path(target, private=private, protect=protect) as tmp:
        write(tmp)
    return target


def _numeric_keys(value_labels: dict, data: pd.DataFrame) -> dict:
    """Value labels survive only on numeric columns (Stata/SPSS rule); drop those that no longer fit."""
    out = {}
    for col, mapping in value_labels.items():
        if col in data.columns and pd.api.types.is_numeric_dtype(data[col].dtype):
            out[col] = mapping
    return out
