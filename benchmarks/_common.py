"""Helpers shared by the benchmark scripts: timing, peak memory, shared-data lookup."""

from __future__ import annotations

import multiprocessing as mp
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
# the eight quasi-identifiers of the Adult benchmarks (ARX's usual choice)
ADULT_KEYS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


def shared_data(relative: str) -> Path | None:
    """A file under ../shared/data, or None (with a message) when this clone does not have it."""
    path = SHARED / relative
    if not path.exists():
        print(f"SKIP: {path} not found (benchmarks read ../shared/data beside the repo)")
        return None
    return path


def best_cpu(fn: Callable, repeat: int = 3, warmup: int = 0) -> float:
    """Fastest CPU time of this process over ``repeat`` runs of ``fn`` after ``warmup`` runs
    (less sensitive than wall time to a machine others share)."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def best_of(fn: Callable, repeat: int = 5, warmup: int = 1) -> tuple[float, object]:
    """Fastest wall time of ``repeat`` runs after ``warmup`` runs, and the last result."""
    result = None
    for _ in range(warmup):
        result = fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def _child(target, args, queue):
    t0 = time.perf_counter()
    target(*args)
    queue.put((time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def peak_memory_mb(target: Callable, *args) -> tuple[float, float]:
    """Run ``target(*args)`` in a fresh process: (seconds, peak resident MB of that process)."""
    ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(target, args, q))
    p.start()
    secs, mb = q.get()
    p.join()
    return secs, mb


def row(label: str, seconds: float, baseline: float | None = None, extra: str = "") -> str:
    ratio = f"{baseline / seconds:8.1f}x" if baseline else " " * 9
    return f"  {label:<44} {seconds * 1000:10.1f} ms  {ratio}  {extra}"
