"""``hidekit release PLAN`` and the verbs for single indirect-identifier steps.

``generalize``, ``topcode``, ``safe-harbor``, ``jitter`` and ``suppress`` each read a table, apply
one transform and write the result (same format, labels kept) to ``--out``; ``release`` runs a
whole TOML plan into a checked output folder. Each has ``--json``.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.anonymize_cmd import parse_pairs
from hidekit.cli.common import (
    handle_errors,
    out,
    print_json,
    print_loss,
    progress_bar,
    show,
    split_list,
)
from hidekit.cli.optimal_cmd import MetricOpt, SuppressedOpt, SuppressionOpt, run_optimal
from hidekit.cli.options import (
    ChunkRowsOpt,
    DataArg,
    EngineOpt,
    FormulasOpt,
    JsonOpt,
    MaxLossOpt,
    ReportOpt,
    SepOpt,
)
from hidekit.cli.secret_options import secret_options
from hidekit.errors import OptionError
from hidekit.jobs import SecretOptions

OutOpt = typer.Option(
    ..., "--out", "-o", help="Write the transformed table here (format from the suffix)."
)
ColumnsOpt = typer.Option(..., "--columns", "-c", help="Columns to transform, comma-separated.")


def parse_codes(text: str) -> dict[str, str]:
    """``'1=urban,2=rural'`` as ``{"1": "urban", "2": "rural"}``; a clear error otherwise."""
    out = {}
    for part in split_list(text):
        code, sep, meaning = part.partition("=")
        if not sep or not code.strip() or not meaning.strip():
            raise OptionError(f"--urban-codes: expected CODE=urban or CODE=rural, got {part!r}")
        out[code.strip()] = meaning.strip()
    return out


def print_transformed(result: jobs.JobResult) -> None:
    """What one step on a file did: its decisions, the cells it changed, where it wrote."""
    summary = result.figures
    for what, d in summary.get("decisions", {}).items():
        codes = ", ".join(f"{c} -> {v}" for c, v in d.get("codes", {}).items())
        out.print(f"{what}: {d.get('column')} read from {d.get('read_from')}: {codes}")
    changed = ", ".join(f"{c}: {n:,}" for c, n in summary["cells_changed"].items()) or "none"
    out.print(
        f"{summary['step']}: {summary['records']:,} records, cells changed: {changed} "
        f"-> {summary['output']}"
    )


def run_step(data: Path, out_file: Path, step, sep, neutralize: bool, json: bool) -> None:
    """One table step on a file: the ``transform`` job, printed."""
    show(
        jobs.transform(data, out_file, step, sep=sep, neutralize=neutralize),
        json,
        print_transformed,
    )


@handle_errors
@secret_options("key", "passphrase")
def release(
    plan: Path = typer.Argument(..., help="Release plan (TOML)."),
    out_dir: Path = typer.Option(None, "--out", "-o", help="Output folder (overrides the plan's)."),
    overwrite: bool = typer.Option(
        None, "--overwrite/--no-overwrite", help="Replace an existing output folder."
    ),
    no_scan: bool = typer.Option(
        False,
        "--no-scan",
        help="Skip the PII scan of the release (the plan's roles are still enforced).",
    ),
    engine: str = EngineOpt,
    json: bool = JsonOpt,
    chunk_rows: int = ChunkRowsOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Run a release plan: steps in order, then write data, crosswalk, audit log and report,
    or refuse (exit 2) when a direct identifier remains or the risk limit is not met.

    The secret key (--key-file, --key-env) overrides the plan's [secrets]; it keys every random
    choice and encrypts the crosswalk."""
    with progress_bar("release steps", None, enabled=not json) as advance:
        result = jobs.release(
            plan,
            out_dir,
            overwrite=overwrite,
            scan=not no_scan,
            secrets=secrets,
            progress=advance,
            engine=engine,
            chunk_rows=chunk_rows,
        )
    show(result, json, _print_release)


