"""Nothing lost, nothing written outside the target (issue 18, items 1-4, 7, 9, 12).

The destructive-output test enumerates every command of the Typer app that writes an output
(``--out``, ``--out-dir``, ``--overwrite``, ``--export``, ``--report``), so a new command fails it
until it is given a case here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pandas as pd
import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hidekit.cli.main import app
from hidekit.errors import OutputError

runner = CliRunner()
OUTPUT_OPTIONS = {"--out", "--out-dir", "--overwrite", "--export", "--report"}

PEOPLE = pd.DataFrame(
    {
        "pid": [f"P{i:03d}" for i in range(12)],
        "name": [f"Name{i}" for i in range(12)],
        "age": [23, 35, 47, 52, 61, 29, 33, 45, 58, 67, 71, 38],
        "sex": ["F", "M"] * 6,
        "zip": ["02139", "02140", "02141"] * 4,
        "latitude": [42.36 + i / 1000 for i in range(12)],
        "longitude": [-71.09 - i / 1000 for i in range(12)],
        "urban": ["urban", "rural"] * 6,
        "visit": [f"2020-01-0{1 + i % 9}" for i in range(12)],
    }
)
NOTE = "Patient Name0 was seen on 2020-01-01 in Boston."


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def partition_argv(data: Path, out, *more) -> list:
    """``partition`` of the people file into ``out`` (with the key its outputs need)."""
    return ["partition", data / "people.csv", "-i", "name", "--key-file", data / "k.key",
            "--out-dir", out, *more]  # fmt: skip


def one_error_line(res) -> str:
    """The promised failure: exit code 2 and exactly one line on stderr, starting 'error:'."""
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.exit_code == 2, (res.exit_code, res.output, res.stderr)
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    return lines[0]


def snapshot(root: Path) -> dict:
    """Every file under ``root`` with its bytes: compared before and after a refused command."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _write_notes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(2):
        (folder / f"note-{i:03d}-1.txt").write_text(NOTE.replace("Name0", f"Name{i}"))
        start = NOTE.index("Name0")
        (folder / f"note-{i:03d}-1.ann").write_text(f"T1\tNAME {start} {start + 5}\tName{i}\n")
    return folder


