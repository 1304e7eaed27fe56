"""Free-text jobs: detect PHI in a corpus, train a model, score predictions, write synthetic
notes, anonymize a corpus, measure the risk left in a de-identified corpus."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hidekit.errors import OptionError
from hidekit.jobs.result import JobResult, progress_or_quiet
from hidekit.jobs.secrets import SecretOptions

FORMATS = ("brat", "jsonl")


def check_format(fmt: str) -> str:
    """brat or jsonl, else a one-line error naming ``--format``."""
    if fmt not in FORMATS:
        raise OptionError(f"--format must be brat or jsonl, got {fmt!r}")
    return fmt


def detect(
    source,
    out,
    *,
    model: str = "en",
    fmt: str = "brat",
    column: str | None = None,
    allow=None,
    deny=None,
    profile: str | None = None,
    n_jobs: int | None = None,
    overwrite: bool = False,
    progress: Callable[..., None] | None = None,
    engine: str = "local",
) -> JobResult:
    """Detect PHI in ``source`` (a folder of .txt, a JSONL file, or a table with ``column``) and
    write brat .ann files (or one JSONL) into the new folder ``out``, built atomically and
    owner-only (the copies hold the PHI). ``allow``/``deny`` are term-list files; ``profile``
    (hipaa, i2b2, strict, general) what counts as PHI; ``n_jobs`` the worker processes (None: as
    many as pay off now, ``hidekit.text.detection.workers``). ``engine="spark"``: notes from JSONL
    or Parquet over a Spark DataFrame, spans to ``out/predictions.parquet`` (``hidekit.text.spark_detect``)."""
    from hidekit.io.atomic import OWNER_ONLY, atomic_dir, check_output_dir
    from hidekit.jobs.corpus import write_brat_dir, write_jsonl
    from hidekit.text.corpus import brat_names, read_documents
    from hidekit.text.detection.detector import load_model
    from hidekit.text.detection.termlists import read_terms
    from hidekit.text.detection.workers import choose_workers

    if engine not in ("local", "spark"):
        raise OptionError(f"--engine must be local or spark, got {engine!r}")
    if engine == "spark":
        return _detect_spark(source, out, model, column, allow, deny, profile, overwrite)
    check_format(fmt)
    out_dir = Path(out)
    model_path = Path(model) if Path(model).exists() else None
    protect = (Path(source), model_path, allow, deny)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    allow_terms, deny_terms = read_terms(allow), read_terms(deny, labelled=True)
    docs, _ = read_documents(Path(source), column)
    det = load_model(model, allow=allow_terms, deny=deny_terms, profile=profile)
    windowed = [len(det.windows(d.text)) for d in docs]
    workers = choose_workers(n_jobs, sum(len(d.text) for d in docs), sum(windowed))
    found = det.detect_documents(docs, n_jobs=workers, progress=progress)
    renamed: list = []
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
    return JobResult(
        "text detect",
        inputs={"source": source, "model": model_path, "allow": allow, "deny": deny},
        outputs={"annotations": where},
        figures={
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
            "workers": workers,
        },
    )


def _detect_spark(source, out, model, column, allow, deny, profile, overwrite) -> JobResult:
    from hidekit.text.detection.termlists import read_terms

    figures = detect_corpus_spark(
        source,
        model,
        out,
        column=column,
        allow=read_terms(allow),
        deny=read_terms(deny, labelled=True),
        profile=profile,
        overwrite=overwrite,
        protect=(allow, deny),
    )
    figures.update(characters=None, long_documents=0, windows=0, renamed_ids=[], workers=None)
    return JobResult(
        "text detect",
        inputs={"source": source, "model": model, "allow": allow, "deny": deny},
        outputs={"annotations": Path(figures["out"])},
        figures=figures,
    )


def detect_corpus_spark(
    source,
    model: str,
    out_dir,
    *,
    column: str | None = None,
    allow=None,
    deny=None,
    profile: str | None = None,
    overwrite: bool = False,
    protect: tuple = (),
) -> dict:
    """Python API of ``hidekit text detect --engine spark`` (``hidekit.text.spark_detect`` does
    the detecting): notes from JSONL or Parquet,
    spans to ``out_dir/predictions.parquet`` (an owner-only folder built atomically)."""
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import get_spark
    from hidekit.io.atomic import OWNER_ONLY, atomic_dir, check_output_dir
    from hidekit.jobs.text_spark import read_spark_notes
    from hidekit.text.detection.detector import load_model
    from hidekit.text.spark_detect import detect_notes

    out_dir = Path(out_dir)
    model_path = Path(model) if Path(model).exists() else None
    protect = (Path(source), model_path, *protect)
    check_output_dir(out_dir, overwrite=overwrite, protect=protect)
    spark = get_spark()
    det = load_model(model, allow=allow, deny=deny, profile=profile)
    found = detect_notes(read_spark_notes(spark, source, column or "text"), det, spark)
    with atomic_dir(out_dir, overwrite=overwrite, protect=protect, private=True) as tmp:
        found.write.parquet(str(tmp / "predictions.parquet"))
        for f in tmp.rglob("*"):
            if f.is_file():
                f.chmod(OWNER_ONLY)
    written = spark.read.parquet(str(out_dir / "predictions.parquet"))
    labels = written.select(F.explode("spans").alias("s")).groupBy("s.label").count().collect()
    per_label = {r["label"]: int(r["count"]) for r in labels}
    return {
        "documents": int(written.count()),
        "spans": sum(per_label.values()),
        "per_label": dict(sorted(per_label.items())),
        "model": str(model),
        "profile": profile,
        "format": "parquet",
        "engine": "spark",
        "out": str(out_dir / "predictions.parquet"),
    }


def train(
    data,
    out,
    *,
    fmt: str | None = None,
    language: str | None = None,
    folds: int = 10,
    seed: int = 0,
    n_jobs: int = 2,
    max_iterations: int = 100,
    c1: float = 0.05,
    c2: float = 0.01,
    private_features: str | None = None,
    private_min_count: int = 5,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """Optional k-fold cross-validation, then a CRF trained on all of ``data`` (a brat folder or
    JSONL file) saved owner-only to ``out`` (its features name training words)."""
    from hidekit.io.atomic import check_output_file
    from hidekit.jobs.files import save_model
    from hidekit.text.corpus import read_corpus
    from hidekit.text.detection.cross_validation import cross_validate
    from hidekit.text.detection.training import train_model

    if fmt is not None:
        check_format(fmt)
    if language not in (None, "en", "es"):
        raise OptionError(f"--language must be en or es, got {language!r}")
    params: dict[str, Any] = dict(
        max_iterations=max_iterations,
        c1=c1,
        c2=c2,
        private_features=private_features,
        private_min_count=private_min_count,
    )
    advance = progress_or_quiet(progress)
    out_model = check_output_file(out, protect=(data,))
    docs = read_corpus(data, fmt)
    figures: dict = {}
    if folds:
        advance(0, total=folds, completed=0, description="cross-validation folds")
        cv = cross_validate(docs, language, folds, seed, n_jobs=n_jobs, progress=advance, **params)
        figures["cv"] = cv.to_dict()
    advance(0, total=len(docs), completed=0, description="training")
    det = train_model(docs, language, progress=advance, info={"data": str(data)}, **params)
    save_model(det, out_model, protect=(data,))
    figures.update(
        model=str(out_model),
        documents=len(docs),
        labels=det.labels,
        direct=det.config["direct"],
        private=True,  # written owner-only: the features name training words
        private_features=private_features,
        private_min_count=private_min_count,
    )
    return JobResult("text train", {"data": data}, {"model": out_model}, figures)


def evaluate(
    gold, pred, *, profile: str | None = None, progress: Callable[..., None] | None = None
) -> JobResult:
    """Precision, recall and F1 of ``pred`` against ``gold`` (brat folders or JSONL files):
    strict, relaxed and token level. With ``profile`` both keep only what it counts as PHI;
    ``gold_profile`` says which profile the gold follows."""
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
    figures = {**scores, "profile": profile, "gold_profile": follows}
    return JobResult("text evaluate", {"gold": gold, "pred": pred}, {}, figures)


def synth(
    out,
    *,
    n: int = 100,
    seed: int = 0,
    fmt: str = "brat",
    notes_per_patient: int = 1,
    patients=None,
    locale: str = "en_US",
    overwrite: bool = False,
    progress: Callable[..., None] | None = None,
) -> JobResult:
    """Synthetic clinical notes with annotated PHI into ``out`` (a brat folder, or JSONL);
    ``patients``: a table whose rows the notes are about. Synthetic, so a plain seed is fine."""
    from hidekit.jobs.corpus import write_synthetic_corpus

    summary = write_synthetic_corpus(
        n, seed, out, fmt, notes_per_patient, patients, locale, overwrite
    )
    return JobResult("text synth", {"patients": patients}, {"notes": summary["out"]}, summary)


def anonymize(
    source,
    out,
    *,
    operator: str = "tag",
    model: str | None = None,
    spans=None,
    fmt: str | None = None,
    patient_pattern: str | None = None,
    propagate: bool = False,
    allow=None,
    deny=None,
    safelist: bool = True,
    profile: str | None = None,
    secrets: SecretOptions | None = None,
    overwrite: bool = False,
    n_jobs: int = 2,
    progress: Callable[..., None] | None = None,
    engine: str = "local",
) -> JobResult:
    """Redact, tag or replace by consistent surrogates the PHI of ``source`` (found by ``model``
    or given as ``spans``); the texts and an audit into ``out``, the surrogate mapping encrypted
    into the private folder (``secrets.private``, default ``OUT.private``). ``engine="spark"``:
    notes from JSONL or Parquet over a Spark DataFrame, texts and audit as Parquet, the local
    engine's output for the same key (``anonymize_spark``)."""
    from hidekit.jobs.corpus import anonymize_corpus
    from hidekit.text.anonymization.operators import CLINICAL
    from hidekit.text.detection.termlists import read_terms

    secrets = secrets or SecretOptions()
    secret = secrets.crosswalk(confirm=True, required=False)
    summary = anonymize_corpus(
        source,
        out,
        operator,
        model,
        spans,
        secrets.seed,
        fmt,
        patient_pattern,
        propagate,
        secret.get("passphrase"),
        secret.get("key_file"),
        overwrite,
        n_jobs=n_jobs,
        progress=progress,
        allow=read_terms(allow),
        deny=read_terms(deny, labelled=True),
        safelist=CLINICAL if safelist else None,
        insecure_seed=secrets.insecure_seed,
        private=secrets.private,
        profile=profile,
        engine=engine,
    )
    warnings = secrets.insecure_warnings(used=operator == "surrogate")
    return JobResult(
        "text anonymize",
        {"source": source, "spans": spans, "allow": allow, "deny": deny},
        summary["files"],
        summary,
        warnings,
    )


