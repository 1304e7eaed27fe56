"""A hierarchy turned into integer codes per level, as ARX encodes it.

Each level's values are identified by their label (ARX keys generalized values by their text), a
value's *share* at a level is the fraction of the hierarchy's rows that carry the same label
there (ARX's domain share), and a code at a finer level maps to exactly one code at every coarser
level (the hierarchy must be nested, or class counts could not be rolled up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hidekit.errors import InputError, OptionError
from hidekit.io.hierarchy import Hierarchy

UNKNOWN_POLICIES = ("error", "top")


@dataclass(frozen=True)
class QuasiIdentifier:
    """One key with its hierarchy in codes: ``leaf_codes[level][leaf]`` is the code of a leaf at a
    level; ``labels[level][code]`` its text; ``shares[level][code]`` its domain share."""

    name: str
    leaves: tuple[str, ...]
    leaf_codes: tuple[np.ndarray, ...]
    labels: tuple[np.ndarray, ...]
    shares: tuple[np.ndarray, ...]
    up: tuple[tuple[np.ndarray | None, ...], ...]
    domain_size: int

    @property
    def height(self) -> int:
        """The top level (levels are 0 … height)."""
        return len(self.leaf_codes) - 1

    def card(self, level: int) -> int:
        return len(self.labels[level])

    def level_map(self, src: int, dst: int) -> np.ndarray:
        """Code at level ``src`` → code at level ``dst`` (``dst`` ≥ ``src``), as an array."""
        m = self.up[src][dst]
        if m is None:
            raise ValueError(f"no map from level {src} down to level {dst}")
        return m

    @classmethod
    def from_hierarchy(
        cls, name: str, hierarchy: Hierarchy, present: Sequence[str], unknown: str = "error"
    ) -> QuasiIdentifier:
        """Encode ``hierarchy``; ``present`` are the column's values, checked against it."""
        if unknown not in UNKNOWN_POLICIES:
            raise OptionError(f"unknown-values policy must be one of {UNKNOWN_POLICIES}")
        rows = [list(r) for r in hierarchy.rows]
        listed = {r[0] for r in rows}
        missing = sorted({v for v in present if v not in listed})
        if missing:
            if unknown == "error":
                shown = ", ".join(repr(v) for v in missing[:5])
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                raise InputError(
                    f"hierarchy of {name!r} does not list {len(missing)} value(s) of the data: "
                    f"{shown}{more} (add them, or map them to the top level with "
                    f"unknown='top' / --unknown-values top)"
                )
            top = rows[0][-1]
            rows += [[v] + [top] * (len(rows[0]) - 1) for v in missing]
        table = np.array(rows, dtype=object)  # rows × levels
        depth = table.shape[1]
        leaf_codes, labels, shares = [], [], []
        for level in range(depth):
            codes, uniques = _factorize(table[:, level].tolist())
            counts = np.bincount(codes, minlength=len(uniques))
            leaf_codes.append(codes)
            labels.append(uniques)
            shares.append(counts / len(rows))
        up = []
        for src in range(depth):
            maps: list[np.ndarray | None] = [None] * depth
            maps[src] = np.arange(len(labels[src]), dtype=np.int64)
            for dst in range(src + 1, depth):
                m = np.full(len(labels[src]), -1, dtype=np.int64)
                m[leaf_codes[src]] = leaf_codes[dst]
                # nested iff every leaf agrees with the map built from its group
                bad = np.nonzero(m[leaf_codes[src]] != leaf_codes[dst])[0]
                if bad.size:
                    lab = labels[src][leaf_codes[src][bad[0]]]
                    raise InputError(
                        f"hierarchy of {name!r} is not nested: {lab!r} at level {src} falls "
                        f"under more than one label at level {dst}"
                    )
                maps[dst] = m
            up.append(tuple(maps))
        return cls(
            name=name,
            leaves=tuple(table[:, 0]),
            leaf_codes=tuple(leaf_codes),
            labels=tuple(labels),
            shares=tuple(shares),
            up=tuple(up),
            domain_size=len(rows),
        )

    def leaf_index(self) -> dict[str, int]:
        return {v: i for i, v in enumerate(self.leaves)}


def _factorize(values: list) -> tuple[np.ndarray, np.ndarray]:
    """Codes by first appearance and the distinct values (``pandas.factorize``'s order): a dict
    is quicker than pandas for the few hundred labels of a hierarchy level."""
    seen: dict = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.int64, len(values))
    uniques = np.empty(len(seen), dtype=object)
    uniques[:] = list(seen)
    return codes, uniques
