"""``optimal_generalization``: the least-loss full-domain generalization, as ARX finds it.

The records are counted once by an engine (DuckDB by default, Spark for large data); the search
then works on the counts of distinct key combinations only, so its cost does not grow with the
number of records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hidekit.anonymize.optimal.lattice import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN, Lattice
from hidekit.anonymize.optimal.levels import QuasiIdentifier
from hidekit.anonymize.optimal.metrics import Metric, make_metric
from hidekit.anonymize.optimal.models import (
    AverageRisk,
    DatasetLimit,
    EqualDistanceTCloseness,
    HierarchicalDistanceTCloseness,
    KAnonymity,
    PrivacyModel,
    RiskProportion,
    make_l_model,
)
from hidekit.anonymize.optimal.search import EXACT_LIMIT, Check, NodeChecker, Search
from hidekit.engines import make_engine
from hidekit.engines.classes import ClassTable, combine_codes, sort_order
from hidekit.errors import OptionError, PolicyError, require_columns
from hidekit.io.hierarchy import read_hierarchies
from hidekit.registry import PRIVACY_LIMITS

SUPPRESSED_VALUE = "*"
SUPPRESSION_MODES = ("star", "drop")


def _text(v) -> str | None:
    """One value as the text a hierarchy lists it by (39.0 → "39"); missing → None."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def value_text(values: pd.Series) -> pd.Series:
    """Values as the text a hierarchy lists them by (39.0 → "39"); missing stays missing."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    text = np.array([_text(u) for u in uniques] + [None], dtype=object)
    return pd.Series(text[codes], index=values.index, dtype=object)


@dataclass
class LatticeView:
    """What the report draws: every node's levels, verdict and loss (where computed)."""

    heights: list[int]
    levels: np.ndarray
    state: np.ndarray
    values: dict[int, float]
    optimum: int | None


@dataclass
class OptimalResult:
    keys: list[str]
    metric: str
    models: list[str]
    transformation: dict[str, int] | None
    information_loss: float | None
    loss_per_key: dict[str, float]
    records: int
    suppressed: int
    suppression_limit: float
    classes: int
    smallest_class: int
    transformations_checked: int
    lattice_size: int
    proven_optimal: bool
    seconds: float
    closest: dict[str, int] | None = None
    notes: list[str] = field(default_factory=list)
    lattice: LatticeView | None = field(default=None, repr=False)
    qis: list[QuasiIdentifier] = field(default_factory=list, repr=False)
    ok_class_keys: np.ndarray | None = field(default=None, repr=False)
    class_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)

    @property
    def found(self) -> bool:
        return self.transformation is not None

    def to_dict(self) -> dict:
        return {
            "keys": self.keys,
            "metric": self.metric,
            "privacy_models": self.models,
            "transformation": self.transformation,
            "information_loss": self.information_loss,
            "loss_per_key": self.loss_per_key,
            "records": self.records,
            "suppressed": self.suppressed,
            "suppression_limit": self.suppression_limit,
            "classes": self.classes,
            "smallest_class": self.smallest_class,
            "transformations_checked": self.transformations_checked,
            "lattice_size": self.lattice_size,
            "proven_optimal": self.proven_optimal,
            "seconds": round(self.seconds, 4),
            "closest": self.closest,
            "notes": self.notes,
        }

    def apply(self, frame: pd.DataFrame, suppressed: str = "star") -> pd.DataFrame:
        """Release ``frame`` under the optimum: keys replaced by their label at the chosen level;
        records of classes that fail the models become ``*`` on every key (or are dropped)."""
        if suppressed not in SUPPRESSION_MODES:
            raise OptionError(f"suppressed records: choose star or drop, got {suppressed!r}")
        if not self.found:
            raise PolicyError("no generalization satisfies the privacy models: nothing to apply")
        assert self.transformation is not None and self.ok_class_keys is not None  # found
        out = frame.reset_index(drop=True).copy()
        codes, cards = [], []
        for q in self.qis:
            level = self.transformation[q.name]
            leaf = _leaf_codes(q, out[q.name])
            c = q.leaf_codes[level][leaf]
            codes.append(c)
            cards.append(q.card(level))
            out[q.name] = q.labels[level][c]
        bad = ~np.isin(combine_codes(codes, cards), self.ok_class_keys)
        if suppressed == "drop":
            return out.loc[~bad].reset_index(drop=True)
        for q in self.qis:
            col = out[q.name].to_numpy(dtype=object)
            col[bad] = SUPPRESSED_VALUE
            out[q.name] = col
        return out


