"""The scan reads free-text columns with the detection model (issue 14): a column of open answers
holding names gets the free-text verdict and the text_columns plan step."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from hidekit import jobs
from hidekit.cli.main import app
from hidekit.jobs.free_text import free_text_cells
from hidekit.scan.table3 import METHODS, TYPES

ANSWERS = [
    "My neighbour John Smith helped me fill this in last week.",
    "We moved to 14 Elm Street, Springfield with my wife Mary.",
    "Nothing else to add, the questions were fine for me.",
    "Please write to jane.roe@example.org if you need anything.",
]
FRAME = pd.DataFrame(
    {
        "hhid": ["A01", "A02", "A03", "A04"],
        "q12_other": ANSWERS,
        "crop": ["maize", "rice", "maize", "cassava"],
    }
)


def test_only_columns_of_words_are_free_text():
    assert free_text_cells(FRAME["q12_other"]) is not None
    assert free_text_cells(FRAME["crop"]) is None  # short values
    assert free_text_cells(pd.Series(["X" * 40 + str(i) for i in range(3)])) is None  # codes


def test_free_text_with_names_gets_the_text_columns_verdict():
    finding = jobs.scan(FRAME).detail["q12_other"]
    assert finding.pii and finding.identifier == "free_text" and finding.category == "direct"
    assert finding.methods == ("text_columns",) and "text_columns" in METHODS
    assert finding.reason.startswith("free text containing PII: ")
    read = finding.evidence["free_text"]
    assert read["cells_read"] == 4 and read["cells_with_pii"] >= 3
    assert read["labels"].get("NAME", 0) >= 2 and "EMAIL" in read["labels"]
    assert f"{read['spans']} span(s) of types" in finding.reason
    assert TYPES["free_text"].methods == ("text_columns",)
    # the coded columns keep the pattern scan's verdicts
    assert not jobs.scan(FRAME).detail["crop"].pii


def test_without_a_model_the_pattern_verdict_stays():
    finding = jobs.scan(FRAME, text_model=None).detail["q12_other"]
    assert finding.methods == ("redact",) and "free_text" not in finding.evidence


def test_scan_cli_reads_free_text_unless_told_not_to(tmp_path):
    path = tmp_path / "survey.csv"
    FRAME.to_csv(path, index=False)
    res = CliRunner().invoke(app, ["scan", str(path), "--json"])
    assert res.exit_code == 0, res.output
    cols = {c["name"]: c for c in json.loads(res.output)["columns"]}
    assert cols["q12_other"]["identifier"] == "free_text"
    assert cols["q12_other"]["methods"] == ["text_columns"]
    res = CliRunner().invoke(app, ["scan", str(path), "--json", "--text-model", "none"])
    cols = {c["name"]: c for c in json.loads(res.output)["columns"]}
    assert cols["q12_other"]["methods"] == ["redact"]
