"""Privacy models as tests on equivalence classes.

Each model looks at the classes of one generalization and says which classes satisfy it; records
of the others are suppressed (up to the limit). All the models here are *monotone*: merging classes
that satisfy a model gives a class that satisfies it, so a generalization of an anonymous node is
anonymous — the property the search relies on. (Recursive (c, l)-diversity and t-closeness, with
equal or hierarchical ground distance, are not monotone in theory; ARX treats them as such, and so
do we, saying so in the result.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hidekit.errors import OptionError

EPS = 1e-10


@dataclass(frozen=True)
class ClassView:
    """The classes of one node: ``class_of_row`` maps table rows (class, sensitive value) to
    classes; ``sizes`` per class; ``row_counts`` and ``row_sensitive`` per row."""

    class_of_row: np.ndarray
    sizes: np.ndarray
    row_counts: np.ndarray
    row_sensitive: np.ndarray | None

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def distinct(self) -> np.ndarray:
        return np.bincount(self.class_of_row, minlength=self.n_classes)


class PrivacyModel:
    """A class-level privacy requirement."""

    needs_sensitive = False
    proven_monotone = True

    def ok(self, view: ClassView) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    k: int

    def __post_init__(self):
        if isinstance(self.k, bool) or int(self.k) != self.k or self.k < 1:
            raise OptionError(f"k must be a whole number ≥ 1, got {self.k!r}")

    def ok(self, view: ClassView) -> np.ndarray:
        return view.sizes >= self.k

    def describe(self) -> str:
        return f"{self.k}-anonymity"


def _check_l(l) -> None:  # noqa: E741
    if isinstance(l, bool) or float(l) < 1:
        raise OptionError(f"l must be ≥ 1, got {l!r}")


@dataclass(frozen=True)
class DistinctLDiversity(PrivacyModel):
    l: int  # noqa: E741
    needs_sensitive = True

    def __post_init__(self):
        _check_l(self.l)

    def ok(self, view: ClassView) -> np.ndarray:
        return view.distinct() >= self.l

    def describe(self) -> str:
        return f"distinct-{self.l}-diversity"


@dataclass(frozen=True)
class EntropyLDiversity(PrivacyModel):
    l: float  # noqa: E741
    needs_sensitive = True

    def __post_init__(self):
        _check_l(self.l)

    def ok(self, view: ClassView) -> np.ndarray:
        p = view.row_counts / view.sizes[view.class_of_row]
        ent = -np.bincount(view.class_of_row, weights=p * np.log(p), minlength=view.n_classes)
        return ent >= np.log(self.l) - EPS

    def describe(self) -> str:
        return f"entropy-{self.l}-diversity"


@dataclass(frozen=True)
class RecursiveCLDiversity(PrivacyModel):
    """r1 < c · (r_l + … + r_m) with r1 ≥ r2 ≥ … the sensitive counts of a class."""

    c: float
    l: int  # noqa: E741
    needs_sensitive = True
    proven_monotone = False

    def __post_init__(self):
        _check_l(self.l)
        if not self.c > 0:
            raise OptionError(f"c must be > 0, got {self.c!r}")

    def ok(self, view: ClassView) -> np.ndarray:
        cls, counts = view.class_of_row, view.row_counts
        order = np.lexsort((-counts, cls))
        cls_s, cnt_s = cls[order], counts[order]
        starts = np.searchsorted(cls_s, np.arange(view.n_classes))
        rank = np.arange(len(cls_s)) - starts[cls_s]
        top = np.zeros(view.n_classes, dtype=np.int64)
        top[cls_s[rank == 0]] = cnt_s[rank == 0]
        tail_rows = rank >= self.l - 1
        tail = np.bincount(cls_s[tail_rows], weights=cnt_s[tail_rows], minlength=view.n_classes)
        return (view.distinct() >= self.l) & (top < self.c * tail)

    def describe(self) -> str:
        return f"recursive-({self.c},{self.l})-diversity"


@dataclass(frozen=True)
class EqualDistanceTCloseness(PrivacyModel):
    """Earth mover's distance with equal ground distance (half the L1 distance) between a class's
    sensitive distribution and the whole table's is at most t."""

    t: float
    overall: np.ndarray  # distribution of the sensitive codes over the table
    needs_sensitive = True
    proven_monotone = False

    def __post_init__(self):
        if not 0 <= self.t <= 1:
            raise OptionError(f"t must be between 0 and 1, got {self.t!r}")

    def ok(self, view: ClassView) -> np.ndarray:
        q = self.overall[view.row_sensitive]
        p = view.row_counts / view.sizes[view.class_of_row]
        diff = np.bincount(view.class_of_row, weights=np.abs(p - q), minlength=view.n_classes)
        covered = np.bincount(view.class_of_row, weights=q, minlength=view.n_classes)
        return 0.5 * (diff + 1.0 - covered) <= self.t + EPS

    def describe(self) -> str:
        return f"{self.t}-closeness (equal distance)"

    def __hash__(self):
        return hash((self.t, self.overall.tobytes()))


