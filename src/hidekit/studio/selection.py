"""The studio's Select screen: Lin & Garin's forward / backward / stepwise selection of keys.

The choice is ``hidekit.selection.select_variables`` on the table as the plan has left it (its
own DuckDB engine, so the work can run beside the page); the tables and the RP/CR plot are those
of ``hidekit select --report``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import overload

from markupsafe import Markup

from hidekit.engines import DuckDBEngine
from hidekit.errors import OptionError
from hidekit.selection import METHODS, SelectionResult, select_variables
from hidekit.selection.criteria import CRITERIA, GLOBAL_RISK
from hidekit.selection.report import rp_cr_chart, step_rows
from hidekit.studio.tasks import Task
from hidekit.studio.workbench import Workbench


@dataclass
class SelectionRequest:
    """What the Select form asks for (checked before any work starts)."""

    keys: list[str]
    force: list[str]
    method: str = "forward"
    stop: float = 0.05
    remove_stop: float | None = None
    criterion: str = "alpha"
    weights: str | None = None
    by: str | None = None  # a variable: the selection again within each of its groups

    @classmethod
    def from_form(cls, bench: Workbench, form: Mapping[str, object], pairs) -> SelectionRequest:
        columns = set(bench.frame.columns)
        keys = [str(v) for k, v in pairs if k == "key" and str(v) in columns]
        force = [str(v) for k, v in pairs if k == "force" and str(v) in columns]
        method = str(form.get("method") or "forward")
        criterion = str(form.get("criterion") or "alpha")
        if method not in METHODS:
            raise OptionError(f"method must be one of {', '.join(METHODS)}")
        if criterion not in CRITERIA:
            raise OptionError(f"criterion must be one of {', '.join(CRITERIA)}")
        if not keys and not force:
            raise OptionError("tick at least one candidate key variable")
        weights = [c for c in bench.columns_with("weight") if c in columns]
        by = str(form.get("by") or "") or None
        if by is not None and by not in columns:
            raise OptionError(f"no column {by!r} to select within")
        return cls(
            keys=keys,
            force=force,
            method=method,
            stop=_fraction(form, "stop", 0.05),
            remove_stop=_fraction(form, "remove_stop", None) if method == "stepwise" else None,
            criterion=criterion,
            weights=weights[0] if weights and criterion == GLOBAL_RISK else None,
            by=by,
        )


@overload
def _fraction(form: Mapping[str, object], name: str, default: float) -> float: ...
@overload
def _fraction(form: Mapping[str, object], name: str, default: None) -> float | None: ...
def _fraction(form: Mapping[str, object], name: str, default: float | None) -> float | None:
    raw = str(form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise OptionError(f"{name.replace('_', ' ')} must be a number, got {raw!r}") from None


def run_selection(bench: Workbench, ask: SelectionRequest, task: Task) -> list[SelectionResult]:
    """The selection on the current table (all records first, then each group of ``by``);
    ``task`` hears of each step."""
    frame = bench.frame
    groups = 1 + (int(frame[ask.by].nunique(dropna=False)) if ask.by else 0)
    steps = groups * max(1, len(ask.keys) + len(ask.force))
    task(0, total=steps, completed=0, description="selection")
    result = select_variables(
        None,
        ask.keys,
        force=ask.force,
        method=ask.method,
        stop=ask.stop,
        remove_stop=ask.remove_stop,
        cell_min=bench.cell_min,
        criterion=ask.criterion,
        weights=ask.weights,
        by=ask.by,
        engine=DuckDBEngine(frame),
        progress=task.step,
    )
    return result if isinstance(result, list) else [result]


def selection_chart(result: SelectionResult) -> Markup:
    """RP and CR (and global risk) by step, the stop limit drawn: the report's own plot."""
    return Markup(rp_cr_chart(result, result.stop))  # noqa: S704 - hidekit.report.svg escapes


def selection_view(results: list[SelectionResult]) -> dict:
    """What the result fragment shows for all records and each group: the keys chosen, the
    summary of steps, each step's candidates, the plot."""
    return {
        "parts": [
            {
                "result": r,
                "rows": step_rows(r),
                "chart": selection_chart(r),
                "warning": r.limit_warning() if r.above_limit else None,
            }
            for r in results
        ]
    }
