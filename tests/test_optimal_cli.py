"""The optimal search from the command line, from a release plan, and in its HTML report."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app

ADULT = Path(__file__).parent / "fixtures" / "adult"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
runner = CliRunner()


def _hier_args(keys):
    args = []
    for q in keys:
        args += ["--hierarchy", f"{q}={ADULT / f'adult_hierarchy_{q}.csv'}"]
    return args


def test_anonymize_method_optimal_json_contract(tmp_path):
    out = tmp_path / "released.csv"
    report = tmp_path / "report.html"
    res = runner.invoke(
        app,
        ["anonymize", str(ADULT / "adult.csv"), "--method", "optimal", "--keys", ",".join(QI)]
        + _hier_args(QI)
        + ["--k", "5", "--l", "2", "--sensitive", "occupation", "--suppression", "0.05"]
        + ["--metric", "loss", "--out", str(out), "--report", str(report), "--json"],
    )
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    # ARX 3.9.2 on the same setting (optimal_adult_k5_l2.json): [0,3,0,0,1,1,1], 1481 suppressed
    assert body["transformation"] == dict(zip(QI, [0, 3, 0, 0, 1, 1, 1], strict=True))
    assert body["information_loss"] == 0.17149116900811867
    assert body["suppressed"] == 1481 and body["classes"] == 395
    assert body["lattice_size"] == 2160 and 0 < body["transformations_checked"] <= 2160
    released = pd.read_csv(out, sep=";", dtype=str)
    assert len(released) == 30162
    assert int((released[QI] == "*").all(axis=1).sum()) == 1481
    html = report.read_text(encoding="utf-8")
    assert "<script" not in html and not re.search(r'(src|href)="https?:', html)  # offline
    assert html.count('class="hk-mark"') >= 2160  # every lattice node drawn
    assert 'stroke-width="3"' in html  # the optimum ringed


def test_generalize_optimal_drop_suppressed(tmp_path):
    out = tmp_path / "g.csv"
    keys = ["age", "education"]
    res = runner.invoke(
        app,
        ["generalize", str(ADULT / "adult.csv"), "--optimal", "--columns", ",".join(keys)]
        + _hier_args(keys)
        + ["--k", "50", "--suppression", "0.02", "--suppressed", "drop", "--out", str(out)]
        + ["--json"],
    )
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    released = pd.read_csv(out, sep=";", dtype=str)
    assert len(released) == 30162 - body["suppressed"]
    assert released.groupby(keys).size().min() >= 50


def test_unsatisfiable_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "never.csv"
    res = runner.invoke(
        app,
        ["anonymize", str(ADULT / "adult.csv"), "--method", "optimal", "--keys", "sex"]
        + _hier_args(["sex"])
        + ["--k", "40000", "--out", str(out)],
    )
    assert res.exit_code == 2
    assert "even the most general release fails" in res.output
    assert not out.exists()


def test_missing_hierarchy_is_a_clear_error(tmp_path):
    res = runner.invoke(
        app,
        ["anonymize", str(ADULT / "adult.csv"), "--method", "optimal", "--keys", "sex,age"]
        + _hier_args(["sex"])
        + ["--k", "5", "--out", str(tmp_path / "x.csv")],
    )
    assert res.exit_code == 2
    assert "no hierarchy given for: age" in res.output


def test_release_plan_step_optimal(tmp_path):
    for f in ["adult.csv"] + [f"adult_hierarchy_{q}.csv" for q in QI]:
        shutil.copy(ADULT / f, tmp_path / f)
    hier = ", ".join(f'"{q}" = "adult_hierarchy_{q}.csv"' for q in QI)
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f"""
[input]
path = "adult.csv"
[output]
folder = "release"
[roles]
keys = {json.dumps(QI)}
reviewed = ["native-country"]
[risk]
k = 5
[[steps]]
use = "optimal"
keys = {json.dumps(QI)}
hierarchies = {{ {hier} }}
k = 5
suppression = 0.05
suppressed = "star"
""",
        encoding="utf-8",
    )
    res = runner.invoke(app, ["release", str(plan), "--json"])
    assert res.exit_code == 0, res.output
    released = pd.read_csv(tmp_path / "release" / "adult.csv", sep=";", dtype=str)
    assert released.groupby(QI).size().min() >= 5
    assert (released[QI] == "*").all(axis=1).sum() > 0  # suppressed records kept as * rows


@pytest.mark.browser
def test_report_renders_in_chromium(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("headless Chromium not installed")
    import subprocess

    out, report = tmp_path / "r.csv", tmp_path / "r.html"
    keys = ["sex", "age", "race"]
    res = runner.invoke(
        app,
        ["anonymize", str(ADULT / "adult.csv"), "--method", "optimal", "--keys", ",".join(keys)]
        + _hier_args(keys)
        + ["--k", "10", "--out", str(out), "--report", str(report)],
    )
    assert res.exit_code == 0, res.output
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", report.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "Optimum found" in dom
    assert len(re.findall(r"<circle", dom)) == 2 * 5 * 2  # sex × age × race lattice


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_counts_give_the_same_optimum(spark, adult_frame):
    """The records are counted on Spark, the search runs on the counts: same result."""
    keys = ["sex", "age", "race", "education"]
    hier = {q: ADULT / f"adult_hierarchy_{q}.csv" for q in keys}
    from hidekit.anonymize.optimal import optimal_generalization

    frame = adult_frame.astype(str)
    opts = dict(k=5, l=2, sensitive="salary-class", suppression=0.02, metric="loss")
    local = optimal_generalization(frame, keys, hier, **opts)
    on_spark = optimal_generalization(frame, keys, hier, engine="spark", **opts)
    assert on_spark.transformation == local.transformation
    assert on_spark.information_loss == local.information_loss
    assert (on_spark.suppressed, on_spark.classes) == (local.suppressed, local.classes)
