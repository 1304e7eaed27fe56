"""Reading a user's files: the one place below the jobs layer that opens them (issue 15).

The library takes what these return (text, bytes, frames) and parses it; each reader keeps the
exceptions of the plain read (``FileNotFoundError``, ``UnicodeDecodeError``…) so that callers
turn them into the same one-line errors as before. Package data shipped inside hidekit is read
with ``importlib.resources`` where it is used: that is not a user's file."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.errors import InputError
from hidekit.io.readers import decode_text, detect_delimiter


def read_text_file(path, keep_bom: bool = True) -> str:
    """UTF-8 text; anything else is an error naming the file.

    A byte-order mark is kept as U+FEFF by default: brat counts it as a character, so dropping
    it would shift every offset by one (MEDDOCAN has such files).
    """
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8" if keep_bom else "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: {_not_utf8(raw, exc.start)}") from exc
    return text


def _not_utf8(raw: bytes, offset: int) -> str:
    """Why a file is not UTF-8, and what to do: offsets in brat files count characters, so
    hidekit reads notes in one encoding rather than guessing one per file."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return (
            "not UTF-8 text but UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8"
        )
    return (
        f"not UTF-8 text (invalid byte at offset {offset}); if it is Windows text, convert "
        "it first, e.g. iconv -f cp1252 -t utf-8"
    )


def read_utf8(path) -> str:
    """The file as UTF-8 text; the read's own exceptions pass through for the caller to word."""
    return Path(path).read_text(encoding="utf-8")


def read_file_bytes(path) -> bytes:
    """The file's bytes; the read's own exceptions pass through for the caller to word."""
    return Path(path).read_bytes()


def read_head_bytes(path, size: int = 1 << 20) -> bytes:
    """The first ``size`` bytes of a file: enough to estimate its lines from its size."""
    with open(path, "rb") as fh:
        return fh.read(size)


def read_head_text(
    path, chars: int = 65536, encoding: str = "utf-8", newline: str | None = None
) -> str:
    """The first ``chars`` characters of a text file (bad bytes replaced): enough to sniff."""
    with open(path, encoding=encoding, errors="replace", newline=newline) as fh:
        return fh.read(chars)


_CHUNK = 1 << 24


def file_encoding(path) -> str:
    """The encoding ``read_table`` would use for the whole file (a byte-order mark, else the first
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


def file_holds(path, needle: bytes) -> bool:
    """Whether the file holds ``needle`` (one byte), read by chunks."""
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            if needle in chunk:
                return True
    return False


def sample_csv_rows(
    path: Path, sample: int, seed: int, sep: str | None
) -> tuple[pd.DataFrame, int]:
    """One pass, bounded memory: keep the rows with the ``sample`` smallest seeded random keys;
    and the number of rows read."""
    with open(path, "rb") as fh:
        head = fh.read(65536).decode("utf-8", errors="replace")
    rng = np.random.default_rng(seed)
    keep: pd.DataFrame | None = None
    total = 0
    reader = pd.read_csv(
        path,
        sep=sep or detect_delimiter(head),
        dtype=str,
        keep_default_na=False,
        na_values=[""],
        chunksize=250_000,
        encoding="utf-8",
        encoding_errors="replace",
    )
    for chunk in reader:
        total += len(chunk)
        chunk = chunk.assign(_hk_key=rng.random(len(chunk)))
        both = chunk if keep is None else pd.concat([keep, chunk])
        keep = both.nsmallest(sample, "_hk_key")
    frame = keep.sort_index().drop(columns="_hk_key") if keep is not None else pd.DataFrame()
    return frame, total


def brat_folder_files(folder, ann: str = "require") -> Iterator[tuple[str, str, str | None, str]]:
    """The texts of a brat folder, one ``.txt`` at a time in name order, as (name, text, the
    ``.ann``'s text or None, the ``.ann``'s path for messages); ``hidekit.text.corpus`` parses
    them. ``ann``: "require" (a missing ``.ann`` is an error), "optional" or "skip" (not read).
    One file at a time, so the first bad file is the one named, as when reading and parsing
    went together."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    txts = sorted(folder.glob("*.txt"))
    if not txts:
        raise InputError(f"{folder}: no .txt files")
    for txt in txts:
        text = read_text_file(txt)
        path = txt.with_suffix(".ann")
        ann_text = None
        if ann != "skip" and path.exists():
            ann_text = read_text_file(path, keep_bom=False)
        elif ann == "require":
            raise InputError(f"{path}: missing (every .txt needs its .ann)")
        yield txt.stem, text, ann_text, str(path)


def files_matching(folder, pattern: str) -> list[Path]:
    """The files of ``folder`` whose names match ``pattern`` (``*.ann``), in name order."""
    return sorted(Path(folder).glob(pattern))
