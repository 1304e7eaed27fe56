"""How useful is a generalized release? HIDE's query precision (Gardner & Xiong, Figure 3),
discernibility and normalized average class size (LeFevre et al.), and the normalized certainty
penalty (NCP, Xu et al.).

Generalized values are read back from the release itself — ``[25-28]``, ``{a,b}``, a hierarchy
label, ``*``, or the value — so any release can be scored, not only ours. A key missing from the
release (full de-identification) covers its whole domain. Query precision needs no row
alignment: every record whose generalized value overlaps a query is returned (perfect recall),
so precision = records truly matching in the original / records returned from the release.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hidekit.anonymize.mondrian_cuts import format_value
from hidekit.errors import InputError, OptionError, require_columns
from hidekit.io.hierarchy import Hierarchy, read_hierarchies

_RANGE = re.compile(
    r"^\[?\s*(-?[0-9.]+(?:[eE][-+]?\d+)?)\s*-\s*(-?[0-9.]+(?:[eE][-+]?\d+)?)\s*\]?$"
)
QUERY_KINDS = ("range", "one-sided")
MAX_QUERIES = 1_000_000


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


@dataclass
class Coverage:
    """What a released column tells about each record's true value."""

    numeric: bool
    lo: np.ndarray | None = None  # numeric: interval per released record
    hi: np.ndarray | None = None
    sets: list | None = None  # categorical: covered domain values per distinct label
    label: np.ndarray | None = None  # categorical: index into ``sets`` per released record
    domain: list | None = None

    def ncp(self, original: pd.Series) -> np.ndarray:
        """Normalized certainty penalty per released record, in [0, 1]."""
        if self.numeric:
            assert self.lo is not None and self.hi is not None  # numeric coverage
            width = float(original.max() - original.min())
            return (self.hi - self.lo) / width if width > 0 else np.zeros(self.lo.size)
        assert self.domain is not None and self.sets is not None and self.label is not None
        m = len(self.domain)
        per_label = np.array([(len(s) - 1) / (m - 1) if m > 1 else 0.0 for s in self.sets])
        return per_label[self.label]


def coverage(
    original: pd.Series,
    released: pd.Series | None,
    hierarchy: Hierarchy | None = None,
    n_released: int | None = None,
) -> Coverage:
    """Read generalized values of one key; ``released=None`` means the key was removed."""
    name = original.name
    n = len(released) if released is not None else int(n_released or len(original))
    numeric = _is_numeric(original)
    text_domain = sorted({format_value(v) for v in pd.unique(original.dropna())})
    labels, inv = (
        (np.array(["*"], dtype=object), np.zeros(n, dtype=np.int64))
        if released is None
        else _factor(released)
    )
    if numeric:
        dlo, dhi = float(original.min()), float(original.max())
        bounds = np.array([_numeric_bounds(x, dlo, dhi, hierarchy, name) for x in labels]).reshape(
            -1, 2
        )
        return Coverage(True, lo=bounds[inv, 0], hi=bounds[inv, 1], domain=text_domain)
    domain = set(text_domain)
    sets = [_category_set(x, domain, hierarchy, name) for x in labels]
    return Coverage(False, sets=sets, label=inv, domain=text_domain)


def _factor(s: pd.Series):
    codes, uniq = pd.factorize(s, use_na_sentinel=False)
    text = pd.Series(["*" if pd.isna(v) else format_value(v) for v in uniq], dtype=object)
    merged, labels = pd.factorize(text)  # 25 and 25.0 are one label
    return np.asarray(labels, dtype=object), merged[codes].astype(np.int64)


def _numeric_bounds(x: str, dlo: float, dhi: float, hierarchy, name) -> tuple[float, float]:
    if x == "*":
        return dlo, dhi
    try:
        v = float(x)
        return v, v
    except ValueError:
        pass
    if hierarchy is not None:
        leaves = [float(v) for v in hierarchy.leaf_labels(x) if _floatable(v)]
        if leaves:
            return min(leaves), max(leaves)
    m = _RANGE.match(x)
    if m:
        return float(m.group(1)), float(m.group(2))
    raise InputError(
        f"cannot read the generalized value {x!r} of {name!r} "
        "(expected a number, [lo-hi], * or a label of its hierarchy)"
    )


def _floatable(v) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _category_set(x: str, domain: set, hierarchy, name) -> frozenset:
    if x == "*":
        return frozenset(domain)
    if x in domain:
        return frozenset([x])
    if x.startswith("{") and x.endswith("}"):
        parts = frozenset(p.strip() for p in x[1:-1].split(","))
        if parts <= domain:
            return parts
    if hierarchy is not None:
        leaves = hierarchy.leaf_labels(x) & domain
        if leaves:
            return frozenset(leaves)
    raise InputError(
        f"cannot read the generalized value {x!r} of {name!r} "
        "(expected a value, {a,b}, * or a label of its hierarchy)"
    )