@dataclass(frozen=True, eq=False)
class HierarchicalDistanceTCloseness(PrivacyModel):
    """Earth mover's distance with the hierarchical ground distance of Li et al. (ARX's
    ``HierarchicalDistanceTCloseness``) between a class's sensitive distribution and the table's
    is at most t. Moving mass between two values costs the level of their lowest common ancestor
    over the hierarchy's height, so a class that mixes related values (two kinds of clerical work)
    is closer to the table than one that holds unrelated ones.

    ``ancestors[level][s]`` is the code at ``level`` of sensitive value ``s`` (level 0: the value
    itself, one code per value)."""

    t: float
    overall: np.ndarray
    ancestors: tuple[np.ndarray, ...]
    needs_sensitive = True
    proven_monotone = False

    def __post_init__(self):
        if not 0 <= self.t <= 1:
            raise OptionError(f"t must be between 0 and 1, got {self.t!r}")

    def distances(self, view: ClassView) -> np.ndarray:
        """The distance of every class. A node's surplus (pos) and deficit (neg) are summed over
        its children; each node costs level / height · min(pos, neg) (Li et al., ARX)."""
        height = len(self.ancestors) - 1
        n = view.n_classes
        cost = np.zeros(n)
        q = view.row_counts / view.sizes[view.class_of_row]
        for level in range(1, height + 1):
            child_of_value, node_of_value = self.ancestors[level - 1], self.ancestors[level]
            n_child = int(child_of_value.max()) + 1
            p_child = np.bincount(child_of_value, weights=self.overall, minlength=n_child)
            node_of_child = np.zeros(n_child, dtype=np.int64)
            node_of_child[child_of_value] = node_of_value
            n_node = int(node_of_value.max()) + 1
            p_node = np.bincount(node_of_child, weights=p_child, minlength=n_node)
            # (class, child) pairs that hold records of the class: their q mass
            pair = view.class_of_row.astype(np.int64) * n_child + child_of_value[view.row_sensitive]
            pairs, inverse = np.unique(pair, return_inverse=True)
            q_pair = np.bincount(inverse.reshape(-1), weights=q, minlength=len(pairs))
            cls, child = pairs // n_child, pairs % n_child
            p_pair = p_child[child]
            # (class, node): pos = P(node) − Σ min(P, Q) over present children; neg = Σ (Q − P)⁺
            cn = cls * n_node + node_of_child[child]
            keys, inv = np.unique(cn, return_inverse=True)
            inv = inv.reshape(-1)
            shared = np.bincount(inv, weights=np.minimum(p_pair, q_pair), minlength=len(keys))
            neg = np.bincount(inv, weights=np.maximum(q_pair - p_pair, 0.0), minlength=len(keys))
            pos = p_node[keys % n_node] - shared
            step = (level / height) * np.minimum(pos, neg)
            cost += np.bincount(keys // n_node, weights=step, minlength=n)
        return cost

    def ok(self, view: ClassView) -> np.ndarray:
        return self.distances(view) <= self.t + EPS

    def describe(self) -> str:
        return f"{self.t}-closeness (hierarchical distance)"

    def __hash__(self):
        return hash((self.t, self.overall.tobytes(), *(a.tobytes() for a in self.ancestors)))


class DatasetLimit:
    """A limit on the whole release (what is left after suppression), not on each class: checked
    once per node on the sizes of the classes that are kept.

    Any object with ``holds(kept_sizes)`` and ``describe()`` serves (the population limits of
    ``hidekit.risk.limits`` are such objects). ``monotone``: a generalization of a node that meets
    the limit meets it too, so the search may tag by it; ``monotone_without_suppression``: the
    same when nothing may be suppressed. A limit that is neither is checked at every candidate
    node and never used to tag (ARX does the same for its non-monotone models)."""

    monotone = False
    monotone_without_suppression = False

    def holds(self, kept_sizes: np.ndarray) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class AverageRisk(DatasetLimit):
    """El Emam's average prosecutor risk (classes / records released) at most ``limit``.
    Merging classes lowers it, but with suppression a generalization can release a suppressed
    class again and raise it: monotone only without suppression."""

    limit: float
    monotone_without_suppression = True

    def __post_init__(self):
        if not 0 < self.limit <= 1:
            raise OptionError(f"average risk limit must be in (0, 1], got {self.limit!r}")

    def holds(self, kept_sizes):
        return kept_sizes.sum() == 0 or len(kept_sizes) / kept_sizes.sum() <= self.limit + EPS

    def describe(self) -> str:
        return f"average prosecutor risk ≤ {self.limit}"


@dataclass(frozen=True)
class RiskProportion(DatasetLimit):
    """Lin & Garin's RP: the share of released records in classes smaller than ``cell_min`` is
    at most ``limit``. Monotone only without suppression (a suppressed class released again by a
    generalization can be small)."""

    limit: float
    cell_min: int
    monotone_without_suppression = True

    def __post_init__(self):
        if not 0 <= self.limit <= 1 or self.cell_min < 1:
            raise OptionError("RP limit must be in [0, 1] and cell_min ≥ 1")

    def holds(self, kept_sizes):
        total = kept_sizes.sum()
        at_risk = kept_sizes[kept_sizes < self.cell_min].sum()
        return total == 0 or at_risk / total <= self.limit + EPS

    def describe(self) -> str:
        return f"RP(cell_min {self.cell_min}) ≤ {self.limit}"


def make_l_model(kind: str, l, c=None) -> PrivacyModel:  # noqa: E741
    """``distinct``, ``entropy`` or ``recursive`` l-diversity."""
    if kind == "distinct":
        return DistinctLDiversity(int(l))
    if kind == "entropy":
        return EntropyLDiversity(float(l))
    if kind == "recursive":
        if c is None:
            raise OptionError("recursive (c, l)-diversity needs c")
        return RecursiveCLDiversity(float(c), int(l))
    raise OptionError(f"l-diversity kind must be distinct, entropy or recursive, got {kind!r}")
