"""An exclusive OS lock held for a whole read-modify-write of a shared file (a crosswalk).

The lock is taken on a side file ``NAME.lock`` beside the locked file, never on the file itself:
the file is replaced by a rename when written, and a lock on the old inode would not stop the
next reader. The side file stays (removing it would let two processes lock two different files);
it holds nothing. POSIX ``fcntl.flock``, ``msvcrt.locking`` on Windows.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hidekit.errors import OutputError


def lock_path(path) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".lock")


@contextlib.contextmanager
def file_lock(path) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (blocking until other hidekit processes release it)."""
    lp = lock_path(path)
    try:
        lp.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lp, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise OutputError(f"cannot lock {path}: {exc.strerror or type(exc).__name__}") from None
    try:
        _lock(fd)
        try:
            yield lp
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform != "win32":
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

else:  # pragma: no cover - Windows
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                continue

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
