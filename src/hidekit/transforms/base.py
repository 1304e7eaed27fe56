"""One shape for every table transform: configure in ``__init__``, learn in ``fit``, apply in
``transform`` (scikit-learn's convention). Parameters are explicit constructor arguments; what
``fit`` learns is stored in attributes ending with ``_``; ``transform`` never changes ``self``.
Transforms never reorder or drop records unless that is their stated job.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from hidekit.errors import OptionError
from hidekit.registry import TRANSFORMS as REGISTRY

register = REGISTRY.register  # class decorator: @register("name"); release plans use these names
get_transform = REGISTRY.lookup
# Parameters that name the columns a step treats (``handled_columns``).
COLUMN_PARAMS = ("columns", "column", "keys", "lat", "lon", "ages", "dates", "zips", "identifiers")


def _keeping_arguments(init):
    """Wrap a subclass ``__init__`` so the instance remembers its constructor arguments
    (``set_params`` re-runs the constructor's checks with them, secrets included)."""

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if "_arguments" not in self.__dict__:  # the outermost __init__ of a subclass chain
            try:
                bound = inspect.signature(init).bind(self, *args, **kwargs)
            except TypeError:  # the constructor itself says what is wrong, as it always did
                return init(self, *args, **kwargs)
            self._arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
        init(self, *args, **kwargs)

    return wrapper


def _checking_params(fit):
    """Wrap a subclass ``fit`` so parameters changed by ``set_params`` are checked first."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        self.check_params()
        return fit(self, *args, **kwargs)

    return wrapper


class Transform(ABC):
    name: ClassVar[str] = "transform"
    _arguments: dict[str, Any]  # the constructor's arguments (``_keeping_arguments``)
    # One line per constructor parameter: docs/plan-steps.md is generated from these
    # (``hidekit plan-steps``), and a test checks every parameter has one.
    param_docs: ClassVar[dict[str, str]] = {}
    # How the step's output depends on the data, which tells the Spark engine how to run the
    # step's own code (``hidekit.engines.spark_steps``): ``values`` (a record's output depends
    # only on its values in ``reads``; fitting only on how often each combination occurs),
    # ``rows`` (nothing learned from the data; record by record) or ``table`` (the whole table in
    # record order, the safe default: run on the driver over the columns it reads).
    spark_scope: ClassVar[str] = "table"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _keeping_arguments(cls.__dict__["__init__"])
        if "fit" in cls.__dict__:
            cls.fit = _checking_params(cls.__dict__["fit"])

    def fit(self, frame: pd.DataFrame) -> Transform:
        """Learn what the transform needs from ``frame`` (default: nothing)."""
        self.check_params()
        return self

    @abstractmethod
    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Return a new frame; the input is left untouched."""

    def handled_columns(self) -> list[str]:
        """Columns this step treats, whatever its parameters are called (a release plan counts a
        direct identifier as handled when an identifier step treats it)."""
        out: list[str] = []
        params = self.get_params()
        for key in COLUMN_PARAMS:
            v = params.get(key)
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out.extend(str(x) for x in v)
        return out

    def reads(self, columns: Sequence[str]) -> list[str]:
        """Columns of ``columns`` (in that order) that the step's parameters name: all it reads."""
        named: set[str] = set()
        for value in self.get_params().values():
            values = value if isinstance(value, (list, tuple)) else [value]
            named.update(v for v in values if isinstance(v, str))
        return [c for c in columns if c in named]

    def fit_counts(self, frame: pd.DataFrame, counts: np.ndarray) -> Transform:
        """Fit on distinct rows ``frame`` where row i stands for ``counts[i]`` records: the same
        fit as on the full table, for steps whose ``fit`` reads only the columns they name (so
        an engine's cell counts are enough). This default repeats the rows; a step whose
        statistics take weights directly overrides it."""
        return self.fit(frame.loc[frame.index.repeat(counts)].reset_index(drop=True))

    def with_value_labels(self, labels: Mapping[str, Mapping]) -> Transform:
        """This step configured with the file's value labels (column -> {code: label}) where it
        reads them; the default step does not, and is returned as is."""
        return self

    def fit_transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.fit(frame).transform(frame)

    def get_params(self) -> dict:
        """The public constructor parameters (secrets such as keys are kept out)."""
        sig = inspect.signature(type(self).__init__)
        return {p: getattr(self, p) for p in sig.parameters if p != "self" and hasattr(self, p)}

    def set_params(self, **params) -> Transform:
        """Change parameters (scikit-learn's convention); their values are checked by ``fit``
        (``check_params``), so a bad one is a one-line ``OptionError`` there."""
        known = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise OptionError(
                f"{self.name}: unknown parameter(s) {', '.join(unknown)} "
                f"(known: {', '.join(known)})"
            )
        self.__dict__.setdefault("_arguments", self.get_params())
        self._arguments = {**self._arguments, **params}
        for key, value in params.items():
            if hasattr(self, key):
                setattr(self, key, value)
        self._params_changed = True
        return self

    def check_params(self) -> None:
        """Re-run the constructor's checks on parameters changed by ``set_params``."""
        if self.__dict__.pop("_params_changed", False):
            fresh = type(self)(**self._arguments)
            self.__dict__.clear()
            self.__dict__.update(fresh.__dict__)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
