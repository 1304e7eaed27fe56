"""The studio's hierarchy editor: bins for a number, groups for a category, as a plan step.

Numbers become a ``bin`` step with the edges drawn; categories a ``map_values`` step mapping
each value to the group it was put in. The preview runs the step on the current table without
adding it (``Workbench.try_step``): the column's counts after, k and RP after. Counts come from
the engine (``cell_counts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd
from markupsafe import Markup

from hidekit.errors import OptionError
from hidekit.report.svg import bar_chart
from hidekit.risk.metrics import RiskReport
from hidekit.studio.workbench import Workbench
from hidekit.transforms.identifiers import value_key

GROUPED_MAX = 300  # distinct values a grouping lists; more: bin, or a hierarchy file
BARS_SHOWN = 30  # bars in the preview's chart
SUGGESTED_BINS = 5


@dataclass
class HierarchyEdit:
    """What the editor shows for one column."""

    column: str
    columns: list[str]
    kind: str  # "numeric" (bins) or "category" (groups)
    values: list[tuple[str, str, int]] = field(default_factory=list)  # value, its label, count
    edges: str = ""  # suggested edges for a number
    low: float | None = None
    high: float | None = None
    too_many: bool = False


@dataclass
class HierarchyPreview:
    column: str
    use: str
    params: dict
    counts: list[tuple[str, int]]
    risk: RiskReport | None
    cells_changed: int
    chart: Markup


def first_column(bench: Workbench) -> str:
    keys = bench.keys
    return keys[0] if keys else str(bench.frame.columns[0])


def column_kind(bench: Workbench, column: str) -> str:
    """Bins for numbers; groups for text and for coded numbers carrying value labels."""
    numeric = pd.api.types.is_numeric_dtype(bench.frame[column])
    return "numeric" if numeric and column not in bench.dataset.value_labels else "category"


def _counts(bench: Workbench, column: str) -> pd.DataFrame:
    counts = bench.engine.cell_counts([column])
    return counts.sort_values(column, na_position="last", key=_sort_key).reset_index(drop=True)


def _sort_key(s: pd.Series) -> pd.Series:
    return s if pd.api.types.is_numeric_dtype(s) else s.astype(str)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def editor_for(bench: Workbench, column: str) -> HierarchyEdit:
    frame = bench.frame
    if column not in frame.columns:
        raise OptionError(f"no column {column!r} in the table as the plan leaves it")
    edit = HierarchyEdit(column, [str(c) for c in frame.columns], column_kind(bench, column))
    if edit.kind == "numeric":
        values = pd.to_numeric(frame[column], errors="coerce").dropna()
        if values.empty:
            raise OptionError(f"{column}: no numbers to bin")
        edit.low, edit.high = float(values.min()), float(values.max())
        inner = values.quantile([i / SUGGESTED_BINS for i in range(1, SUGGESTED_BINS)])
        edit.edges = ", ".join(dict.fromkeys(_number(round(float(q))) for q in inner))
        return edit
    counts = _counts(bench, column)
    edit.too_many = len(counts) > GROUPED_MAX
    labels = bench.dataset.value_labels.get(column, {})
    label_of = {value_key(k): str(v) for k, v in labels.items()}
    for value, n in zip(
        counts[column].head(GROUPED_MAX), counts["_n"].head(GROUPED_MAX), strict=True
    ):
        if value is None or (not isinstance(value, str) and pd.isna(value)):
            continue  # missing stays missing: map_values never maps it
        text = value_key(value)
        edit.values.append((text, label_of.get(text, ""), int(n)))
    return edit


def parse_edges(text: str) -> list[float | int]:
    """``"20, 30, 40"`` as increasing edges (whole numbers kept whole)."""
    edges: list[float | int] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            x = float(part)
        except ValueError:
            raise OptionError(f"edges are numbers separated by commas, not {part!r}") from None
        edges.append(int(x) if x.is_integer() else x)
    if not edges:
        raise OptionError("give at least one edge (e.g. 20, 40, 60)")
    if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise OptionError("edges must increase")
    return edges


def step_from_form(
    bench: Workbench, form: Mapping[str, object], pairs: Iterable[tuple[str, object]]
) -> tuple[str, dict]:
    """The plan step the editor's form describes: ``bin`` with edges, or ``map_values``."""
    column = str(form.get("column") or "")
    if column not in bench.frame.columns:
        raise OptionError(f"no column {column!r} in the table as the plan leaves it")
    if column_kind(bench, column) == "numeric":
        return "bin", {"columns": [column], "edges": parse_edges(str(form.get("edges") or ""))}
    pairs = list(pairs)
    values = [str(v) for k, v in pairs if k == "v"]
    groups = [str(v).strip() for k, v in pairs if k == "g"]
    if len(values) != len(groups):
        raise OptionError("the grouping form is incomplete: reload the editor")
    mapping = {v: g for v, g in zip(values, groups, strict=True) if g and g != v}
    if not mapping:
        raise OptionError("put values into groups first (type a group name beside them)")
    return "map_values", {"columns": [column], "mapping": mapping}


def preview(bench: Workbench, use: str, params: dict) -> HierarchyPreview:
    """The step on the current table, not added: the column's counts after, k and RP after."""
    column = params["columns"][0]
    applied = bench.try_step(use, params)
    counts = applied.engine.cell_counts([column]).sort_values("_n", ascending=False)
    rows = [
        ("(missing)" if pd.isna(v) else str(v), int(n))
        for v, n in zip(counts[column], counts["_n"], strict=True)
    ]
    shown = rows[:BARS_SHOWN]
    chart = bar_chart(
        [r[0] for r in shown],
        {"records": [r[1] for r in shown]},
        title=f"{column} after the step",
        xlabel=column,
        ylabel="records",
    )
    return HierarchyPreview(
        column,
        use,
        params,
        rows,
        applied.risk,
        int(applied.cells_changed.get(column, 0)),
        Markup(chart),  # noqa: S704 - hidekit.report.svg escapes every text
    )
