"""Read any table a custodian is likely to hold, keeping its labels.

CSV (delimiter detected among , ; tab |), Parquet, Stata .dta, SPSS .sav/.zsav, SAS .sas7bdat/.xpt,
Excel, and in-memory pandas / Polars / Arrow tables. Empty cells are missing values.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.errors import InputError, check_separator
from hidekit.io.dataset import Dataset

CSV_DELIMITERS = [",", ";", "\t", "|"]
_SUFFIX_FORMAT = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".dta": "stata",
    ".sav": "spss",
    ".zsav": "spss",
    ".por": "spss",
    ".sas7bdat": "sas",
    ".xpt": "sas",
    ".xlsx": "excel",
    ".xls": "excel",
    ".xlsm": "excel",
}
ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")


def detect_format(path: Path) -> str:
    fmt = _SUFFIX_FORMAT.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"{path}: unknown file type {path.suffix!r} "
            f"(expected one of {', '.join(sorted(_SUFFIX_FORMAT))})"
        )
    return fmt


def detect_delimiter(sample: str) -> str:
    """Pick the delimiter among , ; tab | that splits the sample's lines most consistently."""
    lines = [ln for ln in sample.splitlines() if ln.strip()][:50]
    if not lines:
        return ","
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters="".join(CSV_DELIMITERS)).delimiter
    except csv.Error:
        pass
    best, best_score = ",", -1.0
    for d in CSV_DELIMITERS:
        counts = [ln.count(d) for ln in lines]
        if counts[0] == 0:
            continue
        same = sum(c == counts[0] for c in counts) / len(counts)
        score = same * 1000 + counts[0]
        if score > best_score:
            best, best_score = d, score
    return best


# Longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def bom_encoding(raw: bytes) -> str | None:
    """The encoding a byte-order mark announces (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE), or None."""
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            return enc
    return None


def decode_text(raw: bytes, path, encoding: str | None = None) -> tuple[str, str]:
    """(text, encoding used) of a side file or CSV: a byte-order mark decides, then UTF-8, then
    cp1252; NUL bytes (a binary file) are refused naming ``path``."""
    if encoding:
        try:
            return raw.decode(encoding), encoding
        except (UnicodeDecodeError, LookupError) as exc:
            raise InputError(f"{path}: not valid {encoding}: {exc}") from exc
    marked = bom_encoding(raw)
    if marked:  # Excel's "Unicode text" is UTF-16 with a BOM: never guess cp1252 over it
        try:
            return raw.decode(marked), marked
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path}: starts with a {marked} byte-order mark but is not valid {marked} "
                f"at byte {exc.start}"
            ) from exc
    if b"\x00" in raw[:4096]:
        raise InputError(
            f"{path}: holds NUL bytes: a binary file, or UTF-16/32 text without a byte-order mark"
        )
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    # cp1252 is the common legacy encoding of survey CSVs; latin-1 decodes anything.
    for enc in ("cp1252", "latin-1"):
        try:
            return raw.decode(enc), enc
        except UnicodeDecodeError:
            continue
    raise InputError(f"{path}: cannot decode the file")  # pragma: no cover


def read_csv(path: Path, sep: str | None = None, encoding: str | None = None) -> Dataset:
    raw = path.read_bytes()
    if not raw.strip():
        raise InputError(f"{path}: the file is empty")
    text, used = decode_text(raw, path, encoding)
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    if sep is not None:
        sep = check_separator({"\\t": "\t", "tab": "\t"}.get(sep, sep))
    delimiter = sep or detect_delimiter(text[:65536])
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=delimiter,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skipinitialspace=False,
        )
    except pd.errors.EmptyDataError as exc:
        raise InputError(f"{path}: the file is empty") from exc
    except pd.errors.ParserError as exc:
        raise InputError(
            f"{path}: cannot parse as CSV with delimiter {delimiter!r}: "
            + " ".join(str(exc).split())
        ) from exc
    except (ValueError, csv.Error) as exc:
        raise InputError(f"{path}: cannot read as CSV: " + " ".join(str(exc).split())) from exc
    _refuse_repeated_names(text, delimiter, path)
    frame = _infer_numeric(frame)
    return Dataset(frame, "csv", path, options={"sep": delimiter, "encoding": used})


