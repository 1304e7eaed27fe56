"""The release's keyed hashes: compiled kernels (``hidekit.transforms.hash_kernels``) beside
hashlib called once per value (the code they replaced), in the same run, on the same values.

    python benchmarks/bench_hash_kernels.py [--values 2000000] [--rounds 2]

SHA-256 of a 64-character secret prefix and a record ID (encode's keyed words) and keyed BLAKE2b
of "0:r<row>" (jitter's draws); wall and CPU seconds, the words compared equal each time.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import numpy as np
import pyarrow as pa


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _sha_hashlib(values: list[bytes], prefix: bytes) -> np.ndarray:
    copy = hashlib.sha256(prefix).copy

    def digest(v: bytes) -> bytes:
        h = copy()
        h.update(v)
        return h.digest()

    return np.frombuffer(b"".join(map(digest, values)), ">u8").reshape(-1, 4)


def _b2_hashlib(tags: list[str], key: bytes) -> np.ndarray:
    keyed = hashlib.blake2b(key=key, digest_size=32)

    def digest(tag: str) -> bytes:
        h = keyed.copy()
        h.update(f"0:{tag}".encode())
        return h.digest()

    return np.frombuffer(b"".join(map(digest, tags)), "<u8").reshape(-1, 4)


def main(argv=None) -> None:
    from hidekit.transforms.hash_kernels import blake2b_words, sha256_words

    ap = argparse.ArgumentParser()
    ap.add_argument("--values", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    n = args.values
    ids = pa.array([str(10_000_000 + 7 * i) for i in range(n)], pa.string())
    prefix = os.urandom(32).hex().encode()
    key = os.urandom(32)
    sha256_words(ids.slice(0, 10), prefix)  # compiled (or loaded from numba's cache) first
    blake2b_words(ids.slice(0, 10), key, b"0:")
    id_bytes = ids.cast(pa.binary()).to_pylist()
    tags = [f"r{i}" for i in range(n)]
    tag_array = pa.array(tags, pa.string())
    print(f"{n:,} values, {len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.1f}")
    print("| round | hash | hashlib wall / CPU | kernels wall / CPU | same |")
    print("|---|---|---|---|---|")
    for r in range(args.rounds):
        a, w1, c1 = _timed(lambda: _sha_hashlib(id_bytes, prefix))
        b, w2, c2 = _timed(lambda: sha256_words(ids, prefix))
        print(
            f"| {r + 1} | SHA-256 | {w1:.2f} / {c1:.2f} s | {w2:.2f} / {c2:.2f} s | {(a == b).all()} |"
        )
        a, w1, c1 = _timed(lambda: _b2_hashlib(tags, key))
        b, w2, c2 = _timed(lambda: blake2b_words(tag_array, key, b"0:"))
        print(
            f"| {r + 1} | BLAKE2b | {w1:.2f} / {c1:.2f} s | {w2:.2f} / {c2:.2f} s | {(a == b).all()} |"
        )
    print(f"load after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
