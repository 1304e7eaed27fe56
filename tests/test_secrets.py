"""``hidekit.secrets``: secrets from files, environment or prompt only; keyed randomness; plans
that hold no secret and releases that print none."""

from __future__ import annotations

import json
import stat

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import InputError, OptionError
from hidekit.secrets import (
    INSECURE_NOTE,
    Randomness,
    public_params,
    public_path,
    randomness,
    resolve_secret,
    rng_for,
)

runner = CliRunner()
KEY = b"k" * 40


def test_resolve_secret_file_env_and_nothing_else(tmp_path, monkeypatch):
    f = tmp_path / "pw"
    f.write_bytes(b"correct horse\n")
    assert resolve_secret(file=f) == b"correct horse"
    monkeypatch.setenv("HK_TEST_PW", "battery staple")
    assert resolve_secret(env="HK_TEST_PW") == b"battery staple"
    with pytest.raises(OptionError, match="not both"):
        resolve_secret(file=f, env="HK_TEST_PW")
    with pytest.raises(OptionError, match="HK_TEST_UNSET"):
        resolve_secret(env="HK_TEST_UNSET")
    assert resolve_secret(required=False) is None  # no terminal in tests: no prompt
    with pytest.raises(OptionError, match="file or an environment variable"):
        resolve_secret(prompt="Passphrase")
    with pytest.raises(InputError, match="no such file"):
        resolve_secret(file=tmp_path / "missing")


def test_keyed_streams_are_reproducible_independent_and_need_the_key():
    a = rng_for(KEY, "jitter", "lat").random(5)
    assert np.array_equal(a, rng_for(KEY, "jitter", "lat").random(5))
    assert not np.array_equal(a, rng_for(KEY, "jitter", "lon").random(5))  # another step
    assert not np.array_equal(a, rng_for(b"j" * 40, "jitter", "lat").random(5))  # another key
    fresh = Randomness.fresh()
    assert fresh.rng("x").random() == fresh.rng("x").random()  # consistent within a run
    assert Randomness.fresh().rng("x").random() != fresh.rng("x").random()  # not across runs
    with pytest.raises(OptionError, match="too short"):
        Randomness.from_key(b"short")
    assert "k" * 10 not in repr(Randomness.from_key(KEY))  # the key never in a repr


def test_seed_needs_insecure_seed_and_says_so():
    with pytest.raises(OptionError, match="insecure_seed"):
        randomness(seed=1)
    r = randomness(seed=1, insecure_seed=True)
    assert r.describe() == INSECURE_NOTE and r.insecure_seed
    assert randomness(key=KEY).describe() == "keyed" and randomness().describe() == "fresh"
    with pytest.raises(OptionError, match="not both"):
        randomness(key=KEY, seed=1, insecure_seed=True)


def test_public_params_drop_secrets_and_absolute_paths(tmp_path):
    params = {
        "seed": 3,
        "insecure_seed": True,
        "key_file": "/home/x/k.key",
        "columns": ["a"],
        "boundaries": str(tmp_path / "geo" / "areas.json"),
        "population": "/elsewhere/zip3.csv",
    }
    got = public_params(params, randomness(seed=3, insecure_seed=True), base=tmp_path)
    assert got == {
        "columns": ["a"],
        "boundaries": "geo/areas.json",
        "population": "zip3.csv",
        "randomness": INSECURE_NOTE,
    }
    assert public_path("/abs/where/x.csv") == "x.csv" and public_path("rel/x.csv") == "rel/x.csv"


# Plans ---------------------------------------------------------------------------------------

PLAN = """
[input]
path = "data.csv"
[output]
folder = "out"
[roles]
keys = ["sex"]
direct = ["name"]
[risk]
k = 1
"""


@pytest.fixture()
def plan_dir(tmp_path):
    pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(20)],
            "sex": ["f", "m"] * 10,
            "latitude": np.linspace(0, 1, 20),
            "longitude": np.linspace(10, 11, 20),
        }
    ).to_csv(tmp_path / "data.csv", index=False)
    from hidekit.jobs.files import new_key_file

    new_key_file(tmp_path / "plan.key")
    return tmp_path


def _plan(plan_dir, extra: str):
    p = plan_dir / "plan.toml"
    p.write_text(PLAN + extra)
    return p


def test_plan_refuses_a_key_or_passphrase_written_in_it(plan_dir):
    from hidekit.release import load_plan

    with pytest.raises(OptionError, match="key_file or key_env"):
        load_plan(_plan(plan_dir, '[[steps]]\nuse = "hash"\ncolumns = ["name"]\nkey = "s3cret"'))
    with pytest.raises(OptionError, match="published"):
        load_plan(_plan(plan_dir, '[secrets]\npassphrase = "s3cret"'))
    with pytest.raises(OptionError, match="needs the plan's secret key"):
        load_plan(_plan(plan_dir, '[[steps]]\nuse = "hash"\ncolumns = ["name"]'))


