"""Strict multidimensional Mondrian k-anonymity (LeFevre, DeWitt, Ramakrishnan, ICDE 2006),
optionally l-diverse, as used by HIDE for statistical de-identification.

Statistical de-identification is one mode of HIDE's three (``hidekit.anonymize.modes``); the
cutter itself is in ``hidekit.anonymize.mondrian_cuts``, shared with the Spark version.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

import numpy as np
import pandas as pd

from hidekit.anonymize.modes import apply_mode, check_mode
from hidekit.anonymize.mondrian_cuts import (
    check_params,
    class_labels,
    encode_key,
    partition,
    refuse_missing,
)
from hidekit.errors import InputError, OptionError, require_columns
from hidekit.io.hierarchy import read_hierarchies
from hidekit.secrets import randomness
from hidekit.transforms.base import Transform, register
from hidekit.transforms.loss import (
    DEFAULT_MAX_LOSS,
    VariableLoss,
    information_loss,
    loss_summary,
    require_max_loss,
)


# The result and the API ---------------------------------------------------------------------
@dataclass
class AnonymizationResult:
    """The released table, its equivalence classes, and figures about both.

    ``source_rows[i]`` is the input row of released row ``i`` (kept in memory only, for checks:
    never write it next to the release, it undoes the shuffle).
    """

    released: pd.DataFrame
    partitions: pd.DataFrame
    source_rows: np.ndarray
    stats: dict
    params: dict = field(default_factory=dict)
    loss: list[VariableLoss] = field(default_factory=list)  # per variable kept: cells changed
    max_loss: float = DEFAULT_MAX_LOSS

    def to_dict(self) -> dict:
        return {
            "params": self.params,
            "stats": self.stats,
            "information_loss": loss_summary(self.loss, self.max_loss),
        }


def _check_params(frame, keys, k, l, sensitive, l_kind, c):  # noqa: E741
    def counts() -> np.ndarray:
        return np.bincount(pd.factorize(frame[sensitive], use_na_sentinel=False)[0])

    return check_params(frame.columns, len(frame), counts, keys, k, l, sensitive, l_kind, c)


def check_weighted_params(frame, weights, keys, k, l, sensitive, l_kind, c):  # noqa: E741
    """``check_params`` on a count table: distinct rows ``frame``, ``weights`` records each."""

    def counts() -> np.ndarray:
        codes = pd.factorize(frame[sensitive], use_na_sentinel=False)[0]
        return np.bincount(codes, weights=weights).astype(np.int64)

    n = int(np.sum(weights))
    return check_params(frame.columns, n, counts, keys, k, l, sensitive, l_kind, c)


@register("mondrian")
class Mondrian(Transform):
    """Generalize ``keys`` so each record sits in a class of ≥ k (l-diverse if asked).

    Its job includes reordering: rows come out shuffled unless ``shuffle=False``; the order comes
    from a secret ``key``, else fresh randomness (a ``seed`` needs ``insecure_seed``: with it the
    shuffle can be undone).
    ``transform`` applies to the frame ``fit`` saw (classes are learned from those very records).
    """

    param_docs: ClassVar[dict[str, str]] = {
        "keys": "key variables to generalize",
        "k": "smallest class size",
        "l": "l-diversity of the sensitive column (needs sensitive)",
        "sensitive": "sensitive column",
        "l_kind": "distinct, entropy or recursive",
        "c": "c of recursive (c, l)-diversity",
        "hierarchies": "table key = ARX hierarchy file, for categorical keys",
        "order": "table key = list of values in their order, for ordinal keys",
        "seed": "tests and synthetic data only (needs insecure_seed): seed of the row shuffle",
        "shuffle": "shuffle the released rows (true) or keep their order",
        "insecure_seed": "accept seed (anyone who knows it can undo the shuffle)",
        "key": "the secret key that draws the row order (plans: [secrets]; never written)",
    }
    spark_scope: ClassVar[str] = "spark"  # cuts on count tables, labels joined on the executors

    def __init__(
        self,
        keys: Sequence[str],
        k: int,
        l: int | None = None,  # noqa: E741
        sensitive: str | None = None,
        l_kind: str = "distinct",
        c: float | None = None,
        hierarchies: dict | None = None,
        order: dict | None = None,
        seed: int | None = None,
        shuffle: bool = True,
        insecure_seed: bool = False,
        key=None,
    ):
        self.keys = list(keys)
        self.k = k
        self.l = l
        self.sensitive = sensitive
        self.l_kind = l_kind
        self.c = c
        self.hierarchies = hierarchies
        self.order = order
        self.seed, self.insecure_seed = seed, bool(insecure_seed)
        self._random = randomness(key, seed, insecure_seed, "mondrian's row shuffle")
        self.shuffle = shuffle

    def fit(
        self,
        frame: pd.DataFrame,
        on_level: Callable[[int], None] | None = None,
        weights: np.ndarray | None = None,
    ) -> Mondrian:
        """Learn the classes of ``frame``'s records; with ``weights``, ``frame`` holds distinct
        combinations (of the keys and the sensitive column), ``weights[i]`` records each, and
        ``record_class_`` is per combination (``hidekit.anonymize.mondrian_table``)."""
        if weights is None:
            keys, rule = _check_params(
                frame, self.keys, self.k, self.l, self.sensitive, self.l_kind, self.c
            )
            n = len(frame)
        else:
            weights = np.asarray(weights, dtype=np.int64)
            n = int(weights.sum())
            keys, rule = check_weighted_params(
                frame, weights, self.keys, self.k, self.l, self.sensitive, self.l_kind, self.c
            )
        hier, order = self.hierarchies_for(keys)
        if weights is not None:
            for key in keys:  # refused as the records would be: their count, not the rows'
                refuse_missing(key, int(weights[frame[key].isna().to_numpy()].sum()))
        dims = [encode_key(frame[key], key, hier.get(key), order.get(key)) for key in keys]
        sens = None
        if rule is not None:
            sens = pd.factorize(frame[self.sensitive], use_na_sentinel=False)[0].astype(np.int64)
        classes = partition(dims, int(self.k), sens, rule, on_level, weights)
        self.record_class_, self.class_sizes_ = classes.record_class, classes.sizes
        self.class_labels_ = pd.DataFrame({d.name: class_labels(d, classes) for d in dims})
        self.n_records_ = n
        return self

    def hierarchies_for(self, keys: list[str]) -> tuple[dict, dict]:
        """The hierarchies read and the orders, each for a key (else a one-line refusal)."""
        hier = read_hierarchies(self.hierarchies)
        order = self.order or {}
        unknown = sorted((set(hier) | set(order)) - set(keys))
        if unknown:
            raise OptionError(
                f"hierarchy or order given for a column that is not a key: {', '.join(unknown)}"
            )
        return hier, order

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table: cuts decided on count tables, records generalized on the executors
        (``hidekit.anonymize.spark_mondrian``); the same release as on the default engine."""
        from hidekit.anonymize.spark_mondrian import mondrian_table

        return mondrian_table(self, table)

    def order_(self, n: int) -> np.ndarray:
        return self._random.rng("row-shuffle").permutation(n) if self.shuffle else np.arange(n)

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "record_class_"):
            raise OptionError("fit the Mondrian transform before transform")
        if len(frame) != self.n_records_:
            raise InputError("Mondrian releases the records it was fitted on: the frame differs")
        out = frame.reset_index(drop=True).copy()
        for key in self.keys:
            out[key] = self.class_labels_[key].to_numpy()[self.record_class_]
        return out.iloc[self.order_(len(out))].reset_index(drop=True)