def csv_header_names(text: str, delimiter: str, path: Path) -> list[str]:
    """The column names ``read_table`` gives a CSV whose text starts with ``text``; a repeated
    name is refused as ``read_table`` refuses it (for readers that parse the rest themselves)."""
    _refuse_repeated_names(text, delimiter, path)
    return [str(n) for n in pd.read_csv(io.StringIO(text), sep=delimiter, nrows=0).columns]


def _refuse_repeated_names(text: str, delimiter: str, path: Path) -> None:
    """pandas renames a repeated header name (``age``, ``age.1``): a release would then carry a
    column the custodian never named, and ``--keys age`` would silently pick one of the two."""
    first = _first_record(text, delimiter)
    names = [str(n) for n in first.iloc[0].tolist()] if len(first) else []
    # blank names (trailing delimiters of a spreadsheet's export) stay "Unnamed: N", visibly so
    repeated = sorted({n for n in names if n and names.count(n) > 1})
    if repeated:
        shown = ", ".join(repr(n) for n in repeated)
        raise InputError(
            f"{path}: the header repeats column name(s) {shown}: name each column once"
        )


def _first_record(text: str, delimiter: str, prefix: int = 1 << 16) -> pd.DataFrame:
    """The file's first record as pandas reads it, from the text's first ``prefix`` characters
    when a second record starts within them (the first is then whole), else from all the text
    (wrapping a large file's whole text again cost 0.3 s per million rows)."""

    def parse(part: str, rows: int) -> pd.DataFrame:
        return pd.read_csv(
            io.StringIO(part), sep=delimiter, header=None, nrows=rows, dtype=str,
            keep_default_na=False,
        )  # fmt: skip

    if len(text) > prefix:
        try:
            head = parse(text[:prefix], 2)
        except (pd.errors.ParserError, ValueError, csv.Error):
            head = None  # the cut fell inside a quoted value: read the whole text
        if head is not None and len(head) == 2:
            return head.iloc[:1]
    return parse(text, 1)


# A decimal number as text. Not "\d+\.?\d*": on a long run of digits that does not end a number
# the two digit runs split it every way, which takes time quadratic in its length. ASCII digits
# and white space only: pandas' to_numeric reads nothing else (Arabic-Indic digits, U+00A0), and
# every reader (pandas, Arrow, Spark) uses these same patterns.
NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
SPACE = r"[\t\n\x0b\x0c\r ]"
LEADING_ZERO = rf"{SPACE}*[-+]?0[0-9]"  # matched at the start
WHOLE = rf"{SPACE}*[-+]?[0-9]+{SPACE}*"  # matched whole
DECIMAL = rf"{SPACE}*{NUMBER}{SPACE}*"  # matched whole
INT64 = (-(2**63), 2**63 - 1)


def beyond_int64(whole_numbers) -> bool:
    """Whether one of these whole numbers (as text) lies outside int64: such a column stays text
    (a long ID; a float would change its digits). Under 19 characters none can."""
    return any(len(v) >= 19 and not INT64[0] <= int(v) <= INT64[1] for v in whole_numbers)


def _infer_numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """Turn columns whose every present value is a number into numbers; leave the rest as text.

    A column of mixed numbers and words stays text: nothing is silently coerced to missing. The
    decision and the conversion run on each column's distinct values, then spread by codes.
    """
    out = {}
    for col in frame.columns:
        codes, uniques = pd.factorize(frame[col])  # missing -> -1
        typed = infer_values(pd.Series(uniques, dtype=object))
        if typed.dtype == object:
            out[col] = frame[col]
        else:
            out[col] = pd.Series(typed.array.take(codes, allow_fill=True), index=frame.index)
    return pd.DataFrame(out, index=frame.index)


