"""``hidekit anonymize`` (HIDE's full / partial / statistical de-identification of a table) and
``hidekit utility`` (what a release still tells: query precision, discernibility, C_avg, NCP)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, print_loss, progress_bar, show, split_list
from hidekit.cli.optimal_cmd import (
    AvgRiskOpt,
    CellMinOpt,
    FractionOpt,
    MaxRpOpt,
    MetricOpt,
    PopulationOpt,
    PopUniqueOpt,
    SuppressedOpt,
    SuppressionOpt,
    TimeLimitOpt,
    UnknownOpt,
    WeightsOpt,
    parse_weights,
    run_optimal,
)
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

KeysOpt = typer.Option(..., "--keys", help="Quasi-identifiers to generalize, comma-separated.")
HierarchyOpt = typer.Option(
    None,
    "--hierarchy",
    help="COLUMN=FILE: an ARX hierarchy (value;level1;…;*) for a key. Repeatable.",
)


def parse_pairs(items: list[str] | None, what: str) -> dict[str, str]:
    """['age=h.csv', …] → {'age': 'h.csv'}."""
    result = {}
    for item in items or []:
        col, sep, value = item.partition("=")
        if not sep or not col.strip() or not value.strip():
            raise OptionError(f"{what} must look like COLUMN=VALUE, got {item!r}")
        result[col.strip()] = value.strip()
    return result


def _orders(items: list[str] | None) -> dict[str, list[str]]:
    return {
        col: [v.strip() for v in value.split("|") if v.strip()]
        for col, value in parse_pairs(items, "--order").items()
    }


def default_output(data: Path) -> Path:
    return data.with_name(f"{data.stem}.anonymized{data.suffix or '.csv'}")


def _num(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


@handle_errors
@secret_options("key", "seed")
def anonymize(
    data: Path = DataArg,
    keys: str = KeysOpt,
    k: int = typer.Option(..., "--k", help="Every record ends in a class of at least k records."),
    l: int = typer.Option(  # noqa: E741
        None, "--l", help="Each class holds l well-represented sensitive values."
    ),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive column for l-diversity."),
    l_kind: str = typer.Option("distinct", "--l-kind", help="distinct, entropy or recursive."),
    c: float = typer.Option(None, "--c", help="c of recursive (c, l)-diversity."),
    mode: str = typer.Option("statistical", "--mode", help="full, partial or statistical (HIDE)."),
    identifiers: str = typer.Option(
        "", "--identifiers", help="Direct identifiers removed in every mode (name, ssn…)."
    ),
    hierarchy: list[str] = HierarchyOpt,
    order: list[str] = typer.Option(
        None, "--order", help="COLUMN=a|b|c: order of a categorical key's values. Repeatable."
    ),
    output: Path = typer.Option(
        None, "--out", help="Released file (default: DATA.anonymized.EXT)."
    ),
    no_shuffle: bool = typer.Option(False, "--no-shuffle", help="Keep the input row order."),
    engine: str = EngineOpt,
    sep: str = SepOpt,
    neutralize: bool = FormulasOpt,
    json: bool = JsonOpt,
    method: str = typer.Option(
        "mondrian", "--method", help="mondrian (HIDE) or optimal (ARX's lattice search)."
    ),
    t_closeness: float = typer.Option(
        None, "--t", help="t-closeness of --sensitive (--method optimal)."
    ),
    t_hierarchy: Path = typer.Option(
        None,
        "--t-hierarchy",
        help="ARX hierarchy of --sensitive: t-closeness by hierarchical distance.",
    ),
    suppression: float = SuppressionOpt,
    metric: str = MetricOpt,
    suppressed: str = SuppressedOpt,
    unknown_values: str = UnknownOpt,
    time_limit: float = TimeLimitOpt,
    weights: str = WeightsOpt,
    max_avg_risk: float = AvgRiskOpt,
    max_rp: float = MaxRpOpt,
    max_population_uniqueness: float = PopUniqueOpt,
    population: float = PopulationOpt,
    sampling_fraction: float = FractionOpt,
    cell_min: int = CellMinOpt,
    report: Path = ReportOpt,
    max_loss: float = MaxLossOpt,
    chunk_rows: int = ChunkRowsOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """De-identify a table: drop identifiers, generalize keys by Mondrian (k, l-diversity), or
    find the least-loss full-domain generalization over hierarchies (--method optimal)."""
    key_list = split_list(keys, required="--keys")
    if method == "optimal":
        if identifiers or order:
            raise OptionError("--identifiers and --order belong to --method mondrian")
        run_optimal(
            data,
            key_list,
            parse_pairs(hierarchy, "--hierarchy"),
            output or default_output(data),
            json=json,
            sep=sep,
            report=report,
            suppressed=suppressed,
            k=k,
            l=l,
            l_kind=l_kind,
            c=c,
            t=t_closeness,
            t_hierarchy=str(t_hierarchy) if t_hierarchy else None,
            sensitive=sensitive,
            suppression=suppression,
            metric=metric,
            weights=parse_weights(weights, key_list),
            unknown_values=unknown_values,
            time_limit=time_limit,
            engine=engine,
            neutralize=neutralize,
            max_avg_risk=max_avg_risk,
            max_rp=max_rp,
            max_population_uniqueness=max_population_uniqueness,
            population=population,
            sampling_fraction=sampling_fraction,
            cell_min=cell_min,
            max_loss=max_loss,
            chunk_rows=chunk_rows,
        )
        return
    if method != "mondrian":
        raise OptionError(f"--method must be mondrian or optimal, got {method!r}")
    with progress_bar("Mondrian cuts", None, enabled=not json) as advance:
        result = jobs.anonymize(
            data,
            output or default_output(data),
            keys=key_list,
            k=k,
            l=l,
            sensitive=sensitive,
            l_kind=l_kind,
            c=c,
            hierarchies=parse_pairs(hierarchy, "--hierarchy"),
            order=_orders(order),
            mode=mode,
            identifiers=split_list(identifiers),
            shuffle=not no_shuffle,
            secrets=secrets,
            engine=engine,
            sep=sep,
            neutralize=neutralize,
            progress=advance,
            report=report,
            max_loss=max_loss,
            chunk_rows=chunk_rows,
        )
    show(
        result,
        json,
        lambda r: _print_stats(r, f"{mode.capitalize()} de-identification of {data.name}"),
    )


def _print_stats(result: jobs.JobResult, title: str) -> None:
    t = Table(title=title, show_header=False)
    for name, value in result.figures["stats"].items():
        t.add_row(name.replace("_", " "), _num(value))
    out.print(t)
    print_loss(result.figures["information_loss"])
    report = result.figures.get("report")
    out.print(f"released: {result.figures['output']}" + (f"; report: {report}" if report else ""))


@handle_errors
def utility(
    original: Path = typer.Argument(..., help="The original data."),
    released: Path = typer.Argument(
        ..., help="A release of the same records (e.g. from anonymize)."
    ),
    keys: str = typer.Option(..., "--keys", help="Generalized keys, comma-separated."),
    k: int = typer.Option(
        None, "--k", help="k the release was made for (C_avg); default: its smallest class."
    ),
    hierarchy: list[str] = HierarchyOpt,
    queries: int = typer.Option(10_000, "--queries", help="Random queries per attribute."),
    query_kind: str = typer.Option(
        "range",
        "--query-kind",
        help="range (lo < x < hi) or one-sided (x > n / x < n, as HIDE).",
    ),
    attribute: str = typer.Option(
        None,
        "--attribute",
        help="Attribute of the precision-vs-k figure (default: first numeric key).",
    ),
    curve_k: str = typer.Option("2,5,10,25,50", "--curve-k", help="k values of the figure."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the random queries."),
    sep: str = SepOpt,
    json: bool = JsonOpt,
    report: Path = ReportOpt,
):
    """Utility of a release: query precision (HIDE), discernibility, C_avg, NCP."""
    key_list = split_list(keys, required="--keys")
    ks: list[int] = []
    if report:
        try:
            ks = [int(v) for v in split_list(curve_k)]
        except ValueError:
            raise OptionError(f"--curve-k must list integers, got {curve_k!r}") from None
    result = jobs.utility(
        original,
        released,
        keys=key_list,
        k=k,
        hierarchies=parse_pairs(hierarchy, "--hierarchy"),
        queries=queries,
        query_kind=query_kind,
        attribute=attribute,
        curve_k=ks,
        seed=seed,
        sep=sep,
        report=report,
    )
    show(result, json, lambda r: _print_utility(r, key_list, released))


def _print_utility(result: jobs.JobResult, key_list: list[str], released: Path) -> None:
    r = result.figures
    t = Table(title=f"Utility of {released.name}", show_header=False)
    for name in ("records", "classes", "k", "discernibility", "average_class_size", "ncp"):
        t.add_row(name.replace("_", " "), _num(r[name]))
    out.print(t)
    per = Table(title="By key")
    for col in ("key", "NCP", "query precision"):
        per.add_column(col, justify="right")
    for key in key_list:
        per.add_row(key, _num(r["ncp_by_key"][key]), _num(r["query_precision"][key]))
    out.print(per)
    if "report" in result.outputs:
        out.print(f"report: {result.outputs['report']}")


COMMANDS = {"anonymize": anonymize, "utility": utility}
