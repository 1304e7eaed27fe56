"""Two processes for a release by chunks: a forked process does the second half of a file's
records (its own DuckDB connection); where the file's middle is."""

from __future__ import annotations

import gc
import multiprocessing as mp
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hidekit.io.direct import DirectSource
from hidekit.io.files import read_head_bytes

T = TypeVar("T")


def in_new_connection(task, *args):
    """``task(con, *args)`` on a DuckDB connection of its own (a forked process's)."""
    from hidekit.engines.connection import connect

    with connect() as con:
        return task(con, *args)


def forked(task: Callable[[], T]) -> Callable[[], T | None]:
    """``task`` started in a forked process; returns the function that waits for its result
    (None when it failed: the caller does the work itself)."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def run() -> None:
        try:
            send.send(("ok", task()))
        except BaseException as exc:  # noqa: BLE001 - the parent does the work instead
            send.send(("error", f"{type(exc).__name__}: {exc}"))
        finally:
            send.close()

    gc.freeze()  # the child shares the parent's objects instead of copying their pages
    child = ctx.Process(target=run, daemon=True)
    try:
        child.start()
    finally:
        gc.unfreeze()
    send.close()

    def wait() -> T | None:
        try:
            status, got = recv.recv()
        except EOFError:
            status, got = "error", None
        child.join()
        return got if status == "ok" else None

    return wait


def half_way(source: DirectSource, rows: int) -> int | None:
    """A chunk boundary near the middle of the file's records (estimated from its size and
    its first lines), None when the file seems to hold fewer than two chunks."""
    path = Path(source.path)
    head = read_head_bytes(path)
    lines = head.count(b"\n")
    if lines < 2:
        return None
    chunks = round(path.stat().st_size * lines / len(head) / rows)
    return rows * ((chunks + 1) // 2) if chunks >= 2 else None
