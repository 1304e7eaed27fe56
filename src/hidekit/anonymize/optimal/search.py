"""Find the generalization with the least information loss that satisfies the privacy models.

Two phases, as in ARX's Flash:

1. *Tag the lattice.* Anonymity is monotone: if a node is anonymous so is every generalization of
   it; if not, no specialization is. Starting from the least generalized untagged node, walk up
   one key at a time to the top, binary-search the walk for the first anonymous node, and tag
   everything above each anonymous node and below each non-anonymous one. Each check regroups
   the class counts of the nearest checked node below (``ClassTable.roll_up``), never the records.
2. *Find the least loss among anonymous nodes.* Nodes are visited in order of a lower bound of
   their loss; the search stops when the bound reaches the best loss found. Without suppression,
   a monotone metric is minimal at a minimal anonymous node, so only those are looked at.

Limits on the whole release that are not monotone (population uniqueness; average risk and RP
when records may be suppressed) never tag: nodes are tagged by the monotone models alone, and
every candidate is checked against the rest before it can be the optimum, as ARX does.

A time limit (or a lattice too large to tag) switches to a heuristic that climbs from the bottom
and then descends greedily; its result is marked as not proven optimal.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np

from hidekit.anonymize.optimal.lattice import ANONYMOUS, Lattice
from hidekit.anonymize.optimal.levels import QuasiIdentifier
from hidekit.anonymize.optimal.metrics import Metric, NodeClasses
from hidekit.anonymize.optimal.models import ClassView, DatasetLimit, KAnonymity, PrivacyModel
from hidekit.engines.classes import ClassTable, LevelMaps

CACHE_ROWS = 4_000_000  # rows of class tables kept for roll-ups (≈ 160 MB at 8 keys)
EXACT_LIMIT = 2_000_000  # nodes; beyond this the lattice is searched heuristically


@dataclass
class Check:
    """The outcome of checking one node."""

    node: int
    anonymous: bool
    suppressed: int
    classes: NodeClasses
    value: float | None = None  # the loss, set when the node is anonymous
    post_bound: float = -math.inf
    # the node meets the monotone models (class models, suppression limit, monotone limits):
    # what tagging goes by; ``anonymous`` adds the limits that are not monotone
    monotone_ok: bool = True

    @property
    def loss(self) -> float:
        """The loss of an anonymous node (only those are valued)."""
        if self.value is None:
            raise ValueError(f"node {self.node} has no loss: it is not anonymous")
        return self.value


@dataclass
class SearchStats:
    checked: int = 0
    proven_optimal: bool = True
    seconds: float = 0.0
    values: dict[int, float] = field(default_factory=dict)


class NodeChecker:
    """Checks nodes: regroups class counts, applies the models and the suppression limit.

    Tables of checked nodes are kept (up to ``CACHE_ROWS`` rows in all, the largest dropped
    first) so that each new node is rolled up from the smallest table below it.
    """

    def __init__(
        self,
        qis: list[QuasiIdentifier],
        base: ClassTable,
        sens_card: int,
        models: list[PrivacyModel | DatasetLimit],
        max_suppressed: int,
        lattice: Lattice,
    ):
        self.qis, self.models, self.lattice = qis, models, lattice
        self.sens_card = sens_card
        self.max_suppressed = max_suppressed
        self.n = int(base.counts.sum())
        self.class_models = [m for m in models if isinstance(m, PrivacyModel)]
        limits = [m for m in models if not isinstance(m, PrivacyModel)]
        self.tagging_limits = [m for m in limits if _monotone(m, max_suppressed)]
        self.checked_limits = [m for m in limits if not _monotone(m, max_suppressed)]
        # k-anonymity alone on classes without a sensitive column: a class is its table row
        self.k_only = base.sensitive is None and all(
            isinstance(m, KAnonymity) for m in self.class_models
        )
        self.k = max((m.k for m in self.class_models if isinstance(m, KAnonymity)), default=1)
        self.maps = LevelMaps(
            [q.up for q in qis], [[q.card(lv) for lv in range(q.height + 1)] for q in qis]
        )
        self.cache = TableCache(len(qis))
        self.cache.keep(0, lattice.levels[0], base)
        self.checked = 0

    def table(self, node: int) -> ClassTable:
        """The class-count table of ``node``, rolled up from the smallest kept table below."""
        tab = self.cache.get(node)
        if tab is not None:
            return tab
        target = self.lattice.levels[node]
        src_levels, src = self.cache.source(target)
        tab = src.roll_up(self.maps, src_levels, target, self.sens_card)
        self.cache.keep(node, target, tab)
        return tab

    def check(self, node: int) -> Check:
        self.checked += 1
        levels = tuple(self.lattice.levels[node].tolist())
        tab = self.table(node)
        if self.k_only:
            sizes = tab.counts
            ok = sizes >= self.k
        else:
            ok, sizes, codes_of = self._class_verdicts(tab, levels)
        kept = sizes[ok]
        suppressed = self.n - int(kept.sum())
        codes = tab.codes if self.k_only else codes_of
        classes = NodeClasses(levels, codes, sizes, ok, suppressed)
        monotone_ok = suppressed <= self.max_suppressed and all(
            m.holds(kept) for m in self.tagging_limits
        )
        anonymous = monotone_ok and all(m.holds(kept) for m in self.checked_limits)
        return Check(node, anonymous, suppressed, classes, monotone_ok=monotone_ok)

    def _class_verdicts(
        self, tab: ClassTable, levels: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(verdict of each class, class sizes, class codes) under every class model."""
        if tab.sensitive is None:  # rows are the classes themselves
            n_classes = tab.rows
            class_of_row, sizes, codes = np.arange(n_classes), tab.counts, tab.codes
        else:
            cards = [q.card(lv) for q, lv in zip(self.qis, levels, strict=True)]
            class_of_row, first, n_classes = tab.classes(cards)
            sizes = np.bincount(class_of_row, weights=tab.counts, minlength=n_classes)
            sizes = sizes.astype(np.int64)
            codes = tab.codes[:, first]
        view = ClassView(class_of_row, sizes, tab.counts, tab.sensitive)
        ok = np.ones(n_classes, dtype=bool)
        for model in self.class_models:
            ok &= model.ok(view)
        return ok, sizes, codes


