"""A tiny third-party plug-in, as a package outside hidekit would write it.

Nothing here is registered on import: a plug-in declares its pieces as entry points in its own
``pyproject.toml``, and hidekit registers them under the entry point's name on first lookup::

    [project.entry-points."hidekit.transforms"]
    round_income = "plugin_example:RoundIncome"
    [project.entry-points."hidekit.operators"]
    shout = "plugin_example:Shout"
    [project.entry-points."hidekit.recognizers"]
    zoo_id = "plugin_example:ZOO_ID"
    [project.entry-points."hidekit.engines"]
    pandas = "plugin_example:PandasEngine"

``tests/test_registry.py`` simulates those entry points (no install needed) and runs the
contract suite over each piece.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hidekit.engines.base import COUNT_COLUMN, CellStats, Engine
from hidekit.errors import OptionError, require_columns
from hidekit.text.anonymization.operators import Operator
from hidekit.text.detection.recognizers import PatternRecognizer
from hidekit.transforms import Transform


class RoundIncome(Transform):
    """Round a money column down to a multiple of ``to``."""

    contract_params = {"columns": ["income"], "to": 1000}
    contract_bad = {"to": 0}

    def __init__(self, columns, to: float = 1000):
        self.columns = [columns] if isinstance(columns, str) else list(columns)
        if not float(to) > 0:
            raise OptionError(f"round_income: 'to' must be positive, got {to}")
        self.to = to

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            out[col] = (frame[col] // self.to) * self.to
        return out


class Shout(Operator):
    """Replace a span by its label in capitals between stars: ``*NAME*``."""

    def replacement(self, span, patient: str) -> str:
        return f"*{span.label.upper()}*"


ZOO_ID = PatternRecognizer("zoo_id", "ID", ("en",), 0.9, pattern=r"\bZOO-\d{4}\b")


class PandasEngine(Engine):
    """Counting with a pandas group-by: slow, but obviously right."""

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame.reset_index(drop=True)

    @property
    def columns(self) -> list[str]:
        return list(self._frame.columns)

    @property
    def n_records(self) -> int:
        return len(self._frame)

    def cell_counts(self, keys):
        keys = self.check_keys(keys)
        g = self._frame.groupby(keys, dropna=False, sort=False).size()
        return g.rename(COUNT_COLUMN).reset_index()

    def keyset_stats(self, keysets, cell_min: int):
        return [CellStats.from_sizes(ks, self.class_sizes(list(ks)), cell_min) for ks in keysets]

    def record_cell_sizes(self, keys):
        keys = self.check_keys(keys)
        if not keys:
            return np.full(self.n_records, self.n_records, dtype=np.int64)
        sizes = self._frame.groupby(keys, dropna=False, sort=False)[keys[0]].transform("size")
        return sizes.to_numpy(dtype=np.int64)

    def split(self, by: str):
        require_columns(self.columns, [by])
        parts = self._frame.groupby(by, dropna=False, sort=True)
        return [(value, PandasEngine(part)) for value, part in parts]
