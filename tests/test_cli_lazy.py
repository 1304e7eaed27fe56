"""The command line imports a command's module only when that command runs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from hidekit.cli.main import TABLE_COMMANDS, TEXT_COMMANDS

from conftest import ADULT


def _commands(table: dict[str, str]) -> dict[str, str]:
    """command name -> module, read from each module's own COMMANDS."""
    found: dict[str, str] = {}
    for module in dict.fromkeys(table.values()):
        for name in importlib.import_module(f"hidekit.cli.{module}").COMMANDS:
            found[name] = module
    return found


def test_every_command_of_every_module_is_listed_under_its_module():
    assert _commands(TABLE_COMMANDS) == TABLE_COMMANDS
    assert _commands(TEXT_COMMANDS) == TEXT_COMMANDS


RUN_RISK = """
import json, sys
from typer.testing import CliRunner
from hidekit.cli.main import app
res = CliRunner().invoke(app, ["risk", sys.argv[1], "--keys", "sex,age", "--json"])
heavy = sorted(m for m in ("sklearn", "hidekit.text", "hidekit.anonymize", "hidekit.linking")
               if m in sys.modules)
print(res.exit_code, json.loads(res.stdout)["records"], ",".join(heavy) or "-")
"""


def test_risk_runs_without_importing_the_text_models_or_the_anonymizers():
    # numba (and the scipy it loads) is imported: the engines count cells with compiled kernels
    done = subprocess.run(
        [sys.executable, "-c", RUN_RISK, str(ADULT)], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "30162", "-"], done.stdout + done.stderr


RUN_FILE_RISK = """
import json, sys
from typer.testing import CliRunner
from hidekit.engines import duckdb_engine
from hidekit.cli.main import app
duckdb_engine.DIRECT_FROM_BYTES = 0  # read as a large file is: DuckDB counts over the file
res = CliRunner().invoke(app, ["risk", sys.argv[1], "--keys", "sex,age,race", "--json"])
print(res.exit_code, json.loads(res.stdout)["records"], "numba" in sys.modules)
"""


def test_risk_of_a_large_file_does_not_load_the_compiled_kernels():
    """Issue 17: numba and the scipy it loads cost ~1 CPU s of start-up; counting over a file
    never needs them (the few distinct cells are numbered by a sort)."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_FILE_RISK, str(ADULT)], capture_output=True, text=True
    )
    assert done.stdout.split() == ["0", "30162", "False"], done.stdout + done.stderr


def test_a_lazily_loaded_command_gives_the_same_answer_as_the_api():
    from typer.testing import CliRunner

    from hidekit.cli.main import app
    from hidekit.jobs import risk

    res = CliRunner().invoke(app, ["text", "--help"])
    assert res.exit_code == 0 and "detect" in res.stdout and "anonymize" in res.stdout
    res = CliRunner().invoke(app, ["risk", str(ADULT), "--keys", "sex,age,race", "--json"])
    assert res.exit_code == 0, res.output
    expected = risk(ADULT, keys=["sex", "age", "race"]).figures
    assert json.loads(res.stdout)["cells"] == expected["cells"]
