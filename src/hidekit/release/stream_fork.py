"""Two processes for a release by chunks: a forked process does the second half of a file's
records (its own DuckDB connection); where the file's middle is.

A watchdog bounds the wait for the forked process: once this one has done its own share, the
other gets ``WAIT_FACTOR`` times as long again (at least ``WAIT_FLOOR`` seconds) to answer; a
process that neither answers nor ends by then (a hang, a stop) is killed and this one does its
share instead, as when it fails."""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing as mp
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hidekit.io.direct import DirectSource
from hidekit.io.files import read_head_bytes

T = TypeVar("T")
log = logging.getLogger("hidekit.release")

# The forked process's time to answer once this one waits: WAIT_FACTOR times the time this one
# took for its own share (the two shares are alike), and never less than WAIT_FLOOR seconds.
WAIT_FACTOR = 2.0
WAIT_FLOOR = 60.0


def in_new_connection(task, *args):
    """``task(con, *args)`` on a DuckDB connection of its own (a forked process's)."""
    from hidekit.engines.connection import connect

    with connect() as con:
        return task(con, *args)


def forked(task: Callable[[], T]) -> Callable[..., T | None]:
    """``task`` started in a forked process; returns the function that waits for its result
    (None when it failed, or gave no answer in the watchdog's time and was killed: the caller
    does the work itself). ``wait(stop=True)`` ends the process at once (the caller failed)."""
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
    started = time.monotonic()

    def wait(stop: bool = False) -> T | None:
        own = time.monotonic() - started
        limit = max(WAIT_FLOOR, WAIT_FACTOR * own)
        status, got, told = "error", None, stop
        if stop:
            _stop(child)
        elif recv.poll(limit):  # an answer, or the end of a process that died without one
            with contextlib.suppress(EOFError):
                status, got = recv.recv()
        else:
            log.warning(
                "the forked process gave no answer %.0f s after this one's share "
                "(%.0f s): stopped, its share done here",
                limit,
                own,
            )
            _stop(child)
            told = True
        recv.close()
        child.join()
        if status == "ok":
            return got
        if isinstance(got, str):  # the child's own error: why its share is done here
            first = got.splitlines()[0] if got else got
            log.warning("the forked process failed (%s): its share done here", first)
        elif not told:
            log.warning("the forked process ended without an answer: its share done here")
        return None

    return wait


def _stop(child) -> None:
    """End a forked process: SIGTERM, then SIGKILL if it is still there a few seconds on."""
    child.terminate()
    child.join(5)
    if child.is_alive():
        child.kill()


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