def _leaf_codes(q: QuasiIdentifier, values: pd.Series) -> np.ndarray:
    index = q.leaf_index()
    text = value_text(values)
    codes = text.map(index)
    if codes.isna().any():
        missing = sorted({str(v) for v in text[codes.isna()]})[:5]
        raise OptionError(f"values of {q.name!r} not in its hierarchy: {', '.join(missing)}")
    return codes.to_numpy(dtype=np.int64)


def build_models(
    k,
    l=None,  # noqa: E741
    l_kind="distinct",
    c=None,
    t=None,
    overall=None,
    max_avg_risk=None,
    max_rp=None,
    cell_min=None,
    t_ancestors=None,
) -> list:
    """The privacy models of a search: class-level ones, then limits on the whole release.
    ``t_ancestors`` (the sensitive hierarchy in codes) makes t-closeness use the hierarchical
    ground distance; without it the distance is equal."""
    models: list = [KAnonymity(int(k) if k is not None else 1)]
    if l is not None:
        models.append(make_l_model(l_kind, l, c))
    if t is not None and t_ancestors is not None:
        models.append(HierarchicalDistanceTCloseness(float(t), overall, tuple(t_ancestors)))
    elif t is not None:
        models.append(EqualDistanceTCloseness(float(t), overall))
    if max_avg_risk is not None:
        models.append(AverageRisk(float(max_avg_risk)))
    if max_rp is not None:
        models.append(RiskProportion(float(max_rp), int(cell_min or max(int(k or 1), 2))))
    return models


def population_limits(
    n: int,
    max_uniqueness: float | None,
    population: float | None,
    sampling_fraction: float | None,
    estimator: str = "dankar",
) -> list[DatasetLimit]:
    """The population-uniqueness limit (``hidekit.risk.limits``, found through the registry)."""
    if max_uniqueness is None:
        if population is not None or sampling_fraction is not None:
            raise OptionError("a population size or sampling fraction needs a population limit")
        return []
    if population is None and sampling_fraction is None:
        raise OptionError("population uniqueness needs the population size or sampling fraction")
    limit = PRIVACY_LIMITS.lookup("population_uniqueness")
    return [limit(max_uniqueness, n, population, sampling_fraction, estimator)]


@dataclass
class Problem:
    """Everything a search needs, prepared once: keys in codes, the base class table, models,
    metric, lattice and the suppression limit in records."""

    keys: list[str]
    qis: list[QuasiIdentifier]
    base: ClassTable
    sens_card: int
    models: list[PrivacyModel | DatasetLimit]
    metric: Metric
    n: int
    max_suppressed: int
    suppression: float

    def checker(self) -> NodeChecker:
        lattice = Lattice([q.height for q in self.qis])
        return NodeChecker(
            self.qis, self.base, self.sens_card, self.models, self.max_suppressed, lattice
        )


def _check_options(keys, hier, sensitive, suppression, l, t) -> None:  # noqa: E741
    if not keys:
        raise OptionError("--keys is empty")
    if not 0.0 <= float(suppression) <= 1.0:
        raise OptionError(f"suppression must be a share between 0 and 1, got {suppression}")
    if (l is not None or t is not None) and not sensitive:
        raise OptionError("l-diversity and t-closeness need --sensitive")
    if sensitive and sensitive in keys:
        raise OptionError(f"{sensitive!r} cannot be both a key and the sensitive attribute")
    missing = [key for key in keys if key not in hier]
    if missing:
        raise OptionError(
            f"no hierarchy given for: {', '.join(missing)} (use --hierarchy KEY=FILE)"
        )
    extra = sorted(set(hier) - set(keys))
    if extra:
        raise OptionError(f"hierarchy given for a column that is not a key: {', '.join(extra)}")


