"""The contract of every job in ``hidekit.jobs``: it returns a ``JobResult`` whose ``to_dict()``
is plain JSON, whose outputs exist, and a user mistake is one line of ``HidekitError``."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hidekit import jobs
from hidekit.errors import HidekitError
from hidekit.jobs import JobResult, SecretOptions
from hidekit.jobs.corpus import write_brat_dir
from hidekit.jobs.files import new_key_file
from hidekit.text.corpus import Document, Span
from hidekit.transforms.generalize import Bin


@pytest.fixture
def ws(tmp_path):
    """A small table, a key, two annotated notes and a release plan."""
    rng = np.random.default_rng(0)
    n = 60
    pd.DataFrame(
        {
            "record_id": range(1, n + 1),
            "name": [f"Person {i}" for i in range(n)],
            "sex": rng.choice(["f", "m"], n),
            "age": rng.integers(20, 80, n),
            "zip": rng.choice(["02139", "02140", "10001"], n),
            "diagnosis": rng.choice(["flu", "asthma", "gout"], n),
        }
    ).to_csv(tmp_path / "data.csv", index=False)
    new_key_file(tmp_path / "k.key")
    text = "Seen Mr John Smith on 3 May 2020 in Boston."
    spans = [Span(8, 18, "NAME", "John Smith"), Span(22, 32, "DATE", "3 May 2020")]
    write_brat_dir(
        [Document("note-1-1", text, spans), Document("note-2-1", text, spans)], tmp_path / "notes"
    )
    (tmp_path / "plan.toml").write_text(
        '[input]\npath = "data.csv"\n[output]\nfolder = "rel"\n[roles]\nkeys = ["sex"]\n'
        'direct = ["name"]\n[risk]\nk = 1\n[[steps]]\nuse = "remove"\ncolumns = ["name"]\n'
    )
    return tmp_path


def _age_hierarchy(ws: Path) -> Path:
    rows = [f"{a};{a // 10 * 10}s;*" for a in range(20, 80)]
    (ws / "age.csv").write_text("\n".join(rows) + "\n")
    return ws / "age.csv"


# One call per job: a new job fails test_every_job_is_covered until it is added here.
CALLS = {
    "transform": lambda w: jobs.transform(w / "data.csv", w / "o.csv", Bin(["age"], width=10)),
    "suppress": lambda w: jobs.suppress(w / "data.csv", w / "o.csv", keys=["sex", "zip"], k=2),
    "suppress_risk": lambda w: jobs.suppress_risk(
        w / "data.csv", w / "o.csv", keys=["sex", "zip"], threshold=0.5
    ),
    "anonymize": lambda w: jobs.anonymize(
        w / "data.csv",
        w / "o.csv",
        keys=["age", "zip"],
        k=3,
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
    "anonymize_optimal": lambda w: jobs.anonymize_optimal(
        w / "data.csv", w / "o.csv", keys=["age"], hierarchies={"age": str(_age_hierarchy(w))}, k=2
    ),
    "utility": lambda w: jobs.utility(
        w / "data.csv",
        jobs.suppress(w / "data.csv", w / "s.csv", keys=["sex", "zip"], k=2).outputs["data"],
        keys=["sex", "zip"],
        queries=50,
        report=w / "u.html",
    ),
    "hierarchy": lambda w: jobs.hierarchy(w / "data.csv", w / "h.csv", column="age", intervals=10),
    "scan": lambda w: jobs.scan(w / "data.csv"),
    "risk": lambda w: jobs.risk(w / "data.csv", keys=["sex", "zip"], report=w / "r.html"),
    "select": lambda w: jobs.select(w / "data.csv", keys=["sex", "zip", "age"], stop=0.5),
    "encode": lambda w: jobs.encode(
        w / "data.csv",
        w / "o.csv",
        crosswalk=w / "cw.hkcw",
        columns=["name"],
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
    "partition": lambda w: jobs.partition(
        w / "data.csv",
        w / "parts",
        identifiers=["name"],
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
    "crosswalk": lambda w: jobs.crosswalk(
        jobs.encode(
            w / "data.csv",
            w / "o.csv",
            crosswalk=w / "cw.hkcw",
            columns=["name"],
            secrets=SecretOptions(key_file=w / "k.key"),
        ).outputs["crosswalk"],
        w / "cw.csv",
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
    "new_key": lambda w: jobs.new_key(w / "new.key"),
    "release": lambda w: jobs.release(w / "plan.toml", secrets=SecretOptions(key_file=w / "k.key")),
    "synth": lambda w: jobs.synth(w / "synth", n=3, seed=1),
    "evaluate": lambda w: jobs.evaluate(w / "notes", w / "notes"),
    "anonymize_text": lambda w: jobs.anonymize_text(
        w / "notes",
        w / "anon",
        operator="surrogate",
        spans=w / "notes",
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
    "text_risk": lambda w: jobs.text_risk(w / "notes", w / "notes", draws=200, report=w / "t.html"),
    "detect": lambda w: jobs.detect(w / "notes", w / "found", n_jobs=1),
    "train": lambda w: jobs.train(w / "notes", w / "m.model", folds=0, max_iterations=5, n_jobs=1),
    "link": lambda w: jobs.link(
        w / "data.csv",
        w / "notes",
        w / "linked",
        key="record_id",
        keys=["sex", "age"],
        k=1,
        note_pattern=r"^note-(?P<patient>\d+)-\d+",
        spans=w / "notes",
        secrets=SecretOptions(key_file=w / "k.key"),
    ),
}


def _jobs() -> list[str]:
    return [n for n in jobs.__all__ if inspect.isfunction(getattr(jobs, n))]


def test_every_job_is_covered():
    assert sorted(CALLS) == sorted(_jobs())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_job_returns_a_plain_json_result_naming_files_that_exist(ws, name):
    result = CALLS[name](ws)
    assert isinstance(result, JobResult)
    d = result.to_dict()
    assert json.loads(json.dumps(d)) == d  # plain JSON values only
    assert {"inputs", "outputs", "warnings"} <= set(d)
    for role, path in result.outputs.items():
        assert Path(path).exists() or (ws / path).exists(), (name, role, path)
    for role, path in result.inputs.items():
        assert Path(path).exists() or (ws / path).exists() or role == "model", (name, role, path)
    shape = inspect.signature(getattr(jobs, name))
    assert "progress" in shape.parameters and shape.parameters["progress"].default is None


def test_a_job_reports_progress_through_the_callable(ws):
    seen = []
    jobs.anonymize(
        ws / "data.csv",
        ws / "o.csv",
        keys=["age", "zip"],
        k=3,
        progress=lambda n=1, **kw: seen.append((n, kw)),
    )
    assert seen[0] == (0, {"total": 60}) and 0 < sum(n for n, _ in seen) <= 60


BAD = {
    "missing input": lambda w: jobs.suppress(w / "nope.csv", w / "o.csv", keys=["sex"]),
    "output is the input": lambda w: jobs.transform(
        w / "data.csv", w / "data.csv", Bin(["age"], width=5)
    ),
    "unknown column": lambda w: jobs.risk(w / "data.csv", keys=["height"]),
    "unknown format": lambda w: jobs.detect(w / "notes", w / "o", fmt="xml"),
    "seed without insecure_seed": lambda w: jobs.anonymize(
        w / "data.csv", w / "o.csv", keys=["age"], k=2, secrets=SecretOptions(seed=1)
    ),
    "two secrets": lambda w: jobs.partition(
        w / "data.csv",
        w / "p",
        identifiers=["name"],
        secrets=SecretOptions(key_file=w / "k.key", passphrase_env="X"),
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_user_mistake_is_one_line_of_hidekit_error(ws, case):
    with pytest.raises(HidekitError) as info:
        BAD[case](ws)
    assert "\n" not in str(info.value) and str(info.value)
    assert not (ws / "o.csv").exists()


def test_figures_may_not_shadow_the_result_fields():
    with pytest.raises(ValueError, match="warnings"):
        JobResult("x", figures={"warnings": []})


def test_the_insecure_seed_is_a_warning_of_the_result(ws):
    from hidekit.secrets import INSECURE_NOTE

    r = jobs.anonymize(
        ws / "data.csv",
        ws / "o.csv",
        keys=["age"],
        k=2,
        identifiers=["name"],  # else a warning names it as a direct identifier left
        secrets=SecretOptions(seed=3, insecure_seed=True),
    )
    assert r.warnings == [INSECURE_NOTE]
    keyed = jobs.anonymize(
        ws / "data.csv",
        ws / "o2.csv",
        keys=["age"],
        k=2,
        identifiers=["name"],
        secrets=SecretOptions(key_file=ws / "k.key"),
    )
    assert keyed.warnings == []


# Command line: one declaration of the secret options ----------------------------------------


def _options(path: list[str]) -> dict[str, object]:
    import typer.main

    from hidekit.cli.main import app

    cmd = typer.main.get_command(app)
    ctx = None
    for name in path:
        cmd = cmd.get_command(ctx, name)
    return {opt: p for p in cmd.params for opt in p.opts}


SECRET_COMMANDS = [
    ["link"],
    ["text", "anonymize"],
    ["release"],
    ["encode"],
    ["partition"],
    ["crosswalk"],
    ["jitter"],
    ["anonymize"],
    ["hash"],
]


@pytest.mark.parametrize("path", SECRET_COMMANDS, ids=" ".join)
def test_every_secret_option_is_the_one_shared_declaration(path):
    from hidekit.cli.secret_options import GROUPS

    shared = {opt: o for entries in GROUPS.values() for _, _, o in entries for opt in o.param_decls}
    params = _options(path)
    assert "--key-file" in params and "--key-env" in params
    for opt, param in params.items():
        if opt in shared:
            assert param.help == shared[opt].help, (path, opt)
    # a secret is never an option's value: --passphrase VALUE is refused when given
    assert "--passphrase" not in params or params["--passphrase"].hidden


def test_release_takes_the_key_on_the_command_line(ws):
    from typer.testing import CliRunner

    from hidekit.cli.main import app

    plan = ws / "plan.toml"
    plan.write_text(plan.read_text() + '[[steps]]\nuse = "encode"\ncolumns = ["record_id"]\n')
    runner = CliRunner()
    r = runner.invoke(app, ["release", str(plan), "--json"])
    assert r.exit_code == 2 and "key_file" in r.output  # the crosswalk needs a secret
    r = runner.invoke(app, ["release", str(plan), "--key-file", str(ws / "k.key"), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["keyed"] is True and d["outputs"]["private"] == "rel.private"
    assert (ws / "rel.private" / "crosswalk.hkcw").exists()
    key = (ws / "k.key").read_text().strip()
    assert key not in r.output and str(ws) not in r.stdout


def test_hash_reads_its_key_through_the_shared_secret_options(ws, monkeypatch):
    from typer.testing import CliRunner

    from hidekit.cli.main import app

    runner = CliRunner()
    args = ["hash", str(ws / "data.csv"), "-c", "name", "--json"]
    by_file = runner.invoke(
        app, [*args, "--out", str(ws / "f.csv"), "--key-file", str(ws / "k.key")]
    )
    assert by_file.exit_code == 0, by_file.output
    monkeypatch.setenv("HK_TEST_KEY", (ws / "k.key").read_text().strip())
    by_env = runner.invoke(app, [*args, "--out", str(ws / "e.csv"), "--key-env", "HK_TEST_KEY"])
    assert by_env.exit_code == 0, by_env.output
    assert (ws / "f.csv").read_bytes() == (ws / "e.csv").read_bytes()  # one key, one token
    tokens = pd.read_csv(ws / "f.csv")["name"]
    assert tokens.str.fullmatch("[0-9a-f]{64}").all()
    r = runner.invoke(app, [*args, "--out", str(ws / "n.csv")])
    assert r.exit_code == 2 and "--key-file" in r.stderr and not (ws / "n.csv").exists()


def test_a_passphrase_in_memory_is_used_never_shown(ws):
    secrets = SecretOptions(passphrase_value=b"correct horse battery staple")
    assert "correct horse" not in repr(secrets) and "correct horse" not in str(secrets)
    assert secrets.passphrase() == b"correct horse battery staple"
    assert secrets.crosswalk() == {"passphrase": b"correct horse battery staple"}
    with pytest.raises(HidekitError):
        SecretOptions(passphrase_value=b"x", key_file=ws / "k.key").crosswalk()
    plan = ws / "plan.toml"
    plan.write_text(plan.read_text() + '[[steps]]\nuse = "encode"\ncolumns = ["record_id"]\n')
    job = jobs.release(plan, secrets=secrets)
    assert job.outputs["private"] == "rel.private"
    from hidekit.jobs.files import read_crosswalk

    cw = read_crosswalk(
        ws / "rel.private" / "crosswalk.hkcw", passphrase="correct horse battery staple"
    )
    assert len(cw) == 60
