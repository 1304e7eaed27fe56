"""``hidekit studio``: the local web app over a folder (a thin face on ``hidekit.studio.serve``)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit.cli.common import handle_errors

DEMO_FOLDER = Path("studio-demo")


@handle_errors
def studio(
    folder: Path | None = typer.Argument(
        None, help="Folder to work in (default: the current one; with --demo: studio-demo)."
    ),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (0: a free one)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open a browser."),
    demo: bool = typer.Option(
        False, "--demo", help="Write the demo survey and notes into the folder and open them."
    ),
):
    """Open the studio in the browser: the first line printed is its URL, with its token."""
    from hidekit.studio import prepare_demo, serve

    where = folder or (DEMO_FOLDER if demo else Path("."))
    start = prepare_demo(where) if demo else None
    serve(where, port=port, open_browser=not no_browser, open_path=start)


COMMANDS = {
    "studio": studio,
}
