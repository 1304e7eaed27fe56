"""From the studio's steps to a release plan: presets, TOML export, saving, running.

The plan the studio writes is an ordinary plan file: ``hidekit release`` runs it to the same
output, so nothing done in the studio is locked in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from hidekit import jobs
from hidekit.errors import InputError, OptionError
from hidekit.io import write_bytes_atomic, write_text_atomic
from hidekit.release.plan_toml import plan_toml
from hidekit.release.runner import ReleaseResult
from hidekit.studio.workbench import Workbench

UPLOAD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,120}$")
STEP_CHOICES = (
    "encode",
    "remove",
    "hash",
    "redact",
    "bin",
    "map_values",
    "coarsen_date",
    "topcode",
    "safe_harbor",
    "jitter",
    "suppress",
    "mondrian",
    "optimal",
    "hierarchy",
)


def _list(cols: list[str]) -> str:
    return "[" + ", ".join(f'"{c}"' for c in cols) + "]"


def _numeric(frame: pd.DataFrame, candidates: list[str]) -> list[str]:
    return [c for c in candidates if pd.api.types.is_numeric_dtype(frame[c])]


def presets(bench: Workbench) -> dict[str, str]:
    """A starting point for each step's parameters, from the roles as they stand (TOML lines)."""
    frame = bench.frame
    direct = [c for c in bench.columns_with("direct") if c in frame.columns]
    keys = bench.keys
    others = [c for c in frame.columns if c not in direct]
    num_keys = _numeric(frame, keys)
    num_other = _numeric(frame, [c for c in others if c not in keys])
    k = bench.k_target
    first = lambda cols, fallback: cols[:1] or fallback[:1]  # noqa: E731
    return {
        "encode": f"columns = {_list(direct[:1])}",
        "remove": f"columns = {_list(direct)}",
        "hash": f"columns = {_list(direct[:1])}",
        "redact": f"columns = {_list(direct[:1])}",
        "bin": f"columns = {_list(first(num_keys, keys))}\nwidth = 10",
        "map_values": f'columns = {_list(keys[:1])}\nmapping = {{ "old" = "new" }}',
        "coarsen_date": 'columns = []\nto = "year"',
        "topcode": f"columns = {_list(first(num_other, num_keys))}\ntop_percentile = 99",
        "safe_harbor": f"ages = {_list([c for c in frame.columns if c.lower() == 'age'])}",
        "jitter": 'lat = "latitude"\nlon = "longitude"',
        "suppress": f"keys = {_list(keys)}\nk = {k}",
        "mondrian": f"keys = {_list(keys)}\nk = {k}",
        "optimal": f"keys = {_list(keys)}\nk = {k}\nhierarchies = {{}}",
        "hierarchy": 'column = ""\npath = ""\nlevel = 1',
    }


def plan_name(bench: Workbench) -> str:
    return f"{Path(bench.source).stem}-plan.toml"


def release_folder(bench: Workbench) -> str:
    return f"{Path(bench.source).stem}-release"


def risk_table(bench: Workbench) -> dict:
    """The plan's ``[risk]``: the targets, and the weight and household columns by their role
    (the release then measures Benedetti-Franconi's individual risk, as the page does)."""
    risk: dict = {"k": bench.k_target, "cell_min": bench.cell_min}
    for role, name in (("weight", "weights"), ("household", "household")):
        column = bench.role_column(role)
        if column is not None:
            risk[name] = column
    return risk


def export_toml(bench: Workbench) -> str:
    """The plan as TOML, paths relative to the studio's folder (where it is saved)."""
    flagged = set(bench.scan.names("direct"))
    reviewed = [
        c
        for r in ("other", "key", "weight", "household", "sensitive")
        for c in bench.columns_with(r)
        if c in flagged
    ]
    roles = {
        "direct": bench.columns_with("direct"),
        "keys": bench.columns_with("key"),
        "sensitive": bench.columns_with("sensitive"),
    }
    if reviewed:
        roles["reviewed"] = reviewed
    return plan_toml(
        input_path=bench.source,
        output_folder=release_folder(bench),
        roles=roles,
        risk=risk_table(bench),
        steps=[(s.step.use, s.step.params) for s in bench.steps],
        overwrite=False,
        comment=f"Release plan written by hidekit studio for {bench.source}.\n"
        f"Run: hidekit release {plan_name(bench)}",
    )


def save_plan(state, bench: Workbench) -> Path:
    path = state.folder / plan_name(bench)
    write_text_atomic(path, export_toml(bench), protect=(state.folder / bench.source,))
    return path


def release(
    state,
    bench: Workbench,
    *,
    passphrase: str | None,
    overwrite: bool,
    progress: Callable[..., None] | None = None,
) -> tuple[ReleaseResult, Path]:
    """Save the plan beside the data and run it through the release job, as ``hidekit
    release`` does; the passphrase is handed over in memory (never written, logged or put in a
    URL)."""
    path = save_plan(state, bench)
    if progress is not None:  # the job sets the total once it has read the plan
        progress(0, completed=0, description="release steps")
    secrets = jobs.SecretOptions(
        passphrase_value=passphrase.encode("utf-8") if passphrase else None
    )
    job = jobs.release(path, overwrite=overwrite, secrets=secrets, progress=progress)
    return job.detail, path


def store_upload(state, filename: str, data: bytes) -> Path:
    """An uploaded file saved in the folder under its own (plain) name, owner-only."""
    name = Path(filename.replace("\\", "/")).name
    if not UPLOAD_NAME.match(name):
        raise InputError(f"{filename!r}: use a plain file name (letters, digits, . _ -)")
    if len(data) > state.max_upload:
        raise OptionError("refused: the upload is larger than the studio's limit")
    target = state.path(name)
    if target.exists():
        raise InputError(f"{name}: a file of that name is already in the folder")
    return write_bytes_atomic(target, data, private=True)
