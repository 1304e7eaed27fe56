"""The ``hidekit`` command line: verbs that read like the task, each a thin layer on the API.

Each command's module is imported only when that command runs (``LazyGroup``): start-up is
part of every command's time, and ``hidekit risk`` on a large file should not import the
text models first."""

from __future__ import annotations

import typer

from hidekit import __version__
from hidekit.cli.common import LazyGroup

# command name -> module under hidekit.cli, in the order help lists them
TABLE_COMMANDS = {
    "risk": "risk_cmd",
    "select": "select_cmd",
    **dict.fromkeys(
        ["scan", "encode", "redact", "remove", "hash", "partition", "new-key", "crosswalk"],
        "scan_cmd",
    ),
    **dict.fromkeys(
        ["release", "plan-steps", "generalize", "topcode", "safe-harbor", "jitter", "suppress"],
        "release_cmd",
    ),
    "anonymize": "anonymize_cmd",
    "utility": "anonymize_cmd",
    "link": "link_cmd",
    "demo": "demo_cmd",
    "hierarchy": "hierarchy_cmd",
    "studio": "studio_cmd",
}
TEXT_COMMANDS = {
    "detect": "text_cmds",
    "train": "text_cmds",
    "evaluate": "text_cmds",
    "synth": "text_anon_cmd",
    "anonymize": "text_anon_cmd",
    "risk": "text_risk_cmd",
}


class _TableGroup(LazyGroup):
    lazy = TABLE_COMMANDS


class _TextGroup(LazyGroup):
    lazy = TEXT_COMMANDS


app = typer.Typer(
    name="hidekit",
    cls=_TableGroup,
    help="Prepare personal data for safe release: measure re-identification risk, choose key "
    "variables, de-identify tables and clinical text.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
text_app = typer.Typer(
    cls=_TextGroup,
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


if __name__ == "__main__":  # pragma: no cover
    app()