@pytest.fixture
def work(tmp_path):
    """work/keep.txt (unrelated) and work/data/: the inputs every case reads, plus unrelated.txt."""
    from hidekit.jobs.files import new_key_file, write_crosswalk

    root = tmp_path / "work"
    data = root / "data"
    data.mkdir(parents=True)
    (root / "keep.txt").write_text("not hidekit's")
    (data / "unrelated.txt").write_text("mine")
    PEOPLE.to_csv(data / "people.csv", index=False)
    key = new_key_file(data / "k.key")
    write_crosswalk(PEOPLE[["pid", "name"]], data / "cw.hkcw", key_file=key)
    _write_notes(data / "notes")
    docs = [
        {"id": f"d{i}", "text": NOTE, "spans": [{"start": 8, "end": 13, "label": "NAME"}]}
        for i in range(3)
    ]
    (data / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    return root


def _plan(data: Path, folder: str) -> Path:
    plan = data / "plan.toml"
    plan.write_text(
        f'[input]\npath = "people.csv"\n[output]\nfolder = "{folder}"\n'
        '[roles]\ndirect = []\nkeys = ["sex"]\n[risk]\nk = 1\n'
    )
    return plan


# Each case: (command path, argv builder taking (data folder, output path)).
D = "data"
CASES = {
    "risk": lambda d, o: ["risk", d / "people.csv", "--keys", "sex", "--report", o],
    "select": lambda d, o: [
        "select", d / "people.csv", "--keys", "sex,age", "--stop", "0.5", "--report", o,
    ],
    "encode": lambda d, o: [
        "encode", d / "people.csv", "-c", "pid", "--out", o, "--crosswalk", d / "new.hkcw",
        "--key-file", d / "k.key",
    ],
    "redact": lambda d, o: ["redact", d / "people.csv", "-c", "name", "--out", o],
    "remove": lambda d, o: ["remove", d / "people.csv", "-c", "name", "--out", o],
    "hash": lambda d, o: [
        "hash", d / "people.csv", "-c", "name", "--out", o, "--key-file", d / "k.key",
    ],
    "partition": lambda d, o: partition_argv(d, o),
    "crosswalk": lambda d, o: [
        "crosswalk", d / "cw.hkcw", "--key-file", d / "k.key", "--export", o,
    ],
    "release": lambda d, o: ["release", _plan(d, "."), "--out", o],
    "generalize": lambda d, o: [
        "generalize", d / "people.csv", "-c", "age", "--width", "10", "--out", o,
    ],
    "topcode": lambda d, o: ["topcode", d / "people.csv", "-c", "age", "--top", "60", "--out", o],
    "safe-harbor": lambda d, o: ["safe-harbor", d / "people.csv", "--ages", "age", "--out", o],
    "jitter": lambda d, o: ["jitter", d / "people.csv", "--urban", "urban", "--out", o],
    "suppress": lambda d, o: ["suppress", d / "people.csv", "--keys", "sex,age", "--out", o],
    "anonymize": lambda d, o: [
        "anonymize", d / "people.csv", "--keys", "sex,age", "--k", "2", "--out", o,
    ],
    "hierarchy": lambda d, o: [
        "hierarchy", d / "people.csv", "--column", "age", "--intervals", "10", "--out", o,
    ],
    "utility": lambda d, o: [
        "utility", d / "people.csv", d / "people.csv", "--keys", "sex", "--report", o,
    ],
    "link": lambda d, o: [
        "link", d / "people.csv", d / "notes", "--key", "pid", "--keys", "sex,age", "--k", "2",
        "--spans", d / "notes", "--note-pattern", r"^note-(?P<patient>\d+)-\d+\.txt$", "--out", o,
    ],
    "demo": lambda d, o: ["demo", "--records", "50", "--out", o],
    "plan-steps": lambda d, o: ["plan-steps", "--out", o],
    "text detect": lambda d, o: ["text", "detect", d / "notes", "--out", o],
    "text train": lambda d, o: ["text", "train", "--data", d / "corpus.jsonl", "--out", o],
    "text synth": lambda d, o: ["text", "synth", "--n", "2", "--patients", d / "people.csv", "--out", o],
    "text anonymize": lambda d, o: [
        "text", "anonymize", d / "notes", "--spans", d / "notes", "--out", o,
    ],
    "text risk": lambda d, o: [
        "text", "risk", "--gold", d / "corpus.jsonl", "--pred", d / "corpus.jsonl", "--report", o,
    ],
}  # fmt: skip


def output_commands() -> dict[str, set[str]]:
    """Every command of the app with an output option, and its options (walked, not listed)."""
    found: dict[str, set[str]] = {}

    def walk(cmd, path=()):
        if isinstance(cmd, click.Group):  # click's API: the app loads commands lazily
            ctx = click.Context(cmd)
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), (*path, name))
            return
        opts = {o for p in cmd.params for o in getattr(p, "opts", []) if o.startswith("--")}
        if opts & OUTPUT_OPTIONS:
            found[" ".join(path)] = opts

    walk(typer.main.get_command(app))
    return found


def test_every_output_command_has_a_destructive_case():
    commands = output_commands()
    assert len(commands) >= 20  # the walk found the app's commands, not an empty group
    assert len(TABLE_COMMANDS) >= 12
    missing = sorted(set(commands) - set(CASES))
    assert not missing, f"give these commands a case in CASES: {missing}"


# Why an output is refused: the words of hidekit.io.atomic's messages (not a usage error).
REFUSAL = re.compile(
    r"is a folder|holds the input|is the input|inside the input|not written by hidekit|"
    r"refusing to overwrite the input|is a file|same file"
)
# The commands that read people.csv (their output may not be it).
TABLE_COMMANDS = [
    "anonymize", "encode", "generalize", "hash", "jitter", "link", "partition", "redact",
    "remove", "risk", "safe-harbor", "select", "suppress", "text synth", "topcode", "utility",
]  # fmt: skip