def test_plan_population_stays_in_the_plan_folder_and_is_not_echoed(plan_dir, tmp_path_factory):
    from hidekit.release import load_plan

    outside = tmp_path_factory.mktemp("elsewhere") / "secret.csv"
    outside.write_text("zip3,population\n021,PATIENT SECRET VALUE\n")
    for where in (str(outside), "../" + outside.parent.name + "/secret.csv"):
        step = f'[[steps]]\nuse = "safe_harbor"\nzips = ["sex"]\npopulation = "{where}"'
        with pytest.raises(OptionError, match="inside the plan's folder") as e:
            load_plan(_plan(plan_dir, step))
        assert str(outside.parent) not in str(e.value)
    inside = plan_dir / "pop.csv"
    inside.write_text("zip3,population\n021,PATIENT SECRET VALUE\n")
    step = '[[steps]]\nuse = "safe_harbor"\nzips = ["sex"]\npopulation = "pop.csv"'
    with pytest.raises(InputError) as e:  # bad content: named by file, content not echoed
        load_plan(_plan(plan_dir, step)).steps[0].make().fit(pd.DataFrame({"sex": ["021"]}))
    assert "pop.csv" in str(e.value) and "PATIENT" not in str(e.value)


def test_keyed_release_prints_no_secret_and_keeps_the_crosswalk_beside(plan_dir):
    steps = (
        '[secrets]\nkey_file = "plan.key"\n'
        '[[steps]]\nuse = "encode"\ncolumns = ["name"]\n'
        '[[steps]]\nuse = "jitter"\n'
    )
    r = runner.invoke(app, ["release", str(_plan(plan_dir, steps)), "--json", "--no-scan"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["keyed"] is True and res["insecure_seed"] is False
    assert res["plan"]["input"] == "data.csv" and res["output"] == "out"
    out, private = plan_dir / "out", plan_dir / "out.private"
    shipped = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))  # marker
    assert shipped == ["audit.jsonl", "data.csv", "report.html"]
    assert stat.S_IMODE((private / "crosswalk.hkcw").stat().st_mode) == 0o600
    for text in (r.output, (out / "audit.jsonl").read_text(), (out / "report.html").read_text()):
        key = (plan_dir / "plan.key").read_text().strip()
        assert key not in text and str(plan_dir) not in text and '"seed"' not in text
    again = runner.invoke(
        app, ["release", str(plan_dir / "plan.toml"), "--out", str(plan_dir / "o2"), "--no-scan"]
    )
    assert again.exit_code == 0, again.output  # the key reproduces the release
    assert (plan_dir / "o2" / "data.csv").read_bytes() == (out / "data.csv").read_bytes()