def infer_values(values: pd.Series) -> pd.Series:
    """The values of one text column as hidekit reads them (``read_csv``'s numeric inference).

    Integers become Int64, other decimal numbers float64, anything else stays text; leading zeros
    (ZIP codes, IDs) and whole numbers beyond 64 bits (long IDs: a float would change their
    digits) keep the column as text. The answer depends only on the set of present values, so a
    column's distinct values decide for the whole column.
    """
    present = values.dropna()
    if not len(present) or present.str.match(LEADING_ZERO).any():
        return values
    if present.str.fullmatch(WHOLE).all():
        if beyond_int64(present[present.str.len() >= 19]):  # the length test vectorized first
            return values
        # nullable all the way: through float64, a missing value would round 17-digit numbers
        return pd.to_numeric(values, dtype_backend="numpy_nullable").astype("Int64")
    if present.str.fullmatch(DECIMAL).all():
        try:
            return pd.to_numeric(values)
        except ValueError:  # a whole number beyond 64 bits among decimals: pandas will not
            return values.astype("float64")
    return values


def _read_stat(path: Path, fmt: str, encoding: str | None) -> Dataset:
    from hidekit.io.stat_chunks import labels_of, stat_reader

    kwargs = {"encoding": encoding} if encoding else {}
    try:
        frame, meta = stat_reader(path, fmt)(str(path), **kwargs)
    except Exception as exc:  # pyreadstat raises its own ReadstatError / PyreadstatError
        raise InputError(f"{path}: cannot read as {fmt} file: {exc}") from exc
    var_labels, value_labels = labels_of(meta)
    frame = frame.replace({"": None}) if len(frame) else frame
    return Dataset(
        frame,
        fmt,
        path,
        variable_labels=var_labels,
        value_labels=value_labels,
        options={"file_encoding": getattr(meta, "file_encoding", None)},
    )


def read_table(
    source, *, sep: str | None = None, encoding: str | None = None, sheet: str | int | None = None
) -> Dataset:
    """Read a path or an in-memory table (pandas, Polars, Arrow, Dataset) into a Dataset."""
    if isinstance(source, Dataset):
        return source
    if isinstance(source, pd.DataFrame):
        refuse_nested_columns(source, "the table")
        return Dataset(source, "frame")
    frame = _from_foreign_frame(source)
    if frame is not None:
        refuse_nested_columns(frame, "the table")
        return Dataset(frame, "frame")
    path = Path(source)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a data file")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    fmt = detect_format(path)
    if fmt == "csv":
        ds = read_csv(path, sep=sep, encoding=encoding)
    elif fmt == "parquet":
        try:
            ds = Dataset(pd.read_parquet(path), "parquet", path)
        except Exception as exc:
            raise InputError(f"{path}: cannot read as Parquet: {exc}") from exc
    elif fmt == "excel":
        try:
            ds = Dataset(pd.read_excel(path, sheet_name=sheet or 0), "excel", path)
        except Exception as exc:
            raise InputError(f"{path}: cannot read as Excel: {exc}") from exc
    else:
        ds = _read_stat(path, fmt, encoding)
    if ds.frame.shape[1] == 0:
        raise InputError(f"{path}: no columns found")
    if fmt != "csv":
        refuse_nested_columns(ds.frame, str(path))
    return ds


_NESTED = (list, tuple, dict, set, frozenset, np.ndarray)
# what pandas' infer_dtype says of an object column that holds no list, map or array
_FLAT_KINDS = frozenset(
    {"string", "bytes", "empty", "integer", "floating", "mixed-integer-float", "boolean"}
)


def refuse_nested_columns(frame: pd.DataFrame, source: str) -> None:
    """Parquet (and in-memory tables) can hold lists or maps in a cell; every step counts and
    compares single values, so such a column is named in one line instead of failing deep inside
    (``unhashable type``)."""
    for col in frame.columns:
        s = frame[col]
        if s.dtype != object or pd.api.types.infer_dtype(s, skipna=True) in _FLAT_KINDS:
            continue  # infer_dtype: one C pass, so plain text columns cost no Python call per cell
        present = s.dropna()
        nested = present.map(lambda v: isinstance(v, _NESTED))
        if nested.any():
            example = present[nested].iloc[0]
            shown = repr(example.tolist() if isinstance(example, np.ndarray) else example)
            raise InputError(
                f"{source}: column {col!r} holds lists or maps (e.g. {shown[:40]}), not one "
                "value per cell: flatten or drop it first"
            )


def _from_foreign_frame(source) -> pd.DataFrame | None:
    mod = type(source).__module__
    if mod.startswith("polars"):
        return source.to_pandas()
    if mod.startswith("pyarrow"):
        return source.to_pandas()
    return None
