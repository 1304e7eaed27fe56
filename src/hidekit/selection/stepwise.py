"""Forward, backward and stepwise selection of key variables (Lin & Garin; spec in docs).

Every step evaluates all remaining candidates through the engine in one call, so an engine
can count them together (DuckDB: incrementally from the current set's cell ids).

The stop limit is read against RP (the paper), or against global risk (the mean individual
risk, sdcMicro's measure, with sampling weights when given) when that is the criterion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from hidekit.engines import CellStats, Engine, make_engine
from hidekit.engines.base import check_cell_min
from hidekit.errors import OptionError, require_fraction
from hidekit.risk.records import assess_records
from hidekit.risk.weighted import check_missing_rule
from hidekit.selection.criteria import CRITERIA, GLOBAL_RISK, alpha_add, alpha_remove, score

METHODS = ("forward", "backward", "stepwise")


@dataclass
class Candidate:
    variable: str
    alpha: float
    rp: float
    cr: float
    ratio: float
    score: float
    cells: int
    at_risk: int
    global_risk: float | None = None


@dataclass
class Step:
    """One evaluated step: its candidate table and, unless it stopped there, the move made."""

    label: str  # F1, B3 … as in the paper
    action: str  # "add" or "remove"
    variable: str | None  # the chosen (best) candidate
    variables: list[str]  # the set after the move (or unchanged if not taken)
    alpha: float | None
    rp: float
    cr: float
    ratio: float
    taken: bool
    candidates: list[Candidate] = field(default_factory=list)
    before: list[str] = field(default_factory=list)
    global_risk: float | None = None

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("candidates", "before", "taken")}
        d["alpha"] = _finite(d["alpha"])
        if d["global_risk"] is None:
            del d["global_risk"]
        return d

    def measure(self, criterion: str) -> float:
        """The figure the stop limit is read against: global risk or RP."""
        if criterion == GLOBAL_RISK and self.global_risk is not None:
            return self.global_risk
        return self.rp


@dataclass
class SelectionResult:
    method: str
    criterion: str
    cell_min: int
    forced: list[str]
    keys: list[str]
    selected: list[str]
    start: dict
    steps: list[Step]
    stop_reason: str
    final: dict
    group: object = None
    stop: float | None = None
    weights: str | None = None

    @property
    def taken(self) -> list[Step]:
        return [s for s in self.steps if s.taken]

    @property
    def measure(self) -> str:
        """What the stop limit is read against: ``rp`` or ``global_risk``."""
        return GLOBAL_RISK if self.criterion == GLOBAL_RISK else "rp"

    @property
    def above_limit(self) -> bool:
        """Whether the selected set's RP (or global risk) is above the stop limit (backward
        selection stops before it falls below the limit, so its result is at or above it)."""
        return self.stop is not None and self.final[self.measure] > float(self.stop) + 1e-12

    def limit_warning(self) -> str | None:
        """One line saying the result is above the limit, or None."""
        if not self.above_limit:
            return None
        name = "global risk" if self.measure == GLOBAL_RISK else "RP"
        return (
            f"the selected set has {name} {self.final[self.measure]:.3f}, above the stop limit "
            f"{self.stop}: releasing these keys does not meet the limit"
        )

    def to_dict(self, detail: bool = True) -> dict:
        d: dict[str, object] = {
            "method": self.method,
            "criterion": self.criterion,
            "measure": self.measure,
            "weights": self.weights,
            "cell_min": self.cell_min,
            "forced": self.forced,
            "keys": self.keys,
            "selected": self.selected,
            "start": self.start,
            "steps": [s.summary() for s in self.taken],
            "stop_reason": self.stop_reason,
            "final": self.final,
            "stop": self.stop,
            "above_limit": self.above_limit,
            "warning": self.limit_warning(),
        }
        if detail:
            d["evaluations"] = [
                {
                    **s.summary(),
                    "taken": s.taken,
                    "candidates": [_candidate_dict(c) for c in s.candidates],
                }
                for s in self.steps
            ]
        if self.group is not None:
            d["group"] = self.group
        return d


def _candidate_dict(c: Candidate) -> dict:
    d = {**asdict(c), "alpha": _finite(c.alpha)}
    if d["global_risk"] is None:
        del d["global_risk"]
    return d


def _finite(x):
    if x is None:
        return None
    return x if x != float("inf") else "inf"


def _figures(stats: CellStats) -> dict:
    return {
        "rp": stats.rp,
        "cr": stats.cr,
        "ratio": stats.ratio,
        "cells": stats.cells,
        "records": stats.records,
    }


@dataclass
class _RiskSettings:
    """How global risk is measured when it is the criterion."""

    weights: str | None = None
    missing: str = "category"

    def global_risk(self, engine: Engine, keys: list[str]) -> float:
        """Mean individual risk of ``keys`` (0 for the empty set: nothing is released)."""
        if not keys:
            return 0.0
        records = assess_records(engine, keys, weights=self.weights, missing=self.missing)
        return records.summary.global_risk


class _Selector:
    def __init__(
        self, engine: Engine, keys, forced, cell_min, criterion, weight, progress, risk=None
    ):
        self.engine, self.keys, self.forced = engine, keys, forced
        self.cell_min, self.criterion, self.weight = cell_min, criterion, weight
        self.progress = progress or (lambda *_: None)
        self.risk: _RiskSettings | None = risk if criterion == GLOBAL_RISK else None
        self.steps: list[Step] = []

    def order(self, variables):
        return sorted(variables, key=self.keys.index)

    def stats(self, keysets):
        return self.engine.keyset_stats(keysets, self.cell_min)

    def global_risks(self, keysets) -> list[float | None]:
        """Global risk of each key set when it is the criterion, else None for each."""
        if self.risk is None:
            return [None] * len(keysets)
        return [self.risk.global_risk(self.engine, list(ks)) for ks in keysets]

    def figures(self, keys: list[str]) -> dict:
        d = _figures(self.engine.stats(keys, self.cell_min))
        if self.risk is not None:
            d[GLOBAL_RISK] = self.risk.global_risk(self.engine, keys)
        return d

    def _rank(self, cands: list[Candidate]) -> Candidate:
        # lowest score; ties: higher CR (more utility), then the user's order
        return min(cands, key=lambda c: (c.score, -c.cr, self.keys.index(c.variable)))

    def _candidates(self, pool, cur: CellStats, results, alpha, keysets) -> list[Candidate]:
        """One candidate per variable of ``pool``: its α against ``cur`` and its cell figures."""
        risks = self.global_risks(keysets)
        return [
            Candidate(
                v,
                alpha(cur, r),
                r.rp,
                r.cr,
                r.ratio,
                score(r, self.criterion, self.weight, g),
                r.cells,
                r.at_risk,
                g,
            )
            for v, r, g in zip(pool, results, risks, strict=True)
        ]

    def evaluate_add(self, current: list[str], label: str) -> tuple[Step, CellStats] | None:
        pool = [v for v in self.keys if v not in current]
        if not pool:
            return None
        keysets = [current + [v] for v in pool]
        cur, *results = self.stats([current] + keysets)
        cands = self._candidates(pool, cur, results, alpha_add, keysets)
        best = self._rank(cands)
        self.progress(label)
        return Step(
            label,
            "add",
            best.variable,
            self.order(current + [best.variable]),
            best.alpha,
            best.rp,
            best.cr,
            best.ratio,
            False,
            cands,
            list(current),
            best.global_risk,
        ), cur

    def evaluate_remove(self, current: list[str], label: str, exclude=()) -> Step | None:
        pool = [v for v in current if v not in self.forced and v not in exclude]
        if not pool:
            return None
        keysets = [[k for k in current if k != v] for v in pool]
        cur, *results = self.stats([current] + keysets)
        cands = self._candidates(pool, cur, results, alpha_remove, keysets)
        best = self._rank(cands)
        self.progress(label)
        return Step(
            label,
            "remove",
            best.variable,
            [k for k in current if k != best.variable],
            best.alpha,
            best.rp,
            best.cr,
            best.ratio,
            False,
            cands,
            list(current),
            best.global_risk,
        )

    def measure_name(self) -> str:
        return "global risk" if self.risk is not None else "RP"

    def forward(self, stop: float, stepwise_remove: float | None = None) -> tuple[list[str], str]:
        current = self.order(self.forced)
        just_removed: set[str | None] = set()
        f = b = 0
        while True:
            f += 1
            evaluated = self.evaluate_add(current, f"F{f}")
            if evaluated is None:
                return current, "no candidate left to add"
            step, _ = evaluated
            self.steps.append(step)
            if step.variable in just_removed:
                return current, (
                    f"stopped at step F{f}: best candidate {step.variable} was removed "
                    f"in the removal phase just before and cannot re-enter"
                )
            if step.measure(self.criterion) > stop:
                return current, (
                    f"stopped at step F{f}: adding {step.variable} gives {self.measure_name()} "
                    f"{step.measure(self.criterion):.3f} > {stop}"
                )
            step.taken = True
            current = step.variables
            just_removed = set()
            if stepwise_remove is None:
                continue
            b = 0
            while True:
                b += 1
                rstep = self.evaluate_remove(current, f"B{b}", exclude={step.variable})
                if rstep is None:
                    break
                self.steps.append(rstep)
                if rstep.measure(self.criterion) < stepwise_remove:
                    break
                rstep.taken = True
                current = rstep.variables
                just_removed.add(rstep.variable)

    def backward(self, stop: float) -> tuple[list[str], str]:
        current = list(self.keys)
        b = 0
        while True:
            b += 1
            step = self.evaluate_remove(current, f"B{b}")
            if step is None:
                return current, "no removable variable left (all remaining are forced)"
            self.steps.append(step)
            if step.measure(self.criterion) < stop:
                return current, (
                    f"stopped at step B{b}: removing {step.variable} gives "
                    f"{self.measure_name()} {step.measure(self.criterion):.3f} < {stop}"
                )
            step.taken = True
            current = step.variables


def _check_options(
    method: str,
    criterion: str,
    weights: str | None,
    missing: str,
    stop: float,
    remove_stop: float | None,
    cell_min: int,
) -> int:
    """The options a selection needs checked before reading data; cell_min, checked."""
    if method not in METHODS:
        raise OptionError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if criterion not in CRITERIA:
        raise OptionError(f"unknown criterion {criterion!r} (choose from {', '.join(CRITERIA)})")
    if weights is not None and criterion != GLOBAL_RISK:
        raise OptionError("--weights is used by the global_risk criterion only")
    check_missing_rule(missing)
    require_fraction("stop", stop)
    require_fraction("remove-stop", remove_stop)
    return check_cell_min(cell_min)


def _run_selection(
    sel: _Selector,
    method: str,
    stop: float,
    remove_stop: float | None,
    weights: str | None,
    group=None,
) -> SelectionResult:
    """One selection (forward, backward or stepwise) with its start and final figures."""
    if method == "backward":
        selected, reason = sel.backward(stop)
        start_set = list(sel.keys)
    else:
        selected, reason = sel.forward(stop, remove_stop if method == "stepwise" else None)
        start_set = sel.order(sel.forced)
    start = {"variables": start_set, **sel.figures(start_set)}
    final = {"variables": selected, **sel.figures(selected)}
    return SelectionResult(
        method,
        sel.criterion,
        sel.cell_min,
        sel.forced,
        sel.keys,
        selected,
        start,
        sel.steps,
        reason,
        final,
        group,
        stop,
        weights if sel.criterion == GLOBAL_RISK else None,
    )


def select_variables(
    data,
    keys: Sequence[str],
    *,
    method: str = "forward",
    stop: float = 0.05,
    remove_stop: float | None = None,
    force: Sequence[str] = (),
    cell_min: int = 3,
    criterion: str = "alpha",
    weight: float = 0.5,
    by: str | None = None,
    engine: str | Engine = "duckdb",
    progress: Callable[[str], None] | None = None,
    weights: str | None = None,
    missing: str = "category",
) -> SelectionResult | list[SelectionResult]:
    """Choose which key variables can be released under an RP (or global-risk) limit.

    ``stop`` is the forward limit (stop before RP exceeds it), the backward limit (stop before
    RP falls below it), or stepwise's add limit; ``remove_stop`` is stepwise's removal limit.
    With ``criterion="global_risk"``, candidates are ranked by, and the limits read against, the
    global risk of the resulting set (mean individual risk; Benedetti–Franconi with ``weights``,
    a column of sampling weights; 1/fk without; ``missing`` as in ``measure_risk``).
    With ``by``, returns one result per subgroup after the overall one.
    """
    cell_min = _check_options(method, criterion, weights, missing, stop, remove_stop, cell_min)
    keys = list(dict.fromkeys(list(force) + list(keys)))
    if not keys:
        raise OptionError("name at least one key variable")
    if method == "stepwise":
        if remove_stop is None:
            raise OptionError("stepwise needs --remove-stop (the paper used 0.35 with --stop 0.55)")
        if remove_stop <= 0:
            raise OptionError("--remove-stop must be above 0 for stepwise")
    eng = engine if isinstance(engine, Engine) else make_engine(data, engine)
    eng.check_keys(keys + ([weights] if weights else []))
    if weights is not None and weights in keys:
        raise OptionError(f"weight column {weights!r} is also a key variable")
    if not eng.has_records():
        raise OptionError("the data has no records")
    forced = list(dict.fromkeys(force))
    risk = _RiskSettings(weights, missing)

    def run(e: Engine, group=None) -> SelectionResult:
        sel = _Selector(e, keys, forced, cell_min, criterion, weight, progress, risk)
        return _run_selection(sel, method, stop, remove_stop, weights, group)

    if by is None:
        return run(eng)
    eng.check_keys([by])
    if by in keys:
        raise OptionError(f"--by {by!r} is also a key variable")
    return [run(eng)] + [run(part, group=value) for value, part in eng.split(by)]