def _print_release(result: jobs.JobResult) -> None:
    r = result.figures
    plan = result.detail.plan
    t = Table(title=f"Release of {plan.input.name}")
    for c in ("step", "use", "cells changed", "k after", "RP after", "s"):
        t.add_column(c)
    for s in r["steps"]:
        t.add_row(
            str(s["step"]),
            s["use"],
            ", ".join(f"{c}: {n:,}" for c, n in s["cells_changed"].items()) or "–",
            str(s["risk_after"].get("k", "")),
            f"{s['risk_after'].get('rp', 0):.4f}",
            f"{s['seconds']:.2f}",
        )
    out.print(t)
    before, after = r["risk_before"], r["risk_after"]
    out.print(
        f"risk before: k={before['k']}, RP={before['rp']:.4f}; after: "
        + (f"k={after['k']}, RP={after['rp']:.4f}" if after else "no key left")
    )
    loss = r["information_loss"]
    worst = max(loss["variables"], key=lambda v: v["share"], default=None)
    if worst is not None:
        out.print(
            f"information lost: at most {worst['share']:.1%} of a variable's cells "
            f"({worst['column']}); warning above {loss['max_loss']:.0%}"
        )
    out.print(f"released into {plan.output}: " + ", ".join(r["files"].values()))


@handle_errors
def plan_steps(
    out_file: Path = typer.Option(
        None, "--out", "-o", help="Write the Markdown reference here (docs/plan-steps.md)."
    ),
    json: bool = JsonOpt,
):
    """Every release-plan step with every parameter, from the step registry."""
    from hidekit.io import write_text_atomic
    from hidekit.release.steps_doc import plan_steps_markdown, step_docs

    if json:
        print_json(step_docs())
    elif out_file:
        from hidekit.io.atomic import check_output_file

        write_text_atomic(check_output_file(out_file), plan_steps_markdown())
        out.print(f"plan steps written to {out_file}", markup=False)
    else:
        out.print(plan_steps_markdown(), markup=False, highlight=False)


@handle_errors
def generalize(
    data: Path = DataArg,
    columns: str = ColumnsOpt,
    out_file: Path = OutOpt,
    width: float = typer.Option(None, "--width", help="Numeric bins of this width."),
    edges: str = typer.Option(None, "--edges", help="Numeric bin edges, comma-separated."),
    to: str = typer.Option(None, "--to", help="Dates to year, quarter or month."),
    hierarchy: list[str] = typer.Option(
        None,
        "--hierarchy",
        help="ARX hierarchy file (one column), or COLUMN=FILE for each key with --optimal.",
    ),
    level: int = typer.Option(1, "--level", help="Hierarchy level (0 = raw)."),
    optimal: bool = typer.Option(
        False, "--optimal", help="Choose every column's level by ARX's optimal search."
    ),
    k: int = typer.Option(2, "--k", help="With --optimal: classes of at least k records."),
    suppression: float = SuppressionOpt,
    metric: str = MetricOpt,
    suppressed: str = SuppressedOpt,
    report: Path = ReportOpt,
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
):
    """Aggregate values: numeric bins, dates to month/quarter/year, or an ARX hierarchy;
    with --optimal, the least-loss levels of all columns that make the table k-anonymous."""
    from hidekit.transforms import Transform
    from hidekit.transforms.generalize import Bin, CoarsenDate, Hierarchy

    cols = split_list(columns)
    if optimal:
        run_optimal(
            data,
            cols,
            parse_pairs(hierarchy, "--hierarchy"),
            out_file,
            json=json,
            sep=sep,
            report=report,
            suppressed=suppressed,
            k=k,
            suppression=suppression,
            metric=metric,
            neutralize=neutralize,
        )
        return
    chosen = [o for o in (width, edges, to, hierarchy or None) if o is not None]
    if len(chosen) != 1:
        raise OptionError("give exactly one of --width, --edges, --to, --hierarchy")
    if hierarchy:
        if len(cols) != 1 or len(hierarchy) != 1:
            raise OptionError("--hierarchy applies to one column (or use --optimal)")
        path = hierarchy[0].partition("=")[2] if "=" in hierarchy[0] else hierarchy[0]
        t: Transform = Hierarchy(cols[0], Path(path), level=level)
    elif to is not None:
        t = CoarsenDate(cols, to=to)
    else:
        try:
            e = [float(x) for x in split_list(edges)] if edges else None
        except ValueError:
            raise OptionError(f"--edges must be numbers, got {edges!r}") from None
        t = Bin(cols, width=width, edges=e)
    run_step(data, out_file, t, sep, neutralize, json)


