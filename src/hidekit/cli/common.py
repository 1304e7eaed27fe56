"""What every command shares: error handling, JSON output, progress bars, list options.

``to_json`` lives in ``hidekit.io.jsonout`` (library code writes JSON too); it is re-exported here.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from hidekit.errors import HidekitError, OptionError
from hidekit.io.jsonout import to_json

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def split_list(value: str | None, required: str | None = None) -> list[str]:
    """'a,b c,d/e' -> ['a', 'b c', 'd/e']: commas separate, spaces and slashes stay in names.

    With ``required`` (the option's name), an empty list is an error naming that option.
    """
    items = [v.strip() for v in (value or "").split(",") if v.strip()]
    if required and not items:
        raise OptionError(f"{required} is empty")
    return items


def print_json(obj) -> None:
    sys.stdout.write(to_json(obj) + "\n")
    sys.stdout.flush()


def handle_errors(fn: Callable) -> Callable:
    """Turn a HidekitError into one line on stderr and exit code 2; nothing else is printed."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from hidekit.io.atomic import cleanup_on_termination

        try:
            with cleanup_on_termination():
                return fn(*args, **kwargs)
        except HidekitError as exc:
            err.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper


@contextmanager
def progress_bar(description: str, total: int | None, enabled: bool = True) -> Iterator[Callable]:
    """A Rich progress bar on stderr; yields ``advance(n=1)``. Quiet when stderr is not a terminal."""
    show = enabled and err.is_terminal
    if not show:
        yield lambda n=1, **_: None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as prog:
        task = prog.add_task(description, total=total)
        yield lambda n=1, **kw: prog.update(task, advance=n, **kw)


def print_renamed(renamed: list[dict]) -> None:
    """Say which document ids were written under another file name (unsafe or repeated ids)."""
    if not renamed:
        return
    shown = ", ".join(f"{r['id']!r} -> {r['name']}" for r in renamed[:5])
    more = f", … ({len(renamed)} in all)" if len(renamed) > 5 else ""
    err.print(
        f"note: {len(renamed)} document id(s) are not safe file names or repeat, written as: "
        f"{shown}{more}",
        markup=False,
        highlight=False,
    )
