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
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np
import pandas as pd

from hidekit.errors import InputError, OptionError
from hidekit.secrets import KEY_MIN_BYTES, read_secret_file

FORMAT = "hidekit-crosswalk"
CROSSWALK_SUFFIX = ".hkcw"
SCRYPT = {"n": 2**15, "r": 8, "p": 1}
KEY_FILE_MIN_BYTES = KEY_MIN_BYTES


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s.encode("ascii"), validate=True)


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
        if isinstance(key_file, (bytes, bytearray)):  # a key already read (file or env)
            secret = check_key_strength(bytes(key_file), "the key", KEY_FILE_MIN_BYTES)
        else:
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


def _json_rows(frame: pd.DataFrame) -> list[list]:
    """The frame's rows as lists of ``_jsonable`` values, built column by column."""
    if not len(frame.columns):
        return [[] for _ in range(len(frame))]
    columns = [_json_column(frame.iloc[:, i]) for i in range(frame.shape[1])]
    return [list(row) for row in zip(*columns, strict=True)]


def _json_column(s: pd.Series) -> list:
    """``_jsonable`` of every cell of one column; text and plain number columns in one pass."""
    text = s.dtype == object and pd.api.types.infer_dtype(s, skipna=False) == "string"
    if s.dtype == np.int64 or text:
        return s.tolist()  # Python ints, or str throughout (no missing value)
    if s.dtype == np.float64:
        return [None if v != v else v for v in s.tolist()]
    return [_jsonable(v) for v in s]


def json_pieces(frame: pd.DataFrame, rows: int = 500_000) -> Iterable[bytes]:
    """The payload's data for ``encrypt_rows``: ``rows`` rows of ``frame`` at a time as JSON
    arrays joined by ``", "`` (the text ``encrypt_frame``'s payload holds), so a crosswalk of
    millions of rows is never one payload in memory."""
    head = len(_payload_head(frame).encode("utf-8")) - 2
    for at in range(0, len(frame), rows):
        part = frame.iloc[at : at + rows]
        text = _text_payload(part)
        if text is not None:
            yield text[head:-2]
        else:
            yield json.dumps(_json_rows(part), ensure_ascii=False)[1:-1].encode("utf-8")


def _payload_head(frame: pd.DataFrame) -> str:
    return json.dumps({"columns": [str(c) for c in frame.columns], "data": []}, ensure_ascii=False)


def _text_payload(frame: pd.DataFrame) -> bytes | None:
    """``json.dumps`` of the payload, byte for byte, built by Arrow when every cell is text that
    JSON writes as it is (no quote, backslash or control character; a crosswalk of IDs): a
    list per row in Python cost 8 s per million rows. None otherwise (then ``json.dumps``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(frame) or not len(frame.columns):
        return None
    cells = []
    for i in range(frame.shape[1]):
        s = frame.iloc[:, i]
        if s.dtype != object or pd.api.types.infer_dtype(s, skipna=False) != "string":
            return None
        try:
            arr = pa.array(s.to_numpy(dtype=object), pa.string())
        except (pa.ArrowException, UnicodeEncodeError):
            return None
        if pc.any(pc.match_substring_regex(arr, r'["\\\x00-\x1f\x7f]')).as_py():
            return None  # json.dumps escapes these (and DEL is kept as is: left to it)
        cells.append(pc.binary_join_element_wise('"', arr, '"', ""))
    try:
        rows = pc.binary_join_element_wise("[", pc.binary_join_element_wise(*cells, ", "), "]", "")
        rows = pc.binary_join_element_wise(rows, ", ", "")  # each row then its separator
    except pa.ArrowException:  # over 2 GB of text: json.dumps
        return None
    rows = rows.combine_chunks() if isinstance(rows, pa.ChunkedArray) else rows
    offsets = np.frombuffer(rows.buffers()[1], np.int32)[rows.offset : rows.offset + len(rows) + 1]
    body = rows.buffers()[2].to_pybytes()[int(offsets[0]) : int(offsets[-1]) - 2]
    head = _payload_head(frame)
    return head[:-2].encode("utf-8") + body + head[-2:].encode("utf-8")


def _envelope(passphrase, key_file) -> tuple[bytes, bytes, dict]:
    """A fresh (key, nonce, header) for one crosswalk: salt and nonce from the OS."""
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
    return key, nonce, header


def encrypt_frame(frame: pd.DataFrame, *, passphrase=None, key_file=None) -> bytes:
    """The envelope bytes for ``frame`` (values kept as str/int/float/None, columns in order)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key, nonce, header = _envelope(passphrase, key_file)
    payload = _text_payload(frame)
    if payload is None:
        payload = json.dumps(
            {"columns": [str(c) for c in frame.columns], "data": _json_rows(frame)},
            ensure_ascii=False,
        ).encode("utf-8")
    aad = json.dumps(header, sort_keys=True).encode("utf-8")
    header["ciphertext"] = _b64(AESGCM(key).encrypt(nonce, payload, aad))
    return (json.dumps(header, indent=1) + "\n").encode("utf-8")