def prepare(
    data,
    keys: Sequence[str],
    hierarchies: dict,
    *,
    k: int = 2,
    l: float | None = None,  # noqa: E741
    l_kind: str = "distinct",
    c: float | None = None,
    t: float | None = None,
    sensitive: str | None = None,
    suppression: float = 0.0,
    metric: str = "loss",
    weights: Sequence[float] | None = None,
    unknown_values: str = "error",
    engine: str = "duckdb",
    max_avg_risk: float | None = None,
    max_rp: float | None = None,
    cell_min: int | None = None,
    t_hierarchy=None,
    sep: str | None = None,
    max_population_uniqueness: float | None = None,
    population: float | None = None,
    sampling_fraction: float | None = None,
    population_estimator: str = "dankar",
    limits: Sequence[DatasetLimit] = (),
) -> Problem:
    """Count the records once (through the engine) and encode keys, hierarchies and models.
    ``t_hierarchy`` (a hierarchy of the sensitive column: path, Hierarchy or rows) makes
    t-closeness use ARX's hierarchical distance. ``max_population_uniqueness`` limits the share
    of the population estimated unique (with ``population`` or ``sampling_fraction``, and
    ``population_estimator``: dankar, pitman, zayatz or snb); ``limits`` adds any other limit on
    the whole release (objects with ``holds`` and ``describe``)."""
    keys = list(keys)
    hier = read_hierarchies(hierarchies)
    _check_options(keys, hier, sensitive, suppression, l, t)
    if t_hierarchy is not None and t is None:
        raise OptionError("a hierarchy for t-closeness (t_hierarchy) needs t")
    eng = make_engine(data, engine, sep=sep)
    require_columns(eng.columns, keys + ([sensitive] if sensitive else []))
    values, table, counts = eng.cell_codes(keys + ([sensitive] if sensitive else []))
    n = int(counts.sum())
    if n == 0:
        raise OptionError("the data has no records")
    qis, leaf_codes, merged = _encode_keys(keys, hier, values, table, unknown_values)
    sens, sens_card, overall, t_ancestors = None, 0, None, None
    if sensitive:
        sens, uniq = table[-1], values[-1]
        sens_card = len(uniq)
        overall = np.bincount(sens, weights=counts, minlength=sens_card) / n
        if t_hierarchy is not None:
            t_ancestors = sensitive_ancestors(sensitive, t_hierarchy, list(uniq), unknown_values)
    base = ClassTable(leaf_codes, counts, sens)
    if merged:  # two values read as one text (39 and 39.0): merge their rows
        base = base.regroup([q.level_map(0, 0) for q in qis], [q.card(0) for q in qis], sens_card)
    base = _canonical(base)
    freqs = [
        np.bincount(col, weights=base.counts, minlength=q.card(0))
        for q, col in zip(qis, base.codes, strict=True)
    ]
    return Problem(
        keys=keys,
        qis=qis,
        base=base,
        sens_card=sens_card,
        models=build_models(
            k, l, l_kind, c, t, overall, max_avg_risk, max_rp, cell_min, t_ancestors
        )
        + population_limits(
            n, max_population_uniqueness, population, sampling_fraction, population_estimator
        )
        + list(limits),
        metric=make_metric(metric, qis, freqs, n, weights),
        n=n,
        max_suppressed=int(math.floor(float(suppression) * n)),
        suppression=float(suppression),
    )


