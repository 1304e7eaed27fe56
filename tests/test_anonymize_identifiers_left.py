"""``anonymize`` warns when its k-anonymous release still carries a column the PII scan calls a
direct identifier (a name, an SSN, GPS points), and stays quiet once they are listed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.jobs.checks import identifiers_left

ADULT = Path(__file__).parent / "fixtures" / "adult"
runner = CliRunner()


@pytest.fixture
def survey(tmp_path) -> Path:
    n = 60
    frame = pd.DataFrame(
        {
            "age": [20 + i % 30 for i in range(n)],
            "sex": ["FM"[i % 2] for i in range(n)],
            "name": [f"Person {i}" for i in range(n)],
            "ssn": [f"{100 + i:03d}-{10 + i % 80:02d}-{1000 + i:04d}" for i in range(n)],
            "score": [i % 7 for i in range(n)],
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_check_names_exactly_the_unhandled_direct_columns(survey):
    frame = pd.read_csv(survey)
    (warning,) = identifiers_left(frame, handled=["age", "sex"])
    assert "name, ssn" in warning and "score" not in warning and "age" not in warning
    assert identifiers_left(frame.drop(columns=["name", "ssn"]), handled=["age", "sex"]) == []
    assert identifiers_left(frame, handled=["name", "ssn"]) == []


def test_mondrian_release_with_names_left_warns(survey, tmp_path):
    args = ["anonymize", str(survey), "--keys", "age,sex", "--k", "3"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "a.csv"), "--json"])
    assert res.exit_code == 0, res.output
    warnings = json.loads(res.stdout)["warnings"]
    assert any("name, ssn" in w for w in warnings), warnings
    # listed as identifiers they are removed, and nothing is left to warn about
    res = runner.invoke(
        app, [*args, "--identifiers", "name,ssn", "--out", str(tmp_path / "b.csv"), "--json"]
    )
    assert res.exit_code == 0, res.output
    assert not any("direct identifiers" in w for w in json.loads(res.stdout)["warnings"])
    assert "name" not in pd.read_csv(tmp_path / "b.csv").columns


def test_optimal_release_warns_in_the_terminal_too(tmp_path):
    frame = pd.read_csv(ADULT / "adult.csv", sep=";").head(400)
    frame.insert(0, "name", [f"Person {i}" for i in range(len(frame))])
    data = tmp_path / "adult_named.csv"
    frame.to_csv(data, sep=";", index=False)
    keys = ["sex", "age"]
    hier = [a for q in keys for a in ("--hierarchy", f"{q}={ADULT / f'adult_hierarchy_{q}.csv'}")]
    res = runner.invoke(
        app,
        ["anonymize", str(data), "--method", "optimal", "--keys", ",".join(keys), *hier]
        + ["--k", "2", "--out", str(tmp_path / "o.csv")],
    )
    assert res.exit_code == 0, res.output
    assert "warning: the released file still holds column(s)" in res.stderr
    assert "name" in res.stderr
