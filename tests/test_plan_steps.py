"""Plan steps (issue 16 item 5): documented one by one from the registry, unknown parameters
named, hierarchical encoding counted as handling the identifiers, mondrian usable in a plan,
topcode keeping a column numeric."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import OptionError
from hidekit.jobs.release_job import run_plan
from hidekit.release import load_plan
from hidekit.release.steps_doc import plan_steps_markdown, step_docs
from hidekit.transforms.safe_harbor import SafeHarbor
from hidekit.transforms.topcode import TopCode

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_docs_plan_steps_is_what_the_registry_says():
    """Regenerate with: .venv/bin/hidekit plan-steps --out docs/plan-steps.md"""
    assert (ROOT / "docs" / "plan-steps.md").read_text(encoding="utf-8") == plan_steps_markdown()


def test_every_parameter_of_every_step_is_documented():
    steps = step_docs()
    assert {"encode", "jitter", "topcode", "mondrian", "suppress"} <= {s["use"] for s in steps}
    missing = [(s["use"], p["name"]) for s in steps for p in s["parameters"] if not p["doc"]]
    assert missing == []
    assert all(s["summary"] for s in steps)


def test_cli_plan_steps_json_lists_the_same_steps():
    res = runner.invoke(app, ["plan-steps", "--json"])
    assert res.exit_code == 0
    assert [s["use"] for s in json.loads(res.stdout)] == [s["use"] for s in step_docs()]


def _write(tmp_path, frame, risk, steps, roles):
    frame.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "plan.toml").write_text(
        '[input]\npath = "t.csv"\n[output]\nfolder = "out"\n'
        f"[roles]\n{roles}\n[risk]\n{risk}\n"
        '[crosswalk]\npassphrase_env = "HK_TEST_PASS"\n' + steps,
        encoding="utf-8",
    )
    return tmp_path / "plan.toml"


def test_unknown_step_parameter_is_one_line_naming_the_known_ones(tmp_path):
    plan = _write(
        tmp_path,
        pd.DataFrame({"age": [1, 2]}),
        "k = 1",
        '[[steps]]\nuse = "topcode"\ncolumns = ["age"]\ntop = 1\ntop_pct = 99\n',
        'keys = ["age"]',
    )
    with pytest.raises(OptionError) as e:
        load_plan(plan)
    msg = str(e.value)
    assert "\n" not in msg and "step 'topcode': unknown parameter(s) 'top_pct'" in msg
    assert "known: columns, top, bottom, top_percentile, bottom_percentile, labels, flag" in msg
    res = runner.invoke(app, ["release", str(plan)])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "top_pct" in res.stderr


def test_hierarchical_encoding_handles_the_identifiers(tmp_path, monkeypatch):
    """Direct identifiers encoded as hierarchy levels were refused as if untouched."""
    monkeypatch.setenv("HK_TEST_PASS", "a test passphrase")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "district": rng.choice(["North", "South"], 40),
            "village": rng.choice(["V1", "V2", "V3"], 40),
            "sex": rng.choice(["F", "M"], 40),
        }
    )
    plan = _write(
        tmp_path,
        frame,
        "k = 1",
        '[[steps]]\nuse = "encode"\nhierarchy = ["district", "village"]\nseed = 3\ninsecure_seed = true\n',
        'direct = ["district", "village"]\nkeys = ["sex"]',
    )
    res = run_plan(plan, scan=False)
    assert res.released and not res.problems
    out = pd.read_csv(tmp_path / "out" / "t.csv", dtype=str)
    assert not set(out["district"]) & {"North", "South"}
    assert not set(out["village"]) & {"V1", "V2", "V3"}


def test_mondrian_step_runs_in_a_plan(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"age": rng.integers(20, 70, 60), "sex": rng.choice(["F", "M"], 60), "y": range(60)}
    )
    plan = _write(
        tmp_path,
        frame,
        "k = 4",
        '[[steps]]\nuse = "mondrian"\nkeys = ["age", "sex"]\nk = 4\nshuffle = false\n',
        'keys = ["age", "sex"]',
    )
    res = run_plan(plan, scan=False)
    assert res.released and res.after.k >= 4
    out = pd.read_csv(tmp_path / "out" / "t.csv")
    assert out["y"].tolist() == list(range(60))  # shuffle = false keeps the order
    assert out.groupby(["age", "sex"]).size().min() >= 4
    age = {v.column: v for v in res.loss}["age"]
    assert age.generalized == int((out["age"].astype(str) != frame["age"].astype(str)).sum())


def test_topcode_keeps_a_numeric_column_numeric_with_a_flag():
    f = pd.DataFrame({"age": pd.array([30, 95, 90, 12, None], dtype="Int64")})
    out = TopCode("age", top=90, bottom=15, labels=False, flag=True).fit_transform(f)
    assert pd.api.types.is_integer_dtype(out["age"])
    assert out["age"].tolist()[:4] == [30, 90, 90, 15] and pd.isna(out["age"][4])
    assert out["age_topcoded"].tolist() == [0, 1, 1, -1, 0]
    assert out["age"].mean() == pytest.approx((30 + 90 + 90 + 15) / 4)
    with pytest.raises(OptionError, match="age_topcoded exists already"):
        TopCode("age", top=90, flag=True).fit_transform(out)


def test_safe_harbor_numeric_ages():
    f = pd.DataFrame({"age": [30, 95, 89]})
    text = SafeHarbor(ages=["age"]).fit_transform(f)
    assert text["age"].tolist() == ["30", "90+", "89"]
    num = SafeHarbor(ages=["age"], numeric_ages=True).fit_transform(f)
    assert num["age"].tolist() == [30, 90, 89] and num["age_topcoded"].tolist() == [0, 1, 0]
