"""What every job returns: the files it read and wrote, its figures, and its warnings.

A job is a plain function ``verb(inputs, out, *, options…, progress=None) -> JobResult``: the
command line prints a ``JobResult`` (Rich or ``--json``), the studio shows one, a script reads
one. ``to_dict()`` is the JSON the command prints with ``--json``: the verb's figures (the fields
users already rely on) and beside them ``inputs``, ``outputs`` and ``warnings``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hidekit.io.jsonout import to_json

RESERVED = ("inputs", "outputs", "warnings")


class Progress(Protocol):
    """How a job says it moved on: ``progress(n)`` advances by ``n``; the keywords ``total``
    (the end, once known), ``completed`` and ``description`` restart it for a new phase (the
    command line's progress bar, the studio's, or nothing)."""

    def __call__(self, n: int = 1, **state: Any) -> None: ...


def no_progress(n: int = 1, **state: Any) -> None:
    """The ``progress`` of a job nobody watches."""


def progress_or_quiet(progress: Callable[..., None] | None) -> Callable[..., None]:
    """``progress`` itself, or a callable that does nothing."""
    return progress if progress is not None else no_progress


@dataclass
class JobResult:
    """One run of a job: ``inputs`` and ``outputs`` name files by role (``{"data": "a.csv"}``),
    ``figures`` are the verb's numbers and facts, ``warnings`` what the person should read,
    ``detail`` the library's result object when there is one."""

    verb: str
    # given as paths, text or None; kept as text, None dropped (``__post_init__``)
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # the library's own result object (a ScanResult, a RiskResult…) for printers that show
    # more than the figures; never part of ``to_dict``
    detail: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        clash = [k for k in RESERVED if k in self.figures]
        if clash:
            raise ValueError(f"figures of {self.verb} may not hold {clash}: JobResult has them")
        self.inputs = {k: str(v) for k, v in self.inputs.items() if v is not None}
        self.outputs = {k: str(v) for k, v in self.outputs.items() if v is not None}
        self.warnings = [str(w) for w in self.warnings]

    def __getitem__(self, name: str) -> Any:
        """``result["records"]``: a figure, as the summary dicts jobs used to return."""
        return self.to_dict()[name]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (numbers, strings, lists, dicts; NaN as null): what ``--json``
        prints."""
        whole = {
            **self.figures,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "warnings": self.warnings,
        }
        return json.loads(to_json(whole))