def mondrian(
    data,
    keys: Sequence[str],
    k: int,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    l_kind: str = "distinct",
    c: float | None = None,
    hierarchies: dict | None = None,
    order: dict | None = None,
    mode: str = "statistical",
    identifiers: Sequence[str] = (),
    seed: int | None = None,
    shuffle: bool = True,
    engine: str = "duckdb",
    on_level: Callable[[int], None] | None = None,
    insecure_seed: bool = False,
    key=None,
    max_loss: float = DEFAULT_MAX_LOSS,
) -> AnonymizationResult:
    """De-identify a table the HIDE way; ``mode="statistical"`` runs strict Mondrian.

    The result states the information lost per variable kept (cells generalized or blanked,
    ``hidekit.transforms.loss``) and warns above ``max_loss``, as a release plan does.

    Released rows are shuffled with randomness from ``key`` (secret bytes), else fresh from the
    OS; ``seed`` only with ``insecure_seed`` (``hidekit.secrets``).

    ``data``: a path, Dataset or DataFrame. ``identifiers``: direct identifiers, removed in
    every mode. ``engine="spark"`` cuts on a Spark cluster (same result rules, see spark_mondrian).
    """
    from hidekit.engines import check_engine

    check_mode(mode)
    check_engine(engine)
    frame = _input_frame(data)
    keys = list(keys)
    max_loss = require_max_loss(max_loss)
    rand = randomness(key, seed, insecure_seed, "mondrian's row shuffle")
    params = release_params(
        keys, k, l, sensitive, l_kind, c, mode, identifiers, rand, shuffle, engine, hierarchies
    )
    t0 = time.perf_counter()
    if mode == "statistical":
        _check_params(frame, keys, k, l, sensitive, l_kind, c)
    else:
        require_columns(frame.columns, keys)
    holder: dict = {}
    cut = (keys, int(k), l, sensitive, l_kind, c, hierarchies, order)
    released = apply_mode(
        frame, mode, keys, identifiers, partial(_generalize, cut, engine, on_level, holder)
    )
    rows = rand.rng("row-shuffle").permutation(len(released)) if shuffle else None
    rows = np.arange(len(released)) if rows is None else rows
    released = released.iloc[rows].reset_index(drop=True)
    elapsed = time.perf_counter() - t0
    loss = []
    if len(released) == len(frame):  # every mode keeps the records, in order, before the shuffle
        loss = information_loss(frame.iloc[rows], released, list(released.columns))
    stats, partitions = _release_figures(released, keys, int(k), holder, elapsed)
    if sensitive and sensitive in released.columns:  # checks on the result, not constraints
        stats.update(_sensitive_figures(released, keys, sensitive, l, l_kind, c))
    return AnonymizationResult(released, partitions, rows, stats, params, loss, max_loss)