def _canonical(base: ClassTable) -> ClassTable:
    """The rows in one order whatever the engine counted them in: sums of floats (entropy, the
    models on a sensitive column) then add up in the same order, so every engine gives the same
    result to the bit."""
    rows = [*base.codes] + ([base.sensitive] if base.sensitive is not None else [])
    if not base.rows:
        return base
    cards = [int(r.max()) + 1 for r in rows]
    span = math.prod(cards)
    if span <= 1 << 33:  # one mixed-radix key sorts as the rows do: three radix passes
        order = sort_order(combine_codes(rows, cards), span)
    elif span < 1 << 62:  # the rows are distinct, so are the keys: any sort gives one order
        order = np.argsort(combine_codes(rows, cards))
    else:
        order = np.lexsort(rows[::-1])
    return base.take(order)


def _encode_keys(
    keys: list[str], hier: dict, values: list[pd.Series], table: np.ndarray, unknown_values: str
) -> tuple[list[QuasiIdentifier], np.ndarray, bool]:
    """Each key's hierarchy in codes, each cell's leaf code (keys × cells, values read as text
    once per distinct value, not per cell), and whether two distinct values read as one text
    (then cells must be merged)."""
    qis, merged = [], False
    leaf_codes = np.empty((len(keys), table.shape[1]), dtype=np.int32)
    for j, key in enumerate(keys):
        read = [_text(v) for v in values[j].tolist()]  # one entry per distinct value
        text = [t for t in read if t is not None]
        if len(text) < len(read):
            raise OptionError(
                f"{key!r} has missing values: a hierarchy cannot place them (fill or drop them)"
            )
        q = QuasiIdentifier.from_hierarchy(key, hier[key], sorted(set(text)), unknown_values)
        qis.append(q)
        index = q.leaf_index()
        leaves = [index[t] for t in text]
        merged = merged or len(set(leaves)) < len(leaves)
        np.take(np.array(leaves, dtype=np.int32), table[j], out=leaf_codes[j])
    return qis, leaf_codes, merged


def sensitive_ancestors(
    sensitive: str, hierarchy, values: Sequence, unknown_values: str = "error"
) -> list[np.ndarray]:
    """Per level of the sensitive column's hierarchy, the code of each sensitive value (in the
    order of ``values``); level 0 gives each value its own code."""
    h = read_hierarchies({sensitive: hierarchy})[sensitive]
    text = value_text(pd.Series(list(values), dtype=object))
    if text.isna().any():
        raise OptionError(
            f"{sensitive!r} has missing values: its hierarchy cannot place them (fill or drop them)"
        )
    q = QuasiIdentifier.from_hierarchy(sensitive, h, sorted(set(text)), unknown_values)
    index = q.leaf_index()
    leaves = np.array([index[v] for v in text], dtype=np.int64)
    return [np.arange(len(leaves), dtype=np.int64)] + [
        q.leaf_codes[level][leaves] for level in range(1, q.height + 1)
    ]


def _result(problem: Problem, check: Check | None, **common) -> OptimalResult:
    qis, keys = problem.qis, problem.keys
    common.update(
        keys=keys,
        metric=problem.metric.name,
        models=[m.describe() for m in problem.models],
        records=problem.n,
        suppression_limit=problem.suppression,
        qis=qis,
    )
    if check is None or not check.anonymous:
        return OptimalResult(
            transformation=None,
            information_loss=None,
            loss_per_key={},
            suppressed=0,
            classes=0,
            smallest_class=0,
            **common,
        )
    cls = check.classes
    kept = cls.sizes[cls.ok]
    cards = [q.card(lv) for q, lv in zip(qis, cls.levels, strict=True)]
    return OptimalResult(
        transformation=dict(zip(keys, cls.levels, strict=True)),
        information_loss=check.value,
        loss_per_key=problem.metric.per_key(cls) or {},
        suppressed=cls.suppressed,
        classes=int(cls.ok.sum()),
        smallest_class=int(kept.min()) if kept.size else 0,
        ok_class_keys=combine_codes([c[cls.ok] for c in cls.codes], cards),
        class_sizes=kept,
        **common,
    )