@pytest.mark.parametrize("where", ["input folder", "parent folder", "input file"])
@pytest.mark.parametrize("command", sorted(CASES))
def test_output_into_the_input_folder_or_its_parent_loses_nothing(work, command, where):
    data = work / D
    if where == "input file" and command not in TABLE_COMMANDS:
        pytest.skip("the command does not read people.csv")
    target = {"input folder": data, "parent folder": work, "input file": data / "people.csv"}
    argv = CASES[command](data, target[where])
    if command == "release" and where == "parent folder":
        argv = ["release", _plan(data, "..")]  # the plan's own folder setting, no --out
    elif command == "release":
        argv = ["release", _plan(data, ".")]
    if "--overwrite" in output_commands()[command]:
        argv.append("--overwrite")
    before = snapshot(work)
    res = run(*argv)
    assert REFUSAL.search(one_error_line(res))
    assert snapshot(work) == before  # the input, the unrelated files, nothing added


# --- item 1: only hidekit's own folders are replaced -------------------------------------------


def test_overwrite_replaces_only_a_folder_hidekit_marked(work):
    data = work / D
    out = work / "parts"
    argv = partition_argv(data, out)
    assert run(*argv).exit_code == 0
    marker = json.loads((out / ".hidekit-output").read_text())
    assert sorted(marker["files"]) == sorted(p.name for p in out.iterdir() if p.name[0] != ".")
    assert run(*argv, "--overwrite").exit_code == 0  # hidekit's own folder: replaced
    (out / "notes.txt").write_text("added by a person")
    line = one_error_line(run(*argv, "--overwrite"))
    assert "did not write" in line and "notes.txt" in line
    assert (out / "notes.txt").read_text() == "added by a person"
    unmarked = work / "mine"
    unmarked.mkdir()
    (unmarked / "thesis.docx").write_text("years of work")
    line = one_error_line(run(*partition_argv(data, unmarked, "--overwrite")))
    assert "not written by hidekit" in line
    assert (unmarked / "thesis.docx").read_text() == "years of work"


def test_demo_refuses_an_existing_folder_without_overwrite(work):
    target = work / "existing"
    target.mkdir()
    (target / "precious.csv").write_text("a,b\n")
    line = one_error_line(run("demo", "--records", "50", "--out", target))
    assert "--overwrite" in line and (target / "precious.csv").read_text() == "a,b\n"


def test_output_folder_inside_an_input_folder_is_refused(work):
    data = work / D
    before = snapshot(work)
    line = one_error_line(
        run("text", "anonymize", data / "notes", "--spans", data / "notes", "--out",
            data / "notes" / "anon")
    )  # fmt: skip
    assert "inside the input folder" in line and snapshot(work) == before


def test_symlinked_output_folder_pointing_at_the_input_is_refused(work):
    data = work / D
    link = work / "alias"
    link.symlink_to(data, target_is_directory=True)
    before = snapshot(data)
    one_error_line(run(*partition_argv(data, link, "--overwrite")))
    assert snapshot(data) == before


# --- item 2: document ids never leave the output folder -----------------------------------------


