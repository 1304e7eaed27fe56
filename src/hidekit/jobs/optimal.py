"""File in, file out: read a table, find the optimal generalization (ARX's lattice search),
write the release and a report. ``anonymize --method optimal`` and ``generalize --optimal``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from hidekit.anonymize.optimal.api import optimal_generalization
from hidekit.anonymize.optimal.report import optimal_report
from hidekit.errors import PolicyError
from hidekit.io import read_table, write_table
from hidekit.io.atomic import check_output_file
from hidekit.jobs.checks import identifiers_left
from hidekit.jobs.files import save_report
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.transforms.loss import (
    DEFAULT_MAX_LOSS,
    VariableLoss,
    information_loss,
    loss_summary,
    require_max_loss,
)


def key_loss(before: pd.DataFrame, starred: pd.DataFrame, keys: list[str]) -> list[VariableLoss]:
    """Cells lost per key: a ``*`` (a suppressed record, or the hierarchy's top) counts as
    suppressed, any other new label as generalized (``hidekit.transforms.loss``)."""
    blanked = starred[keys].astype(object).where(starred[keys].astype(str) != "*", None)
    return information_loss(before, blanked, keys)


def anonymize_optimal(
    data,
    out,
    *,
    keys: list[str],
    hierarchies: dict,
    sep: str | None = None,
    report=None,
    suppressed: str = "star",
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
    max_loss: float = DEFAULT_MAX_LOSS,
    **options,
) -> JobResult:
    """Release ``data`` into ``out`` under the least-loss generalization; figures are
    ``transformation``, ``information_loss``, ``suppressed``, ``classes``,
    ``transformations_checked``, ``lattice_size`` … (``options``: k, l, t, suppression, metric
    and the rest of :func:`hidekit.anonymize.optimal.api.optimal_generalization`)."""
    data = Path(data)
    max_loss = require_max_loss(max_loss)
    out = check_output_file(out, (data,))
    if report is not None:
        report = check_output_file(report, (data, out))
    advance, seen = progress_or_quiet(progress), [0]

    def checked(done: int, total: int) -> None:
        advance(done - seen[0], total=total)
        seen[0] = done

    # the search counts the file through the engine (DuckDB reads a large CSV or Parquet file
    # itself); the records are read only to write the release
    result = optimal_generalization(data, keys, hierarchies, progress=checked, sep=sep, **options)
    title = f"Optimal generalization of {data.name}"
    if not result.found:
        if report is not None:
            save_report(optimal_report(result, title), report)
        raise PolicyError(result.notes[-1] if result.notes else "no transformation found")
    ds = read_table(data, sep=sep)
    released = result.apply(ds.frame, suppressed=suppressed)
    loss = key_loss(ds.frame, result.apply(ds.frame, suppressed="star"), keys)
    if report is not None:
        save_report(optimal_report(result, title, loss, max_loss), report)
    # generalized keys no longer carry their original value labels
    labels = {c: v for c, v in ds.value_labels.items() if c not in keys}
    write_table(
        replace(ds.with_frame(released), value_labels=labels),
        out,
        protect=(data,),
        neutralize=neutralize,
    )
    figures = {
        **result.to_dict(),
        "cells_lost": loss_summary(loss, max_loss),
        "input": data.name,
        "output": str(out),
        "report": str(report) if report is not None else None,
        "suppressed_records": suppressed,
    }
    warnings = identifiers_left(released, keys)
    return JobResult(
        "anonymize optimal", {"data": data}, {"data": out, "report": report}, figures, warnings
    )
