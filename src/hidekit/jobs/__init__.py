"""Jobs: every file-in, file-out verb of hidekit as one plain function of one shape,

    verb(inputs, out, *, options…, progress=None) -> JobResult

the layer that reads and writes the user's files (through ``hidekit.io``). The command line
parses options, calls one job and prints its ``JobResult``; the studio and scripts call the same
functions. Secrets come in one ``SecretOptions``; ``progress(n, total=…)`` reports advance.
``anonymize_optimal`` is imported on first use (it pulls in the optimal search, numba and scipy),
so commands that do not search start faster.
"""

from typing import TYPE_CHECKING, Any

from hidekit.jobs.identifiers import crosswalk, encode, new_key, partition
from hidekit.jobs.link import link
from hidekit.jobs.measure import risk, scan, select
from hidekit.jobs.release import release
from hidekit.jobs.result import JobResult, Progress
from hidekit.jobs.secrets import SecretOptions
from hidekit.jobs.table import (
    anonymize,
    hierarchy,
    suppress,
    suppress_risk,
    transform,
    utility,
)
from hidekit.jobs.text import anonymize as anonymize_text
from hidekit.jobs.text import detect, evaluate, synth, text_risk, train

if TYPE_CHECKING:
    from hidekit.jobs.optimal import anonymize_optimal


def __getattr__(name: str) -> Any:
    if name == "anonymize_optimal":
        from hidekit.jobs.optimal import anonymize_optimal

        return anonymize_optimal
    raise AttributeError(f"module 'hidekit.jobs' has no attribute {name!r}")


__all__ = [
    "JobResult",
    "Progress",
    "SecretOptions",
    "anonymize",
    "anonymize_optimal",
    "anonymize_text",
    "crosswalk",
    "detect",
    "encode",
    "evaluate",
    "hierarchy",
    "link",
    "new_key",
    "partition",
    "release",
    "risk",
    "scan",
    "select",
    "suppress",
    "suppress_risk",
    "synth",
    "text_risk",
    "train",
    "transform",
    "utility",
]
