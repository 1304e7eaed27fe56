"""``hidekit hierarchy``: build a generalization hierarchy from a column and save it in ARX's
format (numeric intervals, dates, masked codes, ordered categories)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit.cli.common import handle_errors, out, print_json, split_list
from hidekit.cli.options import DataArg, JsonOpt, SepOpt
from hidekit.errors import OptionError


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
    from hidekit.io import hierarchy_builders as hb
    from hidekit.io import read_table
    from hidekit.io.atomic import check_output_file

    chosen = [o for o in (intervals, dates, mask or None, order) if o is not None]
    if len(chosen) != 1:
        raise OptionError("give exactly one of --intervals, --dates, --mask, --order")
    out_file = check_output_file(out_file, (data,))
    frame = read_table(data, sep=sep).frame
    if column not in frame.columns:
        raise OptionError(f"column not in the data: {column!r}")
    values = frame[column]
    if intervals is not None:
        built = hb.intervals(values, intervals, levels=levels, factor=factor)
    elif dates is not None:
        built = hb.dates(values, split_list(dates, required="--dates"))
    elif mask:
        built = hb.masking(values, keep_min=keep)
    else:
        built = hb.ordered_groups([v for v in order.split("|") if v], fan=fan, values=values)
    built.write(out_file)
    summary = {
        "column": column,
        "output": str(out_file),
        "values": len(built.rows),
        "levels": built.depth,
    }
    if json:
        print_json(summary)
        return
    out.print(f"{column}: {len(built.rows)} values, {built.depth} levels -> {out_file}")


def register(app: typer.Typer) -> None:
    app.command("hierarchy")(hierarchy)
