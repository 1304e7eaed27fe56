"""Keyed hash words of texts: SHA-256 of a secret prefix and the text, whose order ranks a flat
encoded column's values (``hidekit.transforms.identifiers.keyed_order``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def keyed_words(texts, prefix: str) -> np.ndarray:
    """SHA-256(prefix + text) of each UTF-8 text (bytes), as 4 big-endian 64-bit words a row
    (compiled, on every core: ``hidekit.transforms.hash_kernels``)."""
    return arrow_keyed_words(pa.array(list(texts), pa.binary()), prefix)


def arrow_keyed_words(texts: pa.Array, prefix: str) -> np.ndarray:
    """``keyed_words`` of an Arrow string or binary array (its bytes as they are)."""
    from hidekit.transforms.hash_kernels import sha256_words  # numba: loaded when first hashing

    return sha256_words(texts, prefix.encode("ascii"))


def order_of_words(words: np.ndarray) -> np.ndarray:
    """Row indices in the order of their hash words (``keyed_words``)."""
    order = np.argsort(words[:, 0], kind="stable")
    first = words[order, 0]
    if len(first) > 1 and bool((first[1:] == first[:-1]).any()):  # a 64-bit tie: all 256 bits
        order = np.lexsort(words.T[::-1])
    return order