# Query precision -----------------------------------------------------------------------------
def query_precision(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attribute: str,
    n_queries: int = 10_000,
    seed: int = 0,
    kind: str = "range",
    hierarchy: Hierarchy | None = None,
) -> float:
    """HIDE's sub-population query experiment on one attribute: mean precision of random queries.

    Numeric: ``lo < attr < hi`` (``kind="range"``) or, as in the paper, ``attr > n`` / ``attr < n``
    (``kind="one-sided"``, half each). Categorical: ``attr = v``. A record is returned when its
    generalized value could satisfy the query. Queries returning nothing are left out.
    """
    if kind not in QUERY_KINDS:
        raise OptionError(f"unknown query kind {kind!r} (choose from {', '.join(QUERY_KINDS)})")
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)):
        raise OptionError(f"the number of queries must be a whole number, got {n_queries!r}")
    if not 1 <= n_queries <= MAX_QUERIES:
        raise OptionError(
            f"the number of queries must be from 1 to {MAX_QUERIES:,} (the mean precision is "
            f"stable long before), got {n_queries:,}"
        )
    rng = np.random.default_rng(seed)
    orig, cov = _attribute(original, released, attribute, hierarchy)
    if cov.numeric:
        values = orig.to_numpy(dtype=np.float64)
        dlo, dhi = values.min(), values.max()
        if pd.api.types.is_integer_dtype(orig):
            bounds = rng.integers(int(dlo) - 1, int(dhi) + 2, size=(n_queries, 2)).astype(
                np.float64
            )
        else:
            bounds = rng.uniform(dlo, dhi, size=(n_queries, 2))
        lo, hi = bounds.min(axis=1), bounds.max(axis=1)
        if kind == "one-sided":
            upper = np.arange(n_queries) % 2 == 0  # attr > n, then attr < n
            lo = np.where(upper, bounds[:, 0], -np.inf)
            hi = np.where(upper, np.inf, bounds[:, 0])
        truth, returned = query_counts(
            original, released, attribute, lo=lo, hi=hi, hierarchy=hierarchy
        )
    else:
        domain = cov.domain
        picks = [domain[i] for i in rng.integers(0, len(domain), size=n_queries)]
        truth, returned = query_counts(
            original, released, attribute, equals=picks, hierarchy=hierarchy
        )
    keep = returned > 0
    if not keep.any():
        return float("nan")
    return float(np.mean(truth[keep] / returned[keep]))


def _attribute(original, released, attribute, hierarchy):
    require_columns(original.columns, [attribute])
    orig = original[attribute].dropna()
    if orig.empty:
        raise InputError(f"{attribute!r} has no values to query")
    rel = released[attribute] if attribute in released.columns else None
    return orig, coverage(orig, rel, hierarchy, n_released=len(released))


def query_counts(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attribute: str,
    *,
    lo=None,
    hi=None,
    equals=None,
    hierarchy: Hierarchy | None = None,
):
    """For each query, (records truly matching in the original, records the release returns).

    Numeric queries are ``lo < attr < hi`` (open bounds; ±inf for one-sided); categorical
    queries ``attr = equals``. A released record is returned when its value could match.
    """
    orig, cov = _attribute(original, released, attribute, hierarchy)
    if cov.numeric:
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        values = np.sort(orig.to_numpy(dtype=np.float64))
        truth = np.maximum(
            np.searchsorted(values, hi, "left") - np.searchsorted(values, lo, "right"), 0
        )
        # overlap of [a, b] with (lo, hi): a < hi and b > lo (the two failures are disjoint)
        returned = np.searchsorted(np.sort(cov.lo), hi, "left") - np.searchsorted(
            np.sort(cov.hi), lo, "right"
        )
        return truth, np.maximum(returned, 0)
    counts = orig.value_counts()
    counts.index = [format_value(v) for v in counts.index]
    counts = counts.groupby(level=0).sum()
    per_label = np.bincount(cov.label, minlength=len(cov.sets))
    covered = dict.fromkeys(cov.domain, 0)
    for members, c in zip(cov.sets, per_label, strict=True):
        for v in members:
            covered[v] += int(c)
    picks = [format_value(v) for v in equals]
    return (
        np.array([int(counts.get(v, 0)) for v in picks]),
        np.array([covered.get(v, 0) for v in picks]),
    )


