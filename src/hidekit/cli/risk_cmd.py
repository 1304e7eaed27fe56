"""``hidekit risk``: how risky is releasing these key variables?"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, show, split_list
from hidekit.cli.options import (
    ByOpt,
    CellMinOpt,
    DataArg,
    EngineOpt,
    JsonOpt,
    KeysOpt,
    ReportOpt,
    SepOpt,
)

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
    population_table: Path = typer.Option(
        None,
        "--population-table",
        help="File of population counts per key combination (key columns + a count): "
        "journalist and marketer risk.",
    ),
    population_count: str = typer.Option(
        None,
        "--population-count",
        help="Count column of --population-table (default: the only non-key column).",
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
    result = jobs.risk(
        data,
        keys=key_list,
        report=report,
        per_record=per_record,
        engine=engine,
        sep=sep,
        cell_min=cell_min,
        threshold=threshold,
        by=by,
        weights=weights,
        household=household,
        missing=missing,
        risk_threshold=risk_threshold,
        suda=suda,
        suda_max_size=suda_max_size,
        population=population,
        sampling_fraction=sampling_fraction,
        population_table=population_table,
        population_count=population_count,
    )
    show(result, json, lambda r: _print_risk(r, key_list), loud=True)


def _print_risk(result: jobs.JobResult, key_list: list[str]) -> None:
    _print_tables(result.detail, key_list)
    if "per_record" in result.outputs:
        out.print(f"per-record risk: {result.outputs['per_record']}")
    if "report" in result.outputs:
        out.print(f"report: {result.outputs['report']}")


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
    if "journalist" in d:
        _print_journalist(d["journalist"], d["marketer"])


def _print_journalist(j: dict, m: dict) -> None:
    t = Table(title="Journalist and marketer risk (El Emam)", show_header=False)
    t.add_row("journalist risk, highest (1 / smallest population class)", _num(j["highest"]))
    t.add_row("journalist risk, average", _num(j["average"]))
    t.add_row(
        f"share of records with 1/F > {j['threshold']:.4g}", _num(j["records_above_threshold"])
    )
    t.add_row("marketer risk (expected correct matches / n)", _num(m["success_rate"]))
    t.add_row("expected correct matches", _num(m["expected_matches"]))
    out.print(t)
    out.print(f"population: {j['source']}", style="dim")


COMMANDS = {
    "risk": risk,
}
