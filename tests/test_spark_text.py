"""Text detection over a Spark DataFrame of notes finds the spans the local path finds."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def test_spark_detect_gives_the_local_spans(spark, tmp_path):
    from hidekit.jobs.text import detect_corpus_spark
    from hidekit.text.detection.detector import load_model
    from hidekit.text.synthesis import generate_notes

    docs = generate_notes(5, seed=23)
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in docs), encoding="utf-8"
    )
    local = load_model("en").detect_documents(docs, n_jobs=1)
    want = {d.id: [(s.start, s.end, s.label, s.text) for s in sorted(d.spans)] for d in local}
    assert sum(map(len, want.values())) > 10  # the notes hold names, dates, places to find

    summary = detect_corpus_spark(notes, "en", tmp_path / "out")
    got_frame = pd.read_parquet(tmp_path / "out" / "predictions.parquet")
    got = {
        row.id: [(s["start"], s["end"], s["label"], s["text"]) for s in row.spans]
        for row in got_frame.itertuples()
    }
    assert got == want
    assert summary["documents"] == len(docs)
    assert summary["spans"] == sum(map(len, want.values()))
    assert (tmp_path / "out").stat().st_mode & 0o077 == 0  # notes and spans hold PHI


def test_spark_detect_refuses_notes_without_text(spark, tmp_path):
    from hidekit.errors import InputError
    from hidekit.jobs.text import detect_corpus_spark

    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "a", "body": "Seen by Dr. Smith."}\n', encoding="utf-8")
    with pytest.raises(InputError, match="no 'text' field"):
        detect_corpus_spark(notes, "en", tmp_path / "out")
