"""``hidekit text detect | train | evaluate``: find PHI in free text, train a model, score
predictions. Each command calls one job of ``hidekit.jobs.text``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit import jobs
from hidekit.cli.common import handle_errors, out, print_renamed, progress_bar, show, styled
from hidekit.cli.options import AllowOpt, DenyOpt, JsonOpt, ProfileOpt


def _table(title: str, per_type: dict, micro: dict | None = None) -> Table:
    t = Table(title=title)
    for col in ("type", "gold", "precision", "recall", "F1"):
        t.add_column(col, justify="left" if col == "type" else "right")
    for name, v in per_type.items():
        t.add_row(
            name,
            f"{v['tp'] + v['fn']:,}",
            f"{v['precision']:.3f}",
            f"{v['recall']:.3f}",
            f"{v['f1']:.3f}",
        )
    if micro:
        t.add_row(
            styled("bold", "micro"),
            f"{micro['tp'] + micro['fn']:,}",
            f"{micro['precision']:.3f}",
            f"{micro['recall']:.3f}",
            f"{micro['f1']:.3f}",
        )
    return t


def _print_scores(result: jobs.JobResult) -> None:
    scores = result.figures
    for level in ("strict", "relaxed", "token"):
        s = scores[level]
        out.print(_table(f"{level} (macro F1 {s['macro_f1']:.3f})", s["per_type"], s["micro"]))
    phi = scores["token"]["phi"]
    out.print(
        f"token level, any PHI label: precision {phi['precision']:.3f}, recall {phi['recall']:.3f}, "
        f"F1 {phi['f1']:.3f}"
    )


def _print_detected(result: jobs.JobResult) -> None:
    from hidekit.text.detection.windows import WINDOW_CHARS

    s = result.figures
    out.print(f"{s['documents']:,} documents, {s['spans']:,} spans -> {s['out']}")
    print_renamed(s["renamed_ids"])
    if s["long_documents"]:
        out.print(
            f"{s['long_documents']:,} long document(s) read in {s['windows']:,} "
            f"bounded windows (over {WINDOW_CHARS:,} characters; see docs/text-detection.md)"
        )
    for label, n in s["per_label"].items():
        out.print(f"  {label}: {n:,}")


@handle_errors
def detect(
    source: Path = typer.Argument(
        ..., help="Folder of .txt files, a JSONL file, or a table (with --column)."
    ),
    model: str = typer.Option(
        "en", "--model", "-m", help="en, es (shipped) or the path of a model file."
    ),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Output folder."),
    fmt: str = typer.Option("brat", "--format", help="brat (.txt + .ann per document) or jsonl."),
    column: str = typer.Option(None, "--column", help="Text column of a table file."),
    allow: Path = AllowOpt,
    deny: Path = DenyOpt,
    profile: str = ProfileOpt,
    n_jobs: int = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Worker processes (default: one per idle core, one for small inputs).",
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace an output folder hidekit wrote before."
    ),
    engine: str = typer.Option(
        "local",
        "--engine",
        help="local (worker processes) or spark (notes from JSONL or Parquet, spans to Parquet).",
    ),
    json: bool = JsonOpt,
):
    """Find PHI with a CRF model and recognizers; write brat .ann files with exact offsets."""
    with progress_bar("detecting", None, enabled=not json) as advance:
        result = jobs.detect(
            source,
            out_dir,
            model=model,
            fmt=fmt,
            column=column,
            allow=allow,
            deny=deny,
            profile=profile,
            n_jobs=n_jobs,
            overwrite=overwrite,
            progress=advance,
            engine=engine,
        )
    show(result, json, _print_detected)


@handle_errors
def train(
    data: Path = typer.Option(..., "--data", help="Annotated corpus: brat folder or JSONL file."),
    fmt: str = typer.Option(None, "--format", help="brat or jsonl (default: by what --data is)."),
    out_model: Path = typer.Option(..., "--out", "-o", help="Model file to write."),
    language: str = typer.Option(
        None, "--language", help="en or es: which recognizers feed the CRF (default: all)."
    ),
    folds: int = typer.Option(10, "--folds", min=0, help="k-fold cross-validation (0: none)."),
    max_iterations: int = typer.Option(100, "--max-iterations", min=1, help="L-BFGS iterations."),
    c1: float = typer.Option(0.05, "--c1", min=0.0, help="L1 regularization (prunes features)."),
    c2: float = typer.Option(0.01, "--c2", min=0.0, help="L2 regularization."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the fold split."),
    n_jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Folds trained in parallel."),
    private_features: str = typer.Option(
        None,
        "--private-features",
        help="drop: keep words seen fewer than --private-min-count times out of the model "
        "(a model names its training words; it is written owner-only either way).",
    ),
    private_min_count: int = typer.Option(
        5,
        "--private-min-count",
        min=1,
        help="With --private-features drop: how often a word must occur to be kept.",
    ),
    json: bool = JsonOpt,
):
    """Train a CRF on annotated text; report k-fold cross-validation per type (HIDE Table 2)."""
    with progress_bar("training", None, enabled=not json) as advance:
        result = jobs.train(
            data,
            out_model,
            fmt=fmt,
            language=language,
            folds=folds,
            seed=seed,
            n_jobs=n_jobs,
            max_iterations=max_iterations,
            c1=c1,
            c2=c2,
            private_features=private_features,
            private_min_count=private_min_count,
            progress=advance,
        )
    show(result, json, _print_trained)


def _print_trained(result: jobs.JobResult) -> None:
    r = result.figures
    if "cv" in r:
        cv, folds = r["cv"], r["cv"].get("folds", "k")
        out.print(
            _table(
                f"{folds}-fold cross-validation, strict (macro F1 {cv['strict']['macro_f1']:.3f})",
                cv["strict"]["per_type"],
                cv["strict"]["micro"],
            )
        )
        out.print(_table("per tag (HIDE Table 2)", cv["bio"]))
        acc = cv["token_accuracy"]
        out.print(
            f"overall token accuracy: {acc['accuracy']:.3f} ({acc['correct']:,} / {acc['tokens']:,})"
        )
    out.print(
        f"model: {r['model']} ({r['documents']:,} documents, labels: {', '.join(r['labels'])})"
    )
    dropped = r["private_features"] == "drop"
    out.print(
        "the model is owner-only: its features name words of the training notes"
        + (
            f" (words seen fewer than {r['private_min_count']} times left out)"
            if dropped
            else "; --private-features drop leaves rare words (most names) out"
        )
    )


@handle_errors
def evaluate(
    gold: Path = typer.Option(..., "--gold", help="Gold annotations: brat folder or JSONL."),
    pred: Path = typer.Option(..., "--pred", help="Predictions: brat folder or JSONL."),
    profile: str = ProfileOpt,
    json: bool = JsonOpt,
):
    """Precision, recall, F1 per type and overall: strict, relaxed and token level; micro and macro.

    With --profile, gold and predictions both keep only what the profile counts as PHI. The
    output says which profile the gold follows (what it annotates)."""
    show(jobs.evaluate(gold, pred, profile=profile), json, _print_evaluation)


def _print_evaluation(result: jobs.JobResult) -> None:
    g, profile = result.figures["gold_profile"], result.figures["profile"]
    annotated = ", ".join(k.replace("_", " ") for k, v in g["annotates"].items() if v)
    out.print(
        f"gold follows profile {g['closest']} (annotates: {annotated or 'none of the optional kinds'})"
        + (f"; scored under profile {profile}" if profile else "")
    )
    _print_scores(result)


COMMANDS = {"detect": detect, "train": train, "evaluate": evaluate}