def release_params(
    keys,
    k,
    l,  # noqa: E741
    sensitive,
    l_kind,
    c,
    mode,
    identifiers,
    rand,
    shuffle,
    engine,
    hierarchies,
) -> dict:
    """The parameters a result states (no secret: the randomness is only described)."""
    return {
        "keys": list(keys),
        "k": int(k),
        "l": l,
        "sensitive": sensitive,
        "l_kind": l_kind,
        "c": c,
        "mode": mode,
        "identifiers": list(identifiers),
        "randomness": rand.describe(),
        "shuffle": shuffle,
        "engine": engine,
        "hierarchies": sorted(hierarchies or {}),
    }


def _generalize(cut: tuple, engine: str, on_level, holder: dict, kept: pd.DataFrame):
    """Mondrian's cuts of ``kept`` (locally or on Spark); class sizes and labels (and, locally,
    each record's class) go to ``holder`` for the result's figures."""
    keys, k, l, sensitive, l_kind, c, hierarchies, order = cut  # noqa: E741
    if engine == "spark":
        from hidekit.anonymize.spark_mondrian import spark_partition

        out = spark_partition(kept, keys, k, l, sensitive, l_kind, c, hierarchies, order)
        classes = out.groupby(keys, sort=False).size()
        holder.update(sizes=classes.to_numpy(), labels=classes.index.to_frame(index=False))
        return out
    m = Mondrian(keys, k, l, sensitive, l_kind, c, hierarchies, order, shuffle=False)
    m.fit(kept, on_level=on_level)
    holder.update(rc=m.record_class_, sizes=m.class_sizes_, labels=m.class_labels_)
    return m.transform(kept)


def _input_frame(data) -> pd.DataFrame:
    """The table to release, from a path, a Dataset or a DataFrame, indexed 0…n−1."""
    from hidekit.io import Dataset, read_table

    if isinstance(data, pd.DataFrame):
        frame = data
    else:
        frame = (data if isinstance(data, Dataset) else read_table(data)).frame
    return frame.reset_index(drop=True)


def _release_figures(
    released: pd.DataFrame, keys: list[str], k: int, holder: dict, elapsed: float
) -> tuple[dict, pd.DataFrame]:
    """The released table's class figures (counted again on what is released) and its classes
    with their sizes (from the cutter when it ran, else grouped from the release)."""
    from hidekit.engines import make_engine
    from hidekit.engines.base import CellStats

    present = [key for key in keys if key in released.columns]
    if present:
        cell = make_engine(released[present]).stats(present, k)
    else:  # full de-identification: no key left, every record in one class
        cell = CellStats.from_sizes([], np.array([len(released)]), k)
    if "labels" in holder:
        partitions = holder["labels"].assign(size=holder["sizes"])
    else:
        partitions = (
            pd.DataFrame({"size": [len(released)]})
            if not present
            else (released.groupby(present, dropna=False).size().rename("size").reset_index())
        )
    stats = {
        "records": cell.records,
        "classes": cell.cells,
        "k": cell.k,
        "k_anonymous": cell.k >= k,
        "seconds": round(elapsed, 3),
    }
    return stats, partitions


def _sensitive_figures(
    released: pd.DataFrame,
    keys: list[str],
    sensitive: str,
    l: int | None,  # noqa: E741
    l_kind: str,
    c: float | None,
) -> dict:
    """l-diversity and t-closeness of the sensitive column over the released classes."""
    from hidekit.anonymize.diversity import class_ids

    present = [key for key in keys if key in released.columns]
    # class ids read from the released labels once; the checks then group by one integer
    return class_figures(class_ids(released, present), released[sensitive], l, l_kind, c)


def class_figures(
    classes: np.ndarray,
    values: pd.Series,
    l: int | None,  # noqa: E741
    l_kind: str,
    c: float | None,
) -> dict:
    """l-diversity and t-closeness of sensitive ``values`` over records' class ids."""
    from hidekit.anonymize.diversity import is_l_diverse, l_diversity, t_closeness

    ids = pd.DataFrame({"class": classes, "s": values.reset_index(drop=True)})
    stats = dict(l_diversity(ids, ["class"], "s"))
    if l is not None:
        stats["l_diverse"] = is_l_diverse(ids, ["class"], "s", l, l_kind, c)
    stats["t_closeness_equal"] = t_closeness(ids, ["class"], "s", "equal")
    if pd.api.types.is_numeric_dtype(values):
        stats["t_closeness_ordered"] = t_closeness(ids, ["class"], "s", "ordered")
    return stats
