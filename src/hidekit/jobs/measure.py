"""Jobs that read a table and measure it: the PII scan, re-identification risk, the selection of
key variables. Their only outputs are optional reports and per-record files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.jobs.result import JobResult


def scan(
    data,
    *,
    sample: int | None = 10_000,
    seed: int = 0,
    min_share: float = 0.5,
    sep: str | None = None,
    progress: Callable[..., None] | None = None,
    text_model: str | None = "en",
    text_profile: str = "general",
    text_cells: int = 200,
) -> JobResult:
    """Flag the columns of ``data`` holding PII (J-PAL's categories), reading a seeded random
    ``sample`` of rows (None: all). Free-text columns are read by the detection model
    ``text_model`` under ``text_profile`` (``text_cells`` cells each; None: not read)."""
    from hidekit.jobs.free_text import FreeTextReview
    from hidekit.scan import scan_table

    review = FreeTextReview(text_model, text_profile, text_cells, seed) if text_model else None
    result = scan_table(
        data,
        sample=sample,
        seed=seed,
        min_share=min_share,
        sep=sep,
        progress=progress,
        review=review,
    )
    return JobResult("scan", {"data": data}, {}, result.to_dict(), detail=result)


def load_engine(data, engine: str, sep: str | None):
    """Read the file once and wrap it in the chosen engine."""
    from hidekit.engines import make_engine

    eng = make_engine(data, engine, sep=sep)
    if not eng.has_records():
        raise OptionError(f"{data}: the file has no records")
    return eng


def risk(
    data,
    *,
    keys: Sequence[str],
    report=None,
    per_record=None,
    engine: str = "duckdb",
    sep: str | None = None,
    progress: Callable[..., None] | None = None,
    **options,
) -> JobResult:
    """Re-identification risk of ``keys`` in ``data`` (``options``: those of
    :func:`hidekit.risk.measure_risk`); an HTML ``report``, a ``per_record`` CSV."""
    from hidekit.io.atomic import check_output_file, write_text_atomic
    from hidekit.risk import measure_risk
    from hidekit.risk.report import risk_report

    inputs = (data, options["population_table"]) if options.get("population_table") else (data,)
    if report:
        check_output_file(report, inputs)
    if per_record and not (
        options.get("weights") or options.get("household") or options.get("suda")
    ):
        raise OptionError("--per-record needs --weights, --household or --suda")
    if per_record:
        check_output_file(per_record, inputs)
    result = measure_risk(None, list(keys), engine=load_engine(data, engine, sep), **options)
    if per_record:
        if result.records is None:
            raise OptionError("per-record risk needs weights, a household id or SUDA")
        csv = result.records.per_record().to_csv(index=False)
        write_text_atomic(per_record, csv, protect=inputs)
    if report:
        title = f"Risk of {Path(data).name}"
        from hidekit.jobs.files import save_report  # loads the transforms: only for a report

        save_report(risk_report(result, title=title), report, protect=inputs)
    return JobResult(
        "risk",
        {"data": data},
        {"per_record": per_record, "report": report},
        result.to_dict(),
        list(result.warnings),
        detail=result,
    )


def select(
    data,
    *,
    keys: Sequence[str],
    stop: float,
    report=None,
    engine: str = "duckdb",
    sep: str | None = None,
    by: str | None = None,
    progress: Callable[..., None] | None = None,
    **options,
) -> JobResult:
    """Lin & Garin's forward / backward / stepwise selection of key variables under the RP
    limit ``stop`` (``options``: those of :func:`hidekit.selection.select_variables`)."""
    from hidekit.io.atomic import check_output_file
    from hidekit.selection import select_variables
    from hidekit.selection.report import selection_report

    if report:
        check_output_file(report, (data,))
    eng = load_engine(data, engine, sep)
    res = select_variables(None, list(keys), stop=stop, by=by, engine=eng, **options)
    results = res if isinstance(res, list) else [res]
    if report:
        title = f"Variable selection on {Path(data).name}"
        from hidekit.jobs.files import save_report

        save_report(selection_report(results, stop, title), report, protect=(data,))
    figures = results[0].to_dict()
    if by:
        figures["by"] = by
        figures["groups"] = [r.to_dict() for r in results[1:]]
    return JobResult("select", {"data": data}, {"report": report}, figures, detail=results)
