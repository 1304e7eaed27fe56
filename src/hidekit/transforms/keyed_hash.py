"""Keyed hash words: SHA-256 of a secret prefix and a text, whose order ranks a flat encoded
column's values (``hidekit.transforms.identifiers.keyed_order``), and the keyed BLAKE2b of
jitter's draws (``hidekit.transforms.geo``).

Many values go to the compiled kernels (``hidekit.transforms.hash_kernels``, numba, every core);
fewer than ``COMPILED_FROM`` to hashlib one value at a time, the same bits (tests) without
loading numba, which costs about a second (ten the first time, compiling) to save less.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

COMPILED_FROM = 50_000  # values hashed by the compiled kernels from this many on


def keyed_words(texts, prefix: str) -> np.ndarray:
    """SHA-256(prefix + text) of each UTF-8 text (bytes), as 4 big-endian 64-bit words a row."""
    return arrow_keyed_words(pa.array(list(texts), pa.binary()), prefix)


def arrow_keyed_words(texts: pa.Array, prefix: str) -> np.ndarray:
    """``keyed_words`` of an Arrow string or binary array (its bytes as they are)."""
    head = prefix.encode("ascii")
    if len(texts) >= COMPILED_FROM:
        from hidekit.transforms.hash_kernels import sha256_words

        return sha256_words(texts, head)
    copy = hashlib.sha256(head).copy  # the prefix hashed once

    def digest(text: bytes) -> bytes:
        h = copy()
        h.update(text)
        return h.digest()

    raw = b"".join(map(digest, texts.cast(pa.binary()).to_pylist()))
    return np.frombuffer(raw, dtype=">u8").reshape(-1, 4)


def keyed_blake2b_words(values: pa.Array, key: bytes, head: bytes) -> np.ndarray:
    """BLAKE2b(head + value) keyed by ``key``, 32-byte digests, as 4 little-endian 64-bit
    words a row (``values``: Arrow binary or string, their bytes as they are)."""
    if len(values) >= COMPILED_FROM:
        from hidekit.transforms.hash_kernels import blake2b_words

        return blake2b_words(values, key, head)
    keyed = hashlib.blake2b(head, key=key, digest_size=32)  # the key block hashed once

    def digest(value: bytes) -> bytes:
        h = keyed.copy()
        h.update(value)
        return h.digest()

    raw = b"".join(map(digest, values.cast(pa.binary()).to_pylist()))
    return np.frombuffer(raw, dtype="<u8").reshape(-1, 4)


def order_of_words(words: np.ndarray) -> np.ndarray:
    """Row indices in the order of their hash words (``keyed_words``)."""
    order = np.argsort(words[:, 0], kind="stable")
    first = words[order, 0]
    if len(first) > 1 and bool((first[1:] == first[:-1]).any()):  # a 64-bit tie: all 256 bits
        order = np.lexsort(words.T[::-1])
    return order
