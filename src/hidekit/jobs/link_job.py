"""The link job: structured records and notes about the same people de-identified together
(HIDE's person-centric view), written back into the notes. The library links and releases in
memory (``hidekit.linking``); the files are read and written here.

Output folder, built atomically (nothing is left behind on error)::

    table.csv            released table: person, keys (generalized), sensitive, kept columns
    notes/               released notes, brat (.txt + .ann), named person-00001-note-01 …
    audit.jsonl          one line per replaced span (offsets, label, replacement; no original)
    summary.json         parameters and figures
    report.html          offline report, with HIDE's Figure 3 when asked

and, beside it (never inside: it must not be shipped), the private folder ``OUT.private/``
(owner-only): view (the identifier view), crosswalk (person → patient key), link-report (keys
and note ids of problems) and mapping (surrogates). With a secret (key or passphrase) they are
encrypted ``.hkcw`` files (read with ``hidekit crosswalk``); without, owner-only CSV/JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from hidekit.errors import OptionError
from hidekit.io import atomic_dir, read_table, write_table, write_text_atomic
from hidekit.io.jsonout import to_json
from hidekit.jobs.corpus import write_brat_dir
from hidekit.jobs.files import save_report, write_private_frame
from hidekit.jobs.result import JobResult
from hidekit.jobs.secrets import SecretOptions
from hidekit.linking.link import Linked
from hidekit.linking.link import link as link_records
from hidekit.linking.release import LinkedRelease, release


def link(
    records,
    notes,
    out,
    *,
    key: str,
    keys: Sequence[str],
    k: int = 5,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    mode: str = "statistical",
    note_pattern: str | None = None,
    key_from_text: bool = False,
    columns: Mapping[str, str] | None = None,
    model: str | None = None,
    spans=None,
    operator: str = "tag",
    keep: Sequence[str] = (),
    strict: bool = False,
    curve_ks: Sequence[int] = (),
    secrets: SecretOptions | None = None,
    overwrite: bool = False,
    sep: str | None = None,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """Link ``records`` (a table; ``key`` its patient column) and ``notes`` (a folder of .txt or
    a JSONL file), anonymize the view on ``keys``, write table, notes, audit and report into
    ``out``; private files (encrypted under ``secrets``) go to the private folder. The key of
    ``secrets`` also orders pseudonyms and draws surrogates (else fresh; a seed is insecure)."""
    secrets = secrets or SecretOptions()
    secret = secrets.crosswalk(confirm=True, required=False)
    res = link_corpus(
        records,
        notes,
        out,
        key=key,
        keys=list(keys),
        k=k,
        l=l,
        sensitive=sensitive,
        mode=mode,
        note_pattern=note_pattern,
        key_from_text=key_from_text,
        columns=dict(columns or {}),
        model=model,
        spans=spans,
        operator=operator,
        keep=list(keep),
        strict=strict,
        curve_ks=list(curve_ks),
        seed=secrets.seed,
        insecure_seed=secrets.insecure_seed,
        secret_key=None if secrets.seed is not None else secret.get("key_file"),
        secret=secret,
        private=secrets.private,
        overwrite=overwrite,
        sep=sep,
        progress=progress,
    )
    return JobResult(
        "link",
        {"records": records, "notes": notes, "spans": spans},
        res["files"],
        res,
        [*secrets.insecure_warnings(), *res["link"]["problems"]],
    )


def read_notes(
    notes, model: str | None = None, spans=None, n_jobs: int = 2, progress: Callable | None = None
) -> list:
    """Notes with their PHI spans: found by ``model`` or read from ``spans`` (brat or JSONL)."""
    from hidekit.text.corpus import read_corpus, read_documents
    from hidekit.text.detection.detector import find_phi

    if model is not None and spans is not None:
        raise OptionError("give --model (detect PHI) or --spans (use annotations), not both")
    docs, _ = read_documents(notes, annotations=True)
    return find_phi(
        docs,
        None if spans is not None else (model or "en"),
        None if spans is None else read_corpus(spans),
        n_jobs=n_jobs,
        progress=progress,
    )


def save_release(
    out,
    linked: Linked,
    rel: LinkedRelease,
    curve: dict | None = None,
    overwrite: bool = False,
    protect: Sequence = (),
    private=None,
    secret: dict | None = None,
) -> dict:
    """Write the release folder and its private folder (see the module docstring); returns the
    paths written. ``secret`` (``{"passphrase": …}`` or ``{"key_file": …}``) encrypts the
    private files."""
    from hidekit.linking.report import link_report
    from hidekit.transforms.private import private_dir_for

    out = Path(out)
    folder = private_dir_for(out, private)
    with atomic_dir(out, overwrite=overwrite, protect=tuple(protect)) as tmp:
        write_table(rel.table, tmp / "table.csv")
        write_brat_dir(rel.documents, tmp / "notes")
        write_text_atomic(
            tmp / "audit.jsonl",
            "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in rel.replacements),
        )
        summary = {**rel.summary(), "link": linked.report.counts()}
        if curve:
            summary["figure3"] = curve
        write_text_atomic(tmp / "summary.json", to_json(summary) + "\n")
        save_report(link_report(linked.report, rel, curve), tmp / "report.html")
        with atomic_dir(folder, overwrite=overwrite, private=True, protect=protect) as ptmp:
            _save_private(ptmp, linked, rel, secret)
    return {
        "table": str(out / "table.csv"),
        "notes": str(out / "notes"),
        "audit": str(out / "audit.jsonl"),
        "report": str(out / "report.html"),
        "private": str(folder),
    }


def _save_private(folder: Path, linked: Linked, rel: LinkedRelease, secret: dict | None) -> None:
    """The private files into ``folder``: encrypted under ``secret``, else owner-only."""
    view = linked.view.copy()
    for col in [c for c in view.columns if c.endswith("_mentions")]:
        view[col] = view[col].map(lambda v: json.dumps([str(x) for x in v]))
    report_json = to_json(linked.report.to_dict()) + "\n"
    if secret:
        write_private_frame(view, folder, "view", secret)
        write_private_frame(rel.crosswalk, folder, "crosswalk", secret)
        write_private_frame(pd.DataFrame({"json": [report_json]}), folder, "link-report", secret)
        if rel.mapping:
            from hidekit.text.anonymization.operators import mapping_frame

            write_private_frame(mapping_frame(rel.mapping), folder, "mapping", secret)
    else:
        write_table(view, folder / "view.csv", private=True)
        write_table(rel.crosswalk, folder / "crosswalk.csv", private=True)
        write_text_atomic(folder / "link-report.json", report_json, private=True)
        if rel.mapping:
            write_text_atomic(folder / "mapping.json", to_json(rel.mapping) + "\n", private=True)


def link_corpus(
    records,
    notes,
    out,
    *,
    key: str,
    keys: Sequence[str],
    k: int,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    mode: str = "statistical",
    note_pattern: str | None = None,
    key_from_text: bool = False,
    columns: Mapping[str, str] | None = None,
    model: str | None = None,
    spans=None,
    operator: str = "tag",
    keep: Sequence[str] = (),
    strict: bool = False,
    curve_ks: Sequence[int] | None = None,
    curve_attribute: str = "age",
    seed: int | None = None,
    overwrite: bool = False,
    sep: str | None = None,
    progress: Callable | None = None,
    insecure_seed: bool = False,
    secret_key=None,
    secret: dict | None = None,
    private=None,
) -> dict:
    """Link, anonymize, write back and save; a JSON-ready summary (problems included).

    ``records`` is a table file or a DataFrame. ``secret_key`` (secret bytes) keys the pseudonym
    order and surrogates (else fresh randomness; ``seed`` needs ``insecure_seed``); ``secret``
    encrypts the private files; ``private`` is their folder (default ``OUT.private`` beside
    ``out``)."""
    from hidekit.io.atomic import check_output_dir

    protect = [notes, spans] + ([records] if not isinstance(records, pd.DataFrame) else [])
    if model is not None and Path(model).exists():
        protect.append(model)
    check_output_dir(out, overwrite=overwrite, protect=protect)
    frame = records if isinstance(records, pd.DataFrame) else read_table(records, sep=sep).frame
    docs = read_notes(notes, model, spans, progress=progress)
    linked = link_records(
        frame,
        docs,
        key,
        note_pattern=note_pattern,
        key_from_text=key_from_text,
        columns=columns,
        strict=strict,
    )
    rel = release(
        linked,
        keys,
        k,
        l=l,
        sensitive=sensitive,
        mode=mode,
        operator=operator,
        keep=keep,
        seed=seed,
        insecure_seed=insecure_seed,
        key=secret_key,
    )
    curve = _figure3(linked, curve_ks, curve_attribute)
    files = save_release(
        out, linked, rel, curve, overwrite, protect=protect, private=private, secret=secret
    )
    return {
        **rel.summary(),
        "link": linked.report.to_dict(),
        "files": files,
        **({"figure3": curve} if curve else {}),
    }


def _figure3(linked: Linked, curve_ks: Sequence[int] | None, attribute: str) -> dict | None:
    """HIDE's Figure 3 on ``attribute`` when ``curve_ks`` are asked (query sampling, not
    masking: a plain seed is fine there)."""
    if not curve_ks:
        return None
    from hidekit.linking.experiment import hide_figure3

    column = linked.columns.get(attribute, attribute)
    return hide_figure3(linked, column, ks=curve_ks)
