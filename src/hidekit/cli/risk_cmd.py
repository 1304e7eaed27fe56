"""``hidekit risk``: how risky is releasing these key variables?"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit.cli.common import handle_errors, out, print_json, print_warning, split_list
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
from hidekit.errors import OptionError
from hidekit.io.atomic import check_output_file
from hidekit.risk import measure_risk
from hidekit.risk.records import write_per_record
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
    if v is None:
        return "n/a"
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
        weights: str = typer.Option(
            None, "--weights", help="Column of sampling weights: risk against the population."
        ),
        household: str = typer.Option(
            None, "--household", help="Household id column: household (hierarchical) risk."
        ),
        population: float = typer.Option(
            None, "--population", help="Population size: estimate population uniques."
        ),
        sampling_fraction: float = typer.Option(
            None, "--sampling-fraction", help="Sampling fraction n/N (instead of --population)."
        ),
        suda: bool = typer.Option(False, "--suda", help="SUDA2 scores and DIS per record."),
        suda_max_size: int = typer.Option(
            None, "--suda-max-size", min=1, help="Largest MSU searched (default: all keys)."
        ),
        missing: str = typer.Option(
            "category",
            "--missing",
            help="Missing key values: 'category' (own value) or 'any' (sdcMicro: matches any).",
        ),
        risk_threshold: float = typer.Option(
            0.05, "--risk-threshold", help="Individual-risk threshold for records above it."
        ),
        per_record: Path = typer.Option(
            None, "--per-record", help="Write fk, Fk, risk (+ suda, dis) per record to this CSV."
        ),
        engine: str = EngineOpt,
        sep: str = SepOpt,
        json: bool = JsonOpt,
        report: Path = ReportOpt,
    ):
        """Measure re-identification risk of a key set: k, uniques, RP, CR, El Emam's metrics;
        with weights, individual risk against the population (sdcMicro), SUDA2, population uniques."""
        key_list = split_list(keys, required="--keys")
        if report:
            check_output_file(report, (data,))
        if per_record and not (weights or household or suda):
            raise OptionError("--per-record needs --weights, --household or --suda")
        if per_record:
            check_output_file(per_record, (data,))
        result = measure_risk(
            None,
            key_list,
            cell_min=cell_min,
            threshold=threshold,
            by=by,
            engine=load_engine(data, engine, sep),
            weights=weights,
            household=household,
            missing=missing,
            risk_threshold=risk_threshold,
            suda=suda,
            suda_max_size=suda_max_size,
            population=population,
            sampling_fraction=sampling_fraction,
        )
        for w in result.warnings:
            print_warning(w)
        if per_record:
            write_per_record(result.records, per_record, protect=(data,))
        if report:
            risk_report(result, title=f"Risk of {data.name}").save(report, protect=(data,))
        if json:
            print_json(result.to_dict())
            return
        _print_tables(result, key_list)
        if per_record:
            out.print(f"per-record risk: {per_record}")
        if report:
            out.print(f"report: {report}")


def _print_tables(result, key_list) -> None:
    r = result.overall
    t = Table(title=f"Risk of releasing {', '.join(key_list)}", show_header=False)
    for label, attr in ROWS:
        t.add_row(label, _num(getattr(r, attr)))
    out.print(t)
    out.print(f"{r.note}; τ = {r.threshold:.4f}", style="dim")
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
                *(_num(getattr(grp, a)) for a in ("records", "cells", "k", "uniques", "rp", "cr")),
            )
        out.print(g)
    d = result.to_dict()
    if "weighted" in d:
        w = d["weighted"]
        t = Table(title="Risk against the population", show_header=False)
        t.add_row("model", str(w["model"]))
        t.add_row("global risk (mean individual risk)", _num(w["global_risk"]))
        t.add_row("expected re-identifications", _num(w["expected_reidentifications"]))
        t.add_row(
            f"records with risk > {w['risk_threshold']:g}", _num(w["records_above_threshold"])
        )
        if "household" in w:
            t.add_row("household risk (mean)", _num(w["household"]["global_risk"]))
        if "suda" in w:
            t.add_row("records with an MSU (SUDA)", _num(w["suda"]["records_with_msu"]))
            t.add_row("highest DIS score", _num(w["suda"]["max_dis"]))
        out.print(t)
        out.print(w["missing_note"], style="dim")
    if "estimate" in d:
        e = d["estimate"]
        low, high = e["ci"]
        out.print(
            f"recommended estimate ({e['model']}): "
            f"{e['expected_reidentifications']:.1f} expected re-identifications "
            f"(95% interval {low:.1f}–{high:.1f}); {e['fit']['note']}"
        )
    if "population" in d:
        p = d["population"]
        t = Table(title="Population uniques (estimated)", show_header=False)
        for name in ("pitman", "zayatz", "snb", "dankar"):
            why = p["unavailable"].get(name)
            t.add_row(name, _num(p[name]) if p[name] is not None else f"n/a ({why})")
        t.add_row("Dankar's choice", d["dankar_model"])
        out.print(t)
