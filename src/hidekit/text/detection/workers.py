"""How many worker processes ``Detector.detect_documents`` starts: only where they pay off.

Measured on the 2-core machine this project runs on (docs/benchmarks/text-presidio.md and
scale.md): a second worker makes detection 1.5-1.7x faster when a core is idle, but slower
than one process when the machine is already busy (two workers 0.8x of one at load 9-11: they
cost more CPU for the pool, the notes sent and the spans sent back, and gain no core); and
starting a pool costs ~0.035 s, more than detection itself on small inputs. On large inputs the
second worker paid off at every load measured (20,000 notes, 14M characters, through the CLI:
76 s with two workers against 83-108 s with one at load 3; 121 s against 137 s at load 11): its
share of a busy machine outweighs the pool's cost. So, unless the caller asks for a number
(``n_jobs``): one process for small inputs; one worker per core for large ones (``LARGE_CHARS``);
in between, one worker per core that is idle now (the 1-minute load average says how busy the
cores are) plus this one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_CHARS = 50_000  # below this a pool costs more than it saves (~0.15 s of work)
MIN_PIECES = 4  # documents or windows: fewer cannot be shared out usefully
LARGE_CHARS = 1_000_000  # from here every core gets a worker, whatever the load (measured)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def idle_cores() -> float:
    """Cores not busy on average over the last minute (0 when the load is unknown)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average here
        return 0.0
    return max(0.0, usable_cores() - load)


def choose_workers(n_jobs: int | None, total_chars: int, pieces: int) -> int:
    """Worker processes for ``pieces`` documents or windows of ``total_chars`` characters:
    ``n_jobs`` when given (1 on small inputs), else one per core on large inputs and this
    process plus one per idle core in between."""
    if pieces < MIN_PIECES or total_chars < MIN_CHARS:
        return 1
    if n_jobs is not None:
        return max(1, n_jobs)
    if total_chars >= LARGE_CHARS:
        return max(1, min(usable_cores(), pieces))
    return max(1, min(usable_cores(), int(idle_cores()) + 1, pieces))


def _run_chunk(work: Callable[[T], R], items: list[T]) -> list[R]:
    return [work(x) for x in items]


def shared_out(
    items: Sequence[T],
    here: Callable[[T], R],
    there: Callable[[T], R],
    n_jobs: int,
    initializer: Callable[..., None],
    initargs: tuple,
    chunk: int,
) -> Iterator[R]:
    """``here(x)`` for each of ``items``, in order, computed by this process and ``n_jobs - 1``
    worker processes (each set up by ``initializer(*initargs)``, then running ``there``, a
    module-level function that gives what ``here`` gives).

    The items go to the workers in chunks, first to last; this process, instead of waiting,
    takes chunks from the end that no worker has started yet (it cancels them in the pool), so
    it detects about its share with its warm caches, and nothing it detects is sent back and
    forth. Once a worker has started the last chunk left, this process only collects."""
    chunks = [list(items[i : i + chunk]) for i in range(0, len(items), chunk)]
    mine: dict[int, list[R]] = {}
    with ProcessPoolExecutor(
        max_workers=max(1, n_jobs - 1), initializer=initializer, initargs=initargs
    ) as ex:
        futures = [ex.submit(_run_chunk, there, c) for c in chunks]
        last = len(chunks) - 1  # the next chunk this process tries to take
        for k in range(len(chunks)):
            while last >= k and not futures[k].done():
                if not futures[last].cancel():  # started: so are all before it
                    last = -1
                    break
                mine[last] = [here(x) for x in chunks[last]]
                last -= 1
            yield from mine.pop(k) if k in mine else futures[k].result()
