"""Table jobs: one step on a file, local suppression, Mondrian de-identification, the utility
of a release, a generalization hierarchy built from a column."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path

from hidekit.errors import OptionError, require_chunk_rows
from hidekit.jobs.checks import identifiers_left
from hidekit.jobs.files import save_report
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.jobs.secrets import SecretOptions
from hidekit.secrets import INSECURE_NOTE, Randomness
from hidekit.transforms.loss import DEFAULT_MAX_LOSS


def step_inputs(step) -> tuple:
    """Side files a step reads (hierarchy, boundaries, population): never an output."""
    params = step.get_params()
    return tuple(
        params[k] for k in ("path", "boundaries", "population") if isinstance(params.get(k), str)
    )


def _step_columns(step, changed: Mapping[str, int]) -> list[str]:
    columns = step.get_params().get("columns")
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, (list, tuple)):
        return [str(c) for c in columns]
    return list(changed)


def transform(
    data,
    out,
    step,
    *,
    drop_labels: Sequence[str] = (),
    sep: str | None = None,
    neutralize: bool = True,
    protect: Sequence = (),
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """Read ``data``, fit and apply one table ``step`` (a ``Transform``), write ``out`` in the
    format of its suffix with the value labels kept, except those of ``drop_labels`` (columns
    whose values the step replaced: their labels would name what it hides). ``protect``: more
    files no output may be (a key file)."""
    from hidekit.io import write_table
    from hidekit.io.checked import read_for_output
    from hidekit.release import cells_changed
    from hidekit.secrets import public_params

    side = (*step_inputs(step), *protect)
    ds = read_for_output(data, out, sep, protect=side)
    step = step.with_value_labels(ds.value_labels)
    new = step.fit_transform(ds.frame)
    released = ds.with_frame(new)
    released.value_labels = {
        c: v for c, v in released.value_labels.items() if c not in set(drop_labels)
    }
    write_table(released, out, protect=(data, *side), neutralize=neutralize)
    changed = cells_changed(ds.frame, new)
    progress_or_quiet(progress)(1)
    rand = getattr(step, "_random", None)
    loud = [INSECURE_NOTE] if isinstance(rand, Randomness) and rand.insecure_seed else []
    return JobResult(
        step.name,
        {"data": data, **{f"side_{i}": p for i, p in enumerate(step_inputs(step))}},
        {"data": out},
        {
            "input": str(data),
            "data": str(data),
            "output": str(out),
            "out": str(out),
            "records": len(new),
            "step": step.name,
            "columns": _step_columns(step, changed),
            "parameters": public_params(step.get_params(), step),
            "cells_changed": changed,
            "decisions": dict(getattr(step, "decisions_", {})),
        },
        [*getattr(step, "warnings_", []), *loud],
    )


def suppress(
    data,
    out,
    *,
    keys: Sequence[str],
    k: int = 5,
    importance: Sequence[str] | None = None,
    missing: str = "category",
    sep: str | None = None,
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
    max_loss: float = DEFAULT_MAX_LOSS,
    chunk_rows: int | None = None,
) -> JobResult:
    """Local suppression of ``data`` to k-anonymity on ``keys``, as few cells as possible,
    written to ``out``; counts per variable and the share of cells lost (a warning above
    ``max_loss``). A CSV, Parquet, Stata, SPSS or SAS file of 64 MB or more (any, given
    ``chunk_rows``) released to a CSV or Parquet file is suppressed by chunks
    (``hidekit.jobs.anonymize_stream``): the same file and figures."""
    from hidekit.io import write_table
    from hidekit.io.checked import read_for_output
    from hidekit.transforms.loss import require_max_loss
    from hidekit.transforms.suppression import local_suppression

    chunk_rows = require_chunk_rows(chunk_rows)
    done = None
    if isinstance(data, (str, PathLike)):
        done = _suppress_by_chunks(
            data, out, list(keys), k, importance or None, missing, require_max_loss(max_loss),
            sep, neutralize, chunk_rows,
        )  # fmt: skip
    if done is None:
        ds = read_for_output(data, out, sep)
        res = local_suppression(
            ds.frame, list(keys), k, importance or None, missing=missing, max_loss=max_loss
        )
        write_table(ds.with_frame(res.frame), out, protect=(data,), neutralize=neutralize)
        done = res, len(res.frame)
    res, n = done
    progress_or_quiet(progress)(1)
    figures = {"input": str(data), "output": str(out), "records": n, **res.to_dict()}
    return JobResult("suppress", {"data": data}, {"data": out}, figures)


def _suppress_by_chunks(data, out, keys, k, importance, missing, max_loss, sep, neutralize, rows):
    """(result, records) of local suppression by chunks, or None when it runs in memory."""
    from hidekit.io.atomic import check_output_file
    from hidekit.jobs.anonymize_stream import chunked_source, suppress_by_chunks
    from hidekit.release.stream_tables import StreamUnsupported

    target = check_output_file(out, (data,))
    source = chunked_source(data, target, sep=sep, chunk_rows=rows, columns=keys)
    if source is None:
        return None
    try:
        return suppress_by_chunks(
            source, target, keys=keys, k=k, importance=importance, missing=missing,
            max_loss=max_loss, neutralize=neutralize, chunk_rows=rows, protect=(data,),
        )  # fmt: skip
    except StreamUnsupported:
        return None


def suppress_risk(
    data,
    out,
    *,
    keys: Sequence[str],
    threshold: float = 0.15,
    columns: Sequence[str] | None = None,
    weights: str | None = None,
    missing: str = "category",
    sep: str | None = None,
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """sdcMicro's ``localSupp``: blank ``columns`` (in order; default the first key) of the
    records whose individual risk on ``keys`` is above ``threshold``, written to ``out``."""
    from hidekit.risk.suppression import RiskSuppression

    step = RiskSuppression(
        list(keys), columns=columns, threshold=threshold, weights=weights, missing=missing
    )
    result = transform(data, out, step, sep=sep, neutralize=neutralize, progress=progress)
    result.figures.update(
        {
            "risk_threshold": threshold,
            "weights": weights,
            "missing": missing,
            "suppressed": dict(step.suppressed_),
            "total_suppressed": int(sum(step.suppressed_.values())),
            "above_threshold_before": step.above_before_,
            "above_threshold_after": step.above_after_,
        }
    )
    return result


def anonymize(
    data,
    out,
    *,
    keys: Sequence[str],
    k: int,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    l_kind: str = "distinct",
    c: float | None = None,
    mode: str = "statistical",
    identifiers: Sequence[str] = (),
    hierarchies: Mapping[str, str] | None = None,
    order: Mapping[str, list[str]] | None = None,
    shuffle: bool = True,
    secrets: SecretOptions | None = None,
    engine: str = "duckdb",
    sep: str | None = None,
    neutralize: bool = True,
    progress: Callable[..., None] | None = None,
    report=None,
    max_loss: float = DEFAULT_MAX_LOSS,
    chunk_rows: int | None = None,
) -> JobResult:
    """HIDE's full, partial or statistical de-identification of ``data`` by Mondrian (k, and
    l-diversity of ``sensitive``), written to ``out``. The row shuffle is keyed by
    ``secrets`` (else fresh). The information lost per variable is stated beside the risk
    (a warning above ``max_loss``), and in the HTML ``report`` when asked.

    A CSV, Parquet, Stata, SPSS or SAS file of 64 MB or more (any, given ``chunk_rows``)
    released to a CSV or Parquet file is released by chunks (``jobs.anonymize_stream``): the
    same release, in memory bounded by the distinct key combinations."""
    from hidekit.engines import check_engine
    from hidekit.io.atomic import check_output_file

    secrets = secrets or SecretOptions()
    check_engine(engine)
    chunk_rows = require_chunk_rows(chunk_rows)
    target = check_output_file(out, (data,))
    if report is not None:
        report = check_output_file(report, (data, target))
    advance, done = progress_or_quiet(progress), [0]

    def on_level(finished: int) -> None:
        advance(finished - done[0])
        done[0] = finished

    options = {
        "l": l,
        "sensitive": sensitive,
        "l_kind": l_kind,
        "c": c,
        "hierarchies": dict(hierarchies) if hierarchies else None,
        "order": dict(order) if order else None,
        "mode": mode,
        "max_loss": max_loss,
    }
    run = (data, target, list(keys), int(k), options, list(identifiers), shuffle, secrets)
    result, released = None, None
    if engine == "duckdb":
        result, released = _anonymize_by_chunks(
            run, sep, neutralize, chunk_rows, on_level, lambda n: advance(0, total=n)
        )
    if result is None:
        result, released = _anonymize_in_memory(
            run, engine, sep, neutralize, on_level, lambda n: advance(0, total=n)
        )
    if report is not None:
        _mondrian_report(result, data, report)
    return JobResult(
        "anonymize",
        {"data": data},
        {"data": target, "report": report},
        {
            **result.to_dict(),
            "output": str(target),
            "report": str(report) if report is not None else None,
        },
        [*secrets.insecure_warnings(), *identifiers_left(released, keys)],
    )


def _mondrian_report(result, data, report) -> None:
    from hidekit.anonymize.mondrian_report import mondrian_report

    title = f"Mondrian de-identification of {Path(data).name}"
    save_report(mondrian_report(result, title), report, protect=(data,))


def _anonymize_by_chunks(run: tuple, sep, neutralize: bool, chunk_rows, on_level, on_total):
    """(result, the released rows the PII scan reads) by chunks, or (None, None) when the file
    or the request needs the in-memory run."""
    from hidekit.jobs.anonymize_stream import anonymize_by_chunks, chunked_source
    from hidekit.release.stream_tables import StreamUnsupported

    data, target, keys, k, options, identifiers, shuffle, secrets = run
    named = [*keys, *identifiers, *([options["sensitive"]] if options["sensitive"] else [])]
    if options["sensitive"] in identifiers:
        return None, None  # the in-memory run says what is wrong
    source = chunked_source(data, target, sep=sep, chunk_rows=chunk_rows, columns=named)
    if source is None:
        return None, None
    try:
        done = anonymize_by_chunks(
            source,
            target,
            keys=keys,
            k=k,
            mondrian_options=options,
            rand=secrets.randomness("row shuffle"),
            shuffle=shuffle,
            identifiers=identifiers,
            neutralize=neutralize,
            chunk_rows=chunk_rows,
            protect=(data,),
            on_level=on_level,
            on_total=on_total,
        )
    except StreamUnsupported:
        return None, None
    return done.result, done.sample


def _anonymize_in_memory(run: tuple, engine: str, sep, neutralize: bool, on_level, on_total):
    """(result, released table): the table read whole, Mondrian in memory (or on Spark)."""
    from hidekit.anonymize import mondrian
    from hidekit.io import read_table

    data, target, keys, k, options, identifiers, shuffle, secrets = run
    ds = read_table(data, sep=sep)
    on_total(len(ds.frame))
    result = mondrian(
        ds,
        keys,
        k,
        identifiers=identifiers,
        key=secrets.randomness("row shuffle"),
        shuffle=shuffle,
        engine=engine,
        on_level=on_level,
        **options,
    )
    _write_anonymized(ds, result, keys, data, target, neutralize)
    return result, result.released


def _write_anonymized(ds, result, keys, data, target: Path, neutralize: bool) -> None:
    """The released table (value labels of the generalized keys dropped: their codes no longer
    mean what the labels say)."""
    from hidekit.io import write_table

    released = replace(
        ds.with_frame(result.released),
        value_labels={c_: v for c_, v in ds.value_labels.items() if c_ not in keys},
    )
    write_table(released, target, protect=(data,), neutralize=neutralize)


def utility(
    original,
    released,
    *,
    keys: Sequence[str],
    k: int | None = None,
    hierarchies: Mapping[str, str] | None = None,
    queries: int = 10_000,
    query_kind: str = "range",
    attribute: str | None = None,
    curve_k: Sequence[int] = (2, 5, 10, 25, 50),
    seed: int = 0,
    sep: str | None = None,
    report=None,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """What a release still tells (query precision, discernibility, C_avg, NCP), and with a
    ``report`` HIDE's precision-against-k figure for ``attribute``."""
    from hidekit.anonymize.utility import precision_curve, utility_report
    from hidekit.anonymize.utility import utility as measure_utility
    from hidekit.io import read_table
    from hidekit.io.atomic import check_output_file

    keys = list(keys)
    if report:
        check_output_file(report, (original, released))
    orig = read_table(original, sep=sep).frame
    rel = read_table(released, sep=sep).frame
    hier = dict(hierarchies) if hierarchies else None
    result = measure_utility(
        orig, rel, keys, k=k, hierarchies=hier, n_queries=queries, seed=seed, kind=query_kind
    )
    curve = None
    if report:
        attr = attribute or next((c for c in keys if orig[c].dtype.kind in "iuf"), keys[0])
        rows = precision_curve(
            orig,
            keys,
            attr,
            list(curve_k),
            n_queries=queries,
            seed=seed,
            kind=query_kind,
            hierarchies=hier,
        )
        curve = {"attribute": attr, "rows": rows}
        title = f"Utility of {Path(released).name}"
        save_report(
            utility_report(result, curve, title=title), report, protect=(original, released)
        )
    return JobResult(
        "utility",
        {"original": original, "released": released},
        {"report": report},
        {**result, "curve": curve},
    )


