"""One shape for every table transform: configure in ``__init__``, learn in ``fit``, apply in
``transform`` (scikit-learn's convention). Parameters are explicit constructor arguments; what
``fit`` learns is stored in attributes ending with ``_``; ``transform`` never changes ``self``.
Transforms never reorder or drop records unless that is their stated job.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from typing import ClassVar

import pandas as pd

from hidekit.registry import Registry

REGISTRY = Registry("step")
register = REGISTRY.register  # class decorator: @register("name"); release plans use these names
get_transform = REGISTRY.lookup


class Transform(ABC):
    name: ClassVar[str] = "transform"

    def fit(self, frame: pd.DataFrame) -> Transform:
        """Learn what the transform needs from ``frame`` (default: nothing)."""
        return self

    @abstractmethod
    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Return a new frame; the input is left untouched."""

    def fit_transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.fit(frame).transform(frame)

    def get_params(self) -> dict:
        sig = inspect.signature(type(self).__init__)
        return {p: getattr(self, p) for p in sig.parameters if p != "self" and hasattr(self, p)}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
