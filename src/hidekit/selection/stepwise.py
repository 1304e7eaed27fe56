"""Forward, backward and stepwise selection of key variables (Lin & Garin; spec in docs).

Every step evaluates all remaining candidates through the engine in one call, so an engine
can count them together (DuckDB: incrementally from the current set's cell ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from hidekit.engines import CellStats, Engine, make_engine
from hidekit.engines.base import check_cell_min
from hidekit.errors import OptionError, require_fraction
from hidekit.selection.criteria import CRITERIA, alpha_add, alpha_remove, score

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

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("candidates", "before", "taken")}
        d["alpha"] = _finite(d["alpha"])
        return d


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

    @property
    def taken(self) -> list[Step]:
        return [s for s in self.steps if s.taken]

    @property
    def above_limit(self) -> bool:
        """Whether the selected set's RP is above the stop limit (backward selection stops
        before RP falls below the limit, so its result is always at or above it)."""
        return self.stop is not None and self.final["rp"] > float(self.stop) + 1e-12

    def limit_warning(self) -> str | None:
        """One line saying the result is above the limit, or None."""
        if not self.above_limit:
            return None
        return (
            f"the selected set has RP {self.final['rp']:.3f}, above the stop limit {self.stop}: "
            "releasing these keys does not meet the limit"
        )

    def to_dict(self, detail: bool = True) -> dict:
        d = {
            "method": self.method,
            "criterion": self.criterion,
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
                    "candidates": [{**asdict(c), "alpha": _finite(c.alpha)} for c in s.candidates],
                }
                for s in self.steps
            ]
        if self.group is not None:
            d["group"] = self.group
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


class _Selector:
    def __init__(self, engine: Engine, keys, forced, cell_min, criterion, weight, progress):
        self.engine, self.keys, self.forced = engine, keys, forced
        self.cell_min, self.criterion, self.weight = cell_min, criterion, weight
        self.progress = progress or (lambda *_: None)
        self.steps: list[Step] = []

    def order(self, variables):
        return sorted(variables, key=self.keys.index)

    def stats(self, keysets):
        return self.engine.keyset_stats(keysets, self.cell_min)

    def _rank(self, cands: list[Candidate]) -> Candidate:
        # lowest score; ties: higher CR (more utility), then the user's order
        return min(cands, key=lambda c: (c.score, -c.cr, self.keys.index(c.variable)))

    def _candidates(self, pool, cur: CellStats, results, alpha) -> list[Candidate]:
        """One candidate per variable of ``pool``: its α against ``cur`` and its cell figures."""
        return [
            Candidate(
                v,
                alpha(cur, r),
                r.rp,
                r.cr,
                r.ratio,
                score(r, self.criterion, self.weight),
                r.cells,
                r.at_risk,
            )
            for v, r in zip(pool, results, strict=True)
        ]

    def evaluate_add(self, current: list[str], label: str) -> tuple[Step, CellStats] | None:
        pool = [v for v in self.keys if v not in current]
        if not pool:
            return None
        cur, *results = self.stats([current] + [current + [v] for v in pool])
        cands = self._candidates(pool, cur, results, alpha_add)
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
        ), cur

    def evaluate_remove(self, current: list[str], label: str, exclude=()) -> Step | None:
        pool = [v for v in current if v not in self.forced and v not in exclude]
        if not pool:
            return None
        cur, *results = self.stats([current] + [[k for k in current if k != v] for v in pool])
        cands = self._candidates(pool, cur, results, alpha_remove)
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
        )

    def forward(self, stop: float, stepwise_remove: float | None = None) -> tuple[list[str], str]:
        current = self.order(self.forced)
        just_removed: set[str] = set()
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
            if step.rp > stop:
                return current, (
                    f"stopped at step F{f}: adding {step.variable} gives RP {step.rp:.3f} > {stop}"
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
                if rstep.rp < stepwise_remove:
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
            if step.rp < stop:
                return current, (
                    f"stopped at step B{b}: removing {step.variable} gives RP "
                    f"{step.rp:.3f} < {stop}"
                )
            step.taken = True
            current = step.variables


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
) -> SelectionResult | list[SelectionResult]:
    """Choose which key variables can be released under an RP limit.

    ``stop`` is the forward limit (stop before RP exceeds it), the backward limit (stop before
    RP falls below it), or stepwise's add limit; ``remove_stop`` is stepwise's removal limit.
    With ``by``, returns one result per subgroup after the overall one.
    """
    if method not in METHODS:
        raise OptionError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if criterion not in CRITERIA:
        raise OptionError(f"unknown criterion {criterion!r} (choose from {', '.join(CRITERIA)})")
    require_fraction("stop", stop)
    require_fraction("remove-stop", remove_stop)
    cell_min = check_cell_min(cell_min)
    keys = list(dict.fromkeys(list(force) + list(keys)))
    if not keys:
        raise OptionError("name at least one key variable")
    if method == "stepwise":
        if remove_stop is None:
            raise OptionError("stepwise needs --remove-stop (the paper used 0.35 with --stop 0.55)")
        if remove_stop <= 0:
            raise OptionError("--remove-stop must be above 0 for stepwise")
    eng = engine if isinstance(engine, Engine) else make_engine(data, engine)
    eng.check_keys(keys)
    if eng.n_records == 0:
        raise OptionError("the data has no records")
    forced = list(dict.fromkeys(force))

    def run(e: Engine, group=None) -> SelectionResult:
        sel = _Selector(e, keys, forced, cell_min, criterion, weight, progress)
        if method == "backward":
            selected, reason = sel.backward(stop)
            start_set = list(keys)
        else:
            selected, reason = sel.forward(stop, remove_stop if method == "stepwise" else None)
            start_set = sel.order(forced)
        start = {"variables": start_set, **_figures(e.stats(start_set, cell_min))}
        final = {"variables": selected, **_figures(e.stats(selected, cell_min))}
        return SelectionResult(
            method,
            criterion,
            cell_min,
            forced,
            keys,
            selected,
            start,
            sel.steps,
            reason,
            final,
            group,
            stop,
        )

    if by is None:
        return run(eng)
    eng.check_keys([by])
    if by in keys:
        raise OptionError(f"--by {by!r} is also a key variable")
    return [run(eng)] + [run(part, group=value) for value, part in eng.split(by)]
