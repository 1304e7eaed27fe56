"""Jobs: every file-in, file-out verb of hidekit as one plain function of one shape,

    verb(inputs, out, *, options…, progress=None) -> JobResult

the layer that reads and writes the user's files (through ``hidekit.io``). The command line
parses options, calls one job and prints its ``JobResult``; the studio and scripts call the same
functions. Secrets come in one ``SecretOptions``; ``progress(n, total=…)`` reports advance.
Every job is imported on first use (PEP 562), so a command loads only the job it runs: ``risk``
does not pull in the text models, the optimal search, numba or scipy.
"""

from typing import TYPE_CHECKING, Any

from hidekit._lazy import load_export

if TYPE_CHECKING:
    from hidekit.jobs.identifiers import crosswalk, encode, new_key, partition
    from hidekit.jobs.link_job import link
    from hidekit.jobs.measure import risk, scan, select
    from hidekit.jobs.optimal import anonymize_optimal
    from hidekit.jobs.release_job import release
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

# public name -> (module, attribute)
_WHERE: dict[str, tuple[str, str]] = {
    **{n: ("identifiers", n) for n in ("crosswalk", "encode", "new_key", "partition")},
    "link": ("link_job", "link"),
    **{n: ("measure", n) for n in ("risk", "scan", "select")},
    "anonymize_optimal": ("optimal", "anonymize_optimal"),
    "release": ("release_job", "release"),
    "JobResult": ("result", "JobResult"),
    "Progress": ("result", "Progress"),
    "SecretOptions": ("secrets", "SecretOptions"),
    **{
        n: ("table", n)
        for n in ("anonymize", "hierarchy", "suppress", "suppress_risk", "transform", "utility")
    },
    "anonymize_text": ("text", "anonymize"),
    **{n: ("text", n) for n in ("detect", "evaluate", "synth", "text_risk", "train")},
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'hidekit.jobs' has no attribute {name!r}")
    return load_export(globals(), name, f"hidekit.jobs.{where[0]}", where[1])


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
