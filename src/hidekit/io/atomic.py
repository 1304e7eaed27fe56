"""Atomic, permission-aware output: a reader never sees a half-written file, and nothing that
hidekit did not write is ever replaced.

Three rules, checked before anything is written:

* an output is never an input (nor a plan, key or passphrase file), never holds one and never
  sits inside an input folder;
* a folder output is built in a temporary sibling and moved into place at the end; it carries a
  marker file (``.hidekit-output``) listing what hidekit wrote, and ``--overwrite`` replaces only
  a folder so marked whose every file is on that list;
* temporary files and folders are named ``.hidekit-tmp-<pid>-…``; ones left behind by a process
  that no longer runs (SIGKILL, power loss) are removed the next time hidekit writes beside them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from hidekit.errors import OutputError

OWNER_ONLY = 0o600
MARKER = ".hidekit-output"
TMP_PREFIX = ".hidekit-tmp-"
_MARKER_FORMAT = "hidekit-output"


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


# --- where an output may go ---------------------------------------------------------------------


def _real(p) -> Path:
    """The absolute path with symbolic links resolved (a missing tail is kept as written)."""
    return Path(os.path.realpath(os.path.abspath(os.fspath(p))))


def same_file(a, b) -> bool:
    """Whether two paths name one file (links and ``..`` resolved; the file need not exist)."""
    return _real(a) == _real(b)


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def _inputs(protect: Iterable) -> list[Path]:
    return [Path(p) for p in protect if p is not None]


def refuse_overwrite(target, protect) -> None:
    """Raise when the file ``target`` is one of the ``protect``ed inputs or lies inside an input
    folder (a corpus folder, say): an input is never overwritten or added to."""
    real = _real(target)
    for p in _inputs(protect):
        rp = _real(p)
        if real == rp:
            raise OutputError(f"refusing to overwrite the input file {p}")
        if rp.is_dir() and _inside(real, rp):
            raise OutputError(f"refusing to write {target} inside the input folder {p}")


def check_output_file(target, protect: Iterable = ()) -> Path:
    """Check a file output before any work: not an input, not a folder, a folder to go in."""
    target = Path(target)
    refuse_overwrite(target, protect)
    if target.is_dir():
        raise OutputError(f"{target} is a folder: give the path of a file to write")
    parent = _existing_ancestor(target.parent)
    if parent is not None and not parent.is_dir():
        raise OutputError(f"{parent} is a file, so {target} cannot be written")
    return target


def _existing_ancestor(p: Path) -> Path | None:
    for q in (p, *p.parents):
        if os.path.lexists(q):
            return q
    return None


def read_marker(folder) -> set[str] | None:
    """The files a hidekit output folder says it holds (relative paths), or None if unmarked."""
    marker = Path(folder) / MARKER
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _MARKER_FORMAT:
        return None
    files = data.get("files")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return set(files)


def _listing(folder: Path) -> list[str]:
    """Every file and folder under ``folder``, as sorted relative POSIX paths (folders end in /)."""
    out = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        for d in dirs:
            out.append((rel / d).as_posix() + "/")
        for f in files:
            out.append((rel / f).as_posix())
    return sorted(x for x in out if x != MARKER)


def write_marker(folder) -> Path:
    """Mark ``folder`` as hidekit's own: the list of what is in it (names only, no paths)."""
    folder = Path(folder)
    from hidekit._version import __version__

    body = {"format": _MARKER_FORMAT, "version": __version__, "files": _listing(folder)}
    marker = folder / MARKER
    marker.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    return marker


