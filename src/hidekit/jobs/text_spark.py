"""Free-text jobs on Spark: notes and spans read from JSONL or Parquet into Spark DataFrames,
and ``hidekit text anonymize --engine spark`` (``hidekit text detect --engine spark`` is in
``hidekit.jobs.text``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hidekit.errors import InputError, OptionError

if TYPE_CHECKING:
    import pandas as pd

SPARK_NOTE_FORMATS = (".jsonl", ".json", ".parquet", ".pq")


def _read_spark_records(spark, path: Path):
    """A Spark DataFrame of the records of a JSONL or Parquet file or folder."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    suffix = path.suffix.lower() if path.is_file() else ".parquet"
    if suffix not in SPARK_NOTE_FORMATS:
        raise OptionError(f"{path}: the Spark engine reads notes from JSONL or Parquet")
    if path.is_file() and path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    if suffix in (".jsonl", ".json"):
        return spark.read.option("mode", "FAILFAST").json(str(path))
    return spark.read.parquet(str(path))


def read_spark_notes(spark, path, text_column: str = "text", id_column: str = "id"):
    """A Spark DataFrame (id, text, patient) of the notes in a JSONL or Parquet file or folder."""
    from pyspark.sql import functions as F

    path = Path(path)
    sdf = _read_spark_records(spark, path)
    missing = [c for c in (id_column, text_column) if c not in sdf.columns]
    if missing:
        raise InputError(f"{path}: the notes have no {' or '.join(map(repr, missing))} field")
    patient = F.col("patient").cast("string") if "patient" in sdf.columns else F.lit(None)
    return sdf.select(
        F.col(id_column).cast("string").alias("id"),
        F.col(text_column).cast("string").alias("text"),
        patient.cast("string").alias("patient"),
    )


