"""The ``text_columns`` plan step: detection and an operator on free-text columns, text risk in
the audit (issue 14)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from hidekit.errors import OptionError
from hidekit.evaluation.text_risk import di_risk
from hidekit.jobs.release_job import run_plan
from hidekit.release.text_columns import TextColumns

ANSWERS = [
    "My neighbour Mary Okafor helps, call her on 07700 900123.",
    "Nothing to add.",
    None,
    "Refunds go to GB29 NWBK 6016 1331 9268 19 please.",
]


def test_step_rewrites_answers_and_records_the_text_risk():
    frame = pd.DataFrame({"id": [1, 2, 3, 4], "other": ANSWERS})
    step = TextColumns(columns=["other"], operator="tag", profile="hipaa", recall=0.9)
    out = step.fit_transform(frame)
    assert out["other"][1] == "Nothing to add." and out["other"][2] is None
    assert "Okafor" not in out["other"][0] and "07700" not in out["other"][0]
    assert "[ACCOUNT]" in out["other"][3]
    assert frame["other"][0] == ANSWERS[0]  # the input is left untouched
    d = step.decisions_["other"]
    assert d["cells"] == 3 and d["cells_with_phi"] == 2
    risk = d["text_risk"]
    # eq. (11) by hand: each direct type's share of cells w, recall 0.9
    expected = 1.0
    for w in risk["direct_types"].values():
        expected *= 1 - w * (1 - 0.9)
    assert risk["direct_leak_probability"] == pytest.approx(1 - expected, abs=1e-6)
    assert risk["direct_types"]["PHONE"] == pytest.approx(1 / 3, abs=1e-6)
    w = list(risk["direct_types"].values())
    assert risk["direct_leak_probability"] == pytest.approx(di_risk(w, [0.9] * len(w)), abs=1e-6)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(OptionError, match="operator"):
        TextColumns(columns=["x"], operator="shout")
    with pytest.raises(OptionError, match="unknown profile"):
        TextColumns(columns=["x"], profile="gdpr")
    with pytest.raises(OptionError, match="recall"):
        TextColumns(columns=["x"], recall=2)
    assert "key" not in TextColumns(columns=["x"], key=b"k" * 32).get_params()


def test_plan_puts_the_text_risk_in_the_audit(tmp_path):
    pd.DataFrame(
        {"sex": [1, 2, 1, 2] * 3, "age": [30, 40, 30, 40] * 3, "other": ANSWERS * 3}
    ).to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "plan.toml").write_text(
        '[input]\npath = "survey.csv"\n[output]\nfolder = "release"\n'
        '[roles]\nkeys = ["sex", "age"]\n[risk]\nk = 2\n'
        '[[steps]]\nuse = "text_columns"\ncolumns = ["other"]\nprofile = "hipaa"\n'
    )
    res = run_plan(tmp_path / "plan.toml")
    assert res.released
    audit = [json.loads(x) for x in (tmp_path / "release" / "audit.jsonl").read_text().splitlines()]
    step = next(r for r in audit if r.get("use") == "text_columns")
    assert step["decisions"]["other"]["cells_with_phi"] == 6
    assert 0 < step["decisions"]["other"]["text_risk"]["direct_leak_probability"] < 1
    released = (tmp_path / "release" / "survey.csv").read_text()
    assert "Okafor" not in released and "GB29" not in released
