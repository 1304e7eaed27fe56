"""What every command shares: error handling, JSON output, progress bars, list options."""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from hidekit.errors import HidekitError, OptionError

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


def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return _clean(float(o))
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (datetime, date)):
        return o.isoformat()
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


def _clean(o):
    """JSON has no NaN or infinity: NaN becomes null, infinity the string "inf"."""
    if isinstance(o, float):
        if math.isnan(o):
            return None
        if math.isinf(o):
            return "inf" if o > 0 else "-inf"
        return o
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, np.floating):
        return _clean(float(o))
    return o


def to_json(obj) -> str:
    return json.dumps(_clean(obj), default=_json_default, ensure_ascii=False, indent=2)


def print_json(obj) -> None:
    sys.stdout.write(to_json(obj) + "\n")
    sys.stdout.flush()


def handle_errors(fn: Callable) -> Callable:
    """Turn a HidekitError into one line on stderr and exit code 2; nothing else is printed."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
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
