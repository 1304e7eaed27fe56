"""``hidekit link``: records and notes de-identified together (HIDE's person-centric view)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, progress_bar, show, split_list
from hidekit.cli.options import JsonOpt, SepOpt
from hidekit.cli.secret_options import secret_options
from hidekit.errors import OptionError
from hidekit.jobs import SecretOptions


def _pairs(value: str | None) -> dict[str, str]:
    pairs = {}
    for item in split_list(value):
        name, eq, col = item.partition("=")
        if not eq or not name.strip() or not col.strip():
            raise OptionError(f"--map takes attribute=column pairs, got {item!r}")
        pairs[name.strip()] = col.strip()
    return pairs


@handle_errors
@secret_options("key", "passphrase", "private", "seed")
def link_cmd(
    records: Path = typer.Argument(..., help="Structured records (CSV, Parquet, Stata, …)."),
    notes: Path = typer.Argument(..., help="Notes: a folder of .txt files or a JSONL file."),
    key: str = typer.Option(..., "--key", help="Record column holding the patient key."),
    note_pattern: str = typer.Option(
        None,
        "--note-pattern",
        help="Regex on note file names naming the patient, e.g. '(?P<patient>\\d+)_.*\\.txt'.",
    ),
    key_from_text: bool = typer.Option(
        False, "--key-from-text", help="Link by the record number found in the text."
    ),
    keys: str = typer.Option(
        ...,
        "--keys",
        "-k",
        help="Keys of the view: record columns and/or attributes "
        "found in notes (age, date, zip, city, state, hospital).",
    ),
    k: int = typer.Option(5, "--k", min=1, help="Smallest class size (statistical mode)."),
    l: int = typer.Option(None, "--l", min=1, help="Distinct l-diversity of --sensitive."),  # noqa: E741
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive record column."),
    mode: str = typer.Option("statistical", "--mode", help="statistical, partial or full."),
    model: str = typer.Option(
        None,
        "--model",
        help="Detect PHI with en, es or a model file (default en unless --spans).",
    ),
    spans: Path = typer.Option(None, "--spans", help="Use these annotations (brat or JSONL)."),
    operator: str = typer.Option(
        "tag", "--operator", help="Direct identifiers: redact, tag or surrogate."
    ),
    keep: str = typer.Option(None, "--keep", help="Other record columns to release as is."),
    map_: str = typer.Option(None, "--map", help="attribute=column, e.g. date=visit_date."),
    strict: bool = typer.Option(False, "--strict", help="Linking problems are errors."),
    curve: str = typer.Option(
        None, "--figure3", help="Also draw HIDE's Figure 3 for these k, e.g. 2,5,10,20,50."
    ),
    out_dir: Path = typer.Option(..., "--out", help="Output folder (must not exist or be empty)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output."),
    sep: str = SepOpt,
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Link records and notes per person, anonymize the view, write it back into the notes."""
    key_list = split_list(keys, required="--keys")
    try:
        ks = [int(x) for x in split_list(curve)]
    except ValueError:
        raise OptionError(f"--figure3 takes whole numbers, got {curve!r}") from None
    total = sum(1 for _ in notes.glob("*.txt")) if notes.is_dir() else None
    with progress_bar("detecting PHI", total, enabled=spans is None) as advance:
        result = jobs.link(
            records,
            notes,
            out_dir,
            key=key,
            keys=key_list,
            k=k,
            l=l,
            sensitive=sensitive,
            mode=mode,
            note_pattern=note_pattern,
            key_from_text=key_from_text,
            columns=_pairs(map_),
            model=model,
            spans=spans,
            operator=operator,
            keep=split_list(keep),
            strict=strict,
            curve_ks=ks,
            secrets=secrets,
            overwrite=overwrite,
            sep=sep,
            progress=advance,
        )
    show(result, json, lambda r: _print_linked(r, mode, out_dir))


def _print_linked(result: jobs.JobResult, mode: str, out_dir: Path) -> None:
    res = result.figures
    s = res["stats"]
    out.print(
        f"{res['persons']:,} persons, {res['documents']:,} notes ({mode}); "
        f"smallest class {s.get('k')}, {s.get('classes')} classes -> {out_dir}"
    )
    out.print(", ".join(f"{a} {n:,}" for a, n in res["actions"].items()))
    for name, path in res["files"].items():
        out.print(f"{name}: {path}")


COMMANDS = {
    "link": link_cmd,
}
