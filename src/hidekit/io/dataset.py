"""A table plus what its file said about it (labels, format), kept together through a release."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd


@dataclass
class Dataset:
    """A pandas frame with the metadata a statistical file carries.

    ``variable_labels`` maps column -> label; ``value_labels`` maps column -> {code: label};
    ``format`` is the reader used ("csv", "stata", "spss", "sas", "parquet", "excel", "frame").
    """

    frame: pd.DataFrame
    format: str = "frame"
    path: Path | None = None
    variable_labels: dict[str, str] = field(default_factory=dict)
    value_labels: dict[str, dict] = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def with_frame(self, frame: pd.DataFrame) -> Dataset:
        """Same metadata, new data (labels of dropped columns are dropped too)."""
        keep = set(frame.columns)
        return replace(
            self,
            frame=frame,
            variable_labels={k: v for k, v in self.variable_labels.items() if k in keep},
            value_labels={k: v for k, v in self.value_labels.items() if k in keep},
        )

    def label(self, column: str) -> str:
        return self.variable_labels.get(column, "")


def as_text(s: pd.Series) -> pd.Series:
    """Every present value as its text, missing as None: one type per column for writers and Spark."""
    return s.map(lambda v: None if v is None or (isinstance(v, float) and pd.isna(v)) else str(v))