@handle_errors
def topcode(
    data: Path = DataArg,
    columns: str = ColumnsOpt,
    out_file: Path = OutOpt,
    top: float = typer.Option(None, "--top", help="Values ≥ this read 'top+'."),
    bottom: float = typer.Option(None, "--bottom", help="Values ≤ this read '<=bottom'."),
    top_percentile: float = typer.Option(None, "--top-percentile"),
    bottom_percentile: float = typer.Option(None, "--bottom-percentile"),
    no_labels: bool = typer.Option(
        False, "--no-labels", "--numeric", help="Cap values at the thresholds, keep numbers."
    ),
    flag: bool = typer.Option(
        False, "--flag", help="Add <column>_topcoded: 1 top-coded, -1 bottom-coded, 0 not."
    ),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
):
    """Top/bottom coding by value or percentile, with readable labels (250000+)."""
    from hidekit.transforms.topcode import TopCode

    t = TopCode(
        split_list(columns),
        top=top,
        bottom=bottom,
        top_percentile=top_percentile,
        bottom_percentile=bottom_percentile,
        labels=not no_labels,
        flag=flag,
    )
    run_step(data, out_file, t, sep, neutralize, json)


@handle_errors
def safe_harbor(
    data: Path = DataArg,
    out_file: Path = OutOpt,
    ages: str = typer.Option(None, "--ages", help="Age columns (over 89 -> 90+)."),
    dates: str = typer.Option(
        None, "--dates", help="Date columns (-> year; 90+ in records aged over 89)."
    ),
    births: str = typer.Option(
        None, "--births", help="Birth-date columns (-> year, or 90+ when aged 90 on --as-of)."
    ),
    as_of: int = typer.Option(
        None, "--as-of", help="Year ages are reckoned at for --births (default: this year)."
    ),
    zips: str = typer.Option(None, "--zips", help="ZIP columns (-> 3 digits)."),
    population: Path = typer.Option(
        None, "--population", help="CSV zip3,population: areas under 20,000 -> 000."
    ),
    numeric_ages: bool = typer.Option(
        False, "--numeric-ages", help="Ages over 89 become 90 plus an <age>_topcoded flag."
    ),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
):
    """HIPAA Safe Harbor preset for ages, dates and ZIP codes."""
    from hidekit.transforms.safe_harbor import SafeHarbor

    t = SafeHarbor(
        ages=split_list(ages),
        dates=split_list(dates),
        zips=split_list(zips),
        population=str(population) if population else None,
        numeric_ages=numeric_ages,
        births=split_list(births),
        as_of=as_of,
    )
    run_step(data, out_file, t, sep, neutralize, json)


