"""SHA-256 and keyed BLAKE2b of many short messages at once, compiled (numba): the same bits as
``hashlib``'s, without a Python call per message. Each message is a fixed ``head`` followed by
one value of an Arrow binary or string array (its bytes as they are): encode's keyed words are
SHA-256(prefix + value) (``hidekit.transforms.keyed_hash``), jitter's uniforms a BLAKE2b keyed
by a subkey of "draw:tag" (``hidekit.transforms.geo``)."""

from __future__ import annotations

import os
import threading

import numba
import numpy as np
import pyarrow as pa

_U = np.uint64
_M32 = np.uint64(0xFFFFFFFF)

# fmt: off
_SHA_K = np.array([
    0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
    0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
    0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
    0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
    0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
    0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
    0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
    0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
], dtype=np.uint64)
_SHA_H = np.array([
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
], dtype=np.uint64)
_B2_IV = np.array([
    0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
    0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
], dtype=np.uint64)
_SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
], dtype=np.int64)
# fmt: on


@numba.njit(cache=True)
def _rotr32(x, n):
    return ((x >> _U(n)) | (x << _U(32 - n))) & _M32


@numba.njit(cache=True)
def _sha_compress(h, block, w):
    """One SHA-256 block (64 bytes of ``block``) into the state ``h`` (8 words in uint64)."""
    for t in range(16):
        w[t] = (
            (_U(block[4 * t]) << _U(24))
            | (_U(block[4 * t + 1]) << _U(16))
            | (_U(block[4 * t + 2]) << _U(8))
            | _U(block[4 * t + 3])
        )
    for t in range(16, 64):
        x, y = w[t - 15], w[t - 2]
        s0 = _rotr32(x, 7) ^ _rotr32(x, 18) ^ (x >> _U(3))
        s1 = _rotr32(y, 17) ^ _rotr32(y, 19) ^ (y >> _U(10))
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) & _M32
    a, b, c, d, e, f, g, hh = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    for t in range(64):
        s1 = _rotr32(e, 6) ^ _rotr32(e, 11) ^ _rotr32(e, 25)
        ch = (e & f) ^ ((e ^ _M32) & g)
        t1 = (hh + s1 + ch + _SHA_K[t] + w[t]) & _M32
        s0 = _rotr32(a, 2) ^ _rotr32(a, 13) ^ _rotr32(a, 22)
        t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) & _M32
        hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & _M32, c, b, a, (t1 + t2) & _M32
    h[0], h[1], h[2], h[3] = (
        (h[0] + a) & _M32,
        (h[1] + b) & _M32,
        (h[2] + c) & _M32,
        (h[3] + d) & _M32,
    )
    h[4], h[5], h[6], h[7] = (
        (h[4] + e) & _M32,
        (h[5] + f) & _M32,
        (h[6] + g) & _M32,
        (h[7] + hh) & _M32,
    )


@numba.njit(cache=True, nogil=True)
def _sha256_range(head, data, offsets, out, lo, hi):
    """SHA-256(head + data[offsets[i]:offsets[i+1]]) of each i in [lo, hi), as 4 big-endian
    64-bit words a row of ``out``; the head's whole blocks hashed once."""
    block = np.zeros(64, np.uint8)
    w = np.empty(64, np.uint64)
    start = _SHA_H.copy()
    whole = len(head) // 64 * 64
    for k in range(0, whole, 64):
        _sha_compress(start, head[k : k + 64], w)
    tail = head[whole:]
    h = np.empty(8, np.uint64)
    for i in range(lo, hi):
        h[:] = start
        fill = len(tail)
        block[:fill] = tail
        for j in range(offsets[i], offsets[i + 1]):
            block[fill] = data[j]
            fill += 1
            if fill == 64:
                _sha_compress(h, block, w)
                fill = 0
        bits = _U(len(head) + offsets[i + 1] - offsets[i]) * _U(8)
        block[fill] = 0x80
        fill += 1
        if fill > 56:
            block[fill:] = 0
            _sha_compress(h, block, w)
            fill = 0
        block[fill:56] = 0
        for k in range(8):
            block[56 + k] = (bits >> _U(56 - 8 * k)) & _U(0xFF)
        _sha_compress(h, block, w)
        for k in range(4):
            out[i, k] = (h[2 * k] << _U(32)) | h[2 * k + 1]


@numba.njit(cache=True)
def _rotr64(x, n):
    return (x >> _U(n)) | (x << _U(64 - n))


@numba.njit(cache=True, inline="always")
def _g(a, b, c, d, x, y):
    a = a + b + x
    d = _rotr64(d ^ a, 32)
    c = c + d
    b = _rotr64(b ^ c, 24)
    a = a + b + y
    d = _rotr64(d ^ a, 16)
    c = c + d
    b = _rotr64(b ^ c, 63)
    return a, b, c, d


