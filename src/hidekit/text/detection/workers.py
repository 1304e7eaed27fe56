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
