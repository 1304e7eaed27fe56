"""``hidekit text risk``: how likely is a patient re-identified from what a tool left in the text?"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, progress_bar, show, split_list, styled
from hidekit.cli.options import JsonOpt, ReportOpt
from hidekit.cli.secret_options import secret_options
from hidekit.errors import OptionError
from hidekit.jobs import SecretOptions


def _attempt(value: str | None) -> list[float] | None:
    parts = split_list(value)
    if not parts:
        return None
    try:
        return [float(x) for x in parts]
    except ValueError as exc:
        raise OptionError(f"--attempt takes three numbers a,b,c, got {value!r}") from exc


def _verdict(ok: bool):
    return styled("green", "acceptable") if ok else styled("red", "not acceptable")


def _f(v) -> str:
    return "–" if v is None else f"{v:.4f}"


def _print_result(d: dict) -> None:
    t = Table(title=f"Re-identification risk ({d['n']} {d['unit']}s)")
    for col in ("", "estimate", "MC mean", "95% interval", "limit", "verdict"):
        t.add_column(col, justify="right" if col else "left")
    di, qi = d["direct"], d["quasi"]
    bench = di["benchmark"]
    t.add_row(
        "direct identifiers (≥ 1 leak)",
        _f(di["estimate"]),
        _f(di["mean"]),
        f"{_f(di['ci'][0])} – {_f(di['ci'][1])}",
        f"benchmark UCL {_f(bench['ci'][1])}",
        _verdict(di["acceptable"]),
    )
    t.add_row(
        "quasi-identifiers (≥ 2 leaks)",
        _f(qi["estimate"]),
        _f(qi["mean"]),
        f"{_f(qi['ci'][0])} – {_f(qi['ci'][1])}",
        f"τ {_f(qi['tau'])}",
        _verdict(qi["acceptable"]),
    )
    out.print(t)
    out.print(f"DI: {di['reason']}")
    out.print(f"QI: {qi['reason']}")
    sample = d["sample"]
    if sample["too_small"]:
        out.print(
            "warning: the sample is too small for these intervals; they understate "
            "the uncertainty:",
            style="yellow",
        )
        for w in sample["warnings"]:
            out.print(f"  {w}", style="yellow")
        out.print(sample["rule"], style="dim")
    c = Table(title="Conventional figures beside the risk-based ones (paper's Tables 1, 3, 6)")
    for col in (
        "",
        "entity recall",
        "token recall",
        "masking recall",
        "all-or-nothing recall",
        "leak probability (1 − masking)",
    ):
        c.add_column(col, justify="right" if col else "left")
    for name, g in (
        ("direct identifiers", di["conventional"]),
        ("quasi-identifiers", qi["conventional"]),
    ):
        mr = g["masking_recall"]
        c.add_row(
            name,
            _f(g["strict_recall"]),
            _f(g["token_recall"]),
            _f(mr),
            _f(g["all_or_nothing_recall"]),
            _f(None if mr is None else 1 - mr),
        )
    out.print(c)
    out.print(
        f"QI inputs: r_q {qi['r_q']:.4f}, n_q {qi['n_q']:.3f}, m {qi['m']:.3f}, "
        f"s_q {qi['s_q']}; ignored types: {', '.join(d['ignored_types']) or 'none'}",
        style="dim",
    )


@handle_errors
@secret_options("key")
def risk(
    gold: Path = typer.Option(..., "--gold", help="Gold annotations: brat folder or JSONL file."),
    pred: Path = typer.Option(
        ...,
        "--pred",
        help="A tool's annotations of the same documents: brat folder "
        "(.ann files, .txt optional) or JSONL file.",
    ),
    fmt: str = typer.Option(None, "--format", help="brat or jsonl (guessed when omitted)."),
    types_map: str = typer.Option(
        None,
        "--types-map",
        help='JSON file {"direct": [...], "quasi": [...]}, or '
        "hipaa / meddocan (default: both built-in maps).",
    ),
    resynthesized: bool = typer.Option(
        False,
        "--resynthesized",
        help="The output carries surrogates, not redactions: leaks may hide in plain sight.",
    ),
    hips: float = typer.Option(0.1, "--hips", help="Hiding-in-plain-sight factor h."),
    strict_di: float = typer.Option(
        0.9, "--strict-di", help="All-or-nothing recall a DI type needs for h to apply."
    ),
    strict_qi: float = typer.Option(
        0.7, "--strict-qi", help="QI masking recall needed for h to apply."
    ),
    attempt: str = typer.Option(
        None,
        "--attempt",
        help="Non-public release: attempt probability Triang(a,b,c) "
        "as a,b,c (default: public, A = 1).",
    ),
    cell_size: int = typer.Option(
        5, "--cell-size", help="QI threshold τ = 1 / cell size (5 → 0.2)."
    ),
    draws: int = typer.Option(10_000, "--draws", help="Monte Carlo draws."),
    seed: int = typer.Option(
        None,
        "--seed",
        min=0,
        help="Tests only: same seed, same intervals (never printed). For reproducible "
        "reports use --key-file; without either the draws are fresh.",
    ),
    m_draw: str = typer.Option(
        "poisson",
        "--m-draw",
        help="How M (instances per QI value) is drawn: poisson (the paper, M ~ Pois(m)) or "
        "shifted (M = 1 + Pois(m - 1): same mean, never 0 instances).",
    ),
    json: bool = JsonOpt,
    report: Path = ReportOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options (a key only)
):
    """Scaiano & El Emam text risk: DI and QI re-identification probability with intervals."""
    attempt_abc = _attempt(attempt)
    with progress_bar("measuring text risk", total=None, enabled=not json) as advance:
        result = jobs.text_risk(
            gold,
            pred,
            report=report,
            fmt=fmt,
            types_map=types_map,
            resynthesized=resynthesized,
            hips=hips,
            strict_di=strict_di,
            strict_qi=strict_qi,
            attempt=attempt_abc,
            cell_size=cell_size,
            draws=draws,
            seed=seed,
            key=secrets.key(),
            m_draw=m_draw,
            progress=advance,
        )
    show(result, json, _print_text_risk)


def _print_text_risk(result: jobs.JobResult) -> None:
    _print_result(result.figures)
    if "report" in result.outputs:
        out.print(f"report: {result.outputs['report']}")


COMMANDS = {
    "risk": risk,
}
