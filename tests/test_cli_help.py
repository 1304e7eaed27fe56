"""Help reads as written: paragraphs flow, brackets survive Rich."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from hidekit.cli.common import command_help
from hidekit.cli.main import app


def _plain(text: str) -> str:
    """Help without the box drawing and with lines joined, as a reader would take it in."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_brackets_in_a_docstring_reach_the_help_page():
    res = CliRunner().invoke(app, ["release", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "overrides the plan's [secrets]; it keys every random choice" in _plain(res.stdout)


def test_a_paragraph_is_one_line_before_the_terminal_wraps_it():
    res = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "250"})
    line = next(x for x in res.stdout.splitlines() if " hash " in x)
    assert "the key from --key-file or --key-env, never unsalted" in line


def test_command_help_keeps_paragraphs_and_escapes_markup():
    def cmd():
        """First line
        goes on.

        A [tag] here."""

    assert command_help(cmd) == "First line goes on.\n\nA \\[tag] here."