def hierarchy(
    data,
    out,
    *,
    column: str,
    intervals: float | None = None,
    levels: int = 3,
    factor: int = 2,
    dates: Sequence[str] | None = None,
    mask: bool = False,
    keep: int = 0,
    order: Sequence[str] | None = None,
    fan: int = 2,
    sep: str | None = None,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """A generalization hierarchy for one column of ``data`` in ARX's format: numeric
    ``intervals``, ``dates`` levels, ``mask``-ed codes, or ``order``-ed categories."""
    from hidekit.io import hierarchy_builders as hb
    from hidekit.io import read_table
    from hidekit.io.atomic import check_output_file

    chosen = [o for o in (intervals, dates, mask or None, order) if o is not None]
    if len(chosen) != 1:
        raise OptionError("give exactly one of --intervals, --dates, --mask, --order")
    out_file = check_output_file(out, (data,))
    frame = read_table(data, sep=sep).frame
    if column not in frame.columns:
        raise OptionError(f"column not in the data: {column!r}")
    values = frame[column]
    if intervals is not None:
        built = hb.intervals(values, intervals, levels=levels, factor=factor)
    elif dates is not None:
        built = hb.dates(values, list(dates))
    elif mask:
        built = hb.masking(values, keep_min=keep)
    else:
        built = hb.ordered_groups(list(order or ()), fan=fan, values=values)
    built.write(out_file)
    return JobResult(
        "hierarchy",
        {"data": data},
        {"hierarchy": out_file},
        {
            "column": column,
            "output": str(out_file),
            "values": len(built.rows),
            "levels": built.depth,
        },
    )
