"""``hidekit risk``: how risky is releasing these key variables?"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit.cli.common import handle_errors, out, print_json, split_list
from hidekit.cli.options import (
    ByOpt,
    CellMinOpt,
    DataArg,
    EngineOpt,
    JsonOpt,
    KeysOpt,
    ReportOpt,
    SepOpt,
    load_engine,
)
from hidekit.io.atomic import check_output_file
from hidekit.risk import measure_risk
from hidekit.risk.report import risk_report

ROWS = [
    ("records", "records"),
    ("cells (equivalence classes)", "cells"),
    ("k (smallest cell)", "k"),
    ("sample uniques", "uniques"),
    ("records at risk (cell < cell-min)", "at_risk"),
    ("RP risk proportion", "rp"),
    ("CR cell ratio", "cr"),
    ("prosecutor risk, highest (1/k)", "prosecutor_highest"),
    ("prosecutor risk, average", "prosecutor_average"),
    ("share of records above threshold", "prosecutor_above_threshold"),
]


def _num(v) -> str:
    return f"{v:.4f}" if isinstance(v, float) else f"{v:,}"


def register(app: typer.Typer) -> None:
    @app.command("risk")
    @handle_errors
    def risk(
        data: Path = DataArg,
        keys: str = KeysOpt,
        cell_min: int = CellMinOpt,
        threshold: float = typer.Option(
            None, "--threshold", help="El Emam risk threshold τ (default 1/cell-min)."
        ),
        by: str = ByOpt,
        engine: str = EngineOpt,
        sep: str = SepOpt,
        json: bool = JsonOpt,
        report: Path = ReportOpt,
    ):
        """Measure re-identification risk of a key set: k, uniques, RP, CR, El Emam's metrics."""
        key_list = split_list(keys, required="--keys")
        if report:
            check_output_file(report, (data,))
        result = measure_risk(
            None,
            key_list,
            cell_min=cell_min,
            threshold=threshold,
            by=by,
            engine=load_engine(data, engine, sep),
        )
        if report:
            risk_report(result, title=f"Risk of {data.name}").save(report, protect=(data,))
        if json:
            print_json(result.to_dict())
            return
        r = result.overall
        t = Table(title=f"Risk of releasing {', '.join(key_list)}", show_header=False)
        for label, attr in ROWS:
            t.add_row(label, _num(getattr(r, attr)))
        out.print(t)
        out.print(f"[dim]{r.note}; τ = {r.threshold:.4f}[/]")
        sizes = Table(title="Class sizes")
        for col in ("size", "classes", "records"):
            sizes.add_column(col, justify="right")
        for row in r.class_sizes[:10]:
            sizes.add_row(*(f"{row[c]:,}" for c in ("size", "classes", "records")))
        if len(r.class_sizes) > 10:
            sizes.add_row(
                "…",
                f"{sum(x['classes'] for x in r.class_sizes[10:]):,}",
                f"{sum(x['records'] for x in r.class_sizes[10:]):,}",
            )
        out.print(sizes)
        if result.by:
            g = Table(title=f"By {result.by}")
            for col in (result.by, "records", "cells", "k", "uniques", "rp", "cr"):
                g.add_column(col, justify="right")
            for grp in result.groups:
                g.add_row(
                    str(grp.group),
                    *(
                        _num(getattr(grp, a))
                        for a in ("records", "cells", "k", "uniques", "rp", "cr")
                    ),
                )
            out.print(g)
        if report:
            out.print(f"report: {report}")
