"""The link job: structured records and notes about the same people de-identified together
(HIDE's person-centric view), written back into the notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hidekit.jobs.result import JobResult
from hidekit.jobs.secrets import SecretOptions


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
    # TODO(issue 15): link_corpus (linking/pipeline.py) still reads and writes the files; its
    # file handling belongs here once `textpkg` has finished moving linking/.
    from hidekit.linking import link_corpus

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