def test_hostile_ids_stay_inside_out_and_are_reported(tmp_path):
    from hidekit.text.corpus import read_brat_dir

    ids = ["../../escape", "/abs/x", "", "dup", "dup", "DUP", ".hidden", "a\\b", "CON"]
    docs = [{"id": i, "text": f"Note {n} for Bob.", "spans": []} for n, i in enumerate(ids)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in docs))
    out = tmp_path / "deep" / "er" / "out"
    res = run("text", "anonymize", src, "--spans", src, "--out", out, "--format", "brat", "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and out not in p.parents and p != src]
    assert outside == []
    names = sorted(p.name for p in out.glob("*.txt"))
    assert len(names) == len(ids)  # no document lost to a duplicate or a path
    assert not any(n.startswith(".") for n in names)
    back = {d.text for d in read_brat_dir(out)}
    assert back == {d["text"] for d in docs}
    renamed = {r["id"]: r["name"] for r in summary["renamed_ids"]}
    assert renamed["../../escape"] == "escape" and renamed[""] == "doc"
    dups = [r["name"] for r in summary["renamed_ids"] if r["id"].lower() == "dup"]
    assert dups == ["dup-2", "DUP-3"]  # the first "dup" keeps its name; case-insensitive too


def test_safe_file_stem_and_brat_names_are_deterministic():
    from hidekit.text.corpus import brat_names, safe_file_stem
    from hidekit.text.spans import Document

    assert safe_file_stem("../../x") == "x"
    assert safe_file_stem("/etc/passwd") == "etc_passwd"
    assert safe_file_stem("a\\..\\b") == "a_b"
    assert safe_file_stem("..") == "doc" and safe_file_stem("") == "doc"
    assert safe_file_stem("nul") == "nul_"
    assert len(safe_file_stem("é" * 500).encode()) <= 120
    docs = [Document(i, "t") for i in ("a", "a", "a-2", "A")]
    names, renamed = brat_names(docs)
    assert names == ["a", "a-2", "a-2-2", "A-3"]  # case-insensitive systems too
    assert brat_names(docs) == (names, renamed)


def test_detect_cli_says_which_ids_were_renamed(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "../x", "text": "Seen by Dr. Smith."}) + "\n")
    res = run("text", "detect", src, "--out", tmp_path / "out")
    assert res.exit_code == 0, res.output
    assert "'../x' -> x" in res.stderr
    assert (tmp_path / "out" / "x.ann").exists() and not (tmp_path / "x.ann").exists()


# --- item 3: encode and its crosswalk -------------------------------------------------------------


def _encode_args(data: Path, out, cw, key):
    return ["encode", data, "-c", "pid", "--out", out, "--crosswalk", cw, "--key-file", key]


def test_encode_refuses_out_equal_to_crosswalk_or_key(work):
    data = work / D
    cw = data / "cw.hkcw"
    for out in (cw, data / "k.key", data / "people.csv"):
        before = snapshot(work)
        one_error_line(run(*_encode_args(data / "people.csv", out, cw, data / "k.key")))
        assert snapshot(work) == before
    before = snapshot(work)
    line = one_error_line(
        run(*_encode_args(data / "people.csv", data / "o.csv", data / "k.key", data / "k.key"))
    )
    assert "k.key" in line and snapshot(work) == before


def test_encode_failure_leaves_the_crosswalk_untouched(work):
    from hidekit.jobs.files import read_crosswalk

    data = work / D
    cw = work / "shared.hkcw"
    first = run(*_encode_args(data / "people.csv", work / "a.csv", cw, data / "k.key"))
    assert first.exit_code == 0, first.output
    cw_before = cw.read_bytes()
    more = PEOPLE.assign(pid=[f"Q{i}" for i in range(12)], name=["x" * 40_000] * 12)
    more.to_csv(work / "more.csv", index=False)
    # the data cannot be written (.xlsx cell limit): the new codes must not reach the crosswalk
    one_error_line(run(*_encode_args(work / "more.csv", work / "b.xlsx", cw, data / "k.key")))
    assert cw.read_bytes() == cw_before and not (work / "b.xlsx").exists()
    assert len(read_crosswalk(cw, key_file=data / "k.key")) == 12
    assert not [p for p in work.iterdir() if p.name.startswith(".hidekit-tmp-")]


def test_write_files_together_moves_nothing_when_one_writer_fails(tmp_path):
    from hidekit.io.atomic import write_files_together

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a")

    def boom(path):
        raise OutputError("cannot")

    with pytest.raises(OutputError):
        write_files_together([(a, lambda p: p.write_text("new a"), False), (b, boom, False)])
    assert a.read_text() == "old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


_ENCODER = """
import sys, time
from pathlib import Path
from hidekit.jobs.identifiers import encode_file
cw, key, go, pairs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4:]
while not go.exists():  # start together with the other worker
    time.sleep(0.01)
for src, out in zip(pairs[::2], pairs[1::2]):
    encode_file(src, out, crosswalk=cw, columns=["pid"], key_file=key, width=6)
"""