# Class-based measures ------------------------------------------------------------------------
def discernibility(sizes) -> int:
    """Σ |E|² over equivalence classes (LeFevre et al.; no suppression here)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return int((sizes * sizes).sum())


def average_class_size(sizes, k: int) -> float:
    """C_avg = (records / classes) / k; 1 is the ideal for k-anonymity."""
    sizes = np.asarray(sizes)
    return float(sizes.sum() / sizes.size / k) if sizes.size and k else float("nan")


def utility(
    original: pd.DataFrame,
    released: pd.DataFrame,
    keys: Sequence[str],
    k: int | None = None,
    hierarchies: dict | None = None,
    query_attributes: Sequence[str] | None = None,
    n_queries: int = 10_000,
    seed: int = 0,
    kind: str = "range",
) -> dict:
    """All measures of one release of ``keys`` (the original is read only for domains and truth)."""
    from hidekit.engines import make_engine

    keys = list(keys)
    require_columns(original.columns, keys)
    if len(original) != len(released):
        raise InputError(
            f"the release has {len(released):,} records but the original "
            f"{len(original):,}: utility compares releases of the same records"
        )
    hier = read_hierarchies(hierarchies)
    present = [key for key in keys if key in released.columns]
    sizes = (
        make_engine(released[present]).class_sizes(present)
        if present
        else np.array([len(released)], dtype=np.int64)
    )
    k_used = int(k) if k else int(sizes.min())
    ncp = {
        key: float(
            coverage(
                original[key],
                released[key] if key in present else None,
                hier.get(key),
                n_released=len(released),
            )
            .ncp(original[key])
            .mean()
        )
        for key in keys
    }
    attrs = list(query_attributes) if query_attributes is not None else keys
    return {
        "records": int(sizes.sum()),
        "classes": int(sizes.size),
        "k": int(sizes.min()),
        "discernibility": discernibility(sizes),
        "average_class_size": average_class_size(sizes, k_used),
        "ncp": float(np.mean(list(ncp.values()))) if ncp else 0.0,
        "ncp_by_key": ncp,
        "query_precision": {
            a: query_precision(original, released, a, n_queries, seed, kind, hier.get(a))
            for a in attrs
        },
    }


def precision_curve(
    original: pd.DataFrame,
    keys: Sequence[str],
    attribute: str,
    ks: Sequence[int],
    n_queries: int = 10_000,
    seed: int = 0,
    kind: str = "range",
    **mondrian_options,
) -> list[dict]:
    """HIDE Figure 3: query precision of full, partial and statistical (k = …) de-identification."""
    from hidekit.anonymize.mondrian import mondrian

    hier = read_hierarchies(mondrian_options.get("hierarchies"))
    rows = []
    base = {
        m: query_precision(
            original,
            mondrian(original, keys, 1, mode=m, shuffle=False).released,
            attribute,
            n_queries,
            seed,
            kind,
            hier.get(attribute),
        )
        for m in ("full", "partial")
    }
    for k in ks:
        options = {"shuffle": False, **mondrian_options}  # counts do not depend on row order
        rel = mondrian(original, keys, int(k), **options).released
        rows.append(
            {
                "k": int(k),
                "statistical": query_precision(
                    original, rel, attribute, n_queries, seed, kind, hier.get(attribute)
                ),
                **base,
            }
        )
    return rows


def utility_report(result: dict, curve: dict | None = None, title: str = "Utility of a release"):
    """HTML report: the measures, per-key NCP and precision, and HIDE's Figure 3 when given."""
    from hidekit.report import Report, line_chart

    rep = Report(title, "query precision: share of returned records that truly match (HIDE)")
    rep.heading("Measures")
    rep.table(
        [
            {"measure": m, "value": result[m]}
            for m in ("records", "classes", "k", "discernibility", "average_class_size", "ncp")
        ]
    )
    rep.heading("By key")
    rep.table(
        [
            {
                "key": key,
                "NCP": result["ncp_by_key"][key],
                "query precision": result["query_precision"].get(key),
            }
            for key in result["ncp_by_key"]
        ]
    )
    if curve:
        rows, attr = curve["rows"], curve["attribute"]
        rep.heading(f"Query precision against k on {attr} (HIDE Figure 3)")
        series = {name: [r[name] for r in rows] for name in ("partial", "statistical", "full")}
        this = result["query_precision"].get(attr)
        rep.figure(
            line_chart(
                [r["k"] for r in rows],
                series,
                title=f"Query precision on {attr}",
                xlabel="k",
                ylabel="precision",
                ymin=0.0,
                ymax=1.0,
                hlines={"this release": this} if this == this and this is not None else None,
            ),
            caption="partial keeps the attribute, full removes it, statistical generalizes it "
            "by Mondrian with the given k",
        )
        rep.table(rows)
    return rep