def test_insecure_seed_in_a_plan_is_refused_or_shouted(plan_dir):
    from hidekit.release import load_plan

    with pytest.raises(OptionError, match="insecure_seed"):
        load_plan(_plan(plan_dir, '[[steps]]\nuse = "jitter"\nseed = 2024'))
    p = _plan(
        plan_dir,
        '[[steps]]\nuse = "jitter"\nseed = 2024\ninsecure_seed = true\n'
        '[[steps]]\nuse = "remove"\ncolumns = ["name"]',
    )
    r = runner.invoke(app, ["release", str(p), "--json", "--no-scan"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["insecure_seed"] is True and "2024" not in r.output
    assert "INSECURE" in (plan_dir / "out" / "report.html").read_text()
    assert INSECURE_NOTE in (plan_dir / "out" / "audit.jsonl").read_text()


def test_private_folder_inside_the_output_is_refused(plan_dir):
    from hidekit.release import load_plan

    text = PLAN.replace('folder = "out"', 'folder = "out"\nprivate = "out/keys"')
    (plan_dir / "plan.toml").write_text(text)
    with pytest.raises(OptionError, match="inside the output"):
        load_plan(plan_dir / "plan.toml")


# Command line ----------------------------------------------------------------------------------


def test_jitter_cli_seed_refused_key_reproduces_insecure_warns(plan_dir, tmp_path):
    data = str(plan_dir / "data.csv")
    r = runner.invoke(app, ["jitter", data, "--out", str(tmp_path / "a.csv"), "--seed", "0"])
    assert r.exit_code == 2 and "--insecure-seed" in r.output
    assert not (tmp_path / "a.csv").exists()
    key = ["--key-file", str(plan_dir / "plan.key")]
    for name in ("k1.csv", "k2.csv"):
        r = runner.invoke(app, ["jitter", data, "--out", str(tmp_path / name), *key, "--json"])
        assert r.exit_code == 0 and json.loads(r.output)["parameters"]["randomness"] == "keyed"
    assert (tmp_path / "k1.csv").read_bytes() == (tmp_path / "k2.csv").read_bytes()
    r = runner.invoke(
        app,
        ["jitter", data, "--out", str(tmp_path / "s.csv"), "--seed", "0", "--insecure-seed"],
    )
    assert r.exit_code == 0 and "insecure seed" in r.output


def test_partition_with_a_key_encrypts_the_original_too(plan_dir, tmp_path):
    from hidekit.jobs.files import read_crosswalk

    r = runner.invoke(
        app,
        [
            "partition",
            str(plan_dir / "data.csv"),
            "-i",
            "name",
            "--out-dir",
            str(tmp_path / "p"),
            "--key-file",
            str(plan_dir / "plan.key"),
        ],
    )
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (tmp_path / "p").iterdir() if not p.name.startswith("."))
    assert names == ["data_deidentified.csv", "data_link.hkcw", "data_original.hkcw"]
    assert b"person 3" not in (tmp_path / "p" / "data_original.hkcw").read_bytes()
    original = read_crosswalk(tmp_path / "p" / "data_original.hkcw", key_file=plan_dir / "plan.key")
    assert "person 3" in set(original["name"])


def test_partition_without_a_secret_refuses_and_writes_nothing(plan_dir, tmp_path, monkeypatch):
    from hidekit.jobs.identifiers import partition_file

    monkeypatch.delenv("HIDEKIT_PASSPHRASE", raising=False)
    before = sorted(p.name for p in plan_dir.iterdir())
    r = runner.invoke(
        app,
        ["partition", str(plan_dir / "data.csv"), "-i", "name", "--out-dir", str(tmp_path / "p")],
    )
    lines = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
    assert "--key-file" in lines[0]
    with pytest.raises(OptionError, match="never in plain text"):
        partition_file(plan_dir / "data.csv", tmp_path / "p", identifiers=["name"])
    assert not (tmp_path / "p").exists()
    assert sorted(p.name for p in plan_dir.iterdir()) == before
    # a passphrase in the environment is enough: the original is then encrypted
    monkeypatch.setenv("HIDEKIT_PASSPHRASE", "correct horse battery")
    r = runner.invoke(
        app,
        ["partition", str(plan_dir / "data.csv"), "-i", "name", "--out-dir", str(tmp_path / "p")],
    )
    assert r.exit_code == 0, r.output
    assert b"person 3" not in (tmp_path / "p" / "data_original.hkcw").read_bytes()


PARTITION_STEP = (
    '[[steps]]\nuse = "partition"\nidentifiers = ["name"]\n'
    '[[steps]]\nuse = "remove"\ncolumns = ["latitude", "longitude"]\n'
)


def test_plan_partition_keeps_the_link_encrypted_in_the_private_folder(plan_dir):
    from hidekit.jobs.files import read_crosswalk
    from hidekit.jobs.release_job import run_plan

    plan = _plan(plan_dir, f'[secrets]\nkey_file = "plan.key"\n{PARTITION_STEP}')
    result = run_plan(plan)
    link = plan_dir / "out.private" / "link.hkcw"
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert b"person 3" not in link.read_bytes()
    back = read_crosswalk(link, key_file=plan_dir / "plan.key")
    released = pd.read_csv(plan_dir / "out" / "data.csv", dtype={"hk_id": str})
    assert "name" not in released.columns and len(back) == 20
    # the link maps every released ID back to its person
    joined = released.merge(back, on="hk_id")
    assert sorted(joined["name"]) == sorted(f"person {i}" for i in range(20))
    assert "link.hkcw" in result.files["crosswalk"]
    shipped = b"".join(f.read_bytes() for f in (plan_dir / "out").iterdir())
    assert b"person 3" not in shipped


def test_plan_partition_without_a_secret_refuses_and_writes_nothing(plan_dir, monkeypatch):
    from hidekit.jobs.release_job import run_plan

    monkeypatch.delenv("HIDEKIT_PASSPHRASE", raising=False)
    plan = _plan(plan_dir, PARTITION_STEP)
    before = sorted(p.name for p in plan_dir.iterdir())
    with pytest.raises(OptionError, match="partitions identifiers"):
        run_plan(plan)
    assert sorted(p.name for p in plan_dir.iterdir()) == before  # no output, no private folder
    r = runner.invoke(app, ["release", str(plan)])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in plan_dir.iterdir()) == before