def read_spark_spans(spark, path):
    """A Spark DataFrame (id, spans: start, end, label) of the spans in a JSONL or Parquet file
    or folder (``hidekit text detect --engine spark`` writes one): a span's label is its
    ``label``, else its ``type``, else PHI, as the local reader takes them."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StructType

    path = Path(path)
    sdf = _read_spark_records(spark, path)
    kind = sdf.schema["spans"].dataType if "spans" in sdf.columns else None
    if "id" not in sdf.columns or kind is None:
        raise InputError(f"{path}: the spans have no 'id' or no 'spans' field")
    if not isinstance(kind, ArrayType) or not isinstance(kind.elementType, StructType):
        raise InputError(f"{path}: 'spans' must be a list of records (start, end, label)")
    fields = kind.elementType.fieldNames()
    if "start" not in fields or "end" not in fields:
        raise InputError(f"{path}: a span needs 'start' and 'end'")
    named = next((f for f in ("label", "type") if f in fields), None)

    def span(s):
        label = s[named].cast("string") if named else F.lit("PHI")
        return F.struct(
            s["start"].cast("long").alias("start"),
            s["end"].cast("long").alias("end"),
            label.alias("label"),
        )

    return sdf.select(
        F.col("id").cast("string").alias("id"), F.transform("spans", span).alias("spans")
    )


def _prepared_notes(spark, notes, spans, detection: tuple, patient_pattern: str | None):
    """The notes with their spans: detected (``detection``: model, allow, deny, profile) or
    given (``spans``: a file of them), ready for ``spark_anonymize.rewrite_notes``."""
    from hidekit.text import spark_anonymize as sa
    from hidekit.text.detection.detector import load_model
    from hidekit.text.detection.termlists import TermLists
    from hidekit.text.spark_detect import detect_notes

    model, allow, deny, profile = detection
    if spans is None:
        det = load_model(model or "en", allow=allow, deny=deny, profile=profile)
        prepared = sa.prepare_notes(
            detect_notes(notes, det, spark), patient_pattern=patient_pattern
        )
    else:
        given = read_spark_spans(spark, spans)
        stray = given.join(notes, "id", "left_anti").select("id").limit(5).collect()
        if stray:
            ids = ", ".join(r["id"] for r in stray)
            raise InputError(f"{spans}: spans of documents not among the notes: {ids}")
        prepared = sa.prepare_notes(
            notes.join(given, "id", "left"),
            patient_pattern=patient_pattern,
            given=True,
            profile=profile,
            terms=TermLists(allow, deny),
        )
    return prepared


def anonymize_spark(
    source,
    out_dir,
    operator,
    *,
    model: str | None,
    spans,
    patient_pattern: str | None,
    propagate: bool,
    allow,
    deny,
    safelist,
    profile: str | None,
    overwrite: bool,
    protect: tuple,
    save: Callable[[pd.DataFrame], dict],
) -> dict:
    """``hidekit text anonymize --engine spark`` (``hidekit.jobs.corpus.anonymize_corpus`` checks
    the options and makes ``operator``; ``hidekit.text.spark_anonymize`` does the work): notes
    from JSONL or Parquet, ``out_dir/documents.parquet`` (id, text, patient, spans) and
    ``out_dir/replacements.parquet`` (the audit, one row per replaced span) in document order,
    the mapping records (a frame) handed to ``save`` (which encrypts them into the private
    folder)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from hidekit.engines.spark_engine import get_spark
    from hidekit.io.atomic import atomic_dir
    from hidekit.text import spark_anonymize as sa
    from hidekit.text.anonymization.operators import assign_patients
    from hidekit.text.anonymization.surrogates import SurrogateGenerator

    out_dir = Path(out_dir)
    if patient_pattern:
        assign_patients([], patient_pattern)  # a bad expression fails here, in one line
    spark = get_spark()
    notes = read_spark_notes(spark, source).withColumn("order", F.monotonically_increasing_id())
    parallel = spark.sparkContext.defaultParallelism
    if notes.rdd.getNumPartitions() < parallel:  # one small file is one partition: spread it
        notes = notes.repartition(parallel)
    prepared = _prepared_notes(spark, notes, spans, (model, allow, deny, profile), patient_pattern)
    prepared = prepared.persist(StorageLevel.MEMORY_AND_DISK)
    rewritten = None
    try:
        problem = prepared.filter(F.col("problem").isNotNull()).select("problem").first()
        if problem is not None:
            raise InputError(f"{spans}: {problem['problem']}")
        if prepared.limit(1).count() == 0:
            raise InputError(f"{source}: no documents")
        names = None
        if isinstance(getattr(operator, "generator", None), SurrogateGenerator):
            names = sa.name_surrogates(prepared, operator, safelist, propagate)
        rewritten = sa.rewrite_notes(prepared, operator, safelist, propagate, spark, names)
        rewritten = rewritten.persist(StorageLevel.MEMORY_AND_DISK)
        files = {
            "texts": str(out_dir / "documents.parquet"),
            "audit": str(out_dir / "replacements.parquet"),
        }
        with atomic_dir(out_dir, overwrite=overwrite, protect=protect) as tmp:
            texts = rewritten.orderBy("order").select("id", "text", "patient", "spans")
            texts.write.parquet(str(tmp / "documents.parquet"))
            audit = rewritten.select("order", F.posexplode("replacements").alias("pos", "r"))
            audit = audit.orderBy("order", "pos").select("r.*")
            audit.write.parquet(str(tmp / "replacements.parquet"))
            mapping = rewritten.select(F.explode("mapping").alias("m")).select("m.*").toPandas()
            if len(mapping):  # sorted by patient as the local path writes it (stable: book order)
                files.update(save(mapping.sort_values("patient", kind="stable", ignore_index=True)))
        summary = sa.summarize(rewritten, operator.name)
    finally:
        prepared.unpersist()
        if rewritten is not None:
            rewritten.unpersist()
    return {**summary, "engine": "spark", "format": "parquet", "files": files}
