"""Direct-identifier jobs: encode columns under an encrypted crosswalk, partition a table into
original / de-identified / link files, read a crosswalk back, make a key file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hidekit.jobs.result import JobResult
from hidekit.jobs.secrets import SecretOptions


def encode(
    data,
    out,
    *,
    crosswalk,
    columns: Sequence[str] = (),
    hierarchy: Sequence[str] = (),
    width: int | None = None,
    secrets: SecretOptions | None = None,
    sep: str | None = None,
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """Replace values of ``columns`` (or the nested units of ``hierarchy``) by random
    fixed-width codes; the crosswalk is reused if it exists, updated and kept encrypted under
    the key or passphrase of ``secrets``."""
    # TODO(issue 15): encode_file still lives in transforms/identifiers.py (kept there while
    # `trust` and `textpkg` edit that module); its file handling belongs here.
    from hidekit.transforms.identifiers import encode_file

    secrets = secrets or SecretOptions()
    secret = secrets.crosswalk(confirm=not Path(crosswalk).exists())
    summary = encode_file(
        data,
        out,
        crosswalk=crosswalk,
        columns=list(columns),
        hierarchy=list(hierarchy),
        width=width,
        seed=secrets.seed,
        insecure_seed=secrets.insecure_seed,
        sep=sep,
        neutralize=neutralize,
        protect=secrets.files(),
        **secret,
    )
    return JobResult(
        "encode",
        {"data": data},
        {"data": out, "crosswalk": crosswalk},
        summary,
        secrets.insecure_warnings(),
    )


def partition(
    data,
    out,
    *,
    identifiers: Sequence[str],
    id_column: str = "hk_id",
    secrets: SecretOptions | None = None,
    overwrite: bool = False,
    sep: str | None = None,
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """J-PAL's three files in the new folder ``out``: original, de-identified, link. The
    original and the link are written encrypted under the key or passphrase of ``secrets``;
    without one, nothing is written (one-line error)."""
    # TODO(issue 15): partition_file still lives in transforms/identifiers.py (see encode).
    from hidekit.transforms.identifiers import partition_file

    secrets = secrets or SecretOptions()
    secret = secrets.crosswalk(confirm=True, required=True)
    summary = partition_file(
        data,
        out,
        identifiers=list(identifiers),
        id_column=id_column,
        seed=secrets.seed,
        insecure_seed=secrets.insecure_seed,
        overwrite=overwrite,
        sep=sep,
        neutralize=neutralize,
        protect=secrets.files(),
        **secret,
    )
    return JobResult(
        "partition",
        {"data": data},
        summary["files"],
        summary,
        secrets.insecure_warnings(),
    )


def crosswalk(
    path, export=None, *, secrets: SecretOptions | None = None, progress=None
) -> JobResult:
    """Decrypt the crosswalk at ``path``; with ``export``, write it there (owner-only)."""
    from hidekit.io import write_table
    from hidekit.transforms.crosswalk import read_crosswalk

    secrets = secrets or SecretOptions()
    frame = read_crosswalk(path, **secrets.crosswalk())
    if export:
        write_table(frame, export, private=True, protect=(path, *secrets.files()))
    return JobResult(
        "crosswalk",
        {"crosswalk": path},
        {"export": export},
        {
            "crosswalk": str(path),
            "rows": len(frame),
            "columns": list(frame.columns),
            "data": frame.to_dict(orient="records"),
        },
        detail=frame,
    )


def new_key(out, *, progress: Callable[..., None] | None = None) -> JobResult:
    """A new key file of 32 random bytes (owner-only); never overwrites."""
    from hidekit.transforms.crosswalk import new_key_file

    new_key_file(out)
    return JobResult("new-key", {}, {"key_file": out}, {"key_file": str(out)})