def check_output_dir(target, *, overwrite: bool = False, protect: Iterable = ()) -> Path:
    """Raise (one line) unless ``target`` may become, or be replaced by, a hidekit output folder.

    Refused: a folder that is, holds, or lies inside an input (``protect``: data, plans, key
    files, corpora); a path that is a file or a symbolic link; a non-empty folder without
    ``overwrite``; with ``overwrite``, a folder hidekit did not mark as its own or that holds
    files it did not write.
    """
    target = Path(target)
    real = _real(target)
    for p in _inputs(protect):
        rp = _real(p)
        if _inside(rp, real):
            what = "is" if rp == real else "holds"
            raise OutputError(f"output folder {target} {what} the input {p}: choose another folder")
        if rp.is_dir() and _inside(real, rp):
            raise OutputError(f"output folder {target} lies inside the input folder {p}")
    if target.is_symlink():
        raise OutputError(f"output folder {target} is a symbolic link: give a real folder")
    if target.exists() and not target.is_dir():
        raise OutputError(f"output folder {target} is a file: give a folder path")
    parent = _existing_ancestor(target.parent)
    if parent is not None and not parent.is_dir():
        raise OutputError(f"{parent} is a file, so the folder {target} cannot be made")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise OutputError(f"output folder {target} exists and is not empty (use --overwrite)")
        listed = read_marker(target)
        if listed is None:
            raise OutputError(
                f"output folder {target} was not written by hidekit (no {MARKER} marker): "
                f"--overwrite replaces only hidekit's own folders; remove it yourself"
            )
        foreign = [f for f in _listing(target) if f not in listed]
        if foreign:
            shown = ", ".join(foreign[:3]) + (f", … ({len(foreign)})" if len(foreign) > 3 else "")
            raise OutputError(
                f"output folder {target} holds files hidekit did not write ({shown}): "
                f"move them away first"
            )
    return target


# --- temporary names and their cleanup ---------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # pragma: no cover - platforms without signal 0
        return True
    return True


_CLEANED: set[str] = set()  # folders already cleaned by this process (once is enough)