class TableCache:
    """The class tables of checked nodes, with their levels and rows in arrays so that the
    source of a roll-up (the smallest kept table below the target) is found in one compiled
    pass. Up to ``CACHE_ROWS`` rows in all; beyond, the largest quarter (never the base) goes."""

    def __init__(self, keys: int):
        self.tables: list[ClassTable] = []
        self.nodes: list[int] = []
        self.index: dict[int, int] = {}
        self.levels = np.zeros((64, keys), dtype=np.int64)
        self.rows = np.zeros(64, dtype=np.int64)
        self.kept_rows = 0

    def get(self, node: int) -> ClassTable | None:
        i = self.index.get(node)
        return None if i is None else self.tables[i]

    def source(self, target: np.ndarray) -> tuple[np.ndarray, ClassTable]:
        i = _smallest_below(self.levels, self.rows, len(self.tables), target)
        return self.levels[i], self.tables[i]

    def keep(self, node: int, levels: np.ndarray, tab: ClassTable) -> None:
        i = len(self.tables)
        if i == len(self.rows):
            self.levels = np.concatenate([self.levels, np.zeros_like(self.levels)])
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        self.levels[i] = levels
        self.rows[i] = tab.rows
        self.tables.append(tab)
        self.nodes.append(node)
        self.index[node] = i
        self.kept_rows += tab.rows
        if self.kept_rows > CACHE_ROWS:
            self._evict()

    def _evict(self) -> None:
        """Drop the largest quarter of the tables but the base: small ones are useful sources."""
        count = len(self.tables)
        order = np.argsort(-self.rows[:count], kind="stable")
        drop = set(order[: count // 4].tolist()) - {0}
        keep = [i for i in range(count) if i not in drop]
        self.levels[: len(keep)] = self.levels[keep]
        self.rows[: len(keep)] = self.rows[keep]
        self.tables = [self.tables[i] for i in keep]
        self.nodes = [self.nodes[i] for i in keep]
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.kept_rows = int(self.rows[: len(keep)].sum())


@numba.njit(cache=True)
def _smallest_below(levels, rows, count, target):  # pragma: no cover - compiled
    """The first of the ``count`` kept tables with the fewest rows whose levels are all at or
    below ``target`` (the base, at the bottom, always is)."""
    best, best_rows = 0, rows[0]
    for i in range(1, count):
        if rows[i] < best_rows:
            below = True
            for j in range(target.shape[0]):
                if levels[i, j] > target[j]:
                    below = False
                    break
            if below:
                best, best_rows = i, rows[i]
    return best


def _monotone(limit: DatasetLimit, max_suppressed: int) -> bool:
    return bool(
        getattr(limit, "monotone", False)
        or (max_suppressed == 0 and getattr(limit, "monotone_without_suppression", False))
    )


class Search:
    """One search over a prepared problem; ``run`` returns the best check and the statistics.

    ``lb`` holds a lower bound of every node's loss: the metric's bound from the levels, raised
    by what checks of nodes below it showed. Only nodes whose bound is below the best loss found
    so far are ever tagged or checked.
    """

    def __init__(
        self,
        checker: NodeChecker,
        metric: Metric,
        time_limit: float | None = None,
        progress: Callable[[int, int], None] | None = None,
    ):
        self.checker, self.metric = checker, metric
        self.lattice = checker.lattice
        self.time_limit = time_limit
        self.progress = progress or (lambda done, total: None)
        self.bounds = metric.cheap_bounds(self.lattice.levels)
        self.lb = self.bounds.astype(float).copy()
        self.checks: dict[int, Check] = {}
        self.best: Check | None = None
        self.stats = SearchStats()
        self.started = time.perf_counter()

    @property
    def limit(self) -> float:
        return math.inf if self.best is None else float(self.best.loss)

    def _timed_out(self) -> bool:
        return self.time_limit is not None and time.perf_counter() - self.started > self.time_limit

    def _check(self, node: int) -> Check:
        if node in self.checks:
            return self.checks[node]
        lat = self.lattice
        res = self.checker.check(node)
        if res.monotone_ok:
            lat.tag_anonymous(node)
        else:
            lat.tag_not_anonymous(node)
        if res.anonymous:
            res.value = self.metric.value(res.classes)
            best = self.best
            if (
                best is None
                or res.value < best.loss
                or (res.value == best.loss and _before(lat, node, best.node))
            ):
                self.best = res
        res.post_bound = self.metric.post_bound(res.classes)
        if res.post_bound > -math.inf:
            lat.raise_above(self.lb, node, res.post_bound)
        self.checks[node] = res
        self.progress(len(self.checks), lat.size)
        return res

    def tag(self) -> bool:
        """Tag every node whose bound is below the best loss; False when the time ran out."""
        lat = self.lattice
        order = np.lexsort((self.bounds, lat.height_sum))
        pos = 0
        while True:
            # the next untagged node below the best loss
            pos = lat.next_untagged(order, pos, self.lb, self.limit)
            if pos == len(order):
                return True
            start = int(order[pos])
            pos += 1
            if self._timed_out():
                return False
            # without suppression anonymity sits high: walk to the top, so that one check of
            # a high non-anonymous node tags a large part of the lattice below it
            walk_limit = math.inf if self.checker.max_suppressed == 0 else self.limit
            path = lat.walk_up(start, self.lb, walk_limit).tolist()
            lo, hi = 0, len(path) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                if self._check(path[mid]).monotone_ok:
                    hi = mid - 1
                else:
                    lo = mid + 1

    def settle(self) -> None:
        """Check the anonymous nodes left below the best loss, lowest bound first."""
        lat = self.lattice
        if (
            self.checker.max_suppressed == 0
            and self.metric.monotone_without_suppression
            and not self.checker.checked_limits
        ):
            candidates = lat.minimal_anonymous()
        else:
            candidates = np.nonzero(lat.state == ANONYMOUS)[0]
        candidates = np.array(
            [c for c in candidates.tolist() if c not in self.checks], dtype=np.int64
        )
        if not len(candidates):
            return
        keys = self.lb[candidates]
        sort = np.lexsort((candidates, lat.height_sum[candidates], keys))
        for node, key in zip(candidates[sort].tolist(), keys[sort].tolist(), strict=True):
            if key >= self.limit:
                break  # every later node starts from a bound at least this high
            if self.lb[node] >= self.limit:
                continue
            if self._timed_out():
                self.stats.proven_optimal = False
                return
            self._check(node)

    def run(self) -> tuple[Check | None, SearchStats]:
        if self.tag():
            self.settle()
        else:
            self.stats.proven_optimal = False
            heuristic(self)
        self.stats.checked = self.checker.checked
        self.stats.seconds = time.perf_counter() - self.started
        self.stats.values = {n: c.loss for n, c in self.checks.items() if c.anonymous}
        return self.best, self.stats


def _before(lat: Lattice, a: int, b: int) -> bool:
    """Tie-break between equal losses: the less generalized node, then the lower index."""
    return (int(lat.height_sum[a]), a) < (int(lat.height_sum[b]), b)


def heuristic(search: Search) -> Check | None:
    """Climb from the bottom along the step closest to anonymity until anonymous, then move to a
    neighbour that stays anonymous and loses less while one exists. Not proven optimal."""
    lat = search.lattice
    res = search._check(0)
    while not res.anonymous:
        succ = lat.successors(res.node)
        if not succ:
            return search.best
        checked = [search._check(s) for s in succ]
        anon = [c for c in checked if c.anonymous]
        res = (
            min(anon, key=lambda c: (c.value, c.node))
            if anon
            else min(checked, key=lambda c: (c.suppressed, search.bounds[c.node], c.node))
        )
    improved = True
    while improved:
        improved = False
        for nb in lat.predecessors(res.node) + lat.successors(res.node):
            cand = search._check(nb)
            if cand.anonymous and cand.loss < res.loss:
                res, improved = cand, True
                break
    return search.best
