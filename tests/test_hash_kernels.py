"""The compiled hashes against hashlib: SHA-256 of head + value (encode's keyed words) and keyed
BLAKE2b (jitter's uniforms), at every block boundary and for any bytes."""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.transforms import hash_kernels
from hidekit.transforms.hash_kernels import blake2b_words, sha256_words
from hidekit.transforms.keyed_hash import arrow_keyed_words, keyed_words


def _sha(values, head):
    raw = b"".join(hashlib.sha256(head + v).digest() for v in values)
    return np.frombuffer(raw, ">u8").reshape(-1, 4)


def _b2(values, key, head):
    raw = b"".join(hashlib.blake2b(head + v, key=key, digest_size=32).digest() for v in values)
    return np.frombuffer(raw, "<u8").reshape(-1, 4)


# lengths around the block sizes (SHA-256: 64, its padding 55/56; BLAKE2b: 128)
SIZES = [0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 127, 128, 129, 200, 255, 256, 257]


@pytest.mark.parametrize("head", [b"", b"h", b"x" * 55, b"y" * 64, b"z" * 70, b"w" * 128])
def test_every_block_boundary_against_hashlib(head):
    values = [bytes((i * 7 + j) % 256 for j in range(n)) for i, n in enumerate(SIZES)]
    array = pa.array(values, pa.binary())
    assert (sha256_words(array, head) == _sha(values, head)).all()
    for key in (b"k", b"K" * 32, b"z" * 64):
        assert (blake2b_words(array, key, head) == _b2(values, key, head)).all()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.binary(max_size=300), max_size=40),
    st.binary(max_size=150),
    st.binary(min_size=1, max_size=64),
)
def test_any_bytes_against_hashlib(values, head, key):
    array = pa.array(values, pa.binary())
    assert (sha256_words(array, head) == _sha(values, head)).all()
    assert (blake2b_words(array, key, head) == _b2(values, key, head)).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=30), st.integers(0, 5))
def test_keyed_words_of_texts_and_of_arrow_slices(texts, start):
    prefix = "ab" * 32  # a subkey's hex, as code_prefix writes it
    want = _sha([t.encode("utf-8") for t in texts], prefix.encode())
    assert (keyed_words((t.encode("utf-8") for t in texts), prefix) == want).all()
    array = pa.array(["pad"] * start + texts, pa.string()).slice(start)  # an offset into buffers
    assert (arrow_keyed_words(array, prefix) == want).all()
    assert (sha256_words(array, prefix.encode()) == want).all()  # the kernel reads the offset
    chunked = pa.chunked_array([array[: len(texts) // 2], array[len(texts) // 2 :]], pa.string())
    assert (hash_kernels.sha256_words(chunked, prefix.encode()) == want).all()


def test_split_between_threads_gives_the_same_words(monkeypatch):
    values = [b"%d" % i for i in range(5000)]
    array = pa.array(values, pa.binary())
    alone = sha256_words(array, b"p")
    monkeypatch.setattr(hash_kernels, "_SPLIT", 10)  # several threads even for a few values
    assert (sha256_words(array, b"p") == alone).all()
    assert (alone == _sha(values, b"p")).all()
    assert (blake2b_words(array, b"key", b"0:") == _b2(values, b"key", b"0:")).all()


def test_refusals():
    with pytest.raises(ValueError):
        sha256_words(pa.array([b"a", None], pa.binary()), b"")
    with pytest.raises(ValueError):
        blake2b_words(pa.array([b"a"], pa.binary()), b"", b"")
    with pytest.raises(ValueError):
        blake2b_words(pa.array([b"a"], pa.binary()), b"k" * 65, b"")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=30), st.binary(min_size=1, max_size=64))
def test_few_values_by_hashlib_many_by_the_kernels_the_same_words(texts, key):
    # keyed_hash sends fewer than COMPILED_FROM values to hashlib (numba not loaded for them)
    from hidekit.transforms import keyed_hash

    array = pa.array(texts, pa.string())
    prefix = "cd" * 32
    few = (
        keyed_hash.arrow_keyed_words(array, prefix),
        keyed_hash.keyed_blake2b_words(array, key, b"4:"),
    )
    old = keyed_hash.COMPILED_FROM
    try:
        keyed_hash.COMPILED_FROM = 0
        many = (
            keyed_hash.arrow_keyed_words(array, prefix),
            keyed_hash.keyed_blake2b_words(array, key, b"4:"),
        )
    finally:
        keyed_hash.COMPILED_FROM = old
    assert (few[0] == many[0]).all() and (few[1] == many[1]).all()
    assert (few[0] == _sha([t.encode() for t in texts], prefix.encode())).all()
