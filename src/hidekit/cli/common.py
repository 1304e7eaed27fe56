"""What every command shares: error handling, JSON output, progress bars, list options.

``to_json`` lives in ``hidekit.io.jsonout`` (library code writes JSON too); it is re-exported here.

Everything a command prints can hold user data (column names, values, labels, paths, messages
quoting them), so printing is safe in one place: both consoles have Rich markup and emoji codes
turned off (``[/]`` or ``[section]`` in a column name is text, not a style tag), and every string
they render, table cells and titles included, goes through ``clean`` first, which escapes control
characters (terminal escape sequences, carriage returns, bidirectional overrides). Styled prefixes
(``error:``, ``warning:``) are added as Rich ``Text`` pieces, never by markup.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
import typer
import typer.core
import typer.main
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from hidekit.errors import HidekitError, OptionError
from hidekit.io.jsonout import to_json

# C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidirectional overrides and
# isolates that can make a printed name read differently from what it is ("Trojan source").
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_ALL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(m: re.Match) -> str:
    c = m.group(0)
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def clean(value, *, one_line: bool = False) -> str:
    """``value`` as text safe for a terminal: control characters shown as ``\\x1b``-style escapes.

    With ``one_line`` newlines and tabs are escaped too (an error or a warning is one line).
    """
    text = value if isinstance(value, str) else str(value)
    return (_CONTROL_ALL if one_line else _CONTROL).sub(_escape_char, text)


def one_line(message) -> str:
    """A message as one line: line breaks (pandas and parser messages have them) become ' | '."""
    text = str(message).strip()
    text = re.sub(r"\s*(\r\n|\r|\n)\s*", " | ", text)
    return clean(text, one_line=True)


class SafeConsole(Console):
    """A Rich console that never interprets markup or emoji codes and escapes control characters
    in every string it renders (``print`` arguments, table cells, titles)."""

    def __init__(self, **kwargs):
        super().__init__(markup=False, emoji=False, highlight=False, soft_wrap=True, **kwargs)

    def render_str(self, text: str, **kwargs) -> Text:
        kwargs["markup"] = False
        kwargs["emoji"] = False
        kwargs["highlight"] = False
        return super().render_str(clean(text), **kwargs)


out = SafeConsole()
err = SafeConsole(stderr=True)
# Steps log their warnings and also keep them in ``warnings_``, which the commands print as
# ``warning:`` lines; without a handler Python's last-resort one would print each a second time.
logging.getLogger("hidekit").addHandler(logging.NullHandler())


def print_error(message) -> None:
    """``error: MESSAGE`` as one line on stderr."""
    err.print(Text.assemble(("error:", "bold red"), " ", one_line(message)))


def print_warning(message) -> None:
    """``warning: MESSAGE`` as one line on stderr."""
    err.print(Text.assemble(("warning:", "yellow"), " ", one_line(message)))


def print_loss(info: dict) -> None:
    """Information lost (``hidekit.transforms.loss.loss_summary``): its headline, then a warning per
    variable over the limit."""
    out.print(Text(clean(info["headline"])))
    for w in info["warnings"]:
        print_warning(f"information loss: {w}")


def styled(style: str, text, rest="") -> Text:
    """``text`` in ``style`` followed by plain ``rest``, both cleaned: markup-free emphasis."""
    return Text.assemble((clean(text), style), clean(rest))


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
    """Turn a HidekitError into one line on stderr and exit code 2; nothing else is printed.

    Library warnings (pandas' ParserWarning, NumPy's RuntimeWarning) are not let through to
    stderr as multi-line noise: a stated ``warning:`` line is printed instead, once per message.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from hidekit.io.atomic import cleanup_on_termination

        try:
            with cleanup_on_termination(), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = fn(*args, **kwargs)
            _state_warnings(caught)  # on failure the error line is all stderr gets
            return result
        except HidekitError as exc:
            print_error(exc)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper


# Warnings for developers, not for the person running a command.
_UNSTATED_WARNINGS = (
    DeprecationWarning,
    PendingDeprecationWarning,
    FutureWarning,
    ResourceWarning,
    ImportWarning,
)


def _state_warnings(caught: list) -> None:
    seen: set[str] = set()
    for w in caught:
        if issubclass(w.category, _UNSTATED_WARNINGS):
            continue
        text = f"{w.category.__name__}: {w.message}"
        if text not in seen:
            seen.add(text)
            print_warning(text)


class OneLineGroup(typer.core.TyperGroup):
    """The top-level command group: usage errors (unknown option, missing argument, bad value)
    are one ``error:`` line with exit code 2 instead of Click/Typer's multi-line usage box, and a
    bug that escapes a command is one line with exit code 1 (``HIDEKIT_DEBUG=1`` re-raises it)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(0)
        except click.ClickException as exc:
            sys.exit(_usage_error(exc))
        except click.exceptions.Abort:
            err.print("interrupted")
            sys.exit(130)
        except Exception as exc:
            if os.environ.get("HIDEKIT_DEBUG"):
                raise
            print_error(
                f"internal error ({type(exc).__name__}: {exc}); this is a bug in hidekit, "
                "please report it (HIDEKIT_DEBUG=1 shows the traceback)"
            )
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


class LazyGroup(OneLineGroup):
    """A command group that imports a command's module only when that command runs (or help
    lists it): ``hidekit risk`` does not pay for importing the text models, scipy or numba.

    ``lazy`` maps each command name to its module under ``hidekit.cli`` (a module with a
    ``COMMANDS`` dict), in the order help lists them."""

    lazy: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(dict.fromkeys([*self.lazy, *self.commands]))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            wanted = [self.lazy[cmd_name]] if cmd_name in self.lazy else self.lazy.values()
            for module in dict.fromkeys(wanted):  # an unknown name: all, for "did you mean"
                self._load(module)
        return self.commands.get(cmd_name)

    def _load(self, module: str) -> None:
        commands = importlib.import_module(f"hidekit.cli.{module}").COMMANDS
        holder = typer.Typer()
        register_commands(holder, commands)
        for name, command in typer.main.get_group(holder).commands.items():
            self.commands.setdefault(name, command)


def _usage_error(exc: click.ClickException) -> int:
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message = f"{message} (see '{ctx.command_path} --help')"
    print_error(message)
    return exc.exit_code


@contextmanager
def progress_bar(description: str, total: int | None, enabled: bool = True) -> Iterator[Callable]:
    """A Rich progress bar on stderr; yields ``advance(n=1)``. Quiet when stderr is not a terminal."""
    show = enabled and err.is_terminal
    if not show:
        yield lambda n=1, **_: None
        return
    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as prog:
        task = prog.add_task(description, total=total)
        yield lambda n=1, **kw: prog.update(task, advance=n, **kw)


def show(result, json: bool, say: Callable | str | None = None, loud: bool = False) -> None:
    """Print a job's result: its JSON (``--json``), else its warnings and ``say`` (a line, or a
    function printing the result). The insecure-seed warning (every warning when ``loud``) is
    said on stderr either way."""
    from hidekit.secrets import INSECURE_NOTE

    for w in result.warnings:
        if not json or loud or w == INSECURE_NOTE:
            print_warning(w)
    if json:
        print_json(result.to_dict())
    elif isinstance(say, str):
        out.print(say)
    elif say is not None:
        say(result)


def register_commands(app: typer.Typer, commands: dict[str, Callable]) -> None:
    """Add module-level command functions to ``app`` under their names."""
    for name, fn in commands.items():
        app.command(name, help=command_help(fn))(fn)


def command_help(fn: Callable) -> str | None:
    """The docstring as help: lines of a paragraph joined (Rich would keep the source's line
    breaks mid-sentence) and brackets escaped (Rich would take ``[secrets]`` for markup and drop
    it)."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None
    return escape("\n\n".join(" ".join(p.split()) for p in doc.split("\n\n")))


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
