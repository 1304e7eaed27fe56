"""``hidekit select``: which key variables can be released under a risk limit."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit.cli.common import (
    err,
    handle_errors,
    out,
    print_json,
    print_warning,
    split_list,
    styled,
)
from hidekit.cli.options import (
    ByOpt,
    CellMinOpt,
    DataArg,
    EngineOpt,
    JsonOpt,
    ReportOpt,
    SepOpt,
    load_engine,
)
from hidekit.io.atomic import check_output_file
from hidekit.selection import select_variables
from hidekit.selection.report import selection_report


def _f(v) -> str:
    if v is None:
        return ""
    return "inf" if v == float("inf") else f"{v:.3f}"


def register(app: typer.Typer) -> None:
    @app.command("select")
    @handle_errors
    def select(
        data: Path = DataArg,
        keys: str = typer.Option(
            ..., "--keys", "-k", help="Candidate key variables, comma-separated."
        ),
        force: str = typer.Option(
            "", "--force", help="Variables always released (e.g. sex,agegroup)."
        ),
        method: str = typer.Option("forward", "--method", help="forward, backward or stepwise."),
        stop: float = typer.Option(..., "--stop", help="RP limit (stepwise: the add limit)."),
        remove_stop: float = typer.Option(
            None, "--remove-stop", help="Stepwise: RP removal limit."
        ),
        cell_min: int = CellMinOpt,
        criterion: str = typer.Option(
            "alpha",
            "--criterion",
            help="alpha (RP/CR ratio), diff (RP - w·CR) or global_risk (mean individual "
            "risk; then --stop is a global-risk limit).",
        ),
        weights: str = typer.Option(
            None, "--weights", help="global_risk: column of sampling weights."
        ),
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
        if report:
            check_output_file(report, (data,))
        eng = load_engine(data, engine, sep)
        with err.status(f"selecting ({method})…") if not json and err.is_terminal else _null():
            res = select_variables(
                None,
                key_list,
                method=method,
                stop=stop,
                remove_stop=remove_stop,
                force=forced,
                cell_min=cell_min,
                criterion=criterion,
                weight=weight,
                by=by,
                engine=eng,
                weights=weights,
                missing=missing,
            )
        results = res if isinstance(res, list) else [res]
        if report:
            selection_report(results, stop, f"Variable selection on {data.name}").save(
                report, protect=(data,)
            )
        if json:
            payload = results[0].to_dict()
            if by:
                payload["by"] = by
                payload["groups"] = [r.to_dict() for r in results[1:]]
            print_json(payload)
            return
        for r in results:
            _print_result(r, quiet)
        if report:
            out.print(f"report: {report}")


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
