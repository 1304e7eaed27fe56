"""The optimal-generalization face of ``anonymize --method optimal`` and ``generalize
--optimal``: parse, call :func:`hidekit.anonymize.optimal.job.anonymize_optimal`, print."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit.cli.common import out, print_json, progress_bar, split_list
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
    """Run the job with a progress bar, then print its JSON or a short table."""
    from hidekit.anonymize.optimal.job import anonymize_optimal

    with progress_bar("Lattice nodes checked", None, enabled=not json) as advance:
        seen = [0]

        def progress(done: int, total: int) -> None:
            advance(done - seen[0], total=total)
            seen[0] = done

        summary = anonymize_optimal(data, keys, hierarchies, target, progress=progress, **kw)
    if json:
        print_json(summary)
        return
    t = Table(title=f"Optimal generalization of {data.name}", show_header=False)
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
    out.print(
        f"released: {target}" + (f"; report: {summary['report']}" if summary["report"] else "")
    )
