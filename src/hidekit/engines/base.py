"""The one interface for counting cells of key sets.

Risk measurement, variable selection, suppression checks and k-anonymity verification all ask an
engine the same few questions: how big is each cell of these keys, and, for many key sets at once,
how many cells and how many records sit in small cells. Missing values are a category of their own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.registry import ENGINES

if TYPE_CHECKING:
    from typing import Self

COUNT_COLUMN = "_n"
register_engine = ENGINES.register  # class decorator: @register_engine("name")


@dataclass(frozen=True)
class CellStats:
    """Summary of the cells of one key set (equivalence classes, in k-anonymity terms)."""

    keys: tuple[str, ...]
    records: int
    cells: int
    k: int
    uniques: int
    at_risk: int
    cell_min: int

    @property
    def rp(self) -> float:
        """Risk proportion: share of records in cells smaller than ``cell_min``."""
        return self.at_risk / self.records if self.records else 0.0

    @property
    def cr(self) -> float:
        """Cell ratio: non-empty cells per record (El Emam's average prosecutor risk)."""
        return self.cells / self.records if self.records else 0.0

    @property
    def ratio(self) -> float:
        return self.rp / self.cr if self.cr else 0.0

    @classmethod
    def from_sizes(cls, keys: Sequence[str], sizes: np.ndarray, cell_min: int) -> CellStats:
        sizes = np.asarray(sizes, dtype=np.int64)
        return cls(
            keys=tuple(keys),
            records=int(sizes.sum()),
            cells=int(sizes.size),
            k=int(sizes.min()) if sizes.size else 0,
            uniques=int((sizes == 1).sum()),
            at_risk=int(sizes[sizes < cell_min].sum()),
            cell_min=int(cell_min),
        )


def numeric_values(series: pd.Series, name: str) -> np.ndarray:
    """A column as float64 (NaN where missing); text that is not a number is refused."""
    if series.dtype.kind in "biuf":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna() & (series.astype(str).str.strip() != "")
    if bad.any():
        example = series[bad].iloc[0]
        raise InputError(
            f"column {name!r} must hold numbers: {int(bad.sum())} value(s) are text, "
            f"e.g. {str(example)[:40]!r}"
        )
    return values.to_numpy(dtype=np.float64, na_value=np.nan)


def check_cell_min(cell_min: int) -> int:
    if int(cell_min) < 1:
        raise OptionError(f"cell-min must be at least 1, got {cell_min}")
    return int(cell_min)


class Engine(ABC):
    """Counts cells of key sets over one table. Subclasses: DuckDB (default), Spark."""

    name: str = "engine"

    def __init__(self, data: Any) -> None:  # noqa: B027 - the constructor ``open`` calls
        """An engine over one table; each engine says what it accepts (a frame, a Spark table)."""

    @classmethod
    def open(cls, data, sep: str | None = None) -> Self:
        """An engine of this kind over a path, Dataset or table (a file is read once)."""
        from hidekit.io import Dataset, read_table

        ds = data if isinstance(data, Dataset) else read_table(data, sep=sep)
        return cls(ds.frame)

    @property
    @abstractmethod
    def columns(self) -> list[str]: ...

    @property
    @abstractmethod
    def n_records(self) -> int: ...

    def has_records(self) -> bool:
        """Whether the table has at least one record (an engine over a file need not count)."""
        return self.n_records > 0

    @abstractmethod
    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        """One row per cell: the key values and its size in column ``_n``."""

    def cell_codes(self, keys: Sequence[str]) -> tuple[list[pd.Series], np.ndarray, np.ndarray]:
        """The cells as integer codes: per key its distinct values (missing included), a keys ×
        cells array of codes into them, and each cell's size. What a search over many
        generalizations starts from: codes are regrouped without touching values again. This
        default factorizes ``cell_counts``; engines that hold codes already override it."""
        counts = self.cell_counts(keys)
        values, codes = [], []
        for key in keys:
            c, uniq = pd.factorize(counts[key], use_na_sentinel=False)
            values.append(pd.Series(uniq, dtype=counts[key].dtype))
            codes.append(c.astype(np.int64, copy=False))
        table = np.stack(codes) if codes else np.zeros((0, len(counts)), np.int64)
        return values, table, counts[COUNT_COLUMN].to_numpy(dtype=np.int64)

    @abstractmethod
    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        """CellStats of each key set, counted together (one pass where the engine allows)."""

    @abstractmethod
    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        """For each record, in row order, the size of its cell."""

    def record_weighted_sizes(
        self, keys: Sequence[str], weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each record, in row order: its cell's size ``f_k`` and sum of ``weights`` ``F_k``.

        ``weights`` holds one checked number per record, in row order (see ``numeric_column``).
        """
        raise OptionError(f"the {self.name} engine does not count weighted cells")

    def numeric_column(self, column: str) -> np.ndarray:
        """One column as float64 in row order; missing and non-numbers are NaN.

        Raises ``InputError`` when the column holds text (a weight column must be numbers).
        """
        raise OptionError(f"the {self.name} engine does not read numeric columns")

    def record_codes(self, keys: Sequence[str]) -> np.ndarray:
        """Records × keys matrix of integer codes, row order; -1 marks a missing value.

        Codes are equal exactly when values are equal (within one column).
        """
        raise OptionError(f"the {self.name} engine does not give record codes")

    @abstractmethod
    def split(self, by: str) -> list[tuple[object, Engine]]:
        """One engine per value of ``by`` (missing included), in sorted order."""

    # Shared conveniences -------------------------------------------------
    def check_keys(self, keys: Sequence[str]) -> list[str]:
        keys = list(keys)
        require_columns(self.columns, keys)
        if len(set(keys)) != len(keys):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise OptionError(f"key listed twice: {', '.join(dup)}")
        return keys

    def class_sizes(self, keys: Sequence[str]) -> np.ndarray:
        """Sizes of all cells of ``keys`` (order unspecified)."""
        if not keys:
            return (
                np.array([self.n_records], dtype=np.int64)
                if self.n_records
                else np.array([], np.int64)
            )
        return self.cell_counts(keys)[COUNT_COLUMN].to_numpy(dtype=np.int64)

    def stats(self, keys: Sequence[str], cell_min: int = 3) -> CellStats:
        return self.keyset_stats([list(keys)], cell_min)[0]

    def is_k_anonymous(self, keys: Sequence[str], k: int) -> bool:
        return self.stats(keys, cell_min=k).at_risk == 0
