"""The optimal-generalization face of ``anonymize --method optimal`` and ``generalize
--optimal``: parse, call :func:`hidekit.jobs.anonymize_optimal`, print."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import out, print_loss, progress_bar, show, split_list
from hidekit.errors import OptionError

SuppressionOpt = typer.Option(
    0.0, "--suppression", help="Share of records that may be suppressed (optimal search)."
)
MetricOpt = typer.Option(
    "loss",
    "--metric",
    help="Information loss to minimize: loss (ARX's default), ncp, precision, discernibility, aecs, entropy.",
)
SuppressedOpt = typer.Option(
    "star", "--suppressed", help="Suppressed records: star (kept with * keys) or drop."
)
UnknownOpt = typer.Option(
    "error",
    "--unknown-values",
    help="Values missing from a hierarchy: error, or top (released as the top level).",
)
TimeLimitOpt = typer.Option(
    None, "--time-limit", help="Seconds; past it the search turns heuristic (not proven optimal)."
)
AvgRiskOpt = typer.Option(
    None, "--max-avg-risk", help="Largest average prosecutor risk of the release (optimal)."
)
MaxRpOpt = typer.Option(
    None, "--max-rp", help="Largest RP of the release: share of records in classes < --cell-min."
)
PopUniqueOpt = typer.Option(
    None,
    "--max-population-uniqueness",
    help="Largest share of the population estimated unique (Dankar's rule; needs --population "
    "or --sampling-fraction).",
)
PopulationOpt = typer.Option(None, "--population", help="Population size (population limits).")
FractionOpt = typer.Option(
    None, "--sampling-fraction", help="Records / population size (population limits)."
)
CellMinOpt = typer.Option(None, "--cell-min", help="With --max-rp: class size at risk below.")
WeightsOpt = typer.Option(
    None, "--weights", help="Attribute weights for the loss, comma-separated, in key order."
)


def parse_weights(value: str | None, keys: list[str]) -> list[float] | None:
    if not value:
        return None
    try:
        weights = [float(v) for v in split_list(value)]
    except ValueError:
        raise OptionError(f"--weights must be numbers, got {value!r}") from None
    if len(weights) != len(keys):
        raise OptionError(f"--weights needs one number per key ({len(keys)}), got {len(weights)}")
    return weights


def run_optimal(data: Path, keys: list[str], hierarchies: dict, target: Path, *, json: bool, **kw):
    """Run the optimal job with a progress bar, then print its JSON or a short table."""
    with progress_bar("Lattice nodes checked", None, enabled=not json) as advance:
        result = jobs.anonymize_optimal(
            data, target, keys=keys, hierarchies=hierarchies, progress=advance, **kw
        )
    show(result, json, _print_optimal)


def _print_optimal(result: jobs.JobResult) -> None:
    summary = result.figures
    t = Table(title=f"Optimal generalization of {summary['input']}", show_header=False)
    t.add_row("levels", ", ".join(f"{k}={v}" for k, v in summary["transformation"].items()))
    t.add_row(f"information loss ({summary['metric']})", f"{summary['information_loss']:.6g}")
    t.add_row("suppressed records", f"{summary['suppressed']:,} of {summary['records']:,}")
    t.add_row("classes (smallest)", f"{summary['classes']:,} ({summary['smallest_class']:,})")
    t.add_row(
        "checked / lattice",
        f"{summary['transformations_checked']:,} / {summary['lattice_size']:,}"
        + ("" if summary["proven_optimal"] else " (heuristic: not proven optimal)"),
    )
    out.print(t)
    print_loss(summary["cells_lost"])
    out.print(
        f"released: {summary['output']}"
        + (f"; report: {summary['report']}" if summary["report"] else "")
    )
