"""Direct-identifier jobs: encode columns under an encrypted crosswalk, partition a table into
original / de-identified / link files, read a crosswalk back, make a key file. The steps
themselves (``Encode``, ``Partition``) take and return frames; the files are handled here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.jobs.result import JobResult
from hidekit.jobs.secrets import SecretOptions
from hidekit.transforms.identifiers import Encode, _as_list
from hidekit.transforms.partition import (
    PartitionResult,
    partition_names,
    require_partition_secret,
)
from hidekit.transforms.partition import partition as partition_frame


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
    from hidekit.jobs.files import read_crosswalk

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
    from hidekit.jobs.files import new_key_file

    new_key_file(out)
    return JobResult("new-key", {}, {"key_file": out}, {"key_file": str(out)})


def write_partition(
    parts: PartitionResult,
    folder,
    *,
    like=None,
    stem: str = "data",
    suffix: str = ".csv",
    overwrite: bool = False,
    link_secret: dict | None = None,
    protect: tuple = (),
    neutralize: bool = True,
) -> dict[str, Path]:
    """Write the three files into a new folder, all or nothing.

    The original and the link file hold identifiers: they are written encrypted under
    ``link_secret`` (``passphrase=`` or ``key_file=``; ``.hkcw``, owner-only, read back with
    ``hidekit crosswalk``), and only the de-identified file is readable without it. Without a
    secret nothing is written (``require_partition_secret``): a plain copy of the identified
    data is the very file the partition exists to keep apart. ``like`` (a Dataset) passes its
    variable and value labels on to the de-identified file.
    """
    from hidekit.io import Dataset, atomic_dir, write_table
    from hidekit.jobs.files import write_crosswalk
    from hidekit.transforms.crosswalk import CROSSWALK_SUFFIX

    secret = require_partition_secret(link_secret)
    base = like if isinstance(like, Dataset) else Dataset(parts.original)
    names = partition_names(stem, suffix)
    names["original"] = f"{stem}_original{CROSSWALK_SUFFIX}"
    names["link"] = f"{stem}_link{CROSSWALK_SUFFIX}"

    def labelled(frame):
        ds = base.with_frame(frame)
        ds.variable_labels = {**ds.variable_labels, parts.id_column: "Unique observation ID"}
        return ds

    with atomic_dir(folder, overwrite=overwrite, protect=protect) as tmp:
        write_table(
            labelled(parts.deidentified), tmp / names["deidentified"], neutralize=neutralize
        )
        write_crosswalk(parts.original, tmp / names["original"], **secret)
        write_crosswalk(parts.link, tmp / names["link"], **secret)
    return {k: Path(folder) / v for k, v in names.items()}


def _without_value_labels(ds, frame, columns):
    """Value labels of a replaced column would name the very values it hides: drop them."""
    out = ds.with_frame(frame)
    out.value_labels = {k: v for k, v in out.value_labels.items() if k not in set(columns)}
    return out


def encode_file(
    data,
    out,
    *,
    crosswalk,
    columns=(),
    hierarchy=(),
    passphrase=None,
    key_file=None,
    width=None,
    seed=None,
    sep=None,
    neutralize: bool = True,
    protect: tuple = (),
    insecure_seed: bool = False,
) -> dict:
    """Encode columns of a file; reuse and update the encrypted crosswalk at ``crosswalk``.

    One transaction under an OS lock on the crosswalk (``hidekit.io.locking``): read the prior
    crosswalk, encode, encrypt the new crosswalk and write the data into temporary files, then
    move both into place, crosswalk first. A run that fails writes nothing; two runs on one
    crosswalk take turns, so neither loses the other's codes nor hands out a code twice. Should
    the process die between the two moves, the crosswalk holds codes the data file does not yet
    show: harmless, a re-run reuses them (the other order would leave released codes nobody can
    map back). ``protect`` names further files no output may be (a passphrase file).

    ``key_file`` (a path, or the key's bytes) encrypts the crosswalk and keys the draw of new
    codes; with a passphrase the codes come fresh from the OS (the crosswalk keeps them).
    """
    from hidekit.io.atomic import write_files_together
    from hidekit.io.checked import read_for_output
    from hidekit.io.locking import file_lock
    from hidekit.io.writers import table_writer
    from hidekit.jobs.files import read_crosswalk
    from hidekit.transforms.crosswalk import encrypt_frame

    if (passphrase is None) == (key_file is None):
        raise OptionError("give exactly one of a passphrase or a key file for the crosswalk")
    protect = (_path_only(key_file), *protect)
    ds = read_for_output(data, out, sep, (crosswalk,), protect)
    secret = {"passphrase": passphrase, "key_file": key_file}
    with file_lock(crosswalk):
        prior = read_crosswalk(crosswalk, **secret) if Path(crosswalk).exists() else None
        step = Encode(
            columns,
            width=width,
            seed=seed,
            hierarchy=hierarchy,
            crosswalk=prior,
            insecure_seed=insecure_seed,
            key=None if seed is not None or key_file is None else _key_of(key_file),
        ).fit(ds.frame)
        frame = step.transform(ds.frame)
        encoded = list(step.columns) + list(step.hierarchy)
        blob = encrypt_frame(step.crosswalk_, **secret)
        write_data = table_writer(
            _without_value_labels(ds, frame, encoded), out, neutralize=neutralize
        )
        write_files_together(
            [(crosswalk, lambda tmp: tmp.write_bytes(blob), True), (out, write_data, False)],
            protect=(ds.path, *protect),
        )
    cw = step.crosswalk_
    return {
        "data": str(data),
        "out": str(out),
        "crosswalk": str(crosswalk),
        "randomness": step._random.describe(),
        "records": len(frame),
        "reused": 0 if prior is None else len(prior),
        "new": len(cw) - (0 if prior is None else len(prior)),
        "codes": {c: int((cw["column"] == c).sum()) for c in encoded},
        "width": {
            c: int(cw.loc[cw["column"] == c, "code"].str.len().max())
            if (cw["column"] == c).any()
            else 0
            for c in encoded
        },
    }


def _path_only(key_file):
    """A key file's path to protect from being overwritten (None when the key came as bytes)."""
    return None if isinstance(key_file, (bytes, bytearray)) else key_file


def _key_of(key_file) -> bytes:
    """A key's bytes: given as bytes already, or read from a key file (checked for length)."""
    from hidekit.secrets import check_key, load_key

    if isinstance(key_file, (bytes, bytearray)):
        return check_key(bytes(key_file))
    key = load_key(key_file)
    if key is None:  # no file given (callers pass one)
        raise OptionError("a key file is needed")
    return key


def partition_file(
    data,
    out_dir,
    *,
    identifiers,
    id_column: str = "hk_id",
    seed=None,
    width=None,
    passphrase=None,
    key_file=None,
    overwrite: bool = False,
    sep=None,
    neutralize: bool = True,
    protect: tuple = (),
    insecure_seed: bool = False,
) -> dict:
    """The guide's three files in ``out_dir``: original, de-identified, link. The original and
    the link are written encrypted under ``key_file`` (a path or the key's bytes; it also keys
    the draw of the IDs) or ``passphrase``; without either, nothing is read or written."""
    from hidekit.io.atomic import check_output_dir
    from hidekit.io.checked import read_for_output
    from hidekit.io.writers import output_suffix

    if passphrase is not None and key_file is not None:
        raise OptionError("give only one of a passphrase or a key file")
    secret = require_partition_secret(
        {"passphrase": passphrase} if passphrase is not None else {"key_file": key_file}
    )
    protect = (data, _path_only(key_file), *protect)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    ds = read_for_output(data, None, sep)
    parts = partition_frame(
        ds.frame,
        identifiers,
        id_column=id_column,
        seed=seed,
        width=width,
        insecure_seed=insecure_seed,
        key=None if seed is not None or key_file is None else _key_of(key_file),
    )
    stem = Path(ds.path).stem if ds.path else "data"
    paths = write_partition(
        parts,
        out_dir,
        like=ds,
        stem=stem,
        suffix=output_suffix(ds.format),
        overwrite=overwrite,
        link_secret=secret,
        protect=protect,
        neutralize=neutralize,
    )
    return {
        "data": str(data),
        "out_dir": str(out_dir),
        "records": len(parts.original),
        "observations": len(parts.link),
        "id_column": id_column,
        "identifiers": list(_as_list(identifiers)),
        "files": {k: str(v) for k, v in paths.items()},
    }
