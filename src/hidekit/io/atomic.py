"""Atomic, permission-aware output: a reader never sees a half-written file."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hidekit.errors import OptionError

OWNER_ONLY = 0o600


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _default_mode() -> int:
    """The mode a plain ``open()`` would give: 0o666 less the umask (mkstemp makes 0o600)."""
    return 0o666 & ~_umask()


def default_dir_mode() -> int:
    """The mode a plain ``mkdir`` would give (0o777 less the umask): ``atomic_dir`` builds in a
    ``mkdtemp`` folder, which is owner-only; chmod it to this when the output is for release."""
    return 0o777 & ~_umask()


def refuse_overwrite(target, protect) -> None:
    """Raise when ``target`` is one of the ``protect``ed inputs: an input is never overwritten."""
    target = Path(target)
    for p in protect:
        if p is None:
            continue
        with contextlib.suppress(FileNotFoundError):
            if target.resolve() == Path(p).resolve():
                raise OptionError(f"refusing to overwrite the input file {p}")


@contextlib.contextmanager
def atomic_path(
    target: str | os.PathLike, *, private: bool = False, protect: tuple = ()
) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; move it into place only on success.

    ``private`` gives the file owner-only permissions (crosswalks, mappings, anything
    holding identifiers). ``protect`` lists input paths that must never be overwritten.
    """
    target = Path(target)
    refuse_overwrite(target, protect)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        os.chmod(tmp_path, OWNER_ONLY if private else _default_mode())
        yield tmp_path
        if private:
            os.chmod(tmp_path, OWNER_ONLY)
        os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def write_text_atomic(target, text: str, *, private: bool = False, protect: tuple = ()) -> Path:
    with atomic_path(target, private=private, protect=protect) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes_atomic(target, data: bytes, *, private: bool = False, protect: tuple = ()) -> Path:
    with atomic_path(target, private=private, protect=protect) as tmp:
        tmp.write_bytes(data)
    return Path(target)


@contextlib.contextmanager
def atomic_dir(
    target: str | os.PathLike,
    *,
    overwrite: bool = False,
    private: bool = False,
    protect: tuple = (),
) -> Iterator[Path]:
    """Build an output folder in a temporary sibling and move it into place at the end.

    If anything fails nothing is left at ``target``: no half-written release. The folder gets the
    usual permissions, or owner-only with ``private``; ``protect`` lists inputs it must not replace.
    """
    target = Path(target)
    refuse_overwrite(target, protect)
    if target.exists() and any(target.iterdir()) and not overwrite:
        raise OptionError(f"output folder {target} exists and is not empty (use --overwrite)")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        tmp.chmod(0o700 if private else default_dir_mode())
        yield tmp
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
