"""The release job: run a TOML release plan into its output folder (data, crosswalk, audit,
report), or refuse when a direct identifier remains or the risk limit is not met. The plan runs
in memory (``hidekit.release.runner``); the table is read and the folders written here."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hidekit.errors import InputError, OptionError, require_chunk_rows
from hidekit.io import (
    Dataset,
    atomic_dir,
    output_suffix,
    read_table,
    write_table,
    write_text_atomic,
)
from hidekit.io.atomic import check_output_dir
from hidekit.io.readers import detect_format
from hidekit.jobs.files import save_report, write_private_frame
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.jobs.secrets import SecretOptions
from hidekit.release.plan import Plan
from hidekit.release.runner import (
    ReleaseResult,
    apply_plan,
    audit_text,
    crosswalk_secret,
    crosswalk_stems,
    plan_inputs,
    prepare_plan,
    released_name,
)
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
    chunk_rows: int | None = None,
) -> JobResult:
    """Run ``plan`` into ``out`` (default: the plan's [output] folder) on the table ``data``
    (default: the plan's [input] path). ``secrets``: a key
    (``--key-file``/``--key-env``) overrides the plan's [secrets] key; a passphrase encrypts the
    crosswalk when there is no key. ``engine="spark"`` runs the steps on Spark (same release).
    ``chunk_rows``: records per chunk of a CSV released by chunks (any CSV, when given)."""
    from hidekit.release import load_plan

    secrets = secrets or SecretOptions()
    chunk_rows = require_chunk_rows(chunk_rows)
    key, passphrase = secrets.key(), secrets.passphrase()
    if key is not None and passphrase is not None:
        raise OptionError("give a key or a passphrase for the crosswalk, not both")
    p = load_plan(plan, output=out, key=key)
    if data is not None:
        p.input = Path(data)
    advance = progress_or_quiet(progress)
    advance(0, total=len(p.steps))
    result = run_plan(
        p,
        overwrite=overwrite,
        progress=advance,
        scan=scan,
        passphrase=passphrase,
        engine=engine,
        chunk_rows=chunk_rows,
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


def run_plan(
    plan: Plan | str | os.PathLike,
    *,
    output=None,
    overwrite: bool | None = None,
    passphrase: bytes | str | None = None,
    progress: Callable[..., None] | None = None,
    scan: bool = True,
    key: bytes | None = None,
    engine: str = "duckdb",
    chunk_rows: int | None = None,
) -> ReleaseResult:
    """Run ``plan``; write the release when it passes, raise PolicyError when it does not.

    ``key`` overrides the plan's secret key; ``passphrase`` encrypts the crosswalk when the plan
    has no key (else [secrets] passphrase_file / passphrase_env). ``engine="spark"`` runs the
    steps and the risk counts on Spark (``hidekit.release.tables``); the release is the same.
    A CSV, Stata, SPSS or SAS file of ``STREAM_BYTES`` or more, a Parquet file of as many bytes
    or of ``frame_stream.STREAM_ROWS`` records (any of them, given ``chunk_rows``) is released by
    chunks of
    ``chunk_rows`` records (``hidekit.release.stream``) when every step can be: same release."""
    chunk_rows = require_chunk_rows(chunk_rows)
    plan = prepare_plan(plan, output=output, key=key)
    overwrite = plan.overwrite if overwrite is None else overwrite
    check_output_dir(plan.output, overwrite=overwrite, protect=plan_inputs(plan))
    if engine == "duckdb" and _large_csv(plan, chunk_rows):
        from hidekit.release.stream_tables import StreamUnsupported

        try:
            return _run_streamed(plan, overwrite, passphrase, progress, scan, chunk_rows)
        except StreamUnsupported:
            pass  # the plan or the file needs the whole table: in memory, as before
    ds = read_plan_input(plan, engine)
    result, released, crosswalks = apply_plan(plan, ds, progress=progress, scan=scan, engine=engine)
    _write(plan, released, result, crosswalks, overwrite, passphrase)
    result.released = True
    return result


def _large_csv(plan: Plan, chunk_rows: int | None) -> bool:
    """Whether to try the chunked run: asked for (``chunk_rows``), or a large file (a CSV,
    Stata, SPSS or SAS file of ``STREAM_BYTES`` or more; a Parquet file of as many bytes or
    of ``frame_stream.STREAM_ROWS`` records: it is compressed)."""
    from hidekit.jobs.frame_stream import STAT_FORMATS, STREAM_BYTES, many_rows

    path = Path(plan.input)
    if not path.is_file():
        return False
    try:
        fmt = detect_format(path)
    except InputError:
        return False  # read_table words it
    if fmt not in (*STAT_FORMATS, "csv", "parquet"):
        return False
    if chunk_rows is not None or path.stat().st_size >= STREAM_BYTES:
        return True
    return many_rows(path, fmt)


def _run_streamed(
    plan: Plan, overwrite: bool, passphrase, progress, scan: bool, chunk_rows: int | None
) -> ReleaseResult:
    """The plan run by chunks, the output written chunk by chunk into the release folder (a CSV
    or Parquet file; a Stata, SPSS or SAS file is written whole from the released chunks, with
    the input's labels)."""
    from hidekit.jobs.files import seal_crosswalk
    from hidekit.jobs.release_chunks import released_chunks
    from hidekit.release.stream import CHUNK_ROWS, plan_source, stream_plan

    source = plan_source(plan)
    name = Path(plan.input).stem + output_suffix(source.format)
    sealed: list = []

    def seal(crosswalks: list) -> None:  # on a core the other process leaves free
        secret = crosswalk_secret(plan, passphrase)
        sealed[:] = [(step, seal_crosswalk(frame, **secret)) for step, frame in crosswalks]

    with atomic_dir(plan.output, overwrite=overwrite, protect=plan_inputs(plan)) as tmp:
        with released_chunks(tmp / name, source, plan) as (write, split):
            result, crosswalks = stream_plan(
                plan, source, write, chunk_rows=chunk_rows or CHUNK_ROWS, scan=scan,
                progress=progress, split=split, seal=seal,
            )  # fmt: skip
        crosswalks = sealed or crosswalks
        result.files["data"] = name
        _write_rest(plan, tmp, result, crosswalks, overwrite, passphrase)
    result.released = True
    return result


def _write(
    plan: Plan, ds: Dataset, result: ReleaseResult, crosswalks: list, overwrite: bool, passphrase
) -> None:
    """The release folder (data, audit, report) and, with crosswalks, the private folder."""
    name = released_name(plan, ds)
    if crosswalks:
        crosswalk_secret(plan, passphrase)  # no secret: refused before anything is written
    with atomic_dir(plan.output, overwrite=overwrite, protect=plan_inputs(plan)) as tmp:
        write_released(ds, tmp / name, plan)
        result.files["data"] = name
        _write_rest(plan, tmp, result, crosswalks, overwrite, passphrase)


def _write_rest(
    plan: Plan, tmp: Path, result: ReleaseResult, crosswalks: list, overwrite: bool, passphrase
) -> None:
    """Crosswalks (private folder), audit and report, beside the data in the folder ``tmp``."""
    from hidekit.release.report import release_report

    if crosswalks:
        secret = crosswalk_secret(plan, passphrase)
        result.files["crosswalk"] = _write_crosswalks(
            plan, crosswalks, plan.private_folder(), secret, overwrite
        )
    write_text_atomic(tmp / "audit.jsonl", audit_text(plan, result))
    result.files["audit"] = "audit.jsonl"
    save_report(release_report(result), tmp / "report.html")
    result.files["report"] = "report.html"


def read_plan_input(plan: Plan, engine: str) -> Dataset:
    """The plan's input: on Spark, a CSV is read by Spark itself (its records never reach the
    driver; ``hidekit.engines.spark_io``); anything else is read here."""
    path = Path(plan.input)
    if engine == "spark" and path.is_file() and detect_format(path) == "parquet":
        from hidekit.engines.spark_parquet import read_parquet_spark

        read = read_parquet_spark(path)
        if read is not None:
            return _on_engine(*read)
    if engine == "spark" and path.is_file() and detect_format(path) == "csv":
        from hidekit.engines.spark_io import read_csv_spark

        if path.stat().st_size == 0:
            raise InputError(f"{path}: the file is empty")
        return _on_engine(*read_csv_spark(path, sep=plan.sep))
    return read_table(plan.input, sep=plan.sep)


def _on_engine(table, ds: Dataset) -> Dataset:
    from hidekit.release.tables import EngineDataset

    return EngineDataset(**{k: getattr(ds, k) for k in Dataset.__dataclass_fields__}, table=table)


def write_released(ds: Dataset, target: Path, plan: Plan) -> None:
    """The released table at ``target`` (a fresh path in the temporary release folder): written
    by Spark when its records are on Spark, else here."""
    table = getattr(ds, "table", None)
    parquet = target.suffix.lower() in (".parquet", ".pq")
    if table is not None and parquet and _write_parquet_chunks(table, target, plan):
        return
    if table is None or target.suffix.lower() != ".csv":
        if table is not None:  # pragma: no cover - Spark reads only CSV and Parquet for a plan
            ds = ds.with_frame(table.to_pandas())
        write_table(ds, target, protect=(plan.input,), neutralize=plan.neutralize_formulas)
        return
    from hidekit.engines.spark_io import write_csv_spark

    sep = ds.options.get("sep", ",")
    write_csv_spark(table, target, sep, neutralize=plan.neutralize_formulas)


def _write_parquet_chunks(table, target: Path, plan: Plan) -> bool:
    """A Spark table written to Parquet a partition at a time (the bytes of the whole write);
    false when two batches are typed apart (nothing written: the caller writes it whole)."""
    from hidekit.engines.spark_parquet import parquet_tables_spark
    from hidekit.io.parquet_chunks import ChunksTypedApart, chunked_parquet

    try:
        with chunked_parquet(target, protect=(plan.input,)) as out:
            out.write(table.empty_frame())  # the columns, should no batch hold a record
            for batch in parquet_tables_spark(table):
                out.write_arrow(batch)
    except ChunksTypedApart:
        return False
    return True


def _write_crosswalks(
    plan: Plan, crosswalks: list, folder: Path, secret: dict, overwrite: bool
) -> str:
    """Encrypted, owner-only crosswalks in the private folder (never in the shipped one); an
    existing private folder is replaced only with ``overwrite`` (it may hold the only copy)."""
    names = []
    with atomic_dir(folder, overwrite=overwrite, private=True, protect=(plan.input,)) as tmp:
        for stem, (_, frame) in zip(crosswalk_stems(crosswalks), crosswalks, strict=True):
            names.append(write_private_frame(frame, tmp, stem, secret))
    return ", ".join(public_path(folder / n, plan.path.parent) for n in names)
