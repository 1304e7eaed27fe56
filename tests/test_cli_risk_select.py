"""The risk and select commands: JSON shape, readable output, and bad input."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app

from conftest import ADULT

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_risk_json_has_the_promised_fields():
    res = run("risk", ADULT, "--keys", "sex,age,race", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    for field in ("records", "cells", "k", "uniques", "rp", "cr"):
        assert field in d
    frame = pd.read_csv(ADULT, sep=";")
    sizes = frame.groupby(["sex", "age", "race"]).size()
    assert d["cells"] == len(sizes) and d["uniques"] == int((sizes == 1).sum())


def test_risk_by_and_report(tmp_path):
    report = tmp_path / "r.html"
    res = run("risk", ADULT, "--keys", "age,race", "--by", "sex", "--report", report, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert [g["group"] for g in d["groups"]] == ["Female", "Male"]
    assert sum(g["records"] for g in d["groups"]) == d["records"]
    html = report.read_text()
    assert "hk-mark" in html and "<script" not in html


def test_column_names_with_spaces_and_slashes(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("age group/band;zip code;x\n20-29;021;1\n20-29;021;2\n30-39;100;3\n")
    res = run("risk", path, "--keys", "age group/band,zip code", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["cells"] == 2


def test_select_json_shape():
    res = run(
        "select",
        ADULT,
        "--keys",
        "age,race,marital-status,education",
        "--force",
        "sex",
        "--method",
        "forward",
        "--stop",
        "0.05",
        "--json",
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["selected"][0] == "sex"
    for step in d["steps"]:
        assert set(step) >= {"action", "variable", "variables", "alpha", "rp", "cr", "ratio"}
        assert step["rp"] <= 0.05
    assert d["final"]["rp"] <= 0.05


def test_select_readable_output_and_plot(tmp_path):
    report = tmp_path / "sel.html"
    res = run(
        "select",
        ADULT,
        "--keys",
        "age,race,education",
        "--method",
        "stepwise",
        "--stop",
        "0.5",
        "--remove-stop",
        "0.3",
        "--report",
        report,
    )
    assert res.exit_code == 0, res.output
    assert "Summary of steps" in res.stdout and "selected:" in res.stdout
    html = report.read_text()
    assert html.count("hk-mark") >= 2
    # the stop reason reads as its own sentence in the report
    assert re.search(r"CR \d\.\d{3}\. [A-Z][^<]*\.<", html), html[:2000]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--keys", "sex,nope"], "'nope'"),
        (["--keys", "sex", "--threshold", "1.5"], "threshold"),
        (["--keys", "sex", "--engine", "oracle"], "unknown engine"),
    ],
)
def test_risk_bad_options(args, message, tmp_path):
    report = tmp_path / "out.html"
    res = run("risk", ADULT, *args, "--report", report)
    assert res.exit_code == 2
    assert message in res.stderr and res.stderr.count("\n") == 1
    assert not report.exists()


def test_bad_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    res = run("risk", empty, "--keys", "a")
    assert res.exit_code == 2 and "empty" in res.stderr
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b\n")
    res = run("risk", header_only, "--keys", "a")
    assert res.exit_code == 2 and "no records" in res.stderr
    one_col = tmp_path / "one.csv"
    one_col.write_text("a\n1\n2\n")
    res = run("risk", one_col, "--keys", "a,b")
    assert res.exit_code == 2 and "'b'" in res.stderr
    junk = tmp_path / "junk.dta"
    junk.write_bytes(b"\x00\x01not stata")
    res = run("risk", junk, "--keys", "a")
    assert res.exit_code == 2 and "junk.dta" in res.stderr
    res = run("risk", tmp_path / "missing.csv", "--keys", "a")
    assert res.exit_code == 2 and "no such file" in res.stderr


def test_select_bad_threshold_writes_nothing(tmp_path):
    report = tmp_path / "sel.html"
    res = run("select", ADULT, "--keys", "age,race", "--stop", "-0.1", "--report", report)
    assert res.exit_code == 2 and "stop" in res.stderr
    assert not report.exists()


def test_polars_and_arrow_inputs_match_pandas(adult_frame):
    import pyarrow as pa

    import hidekit

    pl = pytest.importorskip("polars")
    keys = ["sex", "age", "race"]
    base = hidekit.measure_risk(adult_frame, keys).overall
    via_arrow = hidekit.measure_risk(pa.Table.from_pandas(adult_frame), keys).overall
    via_polars = hidekit.measure_risk(pl.from_pandas(adult_frame), keys).overall
    assert base == via_arrow == via_polars
    sel = hidekit.select_variables(pl.from_pandas(adult_frame), ["age", "race"], stop=0.5)
    assert sel.selected == hidekit.select_variables(adult_frame, ["age", "race"], stop=0.5).selected


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_select_same_on_spark(spark, adult_frame):
    from hidekit.engines.spark_engine import SparkEngine
    from hidekit.selection import select_variables

    sample = adult_frame.sample(3000, random_state=5)
    keys = ["age", "race", "marital-status", "education", "workclass"]
    a = select_variables(sample, keys, force=["sex"], method="stepwise", stop=0.4, remove_stop=0.2)
    b = select_variables(
        None,
        keys,
        force=["sex"],
        method="stepwise",
        stop=0.4,
        remove_stop=0.2,
        engine=SparkEngine(sample, spark),
    )
    assert a.to_dict() == b.to_dict()


def test_leading_zeros_are_kept(tmp_path):
    from hidekit.io import read_table

    path = tmp_path / "zips.csv"
    path.write_text("zip,n\n02139,1\n2139,2\n")
    frame = read_table(path).frame
    assert frame["zip"].tolist() == ["02139", "2139"]
    assert frame["n"].tolist() == [1, 2]


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_cli_spark_engine_reads_the_file_itself(spark):
    duck = json.loads(run("risk", ADULT, "--keys", "sex,age,race,education", "--json").stdout)
    res = run("risk", ADULT, "--keys", "sex,age,race,education", "--json", "--engine", "spark")
    assert res.exit_code == 0, res.output
    sp = json.loads(res.stdout)
    for field in ("records", "cells", "k", "uniques", "rp", "cr", "class_sizes"):
        assert sp[field] == duck[field], field