def optimal_generalization(
    data,
    keys: Sequence[str],
    hierarchies: dict,
    *,
    time_limit: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> OptimalResult:
    """Search every combination of hierarchy levels of ``keys`` for the one with the least
    ``metric`` loss whose classes satisfy k-anonymity (and l-diversity / t-closeness of
    ``sensitive``), suppressing at most ``suppression`` of the records, as ARX's optimal search
    does. ``data``: a path, a frame or an Engine; ``hierarchies``: ``{key: path | Hierarchy}``;
    ``options``: those of :func:`prepare` (k, l, l_kind, c, t, sensitive, suppression, metric,
    weights, unknown_values, engine, sep)."""
    problem = prepare(data, keys, hierarchies, **options)
    checker = problem.checker()
    lattice = checker.lattice
    if lattice.size > EXACT_LIMIT and time_limit is None:
        time_limit = 60.0
    search = Search(checker, problem.metric, time_limit=time_limit, progress=progress)
    best, stats = search.run()
    notes = []
    if any(not getattr(m, "proven_monotone", True) for m in problem.models):
        notes.append(
            "recursive (c, l)-diversity and t-closeness are not monotone in theory; the search "
            "treats them as monotone, as ARX does"
        )
    checked_limits = checker.checked_limits
    if checked_limits:
        notes.append(
            f"not monotone, checked at every candidate node without predictive tagging: "
            f"{', '.join(m.describe() for m in checked_limits)}"
        )
    if not stats.proven_optimal:
        notes.append("heuristic search (time limit or lattice size): not proven optimal")
    closest = None
    if best is None and search.checks:
        near = min(search.checks.values(), key=lambda ch: (ch.suppressed, ch.node))
        closest = dict(zip(problem.keys, map(int, lattice.levels[near.node]), strict=True))
        notes.append(
            f"no transformation satisfies {', '.join(m.describe() for m in problem.models)}: "
            f"even the most general release fails them (one class of {problem.n} records); "
            f"the closest node suppresses {near.suppressed} of {problem.n} records"
        )
    view = LatticeView(
        [q.height for q in problem.qis],
        lattice.levels,
        _view_state(search),
        stats.values,
        best.node if best else None,
    )
    return _result(
        problem,
        best,
        transformations_checked=stats.checked,
        lattice_size=lattice.size,
        proven_optimal=stats.proven_optimal,
        seconds=stats.seconds,
        closest=closest,
        notes=notes,
        lattice=view,
    )


def _view_state(search: Search) -> np.ndarray:
    """Each node's verdict for the report. With a limit that is not monotone, a node tagged by
    the monotone models alone is not known to be anonymous: only checked nodes are."""
    state = search.lattice.state.copy()
    if search.checker.checked_limits:
        state[state == ANONYMOUS] = UNKNOWN
        for node, check in search.checks.items():
            state[node] = ANONYMOUS if check.anonymous else NOT_ANONYMOUS
    return state


def evaluate_transformation(
    data, keys: Sequence[str], hierarchies: dict, levels: dict[str, int], **options
) -> OptimalResult:
    """Loss, suppression and classes of one given transformation (``{key: level}``), checked
    against the same models: to compare a chosen node with the optimum."""
    problem = prepare(data, keys, hierarchies, **options)
    checker = problem.checker()
    lattice = checker.lattice
    vec = []
    for q in problem.qis:
        level = levels.get(q.name)
        if level is None or not 0 <= int(level) <= q.height:
            raise OptionError(f"level of {q.name!r} must be between 0 and {q.height}, got {level}")
        vec.append(int(level))
    check = checker.check(lattice.index(vec))
    if check.anonymous:
        check.value = problem.metric.value(check.classes)
    return _result(
        problem,
        check,
        transformations_checked=1,
        lattice_size=lattice.size,
        proven_optimal=False,
        seconds=0.0,
    )
