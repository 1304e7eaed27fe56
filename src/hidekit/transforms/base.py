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

from hidekit.errors import OptionError

REGISTRY: dict[str, type[Transform]] = {}


def register(name: str):
    """Class decorator: make a transform available by name (release plans use these names)."""

    def deco(cls):
        if name in REGISTRY and REGISTRY[name] is not cls:
            raise ValueError(f"transform name {name!r} registered twice")
        cls.name = name
        REGISTRY[name] = cls
        return cls

    return deco


def get_transform(name: str) -> type[Transform]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise OptionError(f"unknown step {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


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
