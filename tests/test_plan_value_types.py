"""Every setting of every plan section, given a value of the wrong type or a misspelt name, is a
one-line error with exit code 2 before anything is read or written: never a traceback, never a
silent coercion (``max_loss = "abc"``), never ignored (``maxloss = 0.5``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.release.plan import _RISK_KEYS, _SECTION_KEYS

ADULT = Path("tests/fixtures/adult/adult.csv").resolve()

# A plan that loads: every setting of every section at a valid value (TOML text).
GOOD = {
    "input": {"path": '"adult.csv"', "sep": '";"'},
    "output": {
        "folder": '"release"',
        "overwrite": "false",
        "neutralize_formulas": "true",
        "private": '"private"',
    },
    "roles": {"direct": "[]", "keys": '["sex"]', "sensitive": "[]", "reviewed": "[]"},
    "risk": {"k": "2", "rp": "0.5", "cell_min": "2", "max_loss": "0.5"},
}
SECRETS = ("key_file", "key_env", "passphrase_file", "passphrase_env")

# Values of the wrong type for each kind of setting (a valid value of one kind is a wrong one
# for another: text where a number is expected, a number where text is, and so on).
WRONG = {
    "text": ["1.5", "true", "[1, 2]", "{a = 1}", "7"],
    "number": ['"abc"', '"0.5"', "true", "[0.5]", "{a = 1}", "nan", "inf"],
    "whole": ['"abc"', '"3"', "2.5", "true", "[2]", "{a = 1}"],
    "bool": ['"true"', "1", "0", "[true]", "{a = 1}"],
    "names": ["1", "true", "[1, 2]", "{a = 1}", '["a", 2]'],
}
# Settings checked like the others but left out of the plan that loads (they change what runs).
EXTRA = {
    "weights": "text",
    "household": "text",
    "missing": "text",
    "global_risk": "number",
    "expected_reidentifications": "number",
    "risk_threshold": "number",
    "share_above_threshold": "number",
}
KIND = {
    "path": "text",
    "sep": "text",
    "folder": "text",
    "private": "text",
    "overwrite": "bool",
    "neutralize_formulas": "bool",
    "direct": "names",
    "keys": "names",
    "sensitive": "names",
    "reviewed": "names",
    "k": "whole",
    "rp": "number",
    "cell_min": "whole",
    "max_loss": "number",
}


def _write(folder: Path, section: str, key: str, value: str, secrets: str = "") -> Path:
    lines = []
    for sec, settings in GOOD.items():
        lines.append(f"[{sec}]")
        for k, v in settings.items():
            lines.append(f"{k} = {value if (sec, k) == (section, key) else v}")
        if sec == section and key not in settings:
            lines.append(f"{key} = {value}")
    plan = folder / "plan.toml"
    plan.write_text("\n".join(lines) + "\n" + secrets)
    return plan


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ADULT, tmp_path / "adult.csv")
    return tmp_path


def _refused(plan: Path, folder: Path, *words: str) -> str:
    before = sorted(p.name for p in folder.iterdir())
    res = CliRunner().invoke(app, ["release", str(plan)])
    assert res.exit_code == 2, (plan.read_text(), res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for w in words:
        assert w in lines[0], lines[0]
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written
    return lines[0]


def test_the_good_plan_loads_and_every_section_setting_is_covered(folder):
    from hidekit.release import load_plan

    plan = load_plan(_write(folder, "", "", ""))
    assert plan.max_loss == 0.5 and plan.k == 2 and plan.sep == ";"
    assert {s: tuple(v) for s, v in GOOD.items() if s != "risk"} == _SECTION_KEYS
    assert set(GOOD["risk"]) | set(EXTRA) == _RISK_KEYS
    assert set(KIND) == {k for v in GOOD.values() for k in v}


@pytest.mark.parametrize(
    "section,key,value",
    [(s, k, v) for s, keys in GOOD.items() for k in keys for v in WRONG[KIND[k]]]
    + [("risk", k, v) for k, kind in EXTRA.items() for v in WRONG[kind]],
)
def test_a_value_of_the_wrong_type_is_one_line(folder, section, key, value):
    line = _refused(_write(folder, section, key, value), folder, key)
    assert f"[{section}]" in line or "sep" in line or "folder" in line


def test_max_loss_abc_names_the_setting_and_the_value(folder):
    line = _refused(_write(folder, "risk", "max_loss", '"abc"'), folder)
    assert line == "error: plan [risk] max_loss must be a number, got 'abc'"


@pytest.mark.parametrize("section", list(GOOD))
def test_a_misspelt_setting_is_refused_naming_the_known_ones(folder, section):
    plan = _write(folder, "", "", "")
    text = plan.read_text().replace(f"[{section}]\n", f"[{section}]\nmaxloss = 0.5\n", 1)
    plan.write_text(text)
    line = _refused(plan, folder, f"[{section}]", "maxloss", "known: ")
    assert all(k in line for k in GOOD[section])


@pytest.mark.parametrize("key", SECRETS)
@pytest.mark.parametrize("value", ["1.5", "true", "[1, 2]", "{a = 1}", "7", '""'])
def test_a_secret_source_of_the_wrong_type_is_one_line(folder, key, value):
    plan = _write(folder, "", "", "", secrets=f"[secrets]\n{key} = {value}\n")
    _refused(plan, folder, f"[secrets] {key}")


@pytest.mark.parametrize(
    "steps,words",
    [
        ("steps = 3\n", ["steps"]),
        ("[[steps]]\nuse = 3\n", ["use"]),
        ('[[steps]]\nuse = "suppress"\nkeys = ["sex"]\nk = "3"\n', ["k must be"]),
        ('[[steps]]\nuse = "topcode"\ncolumns = ["age"]\ntop = "x"\n', ["top"]),
        ('[[steps]]\nuse = "jitter"\nurban = 3\n', ["urban"]),
        ('[[steps]]\nuse = "remove"\ncolumns = 3\n', ["columns"]),
        ('[[steps]]\nuse = "bin"\ncolumns = ["age"]\nwidth = "10"\n', ["width"]),
    ],
)
def test_steps_of_the_wrong_shape_are_one_line(folder, steps, words):
    plan = _write(folder, "", "", "")
    plan.write_text(plan.read_text() + steps)
    _refused(plan, folder, *words)