@numba.njit(cache=True)
def _b2_compress(h, block, counted, last, m):
    """One BLAKE2b block (128 bytes of ``block``; ``counted`` bytes so far) into ``h``."""
    for k in range(16):
        word = _U(0)
        for b in range(8):
            word |= _U(block[8 * k + b]) << _U(8 * b)
        m[k] = word
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = _B2_IV[0], _B2_IV[1], _B2_IV[2], _B2_IV[3]
    v12, v13, v14, v15 = _B2_IV[4] ^ _U(counted), _B2_IV[5], _B2_IV[6], _B2_IV[7]
    if last:
        v14 = v14 ^ _U(0xFFFFFFFFFFFFFFFF)
    for r in range(12):
        s = _SIGMA[r % 10]
        v0, v4, v8, v12 = _g(v0, v4, v8, v12, m[s[0]], m[s[1]])
        v1, v5, v9, v13 = _g(v1, v5, v9, v13, m[s[2]], m[s[3]])
        v2, v6, v10, v14 = _g(v2, v6, v10, v14, m[s[4]], m[s[5]])
        v3, v7, v11, v15 = _g(v3, v7, v11, v15, m[s[6]], m[s[7]])
        v0, v5, v10, v15 = _g(v0, v5, v10, v15, m[s[8]], m[s[9]])
        v1, v6, v11, v12 = _g(v1, v6, v11, v12, m[s[10]], m[s[11]])
        v2, v7, v8, v13 = _g(v2, v7, v8, v13, m[s[12]], m[s[13]])
        v3, v4, v9, v14 = _g(v3, v4, v9, v14, m[s[14]], m[s[15]])
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@numba.njit(cache=True, nogil=True)
def _blake2b_range(key, head, data, offsets, out, lo, hi):
    """BLAKE2b keyed by ``key`` (1-64 bytes), 32-byte digests, of head + each value i in
    [lo, hi), as 4 little-endian 64-bit words a row of ``out``; the key block hashed once."""
    block = np.zeros(128, np.uint8)
    m = np.empty(16, np.uint64)
    init = _B2_IV.copy()
    init[0] ^= _U(0x01010000) ^ (_U(len(key)) << _U(8)) ^ _U(32)
    block[: len(key)] = key
    keyed = init.copy()
    _b2_compress(keyed, block, 128, False, m)
    h = np.empty(8, np.uint64)
    for i in range(lo, hi):
        size = len(head) + offsets[i + 1] - offsets[i]
        block[:] = 0
        if size == 0:  # the key block is the last
            h[:] = init
            block[: len(key)] = key
            _b2_compress(h, block, 128, True, m)
        else:
            h[:] = keyed
            fill, done = 0, 0
            for j in range(size):
                if fill == 128:  # a full block with more to come
                    done += 128
                    _b2_compress(h, block, 128 + done, False, m)
                    block[:] = 0
                    fill = 0
                at = j - len(head)
                block[fill] = head[j] if at < 0 else data[offsets[i] + at]
                fill += 1
            _b2_compress(h, block, 128 + done + fill, True, m)
        out[i, :] = h[:4]


_SPLIT = 65536  # fewer messages than this are hashed in the calling thread alone


def _run(kernel, n: int, *args) -> None:
    """``kernel(*args, lo, hi)`` over [0, n) split between a thread per core (the compiled
    kernels release the GIL). Plain threads started and joined here: nothing outlives the
    call, so a process forked later (``hidekit.release.stream_fork``) inherits no pool."""
    parts = min(len(os.sched_getaffinity(0)), 4) if n >= _SPLIT else 1
    bounds = [n * p // parts for p in range(parts + 1)]
    threads = [
        threading.Thread(target=kernel, args=(*args, lo, hi))
        for lo, hi in zip(bounds[1:-1], bounds[2:], strict=True)
    ]
    for t in threads:
        t.start()
    try:
        kernel(*args, bounds[0], bounds[1])
    finally:
        for t in threads:
            t.join()


def _buffers(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The bytes and 64-bit offsets of an Arrow binary or string array without missing values."""
    if isinstance(values, pa.ChunkedArray):
        values = values.cast(pa.large_binary()).combine_chunks()
    if values.null_count:
        raise ValueError("hashing needs values without missing ones")
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        values = values.cast(
            pa.large_binary() if pa.types.is_large_string(values.type) else pa.binary()
        )
    wide = pa.types.is_large_binary(values.type)
    _, offs, data = values.buffers()
    n = len(values)
    offsets = np.frombuffer(offs, np.int64 if wide else np.int32)[
        values.offset : values.offset + n + 1
    ]
    raw = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return raw, offsets.astype(np.int64)


def sha256_words(values: pa.Array, head: bytes) -> np.ndarray:
    """SHA-256(head + value) of each value (Arrow binary or string), 4 big-endian words a row:
    the digest's bytes read as ``>u8``."""
    data, offsets = _buffers(values)
    out = np.empty((len(values), 4), np.uint64)
    _run(_sha256_range, len(values), np.frombuffer(head, np.uint8), data, offsets, out)
    return out


def blake2b_words(values: pa.Array, key: bytes, head: bytes) -> np.ndarray:
    """``hashlib.blake2b(head + value, key=key, digest_size=32)`` of each value, 4 little-endian
    words a row: the digest's bytes read as ``<u8``."""
    if not 1 <= len(key) <= 64:
        raise ValueError("a BLAKE2b key has 1 to 64 bytes")
    data, offsets = _buffers(values)
    out = np.empty((len(values), 4), np.uint64)
    key_bytes = np.frombuffer(key, np.uint8)
    _run(_blake2b_range, len(values), key_bytes, np.frombuffer(head, np.uint8), data, offsets, out)
    return out
