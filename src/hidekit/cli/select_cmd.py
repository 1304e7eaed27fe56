"""``hidekit select``: which key variables can be released under a risk limit."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import err, handle_errors, out, print_warning, show, split_list, styled
from hidekit.cli.options import (
    ByOpt,
    CellMinOpt,
    DataArg,
    EngineOpt,
    JsonOpt,
    ReportOpt,
    SepOpt,
)


def _f(v) -> str:
    if v is None:
        return ""
    return "inf" if v == float("inf") else f"{v:.3f}"


@handle_errors
def select(
    data: Path = DataArg,
    keys: str = typer.Option(..., "--keys", "-k", help="Candidate key variables, comma-separated."),
    force: str = typer.Option("", "--force", help="Variables always released (e.g. sex,agegroup)."),
    method: str = typer.Option("forward", "--method", help="forward, backward or stepwise."),
    stop: float = typer.Option(..., "--stop", help="RP limit (stepwise: the add limit)."),
    remove_stop: float = typer.Option(None, "--remove-stop", help="Stepwise: RP removal limit."),
    cell_min: int = CellMinOpt,
    criterion: str = typer.Option(
        "alpha",
        "--criterion",
        help="alpha (RP/CR ratio), diff (RP - w·CR) or global_risk (mean individual "
        "risk; then --stop is a global-risk limit).",
    ),
    weights: str = typer.Option(None, "--weights", help="global_risk: column of sampling weights."),
    missing: str = typer.Option(
        "category",
        "--missing",
        help="global_risk: category (missing is a value) or any (sdcMicro's rule).",
    ),
    weight: float = typer.Option(0.5, "--weight", help="w of the diff criterion."),
    by: str = ByOpt,
    engine: str = EngineOpt,
    sep: str = SepOpt,
    json: bool = JsonOpt,
    report: Path = ReportOpt,
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Only the summary, not every step's table."
    ),
):
    """Forward / backward / stepwise selection of key variables on RP and CR (Lin & Garin)."""
    key_list, forced = split_list(keys, required="--keys"), split_list(force)
    with err.status(f"selecting ({method})…") if not json and err.is_terminal else _null():
        result = jobs.select(
            data,
            keys=key_list,
            stop=stop,
            report=report,
            engine=engine,
            sep=sep,
            by=by,
            method=method,
            remove_stop=remove_stop,
            force=forced,
            cell_min=cell_min,
            criterion=criterion,
            weight=weight,
            weights=weights,
            missing=missing,
        )
    show(result, json, lambda r: _print_results(r, quiet))


def _print_results(result: jobs.JobResult, quiet: bool) -> None:
    for r in result.detail:
        _print_result(r, quiet)
    if "report" in result.outputs:
        out.print(f"report: {result.outputs['report']}")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _print_result(r, quiet: bool) -> None:
    head = "All records" if r.group is None else f"Subgroup {r.group}"
    out.rule(f"{head}: {r.method} selection")
    if not quiet:
        for s in r.steps:
            t = Table(
                title=f"{'Forward' if s.action == 'add' else 'Backward'} step {s.label}: "
                f"varlist {' '.join(s.before) or '(none)'}",
                caption=f"{s.variable} ({'smallest' if s.action == 'add' else 'largest'} "
                f"alpha={_f(s.alpha)}) {'taken' if s.taken else 'not taken: stopped'}",
            )
            for col in ("newvar" if s.action == "add" else "delvar", "alpha", "rp", "cr", "ratio"):
                t.add_column(col, justify="right")
            for c in s.candidates:
                t.add_row(c.variable, _f(c.alpha), _f(c.rp), _f(c.cr), _f(c.ratio))
            out.print(t)
    t = Table(title="Summary of steps")
    g = r.measure == "global_risk"
    for col in ("step", "varlist", "alpha", "rp", "cr", "ratio") + (("global risk",) if g else ()):
        t.add_column(col, justify="left" if col == "varlist" else "right")
    t.add_row(
        "start",
        " ".join(r.start["variables"]),
        "",
        _f(r.start["rp"]),
        _f(r.start["cr"]),
        _f(r.start["ratio"]),
        *([f"{r.start['global_risk']:.4f}"] if g else []),
    )
    for s in r.taken:
        extra = [f"{s.global_risk:.4f}"] if g else []
        t.add_row(
            s.label, " ".join(s.variables), _f(s.alpha), _f(s.rp), _f(s.cr), _f(s.ratio), *extra
        )
    out.print(t)
    risk = f", global risk {r.final['global_risk']:.4f}" if "global_risk" in r.final else ""
    out.print(
        styled(
            "bold",
            "selected:",
            f" {' '.join(r.selected)}  (RP {r.final['rp']:.3f}, CR {r.final['cr']:.3f}{risk})",
        )
    )
    out.print(styled("bold", "stopped:", f" {r.stop_reason}"))
    if r.above_limit:
        print_warning(r.limit_warning())


COMMANDS = {
    "select": select,
}