def text_risk(
    gold,
    pred,
    *,
    report=None,
    fmt: str | None = None,
    types_map=None,
    resynthesized: bool = False,
    hips: float = 0.1,
    strict_di: float = 0.9,
    strict_qi: float = 0.7,
    attempt=None,
    cell_size: int = 5,
    draws: int = 10_000,
    seed: int | None = None,
    m_draw: str = "poisson",
    progress: Callable[..., None] | None = None,
    key: bytes | None = None,
) -> JobResult:
    """Scaiano & El Emam's text risk of ``pred`` judged against ``gold``; an HTML ``report``.
    The Monte Carlo draws come from the secret ``key``, else ``seed`` (tests), else fresh; the
    outputs say which, never the seed or key."""
    from hidekit.evaluation.text_risk import assess_text_risk
    from hidekit.evaluation.text_risk_report import text_risk_report
    from hidekit.io.atomic import check_output_file
    from hidekit.jobs.files import save_report

    if report:
        check_output_file(report, (gold, pred))
    result = assess_text_risk(
        gold,
        pred,
        fmt=fmt,
        types_map=types_map,
        resynthesized=resynthesized,
        hips=hips,
        strict_di=strict_di,
        strict_qi=strict_qi,
        attempt=attempt,
        cell_size=cell_size,
        draws=draws,
        seed=seed,
        m_draw=m_draw,
        key=key,
    )
    if report:
        title = f"Text risk: {Path(pred).name} against {Path(gold).name}"
        save_report(text_risk_report(result, title), report, protect=(gold, pred))
    return JobResult(
        "text risk", {"gold": gold, "pred": pred}, {"report": report}, result.to_dict()
    )