def test_concurrent_encodes_lose_no_update_and_share_no_code(tmp_path):
    """Two processes encode disjoint ids against one crosswalk at the same time, each in a loop:
    every id ends up in the crosswalk once, no two ids share a code, and every output agrees
    with the final crosswalk. (Without the lock this fails: checked by hand.)"""
    from hidekit.jobs.files import new_key_file, read_crosswalk

    key = new_key_file(tmp_path / "k.key")
    cw = tmp_path / "cw.hkcw"
    go = tmp_path / "go"
    expected: set[str] = set()
    pairs: dict[str, list[Path]] = {"A": [], "B": []}
    for who in "AB":
        for r in range(12):
            ids = [f"{who}{r}-{i}" for i in range(20)]
            expected |= set(ids)
            path = tmp_path / f"{who}{r}.csv"
            pd.DataFrame({"pid": ids}).to_csv(path, index=False)
            pairs[who] += [path, path.with_suffix(".enc.csv")]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _ENCODER, str(cw), str(key), str(go), *map(str, pairs[w])]
        )
        for w in "AB"
    ]
    go.touch()
    assert [p.wait(timeout=600) for p in procs] == [0, 0]
    table = read_crosswalk(cw, key_file=key)
    assert set(table["value"]) == expected  # no lost update
    assert table["code"].is_unique and len(table) == len(expected)  # no colliding code
    lookup = dict(zip(table["value"], table["code"], strict=True))
    for files in pairs.values():
        for src, enc in zip(files[::2], files[1::2], strict=True):
            coded = pd.read_csv(enc, dtype=str)["pid"]
            assert list(coded) == [lookup[v] for v in pd.read_csv(src, dtype=str)["pid"]]


# --- item 4: text outputs and temporary files --------------------------------------------------


def test_detect_replaces_its_own_output_without_stale_files(work):
    data = work / D
    out = work / "pred"
    assert run("text", "detect", data / "notes", "--out", out).exit_code == 0
    one_error_line(run("text", "detect", data / "notes", "--out", out))  # no silent mixing
    (data / "notes" / "note-000-1.txt").unlink()
    (data / "notes" / "note-000-1.ann").unlink()
    assert run("text", "detect", data / "notes", "--out", out, "--overwrite").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        ".hidekit-output", "note-001-1.ann", "note-001-1.txt",
    ]  # fmt: skip


def test_train_refuses_to_overwrite_its_training_data(work):
    data = work / D
    before = snapshot(work)
    line = one_error_line(
        run("text", "train", "--data", data / "corpus.jsonl", "--out", data / "corpus.jsonl")
    )
    assert "input" in line and snapshot(work) == before
    one_error_line(
        run("text", "train", "--data", data / "notes", "--out", data / "notes" / "m.hkm")
    )
    assert snapshot(work) == before


_KILLED = """
import os, signal, sys
from hidekit.io.atomic import atomic_dir, atomic_path
with atomic_path(sys.argv[1] + "/file.csv") as tmp:
    tmp.write_text("half")
    with atomic_dir(sys.argv[1] + "/folder") as d:
        (d / "a.txt").write_text("half")
        os.kill(os.getpid(), signal.SIGKILL)
"""


def test_temporaries_of_a_killed_run_are_named_and_cleaned(tmp_path):
    from hidekit.io.atomic import TMP_PREFIX, clean_stale_temps, write_text_atomic

    (tmp_path / ".keep.tmp").write_text("someone else's")  # not our naming: never touched
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(tmp_path)])
    assert proc.wait(timeout=120) == -9
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(TMP_PREFIX))
    assert len(left) == 2 and all(n.startswith(f"{TMP_PREFIX}{proc.pid}-") for n in left)
    assert not (tmp_path / "folder").exists() and not (tmp_path / "file.csv").exists()
    clean_stale_temps(tmp_path, again=True)
    write_text_atomic(tmp_path / "next.txt", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".keep.tmp", "next.txt"]


