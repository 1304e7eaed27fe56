"""Text anonymization over Spark (``hidekit text anonymize --engine spark``) writes what the local
engine writes for the same key: texts, audit and the encrypted mapping, apart from the output."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]

PATTERN = r"^note-(.+)-\d+$"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """20 notes of 3 patients, interleaved (a patient's notes are not next to each other, so a
    name's surrogate depends on other patients' names met before it), with their gold spans;
    no patient field: ``--patient-pattern`` names the patient from the id."""
    from hidekit.jobs.files import new_key_file
    from hidekit.text.synthesis import generate_notes

    folder = tmp_path_factory.mktemp("corpus")
    docs = generate_notes(20, seed=5, notes_per_patient=7)
    docs = docs[::3] + docs[1::3] + docs[2::3]
    notes = folder / "notes.jsonl"
    notes.write_text(
        "".join(
            json.dumps({"id": d.id, "text": d.text, "spans": [s.to_dict() for s in d.spans]}) + "\n"
            for d in docs
        ),
        encoding="utf-8",
    )
    halved = folder / "spans.jsonl"  # every other gold span: propagation has work to do
    halved.write_text(
        "".join(
            json.dumps({"id": d.id, "text": d.text, "spans": [s.to_dict() for s in d.spans[::2]]})
            + "\n"
            for d in docs
        ),
        encoding="utf-8",
    )
    return notes, new_key_file(folder / "key"), halved


def _run(notes, out, key, engine, **options):
    from hidekit import jobs
    from hidekit.jobs import SecretOptions

    return jobs.anonymize_text(
        notes,
        out,
        patient_pattern=PATTERN,
        secrets=SecretOptions(key_file=key),
        fmt="jsonl" if engine == "local" else None,
        engine=engine,
        **options,
    )


def _outputs(result, key) -> tuple[list, list, list]:
    """(documents, audit records, decrypted mapping records) of a run, as plain rows."""
    from hidekit.jobs.files import read_crosswalk
    from hidekit.secrets import load_key

    files = result.figures["files"]
    if files["texts"].endswith(".parquet"):
        docs = pd.read_parquet(files["texts"]).to_dict("records")
        docs = [{**d, "spans": [dict(s) for s in d["spans"]]} for d in docs]
        audit = pd.read_parquet(files["audit"]).to_dict("records")
    else:
        with open(files["texts"], encoding="utf-8") as f:
            docs = [json.loads(line) for line in f]
        with open(files["audit"], encoding="utf-8") as f:
            audit = [json.loads(line) for line in f]
    mapping = []
    if "mapping" in files:
        mapping = read_crosswalk(files["mapping"], key_file=load_key(key)).to_dict("records")
    return docs, audit, mapping


@pytest.mark.parametrize("operator", ["redact", "tag", "surrogate"])
def test_spark_anonymize_writes_what_the_local_engine_writes(spark, corpus, tmp_path, operator):
    notes, key, _ = corpus
    local = _run(notes, tmp_path / "local", key, "local", operator=operator, model="en")
    on_spark = _run(notes, tmp_path / "spark", key, "spark", operator=operator, model="en")

    want, got = _outputs(local, key), _outputs(on_spark, key)
    assert got[0] == want[0]  # texts, patients and new spans, note by note in input order
    assert got[1] == want[1]  # the audit, record by record
    assert got[2] == want[2]  # the mapping, decrypted
    assert len(want[0]) == 20 and len(want[1]) > 100
    assert {r["patient"] for r in want[1]} == {"P00001", "P00002", "P00003"}
    for k in ("documents", "replaced", "by_label", "patients", "kept_by_reason"):
        assert on_spark.figures[k] == local.figures[k]

    spark_out = tmp_path / "spark"
    assert not [f for f in spark_out.rglob("*") if "mapping" in f.name]  # never in --out
    if operator == "surrogate":
        assert sum(r["label"] in ("NAME", "PATIENT", "DOCTOR") for r in want[2]) > 5
        mapping = tmp_path / "spark.private" / "mapping.hkcw"
        assert on_spark.figures["files"]["mapping"] == str(mapping)
        assert mapping.parent.stat().st_mode & 0o077 == 0
        assert mapping.stat().st_mode & 0o077 == 0
    else:
        assert not (tmp_path / "spark.private").exists() and want[2] == []


def test_spark_anonymize_with_given_spans_and_propagation(spark, corpus, tmp_path):
    notes, key, halved = corpus
    opts = dict(operator="surrogate", spans=halved, propagate=True)
    local = _run(notes, tmp_path / "local", key, "local", **opts)
    on_spark = _run(notes, tmp_path / "spark", key, "spark", **opts)
    want, got = _outputs(local, key), _outputs(on_spark, key)
    assert got == want
    assert any(r["source"] == "propagated" for r in want[1])


def test_spark_anonymize_without_a_key_writes_a_fresh_key_beside_the_mapping(
    spark, corpus, tmp_path
):
    from hidekit import jobs

    notes, _, _ = corpus
    result = jobs.anonymize_text(
        notes, tmp_path / "out", operator="surrogate", spans=notes, engine="spark"
    )
    files = result.figures["files"]
    assert files["mapping_key"] == str(tmp_path / "out.private" / "mapping.key")
    assert result.figures["randomness"] == "fresh"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "a", "body": "Seen by Dr. Smith."}\n', "no 'text' field"),
        ("", "the file is empty"),
    ],
)
def test_spark_anonymize_refuses_bad_notes_in_one_line(spark, tmp_path, content, message):
    from typer.testing import CliRunner

    from hidekit.cli.main import app

    notes = tmp_path / "notes.jsonl"
    notes.write_text(content, encoding="utf-8")
    argv = ["text", "anonymize", str(notes), "--out", str(tmp_path / "out"), "--model", "en"]
    res = CliRunner().invoke(app, [*argv, "--engine", "spark"])
    assert res.exit_code != 0
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.output
    assert not (tmp_path / "out").exists()
