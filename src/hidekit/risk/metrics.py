"""Re-identification risk of a key set: k-anonymity, uniques, RP/CR, El Emam's prosecutor metrics.

All figures come from the class sizes an engine counts; nothing here touches the records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from hidekit.engines import Engine, make_engine
from hidekit.engines.base import check_cell_min
from hidekit.errors import OptionError, require_fraction
from hidekit.risk.journalist import (
    WEIGHTS_SOURCE,
    JournalistMarketer,
    against_table,
    journalist_marketer,
    read_population_table,
)
from hidekit.risk.loglinear import TABLE_LIMIT, LoglinearEstimate, loglinear_estimate
from hidekit.risk.population import PopulationEstimates, estimate_population
from hidekit.risk.records import RecordRisk, assess_records

MISSING_NOTE = "missing values are a category of their own"


@dataclass
class RiskReport:
    """Risk figures of one key set over one table (or one subgroup of it)."""

    keys: list[str]
    records: int
    cells: int
    k: int
    uniques: int
    at_risk: int
    rp: float
    cr: float
    cell_min: int
    threshold: float
    prosecutor_highest: float
    prosecutor_average: float
    prosecutor_above_threshold: float
    class_sizes: list[dict] = field(default_factory=list)
    group: object = None
    note: str = MISSING_NOTE

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.group is None:
            d.pop("group")
        return d


def size_distribution(sizes: np.ndarray) -> list[dict]:
    """How many classes, and how many records, have each class size."""
    if sizes.size == 0:
        return []
    counts = np.bincount(sizes)
    values = np.flatnonzero(counts)
    return [
        {"size": int(v), "classes": int(counts[v]), "records": int(v * counts[v])} for v in values
    ]


def report_from_sizes(
    keys: Sequence[str],
    sizes: np.ndarray,
    cell_min: int = 3,
    threshold: float | None = None,
    group=None,
) -> RiskReport:
    """Every metric from the class sizes alone.

    ``threshold`` is El Emam's risk threshold τ: a record is above it when 1/size > τ.
    By default τ = 1/cell_min, so the share above it equals RP.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    cell_min = check_cell_min(cell_min)
    tau = 1.0 / cell_min if threshold is None else float(threshold)
    records = int(sizes.sum())
    cells = int(sizes.size)
    k = int(sizes.min()) if cells else 0
    at_risk = int(sizes[sizes < cell_min].sum())
    above = int(sizes[(1.0 / np.maximum(sizes, 1)) > tau + 1e-12].sum()) if cells else 0
    return RiskReport(
        keys=list(keys),
        records=records,
        cells=cells,
        k=k,
        uniques=int((sizes == 1).sum()),
        at_risk=at_risk,
        rp=at_risk / records if records else 0.0,
        cr=cells / records if records else 0.0,
        cell_min=cell_min,
        threshold=tau,
        prosecutor_highest=1.0 / k if k else 0.0,
        prosecutor_average=cells / records if records else 0.0,
        prosecutor_above_threshold=above / records if records else 0.0,
        class_sizes=size_distribution(sizes),
        group=group,
    )


@dataclass
class RiskResult:
    overall: RiskReport
    by: str | None = None
    groups: list[RiskReport] = field(default_factory=list)
    records: RecordRisk | None = None  # per-record risk against the population
    population: PopulationEstimates | None = None
    estimate: LoglinearEstimate | None = None  # the recommended population estimate
    journalist: JournalistMarketer | None = None  # El Emam's journalist and marketer risk
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.overall.to_dict()
        if self.by:
            d["by"] = self.by
            d["groups"] = [g.to_dict() for g in self.groups]
        if self.records is not None:
            d["weighted"] = self.records.to_dict()
        if self.estimate is not None:
            d["estimate"] = self.estimate.to_dict()
        if self.population is not None:
            d.update(self.population.to_dict())
        if self.journalist is not None:
            d.update(self.journalist.to_dict())
        if self.warnings:
            d["warnings"] = list(self.warnings)
        return d


