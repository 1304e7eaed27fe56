"""Crosswalks on disk: encrypted (AES-256-GCM), owner-only, readable only with the secret.

A crosswalk maps identifiers to codes, so it is as sensitive as the raw data. The key comes from
a passphrase (scrypt) or from a key file of random bytes (HKDF-SHA256). The file is a small JSON
envelope; its header is authenticated, so a wrong passphrase, a wrong key file and a tampered file
all fail the same clean way, and nothing is written on failure.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.errors import InputError, OptionError
from hidekit.io import write_bytes_atomic, write_text_atomic

FORMAT = "hidekit-crosswalk"
CROSSWALK_SUFFIX = ".hkcw"
SCRYPT = {"n": 2**15, "r": 8, "p": 1}
KEY_FILE_MIN_BYTES = 32


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s.encode("ascii"), validate=True)


def read_secret_file(path, what: str = "passphrase") -> bytes:
    """The secret in a file, trailing newline removed; refuses a missing or empty file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{what} file {p}: no such file")
    data = p.read_bytes().rstrip(b"\r\n")
    if not data:
        raise OptionError(f"{what} file {p} is empty")
    return data


KEY_MIN_DISTINCT_BYTES = 8


def check_key_strength(key: bytes, what: str, min_bytes: int) -> bytes:
    """Refuse a key too short or with too few different bytes to be random (``'0' * 32``).

    A key made by ``hidekit new-key`` (base64 of 32 random bytes) has about 28 different
    characters; a hex key about 15; fewer than 8 different bytes means a key typed or padded by
    hand, which an attacker can guess long before trying 2^128 keys.
    """
    if len(key) < min_bytes:
        raise OptionError(
            f"{what} is too short: it needs at least {min_bytes} bytes of random data "
            f"(got {len(key)}; make one with hidekit new-key)"
        )
    distinct = len(set(key))
    if distinct < KEY_MIN_DISTINCT_BYTES:
        raise OptionError(
            f"{what} is not random: its {len(key)} bytes use only {distinct} different "
            f"value(s) (at least {KEY_MIN_DISTINCT_BYTES} needed; make one with hidekit new-key)"
        )
    return key


def read_key_file(path) -> bytes:
    """A key file's bytes, refused when missing, empty, short or visibly not random."""
    return check_key_strength(read_secret_file(path, "key"), f"key file {path}", KEY_FILE_MIN_BYTES)


def new_key_file(path) -> Path:
    """A fresh key file: 32 random bytes, base64, owner-only. Never overwrites."""
    p = Path(path)
    if p.exists():
        raise OptionError(
            f"{p} exists: refusing to overwrite a key (data encrypted with it would be lost)"
        )
    return write_text_atomic(p, _b64(os.urandom(32)) + "\n", private=True)


def _derive(kdf: dict, passphrase, key_file) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    salt = _unb64(kdf["salt"])
    if kdf["name"] == "scrypt":
        if passphrase is None:
            raise OptionError("this crosswalk is protected by a passphrase: give --passphrase-file")
        secret = passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)
        if not secret:
            raise OptionError("the passphrase is empty")
        return Scrypt(salt=salt, length=32, n=kdf["n"], r=kdf["r"], p=kdf["p"]).derive(secret)
    if kdf["name"] == "hkdf-sha256":
        if key_file is None:
            raise OptionError("this crosswalk is protected by a key file: give --key-file")
        secret = read_key_file(key_file)
        return HKDF(
            algorithm=hashes.SHA256(), length=32, salt=salt, info=b"hidekit crosswalk"
        ).derive(secret)
    raise InputError(f"unknown key derivation {kdf['name']!r}")


def _jsonable(v):
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (int, float, str, bool)):
        return v
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    return str(v)


def encrypt_frame(frame: pd.DataFrame, *, passphrase=None, key_file=None) -> bytes:
    """The envelope bytes for ``frame`` (values kept as str/int/float/None, columns in order)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if (passphrase is None) == (key_file is None):
        raise OptionError("encrypt the crosswalk with exactly one of a passphrase or a key file")
    salt = os.urandom(16)
    kdf = (
        {"name": "scrypt", "salt": _b64(salt), **SCRYPT}
        if passphrase is not None
        else {"name": "hkdf-sha256", "salt": _b64(salt)}
    )
    key = _derive(kdf, passphrase, key_file)
    nonce = os.urandom(12)
    header = {
        "format": FORMAT,
        "version": 1,
        "cipher": "AES-256-GCM",
        "kdf": kdf,
        "nonce": _b64(nonce),
    }
    payload = json.dumps(
        {
            "columns": [str(c) for c in frame.columns],
            "data": [
                [_jsonable(v) for v in row] for row in frame.itertuples(index=False, name=None)
            ],
        },
        ensure_ascii=False,
    ).encode("utf-8")
    aad = json.dumps(header, sort_keys=True).encode("utf-8")
    header["ciphertext"] = _b64(AESGCM(key).encrypt(nonce, payload, aad))
    return (json.dumps(header, indent=1) + "\n").encode("utf-8")


def decrypt_frame(
    blob: bytes, *, passphrase=None, key_file=None, source: str = "crosswalk"
) -> pd.DataFrame:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        header = json.loads(blob.decode("utf-8"))
        if header.get("format") != FORMAT:
            raise ValueError
        ciphertext = _unb64(header.pop("ciphertext"))
        nonce = _unb64(header["nonce"])
        kdf = header["kdf"]
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise InputError(f"{source}: not a hidekit crosswalk file") from None
    key = _derive(kdf, passphrase, key_file)
    aad = json.dumps(header, sort_keys=True).encode("utf-8")
    try:
        payload = json.loads(AESGCM(key).decrypt(nonce, ciphertext, aad).decode("utf-8"))
    except InvalidTag:
        raise InputError(
            f"{source}: cannot decrypt: wrong passphrase or key file, or the file was altered"
        ) from None
    return pd.DataFrame(payload["data"], columns=payload["columns"], dtype=object)


def write_crosswalk(
    frame: pd.DataFrame, path, *, passphrase=None, key_file=None, protect: tuple = ()
) -> Path:
    """Encrypt ``frame`` to ``path`` atomically with owner-only permissions."""
    blob = encrypt_frame(frame, passphrase=passphrase, key_file=key_file)
    return write_bytes_atomic(path, blob, private=True, protect=protect)


def read_crosswalk(path, *, passphrase=None, key_file=None) -> pd.DataFrame:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"crosswalk {p}: no such file")
    return decrypt_frame(p.read_bytes(), passphrase=passphrase, key_file=key_file, source=str(p))