def clean_stale_temps(folder, *, again: bool = False) -> list[Path]:
    """Remove ``.hidekit-tmp-<pid>-…`` entries in ``folder`` whose process no longer runs.

    Only hidekit's own naming is touched; a temp of a live process (a concurrent run) is kept.
    Each folder is looked at once per process (``again`` forces another look)."""
    removed: list[Path] = []
    key = os.path.abspath(os.fspath(folder))
    if key in _CLEANED and not again:
        return removed
    _CLEANED.add(key)
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not name.startswith(TMP_PREFIX):
            continue
        pid_text = name[len(TMP_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or _pid_alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
    return removed


def _tmp_prefix(target: Path) -> str:
    return f"{TMP_PREFIX}{os.getpid()}-{target.name[:80]}-"


@contextlib.contextmanager
def scratch_dir(target) -> Iterator[Path]:
    """A private (0700) folder beside ``target`` for a writer's parts (Spark writes a folder of
    them), removed whatever happens; named like hidekit's temporaries, so a run that dies leaves
    nothing that the next run does not clean."""
    target = Path(target)
    _prepare_parent(target)
    folder = Path(tempfile.mkdtemp(prefix=_tmp_prefix(target), dir=target.parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def part_writer(path) -> Iterator[Callable[[bytes], int]]:
    """``write(bytes)`` into a part file of the caller's scratch folder (``scratch_dir``), which
    the caller appends to its output (``concatenate_files``) or discards (``discard_part``)."""
    with open(path, "wb") as fh:
        yield fh.write


def discard_part(path) -> None:
    """Remove a part file that will not be appended (its writer failed)."""
    Path(path).unlink(missing_ok=True)


def concatenate_files(target, head: bytes, folder, prefix: str = "part-") -> None:
    """``head``, then the files of ``folder`` named ``prefix``… in name order, as ``target`` (a
    path inside the caller's atomic output: this write itself is not atomic)."""
    with open(target, "wb") as fh:
        fh.write(head)
        for name in sorted(os.listdir(folder)):
            if name.startswith(prefix):
                with open(Path(folder) / name, "rb") as part:
                    shutil.copyfileobj(part, fh, 1 << 20)


def _os_error(exc: OSError, target: Path) -> OutputError:
    """A file-system failure as one line naming the output."""
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "permission denied (read-only folder?)"
    elif exc.errno == errno.ENOSPC:
        why = "no space left on the device"
    elif exc.errno == errno.ENOTDIR:
        why = "a part of the path is a file, not a folder"
    elif exc.errno == errno.EISDIR:
        why = "it is a folder"
    else:
        why = exc.strerror or type(exc).__name__
    return OutputError(f"cannot write {target}: {why}")


def _prepare_parent(target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, target) from None
    clean_stale_temps(target.parent)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so temporaries are removed on the way."""


@contextlib.contextmanager
def cleanup_on_termination() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise ``Terminated`` instead of killing the
    process outright, so every ``atomic_path``/``atomic_dir`` removes its temporary files.
    (SIGKILL cannot be caught: what it leaves is removed by the next run, see
    ``clean_stale_temps``.) Only in the main thread; elsewhere a no-op."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner = os.getpid()

    def stop(signum, frame):
        if os.getpid() != owner:  # a forked worker: die as it would have without us
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated(signum)

    wanted = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# --- files -------------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_path(
    target: str | os.PathLike, *, private: bool = False, protect: Sequence = ()
) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; move it into place only on success.

    ``private`` gives the file owner-only permissions (crosswalks, mappings, anything
    holding identifiers). ``protect`` lists input paths that must never be overwritten.
    """
    target = check_output_file(target, protect)
    with _deferred_path(target, private=private) as (tmp, commit):
        yield tmp
        commit()


def write_text_atomic(target, text: str, *, private: bool = False, protect: Sequence = ()) -> Path:
    with atomic_path(target, private=private, protect=protect) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes_atomic(
    target, data: bytes | memoryview, *, private: bool = False, protect: Sequence = ()
) -> Path:
    with atomic_path(target, private=private, protect=protect) as tmp:
        tmp.write_bytes(data)
    return Path(target)


def write_files_together(
    writes: list[tuple[str | os.PathLike, Callable[[Path], object], bool]],
    *,
    protect: Sequence = (),
) -> list[Path]:
    """Write several files as one transaction: every temporary file is made first, and only
    when all succeeded are they moved into place, in the order given.

    ``writes`` holds ``(target, write(tmp_path), private)``. A failure while writing leaves every
    target as it was. The moves themselves are single renames; should the process die between
    two of them, the earlier targets are new and the later ones old, so callers list first the
    file whose early update is harmless (``encode``: the crosswalk, whose new codes a re-run
    reuses), and last the one that must never run ahead of it (the encoded data).
    """
    targets = [Path(t) for t, _, _ in writes]
    reals = [_real(t) for t in targets]
    if len(set(reals)) != len(reals):
        raise OutputError("two outputs name the same file: give each its own path")
    for t in targets:
        check_output_file(t, protect)
    with contextlib.ExitStack() as stack:
        tmps = [stack.enter_context(_deferred_path(t, private=p)) for (t, _, p) in writes]
        for (_, write, _), (tmp, _) in zip(writes, tmps, strict=True):
            write(tmp)
        for _tmp, commit in tmps:
            commit()
    return targets


@contextlib.contextmanager
def _deferred_path(target, *, private: bool = False):
    """Like ``atomic_path`` but the move into place is the caller's ``commit()``: yields
    ``(tmp, commit)``; an uncommitted temporary file is removed on exit."""
    target = Path(target)
    _prepare_parent(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _os_error(exc, target) from None
    os.close(fd)
    tmp_path = Path(tmp)
    os.chmod(tmp_path, OWNER_ONLY if private else _default_mode())

    def commit() -> None:
        try:
            if private:  # a writer may have recreated the file: set the mode again
                os.chmod(tmp_path, OWNER_ONLY)
            os.replace(tmp_path, target)
        except OSError as exc:
            raise _os_error(exc, target) from None

    try:
        yield tmp_path, commit
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()


# --- folders -----------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_dir(
    target: str | os.PathLike,
    *,
    overwrite: bool = False,
    private: bool = False,
    protect: Sequence = (),
) -> Iterator[Path]:
    """Build an output folder in a temporary sibling and move it into place at the end.

    If anything fails nothing is left at ``target``: no half-written release. The folder gets the
    usual permissions, or owner-only with ``private``; ``protect`` lists inputs (data, plans, key
    files, corpora) it must not be, hold or sit in. ``overwrite`` replaces only a folder hidekit
    marked as its own (see ``check_output_dir``); the new folder is marked in turn.
    """
    target = check_output_dir(target, overwrite=overwrite, protect=protect)
    _prepare_parent(target)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_tmp_prefix(target), dir=target.parent))
    except OSError as exc:
        raise _os_error(exc, target) from None
    try:
        tmp.chmod(0o700 if private else default_dir_mode())
        yield tmp
        write_marker(tmp)
        _swap_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _swap_into_place(tmp: Path, target: Path) -> None:
    """Move the finished folder ``tmp`` to ``target``; a previous output there is set aside
    first and removed only once the new one is in place (put back if the move fails)."""
    old: Path | None = None
    try:
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=_tmp_prefix(target) + "old-", dir=target.parent))
            os.replace(target, old / "previous")
        os.replace(tmp, target)
    except OSError as exc:
        if old is not None and (old / "previous").exists() and not target.exists():
            os.replace(old / "previous", target)
        raise _os_error(exc, target) from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
