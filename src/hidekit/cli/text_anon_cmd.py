"""``hidekit text synth`` (synthetic annotated notes) and ``hidekit text anonymize`` (redact, tag
or replace PHI by surrogates, with an audit trail)."""

from __future__ import annotations

from pathlib import Path

import typer

from hidekit.cli.common import handle_errors, out, print_json, print_renamed, progress_bar
from hidekit.cli.options import AllowOpt, DenyOpt, JsonOpt, ProfileOpt
from hidekit.cli.secret_options import (
    InsecureSeedOpt,
    KeyEnvOpt,
    KeyFileOpt,
    PassEnvOpt,
    PassFileOpt,
    PassphraseValueOpt,
    PrivateOpt,
    SeedOpt,
    crosswalk_secret,
    refuse_passphrase_value,
    warn_if_insecure,
)
from hidekit.text.operators import CLINICAL, anonymize_corpus
from hidekit.text.synth import write_synthetic_corpus
from hidekit.text.termlists import read_terms


def register(app: typer.Typer) -> None:
    @app.command("synth")
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
        locale: str = typer.Option(
            "en_US", "--locale", help="Faker locale for names and addresses."
        ),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output."),
        json: bool = JsonOpt,
    ):
        """Write synthetic clinical notes with annotated PHI (training and test data)."""
        summary = write_synthetic_corpus(
            n, seed, out_path, fmt, notes_per_patient, patients, locale, overwrite
        )
        if json:
            print_json(summary)
            return
        out.print(
            f"{summary['documents']:,} notes, {summary['patients']:,} patients, "
            f"{summary['spans']:,} PHI spans -> {summary['out']}"
        )
        out.print(", ".join(f"{k} {v:,}" for k, v in summary["by_label"].items()))

    @app.command("anonymize")
    @handle_errors
    def anonymize(
        source: Path = typer.Argument(..., help="A folder of .txt files (brat) or a JSONL file."),
        out_dir: Path = typer.Option(
            ..., "--out", help="Output folder (must not exist or be empty)."
        ),
        operator: str = typer.Option("tag", "--operator", help="redact, tag or surrogate."),
        model: str = typer.Option(
            None, "--model", help="Detect PHI with this model: en, es or a model file."
        ),
        spans: Path = typer.Option(
            None,
            "--spans",
            help="Use these annotations instead (brat folder or JSONL; may be SOURCE).",
        ),
        key_file: Path = KeyFileOpt,
        key_env: str = KeyEnvOpt,
        passphrase_file: Path = PassFileOpt,
        passphrase_env: str = PassEnvOpt,
        private: Path = PrivateOpt,
        seed: int = SeedOpt,
        insecure_seed: bool = InsecureSeedOpt,
        fmt: str = typer.Option(
            None, "--format", help="Output brat or jsonl (default: as the input)."
        ),
        patient_pattern: str = typer.Option(
            None,
            "--patient-pattern",
            help="Regex on document ids whose first group names the patient (surrogates stay "
            "consistent across a patient's notes), e.g. '^note-(.+)-\\d+$'.",
        ),
        propagate: bool = typer.Option(
            False, "--propagate", help="Also replace other occurrences of found names and numbers."
        ),
        passphrase: str = PassphraseValueOpt,
        allow: Path = AllowOpt,
        deny: Path = DenyOpt,
        profile: str = ProfileOpt,
        no_safelist: bool = typer.Option(
            False,
            "--no-safelist",
            help="Replace every span, even clinical terms (AFib, E. coli, BP 120/80).",
        ),
        overwrite: bool = typer.Option(
            False, "--overwrite", help="Replace an existing output folder."
        ),
        json: bool = JsonOpt,
    ):
        """Redact, tag or replace PHI by consistent surrogates; writes an audit JSONL.

        Surrogates come from --key-file (reproducible by the key's holder only), else fresh from
        the OS. Their mapping is written encrypted into the private folder, never into --out."""
        refuse_passphrase_value(passphrase)
        secret = crosswalk_secret(
            passphrase_file, passphrase_env, key_file, key_env, confirm=True, required=False
        )
        allow_terms, deny_terms = read_terms(allow), read_terms(deny, labelled=True)
        total = None
        if model is not None:
            total = sum(1 for _ in source.glob("*.txt")) if source.is_dir() else None
        with progress_bar("detecting PHI", total, enabled=model is not None) as advance:
            summary = anonymize_corpus(
                source,
                out_dir,
                operator,
                model,
                spans,
                seed,
                fmt,
                patient_pattern,
                propagate,
                secret.get("passphrase"),
                secret.get("key_file"),
                overwrite,
                progress=advance,
                allow=allow_terms,
                deny=deny_terms,
                safelist=None if no_safelist else CLINICAL,
                insecure_seed=insecure_seed,
                private=private,
                profile=profile,
            )
        warn_if_insecure(seed is not None and operator == "surrogate")
        if json:
            print_json(summary)
            return
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