def test_a_live_process_temporary_is_not_cleaned(tmp_path):
    from hidekit.io.atomic import TMP_PREFIX, clean_stale_temps

    mine = tmp_path / f"{TMP_PREFIX}{os.getpid()}-x-abc.tmp"
    mine.write_text("in use")
    dead = tmp_path / f"{TMP_PREFIX}999999999-x-abc.tmp"
    dead.write_text("left over")
    clean_stale_temps(tmp_path, again=True)
    assert mine.exists() and not dead.exists()


# --- item 7: formulas ----------------------------------------------------------------------------

FORMULAS = pd.DataFrame(
    {
        "note": ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "plain", "-3"],
        "n": [1, -3, 2, 4, 5, 6],
    }
)


def test_xlsx_never_holds_a_formula_and_keeps_the_text(tmp_path):
    import openpyxl

    from hidekit.io import write_table

    path = write_table(FORMULAS.rename(columns={"n": "=n"}), tmp_path / "f.xlsx")
    ws = openpyxl.load_workbook(path).active
    cells = [c for row in ws.iter_rows() for c in row]
    assert all(c.data_type != "f" for c in cells)
    assert [c.value for c in ws["A"]][1:] == list(FORMULAS["note"])
    assert ws["B1"].value == "=n"


def test_csv_formulas_are_neutralized_by_default_and_numbers_kept(tmp_path):
    from hidekit.io import write_table

    write_table(FORMULAS, tmp_path / "f.csv")
    back = pd.read_csv(tmp_path / "f.csv", dtype=str)
    assert list(back["note"]) == [
        "'=HYPERLINK(\"http://x\",\"y\")", "'+1+2", "'-2+3", "'@SUM(A1)", "plain", "-3",
    ]  # fmt: skip
    assert list(back["n"]) == ["1", "-3", "2", "4", "5", "6"]
    write_table(FORMULAS, tmp_path / "raw.csv", neutralize=False)
    assert list(pd.read_csv(tmp_path / "raw.csv", dtype=str)["note"]) == list(FORMULAS["note"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["-1", "-1\0", "-1\0x", "=1", "=1\0", "+2", "@a", "a", "", "\t3"]),
            st.text(alphabet="=+-@1.e\0 a", max_size=4),
            st.none(),
            st.just(float("nan")),
            st.integers(-3, 3),
        ),
        max_size=40,
    )
)
def test_formulas_judged_per_distinct_value_as_per_cell(cells):
    """Issue 17: cells are judged once per distinct value; a NUL character does not make two
    values one ("-1" is a number, "-1\0" is not), and the answer is the per-cell one."""
    from hidekit.io.writers import looks_like_formula, neutralize_formulas

    frame = pd.DataFrame({"c": pd.Series(cells, dtype=object)})
    out, changed = neutralize_formulas(frame)
    want = [looks_like_formula(v) for v in cells]
    assert changed == sum(want)
    for before, after, hit in zip(cells, out["c"], want, strict=True):
        assert after == "'" + before if hit else after is before or (after != after)


def test_cli_keep_formulas_and_plan_setting(work):
    src = work / "f.csv"
    FORMULAS.to_csv(src, index=False)
    assert run("remove", src, "-c", "n", "--out", work / "a.csv").exit_code == 0
    assert pd.read_csv(work / "a.csv", dtype=str)["note"][1] == "'+1+2"
    assert run("remove", src, "-c", "n", "--out", work / "b.csv", "--keep-formulas").exit_code == 0
    assert pd.read_csv(work / "b.csv", dtype=str)["note"][1] == "+1+2"
    from hidekit.release import load_plan

    plan = work / "p.toml"
    plan.write_text(
        '[input]\npath = "f.csv"\n[output]\nfolder = "rel"\nneutralize_formulas = false\n'
        '[roles]\nkeys = ["n"]\n'
    )
    assert load_plan(plan).neutralize_formulas is False
    plan.write_text(plan.read_text().replace("false", '"no"'))
    with pytest.raises(Exception, match="neutralize_formulas must be true or false"):
        load_plan(plan)


