"""``hidekit anonymize`` and ``hidekit utility``: files written, JSON, reports, bad input."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from hidekit.cli.main import app

from conftest import ADULT, FIXTURES

runner = CliRunner()
KEYS = "sex,age,race,marital-status"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_anonymize_writes_a_k_anonymous_l_diverse_release(tmp_path):
    from pycanon import anonymity

    out = tmp_path / "rel.csv"
    res = run(
        "anonymize",
        ADULT,
        "--keys",
        KEYS,
        "--k",
        10,
        "--l",
        2,
        "--sensitive",
        "salary-class",
        "--hierarchy",
        f"marital-status={FIXTURES / 'adult' / 'adult_hierarchy_marital-status.csv'}",
        "--out",
        out,
        "--json",
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["stats"]["k"] >= 10 and d["stats"]["l_diverse"] and d["output"] == str(out)
    rel = pd.read_csv(out, sep=";", dtype=str)
    assert len(rel) == 30162
    assert anonymity.k_anonymity(rel, KEYS.split(",")) >= 10
    assert anonymity.l_diversity(rel, KEYS.split(","), ["salary-class"]) >= 2


def test_anonymize_partial_mode_drops_identifiers_only(tmp_path):
    src = tmp_path / "people.csv"
    pd.DataFrame(
        {"name": list("abcdef"), "age": [30, 31, 32, 40, 41, 42], "dx": list("xyxyxy")}
    ).to_csv(src, index=False)
    res = run(
        "anonymize",
        src,
        "--keys",
        "age",
        "--k",
        2,
        "--mode",
        "partial",
        "--identifiers",
        "name",
        "--no-shuffle",
    )
    assert res.exit_code == 0, res.output
    rel = pd.read_csv(tmp_path / "people.anonymized.csv")
    assert list(rel.columns) == ["age", "dx"] and rel["age"].tolist() == [30, 31, 32, 40, 41, 42]
    assert "released" in res.stdout


def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path):
    src = tmp_path / "t.csv"
    pd.DataFrame({"age": [1, 2, None], "dx": ["a", "a", "a"], "g": ["m", "f", "m"]}).to_csv(
        src, index=False
    )
    out = tmp_path / "o.csv"
    cases = [
        (["--keys", "g", "--k", 9], "larger than the number of records"),
        (
            ["--keys", "g", "--k", 1, "--l", 2, "--sensitive", "dx"],
            "does not meet distinct 2-diversity",
        ),
        (["--keys", "age", "--k", 1], "missing value"),
        (["--keys", "g", "--k", 1, "--mode", "half"], "unknown mode"),
        (["--keys", "g", "--k", 1, "--hierarchy", "g"], "COLUMN=VALUE"),
        (["--keys", "nope", "--k", 1], "not in the data"),
    ]
    for args, text in cases:
        res = run("anonymize", src, *args, "--out", out)
        assert res.exit_code == 2, (args, res.output)
        assert text in res.output and "Traceback" not in res.output
        assert not out.exists()
    res = run("anonymize", src, "--keys", "g", "--k", 1, "--out", src)  # never overwrite the input
    assert res.exit_code == 2 and pd.read_csv(src).shape == (3, 3)


def test_utility_prints_json_and_draws_figure3(tmp_path):
    rel = tmp_path / "rel.csv"
    assert run("anonymize", ADULT, "--keys", KEYS, "--k", 5, "--out", rel).exit_code == 0
    report = tmp_path / "u.html"
    res = run(
        "utility",
        ADULT,
        rel,
        "--keys",
        KEYS,
        "--k",
        5,
        "--queries",
        300,
        "--json",
        "--report",
        report,
        "--curve-k",
        "2,20",
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["records"] == 30162 and d["k"] >= 5 and 0 < d["ncp"] < 1
    assert d["query_precision"]["sex"] == 1.0 and 0 < d["query_precision"]["age"] < 1
    assert [r["k"] for r in d["curve"]["rows"]] == [2, 20] and d["curve"]["attribute"] == "age"
    html = report.read_text(encoding="utf-8")
    assert html.count("hk-mark") >= 6
    res = run("utility", ADULT, rel, "--keys", KEYS, "--queries", 100)
    assert res.exit_code == 0 and "discernibility" in res.stdout
    short = tmp_path / "short.csv"
    pd.read_csv(rel, sep=";").head(5).to_csv(short, index=False)
    res = run("utility", ADULT, short, "--keys", KEYS)
    assert res.exit_code == 2 and "same records" in res.output


def test_demo_step_releases_a_5_anonymous_survey(tmp_path):
    from hidekit.demo.steps import DEMO_KEYS, step_anonymize
    from hidekit.demo.survey import generate_survey
    from hidekit.engines import make_engine

    ctx = {"frame": generate_survey(400, 7)}
    line = step_anonymize(tmp_path, ctx)
    rel = pd.read_csv(tmp_path / "anonymized.csv", dtype=str)
    assert "k=5" in line and len(rel) == 400
    assert make_engine(rel).is_k_anonymous(DEMO_KEYS, 5)
    assert not {"name", "ssn", "zip", "birth_date"} & set(rel.columns)
    assert "hk-mark" in (tmp_path / "utility.html").read_text(encoding="utf-8")
