"""``hidekit text synth`` (synthetic annotated notes) and ``hidekit text anonymize`` (redact, tag
or replace PHI by surrogates, with an audit trail)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, print_renamed, progress_bar, show
from hidekit.cli.options import AllowOpt, DenyOpt, JsonOpt, ProfileOpt
from hidekit.cli.secret_options import secret_options
from hidekit.jobs import SecretOptions


@handle_errors
def synth(
    n: int = typer.Option(100, "--n", min=1, max=1_000_000, help="Number of notes."),
    seed: int = typer.Option(
        0, "--seed", min=0, help="Random seed: the same seed gives the same corpus."
    ),
    out_path: Path = typer.Option(
        ..., "--out", help="Output folder (or a .jsonl file with --format jsonl)."
    ),
    fmt: str = typer.Option("brat", "--format", help="brat (.txt + .ann per note) or jsonl."),
    notes_per_patient: int = typer.Option(
        1,
        "--notes-per-patient",
        min=1,
        help="Consecutive notes about the same invented patient.",
    ),
    patients: Path = typer.Option(
        None,
        "--patients",
        help="Write the notes about the rows of this table (e.g. the demo survey).",
    ),
    locale: str = typer.Option("en_US", "--locale", help="Faker locale for names and addresses."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output."),
    json: bool = JsonOpt,
):
    """Write synthetic clinical notes with annotated PHI (training and test data)."""
    result = jobs.synth(
        out_path,
        n=n,
        seed=seed,
        fmt=fmt,
        notes_per_patient=notes_per_patient,
        patients=patients,
        locale=locale,
        overwrite=overwrite,
    )
    show(result, json, _print_synth)


def _print_synth(result: jobs.JobResult) -> None:
    summary = result.figures
    out.print(
        f"{summary['documents']:,} notes, {summary['patients']:,} patients, "
        f"{summary['spans']:,} PHI spans -> {summary['out']}"
    )
    out.print(", ".join(f"{k} {v:,}" for k, v in summary["by_label"].items()))


@handle_errors
@secret_options("key", "passphrase", "private", "seed", "refuse_value")
def anonymize(
    source: Path = typer.Argument(..., help="A folder of .txt files (brat) or a JSONL file."),
    out_dir: Path = typer.Option(..., "--out", help="Output folder (must not exist or be empty)."),
    operator: str = typer.Option("tag", "--operator", help="redact, tag or surrogate."),
    model: str = typer.Option(
        None, "--model", help="Detect PHI with this model: en, es or a model file."
    ),
    spans: Path = typer.Option(
        None,
        "--spans",
        help="Use these annotations instead (brat folder or JSONL; may be SOURCE).",
    ),
    fmt: str = typer.Option(None, "--format", help="Output brat or jsonl (default: as the input)."),
    patient_pattern: str = typer.Option(
        None,
        "--patient-pattern",
        help="Regex on document ids whose first group names the patient (surrogates stay "
        "consistent across a patient's notes), e.g. '^note-(.+)-\\d+$'.",
    ),
    propagate: bool = typer.Option(
        False, "--propagate", help="Also replace other occurrences of found names and numbers."
    ),
    allow: Path = AllowOpt,
    deny: Path = DenyOpt,
    profile: str = ProfileOpt,
    no_safelist: bool = typer.Option(
        False,
        "--no-safelist",
        help="Replace every span, even clinical terms (AFib, E. coli, BP 120/80).",
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output folder."),
    engine: str = typer.Option(
        "local",
        "--engine",
        help="local, or spark: notes from JSONL or Parquet over Spark, texts and audit as Parquet.",
    ),
    json: bool = JsonOpt,
    secrets: SecretOptions = SecretOptions(),  # filled by @secret_options
):
    """Redact, tag or replace PHI by consistent surrogates; writes an audit JSONL.

    Surrogates come from --key-file (reproducible by the key's holder only), else fresh from
    the OS. Their mapping is written encrypted into the private folder, never into --out."""
    total = None
    if model is not None:
        total = sum(1 for _ in source.glob("*.txt")) if source.is_dir() else None
    detecting = model is not None and engine == "local"
    with progress_bar("detecting PHI", total, enabled=detecting) as advance:
        result = jobs.anonymize_text(
            source,
            out_dir,
            operator=operator,
            model=model,
            spans=spans,
            fmt=fmt,
            patient_pattern=patient_pattern,
            propagate=propagate,
            allow=allow,
            deny=deny,
            safelist=not no_safelist,
            profile=profile,
            secrets=secrets,
            overwrite=overwrite,
            progress=advance,
            engine=engine,
        )
    show(result, json, lambda r: _print_anonymized(r, out_dir))


def _print_anonymized(result: jobs.JobResult, out_dir: Path) -> None:
    summary = result.figures
    out.print(
        f"{summary['replaced']:,} spans replaced ({summary['operator']}) in "
        f"{summary['documents']:,} documents -> {out_dir}"
    )
    out.print(", ".join(f"{k} {v:,}" for k, v in summary["by_label"].items()))
    print_renamed(summary["renamed_ids"])
    if summary["kept_by_safelist"]:
        reasons = ", ".join(f"{k} {v:,}" for k, v in summary["kept_by_reason"].items())
        out.print(
            f"{summary['kept_by_safelist']:,} detected spans kept as written by the clinical "
            f"safe-list ({reasons})"
        )
    for k, v in summary["files"].items():
        out.print(f"{k}: {v}")
    if "mapping_key" in summary["files"]:
        out.print(
            "the mapping is encrypted under a new key written beside it: move "
            f"{summary['files']['mapping_key']} somewhere safe, apart from the data"
        )


COMMANDS = {
    "synth": synth,
    "anonymize": anonymize,
}