# --- item 9 (writer side): no silent truncation -------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "value", "limit"),
    [
        (".xlsx", "x" * 32_768, "32,767 characters"),
        (".sav", "é" * 16_384, "32,767 bytes"),
        (".xpt", "x" * 70_000, "32,767 bytes"),
    ],
)
def test_too_long_text_is_refused_naming_column_and_limit(work, suffix, value, limit):
    src = work / "long.csv"
    pd.DataFrame({"pid": ["a", "b"], "story": [value, "short"]}).to_csv(src, index=False)
    out = work / f"out{suffix}"
    line = one_error_line(run("remove", src, "-c", "pid", "--out", out))
    assert "'story'" in line and limit in line and not out.exists()


def test_text_at_the_limit_is_written_whole(tmp_path):
    from hidekit.io import read_table, write_table

    frame = pd.DataFrame({"story": ["x" * 32_767]})
    for suffix in (".xlsx", ".sav", ".xpt"):
        path = write_table(frame, tmp_path / f"ok{suffix}")
        assert len(read_table(path).frame["story"][0]) == 32_767


# --- item 12 (file-system side) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "column", "word"),
    [
        (".dta", "a b", "Stata"),
        (".dta", "x" * 33, "Stata"),
        (".dta", "_n", "Stata"),
        (".sav", "ALL", "SPSS"),
        (".sav", "1st", "SPSS"),
        (".xpt", "é", "SAS"),
        (".xpt", "x" * 33, "SAS"),
    ],
)
def test_invalid_variable_names_are_one_line_and_nothing_written(work, suffix, column, word):
    src = work / "names.csv"
    pd.DataFrame({"pid": ["a"], column: [1]}).to_csv(src, index=False)
    out = work / f"out{suffix}"
    line = one_error_line(run("remove", src, "-c", "pid", "--out", out))
    assert word in line and repr(column) in line and not out.exists()


def test_file_output_that_is_a_folder_and_folder_output_that_is_a_file(work):
    data = work / D
    line = one_error_line(run("redact", data / "people.csv", "-c", "name", "--out", work))
    assert "is a folder" in line
    line = one_error_line(run(*partition_argv(data, work / "keep.txt")))
    assert "is a file" in line and (work / "keep.txt").read_text() == "not hidekit's"
    line = one_error_line(
        run("redact", data / "people.csv", "-c", "name", "--out", work / "keep.txt" / "x.csv")
    )
    assert "is a file" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_output_folder_is_one_line(work):
    data = work / D
    ro = work / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        line = one_error_line(
            run("redact", data / "people.csv", "-c", "name", "--out", ro / "x.csv")
        )
        assert "permission denied" in line
        line = one_error_line(run(*partition_argv(data, ro / "p")))
        assert "permission denied" in line
    finally:
        ro.chmod(0o700)


