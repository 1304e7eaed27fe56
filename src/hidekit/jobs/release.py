"""The release job: run a TOML release plan into its output folder (data, crosswalk, audit,
report), or refuse when a direct identifier remains or the risk limit is not met."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.jobs.secrets import SecretOptions
from hidekit.secrets import public_path


def release(
    plan,
    out=None,
    *,
    data=None,
    overwrite: bool | None = None,
    scan: bool = True,
    secrets: SecretOptions | None = None,
    progress: Callable[..., None] | None = None,
    engine: str = "duckdb",
) -> JobResult:
    """Run ``plan`` into ``out`` (default: the plan's [output] folder) on the table ``data``
    (default: the plan's [input] path). ``secrets``: a key
    (``--key-file``/``--key-env``) overrides the plan's [secrets] key; a passphrase encrypts the
    crosswalk when there is no key. ``engine="spark"`` runs the steps on Spark (same release)."""
    from hidekit.release import load_plan, run_plan

    secrets = secrets or SecretOptions()
    key, passphrase = secrets.key(), secrets.passphrase()
    if key is not None and passphrase is not None:
        raise OptionError("give a key or a passphrase for the crosswalk, not both")
    p = load_plan(plan, output=out, key=key)
    if data is not None:
        p.input = Path(data)
    advance = progress_or_quiet(progress)
    advance(0, total=len(p.steps))
    result = run_plan(
        p, overwrite=overwrite, progress=advance, scan=scan, passphrase=passphrase, engine=engine
    )
    warnings = [f"step {s.step}: {w}" for s in result.steps for w in s.warnings]
    warnings += [f"information loss: {w}" for w in result.loss_warnings]
    # a release's JSON names paths as its audit does: relative to the plan, never absolute
    base = p.path.parent
    folder = Path(p.output)
    outputs = {k: folder / v for k, v in result.files.items() if k != "crosswalk"}
    if "crosswalk" in result.files:
        outputs["private"] = p.private_folder()
    return JobResult(
        "release",
        {"plan": Path(plan).name, "data": public_path(p.input, base)},
        {k: public_path(v, base) for k, v in {"folder": folder, **outputs}.items()},
        result.to_dict(),
        warnings,
        detail=result,
    )
