"""Writing what the library only computes, and reading it back: new key files, encrypted
crosswalks and mappings (owner-only, in the private folder), report pages and trained models.
The formats and the private folder's place are the library's (``hidekit.transforms.crosswalk``,
``hidekit.transforms.private``, ``hidekit.report``); the files are written here, atomically
(``hidekit.io.atomic``), and a crosswalk is read back here (``read_crosswalk``)."""

from __future__ import annotations

import base64
import io
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from hidekit.errors import InputError, OptionError
from hidekit.io import write_bytes_atomic, write_text_atomic
from hidekit.io.atomic import atomic_path
from hidekit.io.files import read_file_bytes
from hidekit.secrets import load_key
from hidekit.transforms.crosswalk import (
    CROSSWALK_SUFFIX,
    decrypt_frame,
    encrypt_frame,
    encrypt_rows,
    json_pieces,
)
from hidekit.transforms.private import NEW_KEY_NAME


def new_key_file(path) -> Path:
    """A fresh key file: 32 random bytes, base64, owner-only. Never overwrites."""
    p = Path(path)
    if p.exists():
        raise OptionError(
            f"{p} exists: refusing to overwrite a key (data encrypted with it would be lost)"
        )
    key = base64.b64encode(os.urandom(32)).decode("ascii")
    return write_text_atomic(p, key + "\n", private=True)


@dataclass
class SealedCrosswalk:
    """A crosswalk encrypted ahead of its writing (``seal_crosswalk``): the file's bytes."""

    envelope: io.BytesIO


def seal_crosswalk(frame: pd.DataFrame, *, passphrase=None, key_file=None) -> SealedCrosswalk:
    """``frame`` encrypted now, by pieces of rows (no whole payload in memory), for
    ``write_crosswalk`` to write later: what it would write for ``frame``."""
    out = io.BytesIO()
    encrypt_rows(
        [str(c) for c in frame.columns],
        json_pieces(frame),
        out,
        passphrase=passphrase,
        key_file=key_file,
    )
    return SealedCrosswalk(out)


def write_crosswalk(
    frame: pd.DataFrame | SealedCrosswalk,
    path,
    *,
    passphrase=None,
    key_file=None,
    protect: tuple = (),
) -> Path:
    """Encrypt ``frame`` to ``path`` atomically with owner-only permissions. A crosswalk held
    by Spark (``json_rows``: its rows in pieces) is encrypted as it comes, one partition on the
    driver at a time; a sealed one (``seal_crosswalk``) is written as it is."""
    if isinstance(frame, SealedCrosswalk):
        return write_bytes_atomic(path, frame.envelope.getbuffer(), private=True, protect=protect)
    rows = getattr(frame, "json_rows", None)
    if rows is None:
        blob = encrypt_frame(frame, passphrase=passphrase, key_file=key_file)
        return write_bytes_atomic(path, blob, private=True, protect=protect)
    with atomic_path(path, private=True, protect=protect) as tmp, open(tmp, "wb") as out:
        encrypt_rows(list(frame.columns), rows(), out, passphrase=passphrase, key_file=key_file)
    return Path(path)


def write_private_frame(
    frame: pd.DataFrame | SealedCrosswalk, folder: Path, stem: str, secret: dict
) -> str:
    """``frame`` encrypted as ``folder/stem.hkcw`` (owner-only); returns the file name."""
    name = f"{stem}{CROSSWALK_SUFFIX}"
    write_crosswalk(frame, Path(folder) / name, **secret)
    return name


def secret_or_new_key(secret: dict | None, folder: Path) -> tuple[dict, str | None]:
    """The secret to encrypt with; without one, a fresh 32-byte key written (owner-only) into
    ``folder`` (the private folder being built). Returns the secret and the new key's name."""
    if secret:
        return secret, None
    return {"key_file": load_key(new_key_file(Path(folder) / NEW_KEY_NAME))}, NEW_KEY_NAME


def save_report(report, path, protect: tuple = ()) -> str:
    """A report page (``hidekit.report.Report``: ``html()``) written atomically; ``protect``
    lists inputs the path must not be."""
    write_text_atomic(path, report.html(), protect=protect)
    return str(path)


def save_model(model, path, protect: tuple = ()) -> Path:
    """A trained detector (``to_bytes()``) written owner-only (0600): a model's feature names
    hold words of its training notes."""
    return write_bytes_atomic(Path(path), model.to_bytes(), private=True, protect=protect)


def read_crosswalk(path, *, passphrase=None, key_file=None) -> pd.DataFrame:
    """An encrypted crosswalk or mapping file (``write_crosswalk``) as its frame; the decryption
    is the library's (``hidekit.transforms.crosswalk.decrypt_frame``)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"crosswalk {p}: no such file")
    return decrypt_frame(
        read_file_bytes(p), passphrase=passphrase, key_file=key_file, source=str(p)
    )