def test_read_only_error_is_translated(tmp_path, monkeypatch):
    """Where the tests run as root (no permission errors), the translation is checked directly."""
    import errno

    from hidekit.io import atomic

    def refuse(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(OutputError, match="permission denied"):
        atomic.write_text_atomic(tmp_path / "x.txt", "x")


@given(st.lists(st.text(max_size=40), min_size=1, max_size=12))
@settings(max_examples=150)
def test_any_ids_give_distinct_safe_names(ids):
    """Whatever the ids, the file names are distinct (even ignoring case), plain (no separator,
    not hidden, not empty) and the same on every call."""
    from hidekit.text.corpus import brat_names
    from hidekit.text.spans import Document

    docs = [Document(i, "t") for i in ids]
    names, renamed = brat_names(docs)
    assert len({n.casefold() for n in names}) == len(names) == len(ids)
    for n in names:
        assert n and not n.startswith(".") and "/" not in n and "\\" not in n and "\x00" not in n
        assert Path(n).name == n and n not in (".", "..")
    assert brat_names(docs) == (names, renamed)
    assert {r["id"] for r in renamed} <= set(ids)


def test_check_output_dir_rules(tmp_path):
    from hidekit.io.atomic import MARKER, check_output_dir, write_marker

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("x")
    for target, words in [
        (corpus, "is the input"),
        (tmp_path, "holds the input"),
        (corpus / "sub", "inside the input folder"),
    ]:
        with pytest.raises(OutputError, match=words):
            check_output_dir(target, overwrite=True, protect=(corpus,))
    out = tmp_path / "out"
    out.mkdir()
    (out / "r.csv").write_text("1")
    with pytest.raises(OutputError, match="not written by hidekit"):
        check_output_dir(out, overwrite=True)
    write_marker(out)
    assert json.loads((out / MARKER).read_text())["files"] == ["r.csv"]
    check_output_dir(out, overwrite=True)  # marked and nothing else: may be replaced
    (out / "sub").mkdir()
    with pytest.raises(OutputError, match="did not write"):
        check_output_dir(out, overwrite=True)


_TERMINATED = """
import os, signal, sys
from hidekit.io.atomic import atomic_dir, cleanup_on_termination
with cleanup_on_termination():
    with atomic_dir(sys.argv[1] + "/folder") as d:
        (d / "a.txt").write_text("half")
        os.kill(os.getpid(), signal.SIGTERM)
"""


def test_sigterm_removes_temporaries_at_once(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _TERMINATED, str(tmp_path)], check=False)
    assert proc.returncode != 0
    assert list(tmp_path.iterdir()) == []  # no folder, no .hidekit-tmp-… left behind


def test_cli_sigterm_leaves_nothing(tmp_path):
    """A real command terminated while it writes: exit 130, no output, no temporary."""
    code = (
        "import os, signal, sys\n"
        "import hidekit.jobs.corpus as c\n"
        "real = c.write_brat_dir\n"
        "def slow(docs, folder, write_text=True):\n"
        "    real(docs[:1], folder, write_text)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "c.write_brat_dir = slow\n"
        "from hidekit.cli.main import app\n"
        "sys.argv = ['hidekit', 'text', 'synth', '--n', '3', '--out', sys.argv[1]]\n"
        "app()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "notes")], capture_output=True, text=True
    )
    assert proc.returncode == 130, proc.stderr
    assert list(tmp_path.iterdir()) == []


# --- issue 16: formula injection in every CSV a command writes -----------------------------------

FORMULA_COMMANDS = [
    "encode", "redact", "remove", "hash", "partition", "release", "generalize", "topcode",
    "safe-harbor", "jitter", "suppress", "anonymize", "link",
]  # fmt: skip
HOSTILE = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-1+cmd"]


@pytest.mark.parametrize("command", FORMULA_COMMANDS)
def test_no_csv_output_starts_a_cell_with_a_formula(work, command):
    """A column the command leaves alone carries spreadsheet formulas: every CSV the command
    writes shows them as text (a leading '), and no cell anywhere starts a formula."""
    import csv

    data = work / D
    hostile = PEOPLE.assign(comment=[HOSTILE[i % len(HOSTILE)] for i in range(len(PEOPLE))])
    hostile.to_csv(data / "people.csv", index=False)
    folder_output = command in ("partition", "release", "link")
    out = work / ("out" if folder_output else "out.csv")
    extra = {"release": ["--no-scan"], "link": ["--keep", "comment"]}.get(command, [])
    res = run(*CASES[command](data, out), *extra)
    assert res.exit_code == 0, (command, res.output)
    written = sorted(out.rglob("*.csv")) if folder_output else [out]
    assert written, command
    seen = 0
    for f in written:
        with f.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        for row in rows[1:]:
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@"):
                    float(cell)  # only a number may start so (-3, +1.5)
        if "comment" in rows[0]:
            i = rows[0].index("comment")
            assert {r[i] for r in rows[1:]} <= {"'" + h for h in HOSTILE}, f.name
            seen += len(rows) - 1
    assert seen > 0, f"{command}: the column with formulas reached no CSV"
