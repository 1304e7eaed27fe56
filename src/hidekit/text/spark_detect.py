"""Text detection over a Spark DataFrame of notes, for corpora of millions of notes.

The detector's state (CRF model bytes, configuration, allow and deny lists) is broadcast once to
the executors; each partition rebuilds the detector and runs its own ``detect_document`` on its
notes (``mapInPandas``), so the spans are the ones the local path finds, offset for offset.
Notes come as a Spark DataFrame (``id``, ``text``, optional ``patient``; the detect job reads
them from JSONL or Parquet) and spans go to Parquet (one row per note: id, text, patient, spans),
written by the detect job (``hidekit.jobs.text``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

SPAN_FIELDS = "start:int,end:int,label:string,text:string,source:string"
BASE = ("id", "text", "patient")
OUTPUT_SCHEMA = f"id string, text string, patient string, spans array<struct<{SPAN_FIELDS}>>"


def detector_state(det) -> tuple:
    """What rebuilds ``det`` on an executor (``Detector.from_state``): model bytes,
    configuration, allow and deny lists, profile name, the lower-case model's state."""
    return det.state()


def detect_notes(sdf, detector, spark=None):
    """``sdf`` (id, text, patient) with the spans ``detector`` finds in each note. Other columns
    of ``sdf`` come through after those three (the anonymize job's document order)."""
    from hidekit.engines.spark_engine import get_spark
    from hidekit.text.detection.detector import Detector

    spark = spark or get_spark()
    state = spark.sparkContext.broadcast(detector_state(detector))

    def run(parts: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        from hidekit.text.spans import Document

        worker = Detector.from_state(state.value)
        for part in parts:
            spans = []
            for note_id, text, patient in zip(
                part["id"], part["text"], part["patient"], strict=True
            ):
                doc = worker.detect_document(Document(note_id, text or "", [], patient))
                spans.append([_span_row(s) for s in sorted(doc.spans)])
            yield part[columns].assign(spans=spans)

    columns = [*BASE, *(c for c in sdf.columns if c not in BASE)]
    extra = "".join(f"`{c}` {sdf.schema[c].dataType.simpleString()}, " for c in columns[3:])
    return sdf.mapInPandas(run, OUTPUT_SCHEMA.replace("spans array", f"{extra}spans array"))


def _span_row(span) -> dict:
    return {**span.to_dict(), "source": span.source}
