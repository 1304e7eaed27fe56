"""``hidekit text detect | train | evaluate``: find PHI in free text, train a model, score predictions."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from hidekit.cli.common import handle_errors, out, print_json, print_renamed, progress_bar, styled
from hidekit.cli.options import AllowOpt, DenyOpt, JsonOpt, ProfileOpt
from hidekit.errors import OptionError
from hidekit.text.corpus import (
    brat_names,
    read_documents,
    write_brat_dir,
    write_jsonl,
)
from hidekit.text.termlists import read_terms

FORMATS = ("brat", "jsonl")


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise OptionError(f"--format must be brat or jsonl, got {fmt!r}")
    return fmt


def detect_corpus(
    source,
    model: str,
    out_dir,
    fmt: str = "brat",
    column: str | None = None,
    allow=None,
    deny=None,
    n_jobs: int = 2,
    progress=None,
    overwrite: bool = False,
    protect: tuple = (),
    profile: str | None = None,
) -> dict:
    """Python API of ``hidekit text detect``: detect, write brat .ann files (or a JSONL) into a
    new folder built atomically, summarize. ``protect`` adds side files (allow/deny lists) that
    the output must not touch; ``profile`` (hipaa, i2b2, strict) what counts as PHI."""
    from collections import Counter

    from hidekit.io.atomic import OWNER_ONLY, atomic_dir, check_output_dir
    from hidekit.text.detector import load_model

    _check_format(fmt)
    out_dir = Path(out_dir)
    model_path = Path(model) if Path(model).exists() else None
    protect = (Path(source), model_path, *protect)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    docs, _ = read_documents(Path(source), column)
    det = load_model(model, allow=allow, deny=deny, profile=profile)
    found = det.detect_documents(docs, n_jobs=n_jobs, progress=progress)
    renamed: list = []
    # note copies and predictions hold the PHI itself: owner-only folder and files
    with atomic_dir(out_dir, overwrite=overwrite, protect=protect, private=True) as tmp:
        if fmt == "brat":
            write_brat_dir(found, tmp, write_text=True)
            _, renamed = brat_names(found)
            where = out_dir
        else:
            write_jsonl(found, tmp / "predictions.jsonl")
            where = out_dir / "predictions.jsonl"
        for f in tmp.rglob("*"):
            if f.is_file():
                f.chmod(OWNER_ONLY)
    counts = Counter(s.label for d in found for s in d.spans)
    windowed = [len(det.windows(d.text)) for d in found]
    return {
        "documents": len(found),
        "characters": sum(len(d.text) for d in found),
        "long_documents": sum(w > 1 for w in windowed),  # read in bounded windows
        "windows": sum(w for w in windowed if w > 1),
        "spans": sum(counts.values()),
        "per_label": dict(sorted(counts.items())),
        "model": str(model),
        "profile": profile,
        "format": fmt,
        "out": str(where),
        "renamed_ids": renamed,
    }


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


def _print_scores(scores: dict) -> None:
    for level in ("strict", "relaxed", "token"):
        s = scores[level]
        out.print(_table(f"{level} (macro F1 {s['macro_f1']:.3f})", s["per_type"], s["micro"]))
    phi = scores["token"]["phi"]
    out.print(
        f"token level, any PHI label: precision {phi['precision']:.3f}, recall {phi['recall']:.3f}, "
        f"F1 {phi['f1']:.3f}"
    )


def register(app: typer.Typer) -> None:
    @app.command("detect")
    @handle_errors
    def detect(
        source: Path = typer.Argument(
            ..., help="Folder of .txt files, a JSONL file, or a table (with --column)."
        ),
        model: str = typer.Option(
            "en", "--model", "-m", help="en, es (shipped) or the path of a model file."
        ),
        out_dir: Path = typer.Option(..., "--out", "-o", help="Output folder."),
        fmt: str = typer.Option(
            "brat", "--format", help="brat (.txt + .ann per document) or jsonl."
        ),
        column: str = typer.Option(None, "--column", help="Text column of a table file."),
        allow: Path = AllowOpt,
        deny: Path = DenyOpt,
        profile: str = ProfileOpt,
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Worker processes."),
        overwrite: bool = typer.Option(
            False, "--overwrite", help="Replace an output folder hidekit wrote before."
        ),
        json: bool = JsonOpt,
    ):
        """Find PHI with a CRF model and recognizers; write brat .ann files with exact offsets."""
        with progress_bar("detecting", None, enabled=not json) as advance:
            summary = detect_corpus(
                source,
                model,
                out_dir,
                fmt,
                column,
                read_terms(allow),
                read_terms(deny, labelled=True),
                jobs,
                advance,
                overwrite=overwrite,
                protect=(allow, deny),
                profile=profile,
            )
        if json:
            print_json(summary)
            return
        out.print(
            f"{summary['documents']:,} documents, {summary['spans']:,} spans -> {summary['out']}"
        )
        print_renamed(summary["renamed_ids"])
        if summary["long_documents"]:
            from hidekit.text.windows import WINDOW_CHARS

            out.print(
                f"{summary['long_documents']:,} long document(s) read in {summary['windows']:,} "
                f"bounded windows (over {WINDOW_CHARS:,} characters; see docs/text-detection.md)"
            )
        for label, n in summary["per_label"].items():
            out.print(f"  {label}: {n:,}")

    @app.command("train")
    @handle_errors
    def train(
        data: Path = typer.Option(
            ..., "--data", help="Annotated corpus: brat folder or JSONL file."
        ),
        fmt: str = typer.Option(
            None, "--format", help="brat or jsonl (default: by what --data is)."
        ),
        out_model: Path = typer.Option(..., "--out", "-o", help="Model file to write."),
        language: str = typer.Option(
            None, "--language", help="en or es: which recognizers feed the CRF (default: all)."
        ),
        folds: int = typer.Option(10, "--folds", min=0, help="k-fold cross-validation (0: none)."),
        max_iterations: int = typer.Option(
            100, "--max-iterations", min=1, help="L-BFGS iterations."
        ),
        c1: float = typer.Option(
            0.05, "--c1", min=0.0, help="L1 regularization (prunes features)."
        ),
        c2: float = typer.Option(0.01, "--c2", min=0.0, help="L2 regularization."),
        seed: int = typer.Option(0, "--seed", min=0, help="Seed of the fold split."),
        jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Folds trained in parallel."),
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
        result = train_corpus(
            data,
            out_model,
            fmt,
            language,
            folds,
            seed,
            jobs,
            not json,
            max_iterations=max_iterations,
            c1=c1,
            c2=c2,
            private_features=private_features,
            private_min_count=private_min_count,
        )
        if json:
            print_json(result)
            return
        if "cv" in result:
            cv = result["cv"]
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
            f"model: {result['model']} ({result['documents']:,} documents, labels: "
            f"{', '.join(result['labels'])})"
        )
        out.print(
            "the model is owner-only: its features name words of the training notes"
            + (
                f" (words seen fewer than {private_min_count} times left out)"
                if private_features == "drop"
                else "; --private-features drop leaves rare words (most names) out"
            )
        )

    @app.command("evaluate")
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
        scores = evaluate_corpus(gold, pred, profile)
        if json:
            print_json(scores)
            return
        g = scores["gold_profile"]
        annotated = ", ".join(k.replace("_", " ") for k, v in g["annotates"].items() if v)
        out.print(
            f"gold follows profile {g['closest']} (annotates: {annotated or 'none of the optional kinds'})"
            + (f"; scored under profile {profile}" if profile else "")
        )
        _print_scores(scores)


def evaluate_corpus(gold, pred, profile: str | None = None) -> dict:
    """Python API of ``hidekit text evaluate``: scores (``evaluate_spans``) plus ``profile`` and
    ``gold_profile`` (which profile the gold follows: ``hidekit.text.profiles.gold_profile``)."""
    from hidekit.text.corpus import read_corpus, read_predictions
    from hidekit.text.profiles import get_profile, gold_profile, restrict_documents
    from hidekit.text.span_metrics import evaluate_spans

    get_profile(profile)  # an unknown name fails before anything is read
    gold_docs = read_corpus(gold)
    pred_docs = read_predictions(pred, gold_docs)
    follows = gold_profile(gold_docs)
    if profile is not None:
        gold_docs = restrict_documents(gold_docs, profile)
        pred_docs = restrict_documents(pred_docs, profile)
    scores = evaluate_spans(gold_docs, pred_docs)
    return {**scores, "profile": profile, "gold_profile": follows}


def train_corpus(
    data,
    out_model,
    fmt=None,
    language=None,
    folds: int = 10,
    seed: int = 0,
    n_jobs: int = 2,
    show_progress: bool = False,
    **params,
) -> dict:
    """Python API of ``hidekit text train``: optional k-fold CV, then a model on all the data."""
    from hidekit.text.corpus import read_corpus
    from hidekit.text.training import cross_validate, train_model

    if fmt is not None:
        _check_format(fmt)
    if language not in (None, "en", "es"):
        raise OptionError(f"--language must be en or es, got {language!r}")
    from hidekit.io.atomic import check_output_file

    out_model = check_output_file(out_model, protect=(data,))
    docs = read_corpus(data, fmt)
    result: dict = {}
    if folds:
        with progress_bar("cross-validation folds", folds, enabled=show_progress) as advance:
            cv = cross_validate(
                docs, language, folds, seed, n_jobs=n_jobs, progress=advance, **params
            )
        result["cv"] = cv.to_dict()
    with progress_bar("training", len(docs), enabled=show_progress) as advance:
        det = train_model(docs, language, progress=advance, info={"data": str(data)}, **params)
    det.save(out_model, protect=(data,))
    result.update(
        model=str(out_model),
        documents=len(docs),
        labels=det.labels,
        direct=det.config["direct"],
        private=True,  # written owner-only: the features name training words
        private_features=params.get("private_features"),
    )
    return result


__all__ = ["detect_corpus", "register", "train_corpus"]