def encrypt_rows(
    columns: list[str],
    rows: Iterable[str | bytes],
    out: BinaryIO,
    *,
    passphrase=None,
    key_file=None,
) -> None:
    """The envelope of a table too large for memory, written to ``out`` as it is encrypted:
    ``rows`` are pieces of the payload's data (JSON arrays joined by ``", "``; text, or its
    UTF-8 bytes), in order. The
    file reads back with ``decrypt_frame`` like ``encrypt_frame``'s (the same AES-256-GCM over
    the same kind of payload, its base64 written by pieces)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key, nonce, header = _envelope(passphrase, key_file)
    aad = json.dumps(header, sort_keys=True).encode("utf-8")
    mark = "CIPHERTEXT"
    before, after = (json.dumps({**header, "ciphertext": mark}, indent=1) + "\n").split(mark)
    encryptor = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
    encryptor.authenticate_additional_data(aad)
    out.write(before.encode("utf-8"))
    left = b""  # ciphertext not yet written: base64 goes by whole groups of 3 bytes

    def put(plain: bytes) -> None:
        nonlocal left
        data = left + encryptor.update(plain)
        cut = len(data) - len(data) % 3
        out.write(base64.b64encode(data[:cut]))
        left = data[cut:]

    head = json.dumps({"columns": [str(c) for c in columns], "data": []}, ensure_ascii=False)
    put(head[:-2].encode("utf-8"))
    first = True
    for piece in rows:
        if piece:
            data = piece.encode("utf-8") if isinstance(piece, str) else piece
            put(data if first else b", " + data)
            first = False
    put(head[-2:].encode("utf-8"))
    encryptor.finalize()
    out.write(base64.b64encode(left + encryptor.tag))
    out.write(after.encode("utf-8"))


# scrypt's cost is chosen by whoever wrote the header: bound it, or a tampered header asks for
# 16 GB (n = 2^24, r = 8). hidekit writes n = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s).
SCRYPT_MAX_N = 2**20
SCRYPT_MAX_MEMORY = 256 * 2**20  # bytes: 128 * n * r
SCRYPT_MAX_P = 16
NONCE_BYTES = 12
MIN_SALT_BYTES = 16
GCM_TAG_BYTES = 16


def _field_bytes(table: dict, name: str, source: str, where: str = "") -> bytes:
    v = table.get(name)
    if not isinstance(v, str):
        raise InputError(f"{source}: crosswalk header{where} has no {name} (or it is not text)")
    try:
        return _unb64(v)
    except (ValueError, UnicodeEncodeError):
        raise InputError(f"{source}: crosswalk header{where} {name} is not valid base64") from None


def _small_int(kdf: dict, name: str, lo: int, hi: int, source: str) -> int:
    v = kdf.get(name)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(
            f"{source}: crosswalk scrypt parameter {name} must be a whole number from {lo} to "
            f"{hi}, got {v!r}"
        )
    return v


def check_header(header: dict, source: str) -> tuple[bytes, bytes, dict]:
    """Every header field checked before any key derivation: (ciphertext, nonce, kdf).

    The header is authenticated, but only after the key is derived from it, so its fields are
    untrusted until then: types, base64, lengths, and scrypt's cost all get a one-line error.
    """
    if header.get("version") != 1:
        raise InputError(
            f"{source}: crosswalk format version {header.get('version')!r} is not supported "
            "(this hidekit reads version 1)"
        )
    if header.get("cipher") != "AES-256-GCM":
        raise InputError(f"{source}: unknown crosswalk cipher {header.get('cipher')!r}")
    nonce = _field_bytes(header, "nonce", source)
    if len(nonce) != NONCE_BYTES:
        raise InputError(
            f"{source}: crosswalk nonce has {len(nonce)} bytes, AES-GCM needs {NONCE_BYTES}"
        )
    ciphertext = _field_bytes(header, "ciphertext", source)
    if len(ciphertext) < GCM_TAG_BYTES:
        raise InputError(f"{source}: crosswalk ciphertext is truncated")
    kdf = header.get("kdf")
    if not isinstance(kdf, dict):
        raise InputError(f"{source}: crosswalk header has no key derivation (kdf)")
    salt = _field_bytes(kdf, "salt", source, " kdf")
    if len(salt) < MIN_SALT_BYTES:
        raise InputError(
            f"{source}: crosswalk salt has {len(salt)} bytes, at least {MIN_SALT_BYTES} needed"
        )
    if kdf.get("name") == "scrypt":
        n = _small_int(kdf, "n", 2, SCRYPT_MAX_N, source)
        if n & (n - 1):
            raise InputError(
                f"{source}: crosswalk scrypt parameter n must be a power of 2, got {n}"
            )
        r = _small_int(kdf, "r", 1, 64, source)
        _small_int(kdf, "p", 1, SCRYPT_MAX_P, source)
        if 128 * n * r > SCRYPT_MAX_MEMORY:
            raise InputError(
                f"{source}: crosswalk scrypt cost n={n}, r={r} needs {128 * n * r // 2**20} MiB "
                f"(at most {SCRYPT_MAX_MEMORY // 2**20} MiB allowed)"
            )
    elif kdf.get("name") != "hkdf-sha256":
        raise InputError(f"{source}: unknown key derivation {kdf.get('name')!r}")
    return ciphertext, nonce, kdf


def decrypt_frame(
    blob: bytes, *, passphrase=None, key_file=None, source: str = "crosswalk"
) -> pd.DataFrame:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        header = json.loads(blob.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise InputError(f"{source}: not a hidekit crosswalk file") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError(f"{source}: not a hidekit crosswalk file")
    ciphertext, nonce, kdf = check_header(header, source)
    header.pop("ciphertext")
    key = _derive(kdf, passphrase, key_file)
    aad = json.dumps(header, sort_keys=True).encode("utf-8")
    try:
        payload = json.loads(AESGCM(key).decrypt(nonce, ciphertext, aad).decode("utf-8"))
    except InvalidTag:
        raise InputError(
            f"{source}: cannot decrypt: wrong passphrase or key file, or the file was altered"
        ) from None
    try:
        return pd.DataFrame(payload["data"], columns=payload["columns"], dtype=object)
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{source}: the decrypted crosswalk is not a table") from None
