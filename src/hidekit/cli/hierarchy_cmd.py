"""``hidekit hierarchy``: build a generalization hierarchy from a column and save it in ARX's
format (numeric intervals, dates, masked codes, ordered categories)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit import jobs
from hidekit.cli.common import handle_errors, show, split_list
from hidekit.cli.options import DataArg, JsonOpt, SepOpt


@handle_errors
def hierarchy(
    data: Path = DataArg,
    column: str = typer.Option(..., "--column", help="The column to build a hierarchy for."),
    out_file: Path = typer.Option(..., "--out", "-o", help="Hierarchy file to write (ARX CSV)."),
    intervals: float = typer.Option(
        None, "--intervals", help="Numeric bins of this width, widening by --factor a level."
    ),
    levels: int = typer.Option(3, "--levels", help="Interval levels below the top."),
    factor: int = typer.Option(2, "--factor", help="Each interval level is this many bins wide."),
    dates: str = typer.Option(None, "--dates", help="Date levels, e.g. month,quarter,year,decade."),
    mask: bool = typer.Option(False, "--mask", help="Mask codes (ZIP) from the right."),
    keep: int = typer.Option(0, "--keep", help="With --mask: characters always kept."),
    order: str = typer.Option(None, "--order", help="Ordered categories a|b|c, grouped by --fan."),
    fan: int = typer.Option(2, "--fan", help="With --order: categories per group."),
    sep: str = SepOpt,
    json: bool = JsonOpt,
):
    """Build a hierarchy for one column and save it in ARX's format (for --hierarchy)."""
    result = jobs.hierarchy(
        data,
        out_file,
        column=column,
        intervals=intervals,
        levels=levels,
        factor=factor,
        dates=split_list(dates, required="--dates") if dates is not None else None,
        mask=mask,
        keep=keep,
        order=[v for v in order.split("|") if v] if order is not None else None,
        fan=fan,
        sep=sep,
    )
    s = result.figures
    show(result, json, f"{column}: {s['values']} values, {s['levels']} levels -> {out_file}")


COMMANDS = {"hierarchy": hierarchy}
