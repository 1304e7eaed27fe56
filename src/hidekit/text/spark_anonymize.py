"""Text anonymization over a Spark DataFrame of notes (``hidekit text anonymize --engine spark``),
for corpora of millions of notes, with the output of the local path for the same key.

The notes (``order``: their place in the input, ``id``, ``text``, ``patient``, ``spans``: found by
``hidekit.text.spark_detect`` or given) go through three stages:

1. ``prepare_notes``, note by note on the executors: the patient from ``--patient-pattern``
   (``assign_patients``), given spans kept by the profile and the term lists, and the key the
   operators group by (``patient_of``: the patient, else the note itself).
2. For surrogates only, ``name_surrogates``: every surrogate but a name's is a keyed function of
   (key, patient, label, value), but a name's draws depend on the names met before it in the
   corpus (a lone "Smith" is a last name if "John Smith" came first; no two names get the same
   surrogate). The first mention of each (patient, name) is found on the executors, and the
   driver runs the generator over those alone, in document order: the names the local path
   gives, from a table as large as the distinct names (never the notes).
3. ``rewrite_notes``: each patient's notes together in one task (``groupBy().applyInPandas``), in
   document order, through the same ``anonymize_document`` as the local path, with the operator
   (and its key) shipped in the closure and the names broadcast; operators without state per
   patient (redact, tag) go note by note (``mapInPandas``, no shuffle). Each patient's mapping
   records ride on its last note, for the job to collect, encrypt and write apart.

Writing (Parquet texts and audit, the mapping encrypted into the private folder) is the job's
(``hidekit.jobs.corpus``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pandas as pd

from hidekit.text.spark_detect import SPAN_FIELDS

NEW_SPAN_FIELDS = "start:int,end:int,label:string,text:string"
REPLACEMENT_FIELDS = (
    "doc:string,patient:string,start:int,end:int,label:string,replacement:string,"
    "new_start:int,new_end:int,source:string"
)
MAPPING_FIELDS = "patient:string,label:string,original:string,replacement:string"
PREPARED_SCHEMA = (
    f"`order` long, id string, text string, patient string, key string, "
    f"spans array<struct<{SPAN_FIELDS}>>, problem string"
)
REWRITTEN_SCHEMA = (
    f"`order` long, id string, text string, patient string, spans array<struct<{NEW_SPAN_FIELDS}>>, "
    f"replacements array<struct<{REPLACEMENT_FIELDS}>>, kept array<string>, "
    f"mapping array<struct<{MAPPING_FIELDS}>>"
)
PREPARED_COLUMNS = ["order", "id", "text", "patient", "key", "spans", "problem"]
REWRITTEN_COLUMNS = ["order", "id", "text", "patient", "spans", "replacements", "kept", "mapping"]
NAMES_SCHEMA = "key string, text string, label string, `order` long, start int"


def prepare_notes(
    sdf, *, patient_pattern: str | None = None, given: bool = False, profile=None, terms=None
):
    """``sdf`` (order, id, text, patient, spans) with each note's patient (``patient_pattern``),
    its grouping ``key`` and, for ``given`` spans (start, end, label), the spans the profile
    and the term lists (a ``TermLists``) keep; ``problem`` names a span outside its note or a
    note the spans file lacks (the job refuses them in one line)."""

    def run(parts: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        from hidekit.text.anonymization.operators import assign_patients, patient_of
        from hidekit.text.profiles import restrict_documents
        from hidekit.text.spans import Document

        for part in parts:
            rows = []
            for order, note_id, text, patient, found in zip(
                part["order"], part["id"], part["text"], part["patient"], part["spans"], strict=True
            ):
                doc = Document(note_id, text or "", [], patient)
                if patient_pattern:
                    assign_patients([doc], patient_pattern)
                problem = None
                if given:
                    spans, problem = _given_spans(doc, found)
                    doc = doc.with_spans(spans)
                    if profile is not None:
                        doc = restrict_documents([doc], profile)[0]
                    if terms:
                        doc = doc.with_spans(terms.apply(doc.text, doc.spans))
                    found = [_span_row(s) for s in doc.spans]
                rows.append(
                    (order, note_id, text, doc.patient, patient_of(doc), list(found), problem)
                )
            yield pd.DataFrame(rows, columns=PREPARED_COLUMNS)

    return sdf.mapInPandas(run, PREPARED_SCHEMA)


def _given_spans(doc, rows) -> tuple[list, str | None]:
    from hidekit.text.spans import Span

    if rows is None:
        return [], f"document {doc.id}: not in the spans file"
    spans = []
    for r in rows:
        s, e = r["start"], r["end"]
        if s is None or e is None or not 0 <= s <= e <= len(doc.text):
            return [], f"document {doc.id}: span {s}-{e} lies outside the text"
        spans.append(Span(int(s), int(e), r["label"] or "PHI", doc.text[s:e], "gold"))
    return spans, None


def _span_row(span) -> dict:
    return {**span.to_dict(), "source": span.source}


def _documents(pdf: pd.DataFrame) -> list:
    from hidekit.text.spans import Document, Span

    return [
        Document(
            note_id,
            text or "",
            [
                Span(int(r["start"]), int(r["end"]), r["label"], r["text"], r["source"])
                for r in rows
            ],
            patient,
        )
        for note_id, text, patient, rows in zip(
            pdf["id"], pdf["text"], pdf["patient"], pdf["spans"], strict=True
        )
    ]


def _notes_to_rewrite(pdf: pd.DataFrame, safelist, propagate: bool) -> tuple:
    """The safe-list and the notes of ``pdf`` as documents, spans propagated across a patient's
    notes when asked: what both passes over the notes start from."""
    from hidekit.text.anonymization.operators import _safelist, propagate_spans

    docs = _documents(pdf)
    return _safelist(safelist), propagate_spans(docs) if propagate else docs


def keeps_patient_state(operator) -> bool:
    """Whether ``operator``'s replacements depend on what it replaced before in the patient's
    notes (surrogates, numbered tags, plug-ins we cannot tell): then a patient's notes go to one
    task, in order."""
    from hidekit.text.anonymization.operators import Redact, Tag

    return not isinstance(operator, Redact) and not (
        isinstance(operator, Tag) and not operator.numbered
    )


def _over_notes(prepared, fn, schema: str, by_patient: bool):
    """``fn`` (a frame of notes in document order -> a frame) per patient, else per partition."""
    if by_patient:
        return prepared.groupBy("key").applyInPandas(
            lambda pdf: fn(pdf.sort_values("order", kind="stable")), schema
        )

    def parts(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for pdf in frames:
            yield fn(pdf)

    return prepared.mapInPandas(parts, schema)


def name_surrogates(prepared, operator, safelist, propagate: bool) -> dict[tuple[str, str], str]:
    """(patient key, name as written) -> its surrogate, as the local path gives it: the first
    mention of each found on the executors, the generator run over them on the driver in
    document order (on a copy: ``operator`` stays as new, to be shipped)."""
    from pyspark.sql import functions as F

    def firsts(pdf: pd.DataFrame) -> pd.DataFrame:
        from hidekit.text.anonymization.operators import patient_of, spans_to_replace
        from hidekit.text.anonymization.surrogates import KINDS

        safe, docs = _notes_to_rewrite(pdf, safelist, propagate)
        rows = []
        for order, doc in zip(pdf["order"], docs, strict=True):
            key = patient_of(doc)
            seen = set()
            for s in spans_to_replace(doc, safe):
                if KINDS.get(s.label.upper()) == "name" and s.text not in seen:
                    seen.add(s.text)
                    rows.append((key, s.text, s.label, order, s.start))
        return pd.DataFrame(rows, columns=["key", "text", "label", "order", "start"])

    found = _over_notes(prepared, firsts, NAMES_SCHEMA, propagate)
    first = found.groupBy("key", "text").agg(
        F.min(F.struct("order", "start", "label")).alias("first")
    )
    ordered = first.select("key", "text", "first.*").orderBy("order", "start")
    generator = copy.deepcopy(operator.generator)
    return {
        (r["key"], r["text"]): generator.replace(r["text"], r["label"], r["key"])
        for r in ordered.toLocalIterator()
    }


def rewrite_notes(prepared, operator, safelist, propagate: bool, spark, names=None):
    """Every note rewritten by ``operator`` (one row per note: order, id, new text, patient, new
    spans, audit records, safe-list reasons of the spans kept, and on each patient's last note
    its mapping records)."""
    by_patient = propagate or keeps_patient_state(operator)
    shared = spark.sparkContext.broadcast(names) if names is not None else None

    def rewrite(pdf: pd.DataFrame) -> pd.DataFrame:
        from hidekit.text.anonymization.operators import anonymize_document

        if shared is not None and operator.generator.names is None:
            operator.generator.names = shared.value  # once per task
        safe, docs = _notes_to_rewrite(pdf, safelist, propagate)
        rows = []
        for order, doc in zip(pdf["order"], docs, strict=True):
            kept: list = []
            new, records = anonymize_document(doc, operator, safe, kept)
            rows.append(
                [
                    order,
                    new.id,
                    new.text,
                    new.patient,
                    [s.to_dict() for s in new.spans],
                    [r.to_dict() for r in records],
                    [k.reason for k in kept],
                    [],
                ]
            )
        if by_patient and rows:
            rows[-1][-1] = operator.pop_mapping(pdf["key"].iloc[0])
        return pd.DataFrame(rows, columns=REWRITTEN_COLUMNS)

    return _over_notes(prepared, rewrite, REWRITTEN_SCHEMA, by_patient)


def summarize(rewritten, operator_name: str) -> dict:
    """What ``AnonymizedCorpus.summary`` says of the local run, counted by Spark."""
    from pyspark.sql import functions as F

    labels = rewritten.select(F.explode("replacements.label").alias("label"))
    by_label = {r["label"]: int(r["count"]) for r in labels.groupBy("label").count().collect()}
    reasons = rewritten.select(F.explode("kept").alias("reason")).groupBy("reason").count()
    by_reason = {r["reason"]: int(r["count"]) for r in reasons.collect()}
    return {
        "operator": operator_name,
        "documents": int(rewritten.count()),
        "replaced": sum(by_label.values()),
        "by_label": dict(sorted(by_label.items())),
        "patients": int(rewritten.select("patient").distinct().count()),
        "kept_by_safelist": sum(by_reason.values()),
        "kept_by_reason": dict(sorted(by_reason.items())),
    }
