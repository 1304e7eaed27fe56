"""The ``hidekit`` command line: verbs that read like the task, each a thin layer on the API."""

from __future__ import annotations

import typer

from hidekit import __version__
from hidekit.cli import (
    anonymize_cmd,
    demo_cmd,
    hierarchy_cmd,
    link_cmd,
    release_cmd,
    risk_cmd,
    scan_cmd,
    select_cmd,
    studio_cmd,
    text_anon_cmd,
    text_cmds,
    text_risk_cmd,
)
from hidekit.cli.common import OneLineGroup, register_commands

app = typer.Typer(
    name="hidekit",
    cls=OneLineGroup,
    help="Prepare personal data for safe release: measure re-identification risk, choose key "
    "variables, de-identify tables and clinical text.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
text_app = typer.Typer(
    help="Free text: detect, train, evaluate, anonymize PHI; measure text risk.",
    no_args_is_help=True,
)
app.add_typer(text_app, name="text")


def _version(value: bool):
    if value:
        typer.echo(f"hidekit {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
):
    """hidekit."""


for module in (
    risk_cmd,
    select_cmd,
    scan_cmd,
    release_cmd,
    anonymize_cmd,
    link_cmd,
    demo_cmd,
    hierarchy_cmd,
    studio_cmd,
):
    register_commands(app, module.COMMANDS)
for module in (text_cmds, text_anon_cmd, text_risk_cmd):
    register_commands(text_app, module.COMMANDS)

if __name__ == "__main__":  # pragma: no cover
    app()