@handle_errors
@secret_options("key", "seed")
def jitter(
    data: Path = DataArg,
    out_file: Path = OutOpt,
    lat: str = typer.Option("latitude", "--lat"),
    lon: str = typer.Option("longitude", "--lon"),
    urban: str = typer.Option(None, "--urban", help="Column saying urban or rural."),
    urban_codes: str = typer.Option(
        None,
        "--urban-codes",
        help="Which value is which, e.g. '1=urban,2=rural' (default: read value labels, "
        "then the values, in en/es/fr/pt/it/de).",
    ),
    cluster: str = typer.Option(
        None, "--cluster", help="Cluster column: aggregate to its mean point first."
    ),
    boundaries: Path = typer.Option(
        None, "--boundaries", help="GeoJSON areas the points must stay in."
    ),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """DHS geographic masking: urban up to 2 km, rural up to 5 km (1% up to 10 km).

    Displacements come from --key-file (reproducible by the key's holder only), else fresh
    from the OS; a seed would let anyone re-run the draw and subtract it."""
    from hidekit.transforms.geo import Jitter

    t = Jitter(
        lat=lat,
        lon=lon,
        urban=urban,
        urban_codes=parse_codes(urban_codes) if urban_codes else None,
        cluster=cluster,
        boundaries=str(boundaries) if boundaries else None,
        key=secrets.randomness("jitter"),
    )
    run_step(data, out_file, t, sep, neutralize, json)


@handle_errors
def suppress(
    data: Path = DataArg,
    keys: str = typer.Option(..., "--keys", "-k", help="Key variables, comma-separated."),
    out_file: Path = OutOpt,
    k: int = typer.Option(5, "--k", min=1, help="Every record must match at least k records."),
    importance: str = typer.Option(
        None, "--importance", help="Keys most important first (suppressed last)."
    ),
    missing: str = typer.Option(
        "category", "--missing", help="category (hidekit's rule) or wildcard (sdcMicro's)."
    ),
    max_loss: float = MaxLossOpt,
    risk_threshold: float = typer.Option(
        None,
        "--risk-threshold",
        help="Instead of k: blank key values of records whose individual risk is above this "
        "(sdcMicro's localSupp).",
    ),
    columns: str = typer.Option(
        None, "--columns", help="--risk-threshold: keys to blank, in order (default: the first)."
    ),
    weights: str = typer.Option(
        None, "--weights", help="--risk-threshold: column of sampling weights."
    ),
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    chunk_rows: int = ChunkRowsOpt,
):
    """Local suppression to k-anonymity, as few cells as possible; counts per variable and
    the share of cells lost, with a warning above --max-loss. With --risk-threshold, suppression
    by individual risk instead (sdcMicro's localSupp)."""
    if risk_threshold is not None:
        result = jobs.suppress_risk(
            data,
            out_file,
            keys=split_list(keys),
            threshold=risk_threshold,
            columns=split_list(columns) or None,
            weights=weights,
            missing="any" if missing == "wildcard" else missing,
            sep=sep,
            neutralize=neutralize,
        )
        show(result, json, _print_risk_suppressed)
        return
    result = jobs.suppress(
        data,
        out_file,
        keys=split_list(keys),
        k=k,
        importance=split_list(importance),
        missing=missing,
        sep=sep,
        neutralize=neutralize,
        max_loss=max_loss,
        chunk_rows=chunk_rows,
    )
    show(result, json, _print_suppressed)


def _print_risk_suppressed(result: jobs.JobResult) -> None:
    r = result.figures
    t = Table(title=f"Suppressed by individual risk > {r['risk_threshold']:g} ({r['missing']})")
    t.add_column("variable")
    t.add_column("cells", justify="right")
    for c, n in r["suppressed"].items():
        t.add_row(c, f"{n:,}")
    t.add_row("total", f"{r['total_suppressed']:,}")
    out.print(t)
    out.print(
        f"records above the threshold: {r['above_threshold_before']:,} before, "
        f"{r['above_threshold_after']:,} after -> {r['output']}"
    )


def _print_suppressed(result: jobs.JobResult) -> None:
    r = result.figures
    t = Table(title=f"Suppressed cells (k={r['k']}, {r['missing']})")
    t.add_column("variable")
    t.add_column("cells", justify="right")
    for c, n in r["suppressed"].items():
        t.add_row(c, f"{n:,}")
    t.add_row("total", f"{r['total_suppressed']:,}")
    out.print(t)
    out.print(
        f"k before {r['k_before']}, after {r['k_after']}; {r['records_touched']:,} records "
        f"touched -> {r['output']}"
    )
    print_loss(r["information_loss"])


COMMANDS = {
    "release": release,
    "plan-steps": plan_steps,
    "generalize": generalize,
    "topcode": topcode,
    "safe-harbor": safe_harbor,
    "jitter": jitter,
    "suppress": suppress,
}
