"""``hidekit demo``: run the main job on the built-in synthetic survey."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit.cli.common import handle_errors, out, styled


@handle_errors
def demo(
    out_dir: Path = typer.Option(
        Path("demo-output"), "--out", help="Folder for the demo's outputs."
    ),
    records: int = typer.Option(5000, "--records", min=10, help="Synthetic records to generate."),
    seed: int = typer.Option(
        7, "--seed", min=0, help="Seed: the same seed gives the same outputs."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a demo folder hidekit wrote before."
    ),
):
    """Generate a synthetic health survey and run the release workflow on it."""
    from hidekit.demo.pipeline import run_demo

    run_demo(
        out_dir,
        records=records,
        seed=seed,
        echo=lambda s: out.print(f"• {s}"),
        overwrite=overwrite,
    )
    out.print(styled("bold green", "demo done", f" — outputs in {out_dir}/"))


COMMANDS = {
    "demo": demo,
}