def measure_risk(
    data,
    keys: Sequence[str],
    *,
    cell_min: int = 3,
    threshold: float | None = None,
    by: str | None = None,
    engine: str | Engine = "duckdb",
    weights: str | None = None,
    household: str | None = None,
    missing: str = "category",
    risk_threshold: float = 0.05,
    suda: bool = False,
    suda_max_size: int | None = None,
    population: float | None = None,
    sampling_fraction: float | None = None,
    loglinear: str | None = "auto",
    population_table=None,
    population_count: str | None = None,
) -> RiskResult:
    """Risk of releasing ``keys`` from ``data`` (path, Dataset, DataFrame, or Engine).

    With ``by``, the same figures per subgroup: cells are counted within each group.
    With ``weights`` (a column of sampling weights), ``household`` or ``suda``, also the risk of
    each record against the population (``result.records``: Benedetti–Franconi individual risk,
    household risk, SUDA2); ``missing="any"`` counts a missing key value as matching any value
    (sdcMicro's rule). With ``population`` (size) or ``sampling_fraction``, the number of
    population uniques by Pitman, Zayatz, SNB and Dankar's rule (``result.population``).
    Whenever the sampling fraction is known (from the population or the weights' sum), the
    recommended estimate of expected re-identifications, with an interval and a fit check, from a
    log-linear model (``result.estimate``; ``loglinear`` = "auto", "main", "two-way" or None).
    El Emam's journalist and marketer risk (``result.journalist``) against ``population_table``
    (a file or frame: the key columns and a count per combination, ``population_count`` names
    it), else against the population the weights estimate.
    """
    require_fraction("threshold", threshold)
    keys = list(keys)
    if not keys:
        raise OptionError("name at least one key variable")
    eng = engine if isinstance(engine, Engine) else make_engine(data, engine)
    if by is not None and by in keys:
        raise OptionError(f"--by {by!r} is also a key variable")
    eng.check_keys(keys + ([by] if by else []))
    overall = report_from_sizes(keys, eng.class_sizes(keys), cell_min, threshold)
    result = RiskResult(overall, by=by)
    if weights is not None or household is not None or suda:
        result.records = assess_records(
            eng,
            keys,
            weights=weights,
            household=household,
            missing=missing,
            threshold=risk_threshold,
            suda=suda,
            suda_max_size=suda_max_size,
        )
        result.warnings.extend(result.records.warnings)
    add_population_figures(eng, keys, result, population, sampling_fraction, loglinear)
    result.journalist = journalist_for(eng, keys, result, population_table, population_count)
    if by:
        counts = eng.cell_counts([by, *keys])
        for value, part in counts.groupby(by, dropna=False, sort=True):
            result.groups.append(
                report_from_sizes(
                    keys,
                    part["_n"].to_numpy(),
                    cell_min,
                    threshold,
                    group=None if _missing(value) else _plain(value),
                )
            )
    return result


def add_population_figures(
    eng: Engine,
    keys: list[str],
    result: RiskResult,
    population: float | None,
    sampling_fraction: float | None,
    loglinear: str | None,
) -> None:
    """Population uniques (with a population size or fraction) and the log-linear estimate."""
    fig = result.records.figures if result.records is not None else None
    if population is not None or sampling_fraction is not None:
        result.population = estimate_population(
            eng.class_sizes(keys),
            population=population,
            sampling_fraction=sampling_fraction,
            weights_total=fig.total_weight if fig is not None and fig.weighted else None,
        )
        result.warnings.extend(result.population.warnings)
    pi = known_sampling_fraction(result)
    if loglinear is not None and pi is not None and pi < 1:
        result.estimate = loglinear_for(eng, keys, pi, loglinear)
        if result.records is not None:
            result.records.estimate_risk = result.estimate.per_record


def journalist_for(
    eng: Engine, keys: list[str], result: RiskResult, table, count: str | None
) -> JournalistMarketer | None:
    """Journalist and marketer risk against the table, else the weights' population, else none."""
    tau = result.overall.threshold
    if table is not None:
        name = str(table) if not hasattr(table, "columns") else "(in memory)"
        frame = read_population_table(table)
        return against_table(eng.cell_counts(keys), frame, keys, count, tau, name)
    if count is not None:
        raise OptionError("--population-count needs --population-table")
    fig = result.records.figures if result.records is not None else None
    if fig is not None and fig.weighted and fig.missing == "category":
        return journalist_marketer(fig.fk, fig.Fk, tau, WEIGHTS_SOURCE, per_record=True)
    return None


def known_sampling_fraction(result: RiskResult) -> float | None:
    """n / N from the population given, else from the sum of the weights, else unknown."""
    if result.population is not None:
        return result.population.sampling_fraction
    if result.records is not None and result.records.figures.weighted:
        return result.overall.records / result.records.figures.total_weight
    return None


def loglinear_for(eng: Engine, keys: list[str], pi: float, model: str) -> LoglinearEstimate:
    """The log-linear estimate; "auto" takes two-way interactions when the full table is small."""
    codes = eng.record_codes(keys)
    if model == "auto":
        cells = float(np.prod([len(np.unique(codes[:, j])) for j in range(codes.shape[1])]))
        model = "two-way" if cells <= TABLE_LIMIT and len(keys) > 1 else "main"
    return loglinear_estimate(codes, pi, model=model)


def _missing(v) -> bool:
    try:
        return bool(np.isnan(v))
    except (TypeError, ValueError):
        return v is None


def _plain(v):
    return v.item() if hasattr(v, "item") else v
