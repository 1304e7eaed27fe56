"""Generalization hierarchies (ARX format): one row per value, the value first, then ever coarser
labels up to the root. Mondrian splits a categorical key along the children of a node, and the
released value is the label of the smallest node covering a class.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.errors import InputError


@dataclass(frozen=True)
class Hierarchy:
    """``rows[i] = [value, level-1 label, level-2 label, …]``; all rows have the same length."""

    rows: tuple[tuple[str, ...], ...]

    @classmethod
    def read(cls, path) -> Hierarchy:
        """Read an ARX hierarchy CSV (``;`` separated; ``,`` or tab also accepted)."""
        path = Path(path)
        from hidekit.io.readers import decode_text

        try:
            text, _ = decode_text(path.read_bytes(), f"hierarchy {path}")
        except OSError as exc:
            raise InputError(f"cannot read hierarchy {path}: {exc.strerror or exc}") from None
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if not lines:
            raise InputError(f"hierarchy {path} is empty")
        delim = next((d for d in ";\t," if d in lines[0]), ";")
        return cls.from_rows(list(csv.reader(lines, delimiter=delim)), source=str(path))

    @classmethod
    def from_rows(cls, rows, source: str = "hierarchy") -> Hierarchy:
        rows = [tuple(str(v).strip() for v in r) for r in rows if len(r)]
        if not rows:
            raise InputError(f"{source} has no rows")
        width = max(len(r) for r in rows)
        if any(len(r) != width for r in rows):
            raise InputError(f"{source}: every row needs the same number of levels ({width})")
        leaves = [r[0] for r in rows]
        if len(set(leaves)) != len(leaves):
            dup = sorted({v for v in leaves if leaves.count(v) > 1})[:5]
            raise InputError(f"{source}: value listed twice: {', '.join(dup)}")
        return cls(tuple(rows))

    @property
    def depth(self) -> int:
        return len(self.rows[0])

    def leaves(self) -> list[str]:
        return [r[0] for r in self.rows]

    def encode(
        self, present: list[str], column: str = ""
    ) -> tuple[list[str], np.ndarray, list[np.ndarray]]:
        """Order the ``present`` values depth-first and describe the tree over them.

        Returns (values in code order, ``anc`` of shape levels × values with a node id per level
        — level 0 is the value, the last level one root — and the label of each node per level).
        Node ids come from the path to the root, so equal labels under different parents stay apart.
        """
        index = {r[0]: r for r in self.rows}
        missing = [v for v in present if v not in index]
        if missing:
            shown = ", ".join(repr(v) for v in missing[:5])
            raise InputError(
                f"hierarchy of {column!r} does not list {len(missing)} value(s) "
                f"found in the data: {shown}"
            )
        rows = [index[v] for v in present]
        if len(rows[0]) == 1 or len({r[-1] for r in rows}) > 1:  # one root above everything
            rows = [r + ("*",) for r in rows]
        width = len(rows[0])
        # path ids per level, numbered by first appearance in the hierarchy file
        file_pos = {r[0]: i for i, r in enumerate(self.rows)}
        rows.sort(key=lambda r: file_pos[r[0]])
        ids = np.empty((width, len(rows)), dtype=np.int64)
        for lev in range(width):
            ids[lev] = pd.factorize(np.array(["\x1f".join(r[lev:]) for r in rows], dtype=object))[0]
        order = np.lexsort(ids)  # root level is the primary key: depth-first order
        rows = [rows[i] for i in order]
        anc = ids[:, order]
        offset = 0
        for lev in range(width):  # make ids unique across levels
            anc[lev] += offset
            offset = int(anc[lev].max()) + 1
        labels = [np.array([r[lev] for r in rows], dtype=object) for lev in range(width)]
        return [r[0] for r in rows], anc, labels

    def to_csv(self) -> str:
        """The hierarchy in ARX's format: ``;``-separated, one row per value, no header."""
        buf = io.StringIO()
        csv.writer(buf, delimiter=";", lineterminator="\n").writerows(self.rows)
        return buf.getvalue()

    def write(self, path) -> Path:
        """Save in ARX's format (atomically), readable by ``Hierarchy.read`` and by ARX."""
        from hidekit.io.atomic import write_text_atomic

        return write_text_atomic(path, self.to_csv())

    def leaf_labels(self, label: str) -> set[str]:
        """Values covered by ``label`` (a value itself or any node label)."""
        return {r[0] for r in self.rows if label in r}


def read_hierarchies(spec) -> dict[str, Hierarchy]:
    """``{column: Hierarchy | path | rows}`` → ``{column: Hierarchy}``."""
    out = {}
    for col, h in (spec or {}).items():
        if isinstance(h, Hierarchy):
            out[col] = h
        elif isinstance(h, (str, Path)):
            out[col] = Hierarchy.read(h)
        else:
            out[col] = Hierarchy.from_rows(h, source=f"hierarchy of {col!r}")
    return out
