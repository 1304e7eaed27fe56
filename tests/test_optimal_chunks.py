"""``anonymize --method optimal`` by chunks (issue 17): the search counts the file through the
engine, the records are then released chunk by chunk (CSV, Parquet, Stata, SPSS) and give the
in-memory run's file byte for byte, its figures and its warnings; ``chunk_rows`` is checked the
same way by every job and command that reads by chunks."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import hidekit.jobs.optimal as job_optimal
from chunk_files import write_frame
from hidekit import jobs
from hidekit.cli.main import app
from hidekit.errors import OptionError

ADULT = Path(__file__).parent / "fixtures" / "adult"
EDUCATION = ["Bachelors", "Masters", "11th", "HS-grad", "Doctorate", "Some-college"]
N = 640


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    visits = rng.integers(0, 9, n).astype(float)
    visits[rng.random(n) < 0.01] = np.nan  # missing in a few chunks only
    return pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["Male", "Female"], n),
            "education": rng.choice(EDUCATION, n),
            "zip": rng.choice(["01234", "02345", "11111", "=1+2"], n),
            "income": np.round(rng.normal(3e4, 1e4, n), 2),
            "visits": visits,
            "dx": rng.choice(["flu", "cold", "hiv", "ok"], n),
            "note": rng.choice(["1.5", "2", "", "x, y", 'say "hi"'], n),
        }
    )


def _hierarchies(keys) -> dict[str, str]:
    return {k: str(ADULT / f"adult_hierarchy_{k}.csv") for k in keys}


CASES = {
    "k5, star": {"keys": ["age", "sex", "education"], "k": 5},
    "suppression, drop": {
        "keys": ["age", "sex", "education"],
        "k": 10,
        "suppression": 0.1,
        "suppressed": "drop",
    },
    "l-diverse, entropy metric": {
        "keys": ["age", "education"],
        "k": 3,
        "l": 2,
        "sensitive": "dx",
        "suppression": 0.05,
        "metric": "entropy",
    },
}


def _write(frame: pd.DataFrame, path: Path) -> Path:
    return write_frame(
        frame if path.suffix in (".csv", ".parquet") else frame.drop(columns=["zip"]), path
    )


def _figures(result) -> dict:
    out = {k: v for k, v in result.figures.items() if k not in ("output", "seconds")}
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("optimal-chunks")


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".dta", ".sav"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_chunks_give_the_in_memory_release(folder, suffix, case, monkeypatch):
    """Chunks of 53 records and of just under the file: the same bytes, figures and
    warnings as the whole table read into memory (which the chunked runs never do)."""
    data = folder / f"in{suffix}"
    if not data.exists():
        _write(_table(N, 0), data)
    kw = {**CASES[case], "hierarchies": _hierarchies(CASES[case]["keys"])}
    whole_out = folder / f"{case}{suffix}-whole.csv"
    whole = jobs.anonymize_optimal(data, whole_out, **kw)
    assert whole.figures["transformation"] is not None

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run read the whole table")

    monkeypatch.setattr(job_optimal, "read_table", refuse)
    for rows in (53, N - 1):
        out = folder / f"{case}{suffix}-{rows}.csv"
        chunked = jobs.anonymize_optimal(data, out, chunk_rows=rows, **kw)
        assert filecmp.cmp(whole_out, out, shallow=False), rows
        assert _figures(chunked) == _figures(whole)
        assert chunked.warnings == whole.warnings


def test_parquet_chunks_type_a_column_as_the_whole_file(folder):
    """pandas reads Arrow whole numbers with a gap as floats: a chunk without the gap too."""
    from hidekit.io import read_table
    from hidekit.io.frame_chunks import parquet_frames

    data = _write(_table(N, 1), folder / "typed.parquet")
    frames = list(parquet_frames(data, 50))
    assert len(frames) == -(-N // 50)
    assert sum(f["visits"].isna().any() for f in frames) < len(frames)  # some chunks hold none
    whole = read_table(data).frame
    assert whole["visits"].dtype == np.float64
    pd.testing.assert_frame_equal(pd.concat(frames, ignore_index=True), whole)


def test_the_release_counts_what_it_wrote(folder):
    """Every key's lost cells are those of the whole table: star records count as suppressed."""
    data = _write(_table(N, 2), folder / "count.csv")
    res = jobs.anonymize_optimal(
        data,
        folder / "count-out.csv",
        keys=["age", "sex"],
        hierarchies=_hierarchies(["age", "sex"]),
        k=20,
        suppression=0.2,
        chunk_rows=33,
    )
    released = pd.read_csv(folder / "count-out.csv", sep=";", dtype=str, keep_default_na=False)
    lost = {v["column"]: v for v in res.figures["cells_lost"]["variables"]}
    starred = int((released["age"] == "*").sum())
    assert starred == res.figures["suppressed"] and lost["age"]["suppressed"] == starred
    assert lost["age"]["records"] == N and len(released) == N


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "100"])
def test_chunk_rows_is_checked_by_every_job(folder, bad):
    data = _write(_table(40, 3), folder / f"bad-{bad}.csv")
    calls = {
        "anonymize": lambda: jobs.anonymize(
            data, folder / "a.csv", keys=["age"], k=2, chunk_rows=bad
        ),
        "optimal": lambda: jobs.anonymize_optimal(
            data,
            folder / "o.csv",
            keys=["age"],
            hierarchies=_hierarchies(["age"]),
            chunk_rows=bad,
        ),  # fmt: skip
        "suppress": lambda: jobs.suppress(
            data, folder / "s.csv", keys=["age"], k=2, chunk_rows=bad
        ),
        "release": lambda: jobs.release(
            Path(__file__).parents[1] / "examples" / "demo-plan.toml",
            folder / "rel",
            chunk_rows=bad,
        ),
    }
    for name, call in calls.items():
        with pytest.raises(OptionError, match="--chunk-rows") as err:
            call()
        assert "\n" not in str(err.value), name
    assert not (folder / "a.csv").exists() and not (folder / "rel").exists()


def test_chunk_rows_on_the_command_line(folder):
    """--chunk-rows on anonymize (both methods) and suppress: the same file as without it;
    0 is refused in one line."""
    data = _write(_table(N, 4), folder / "cli.csv")
    runner = CliRunner()
    hier = ["--hierarchy", f"age={ADULT / 'adult_hierarchy_age.csv'}"]
    lines = {
        "optimal": ["anonymize", str(data), "--method", "optimal", "--keys", "age", "--k", "4"]
        + hier,
        "suppress": ["suppress", str(data), "--keys", "age,sex", "--k", "3"],
        "mondrian": ["anonymize", str(data), "--keys", "age,sex", "--k", "3", "--no-shuffle"],
    }
    for name, line in lines.items():
        outs = []
        for extra in ([], ["--chunk-rows", "50"]):
            out = folder / f"cli-{name}-{len(extra)}.csv"
            res = runner.invoke(app, [*line, "--out", str(out), "--json", *extra])
            assert res.exit_code == 0, res.output
            assert json.loads(res.stdout)
            outs.append(out)
        assert filecmp.cmp(*outs, shallow=False), name
        res = runner.invoke(app, [*line, "--out", str(folder / "x.csv"), "--chunk-rows", "0"])
        assert res.exit_code != 0 and "--chunk-rows must be at least 1" in res.output


@pytest.mark.parametrize("seed", range(6))
def test_loss_on_distinct_pairs_is_the_loss_on_records(seed):
    """The cells lost counted once per distinct (value, released label) pair equal the record
    by record count: text, whole numbers with gaps, floats (counted by records), stars."""
    from hidekit.jobs.optimal import key_loss, paired_key_loss

    rng = np.random.default_rng(seed)
    n = 300
    before = pd.DataFrame(
        {
            "t": rng.choice(["a", "b", "c", None], n),
            "i": pd.array(rng.choice([1, 2, 3, None], n), dtype="Int64"),
            "f": rng.choice([1.5, 2.0, np.nan], n),
        }
    )
    starred = pd.DataFrame(
        {
            "t": rng.choice(["a", "a-b", "*", "c"], n),
            "i": rng.choice(["1", "1-2", "*", "3"], n),
            "f": rng.choice(["1.5", "2", "*", "1-2"], n),
        }
    ).astype(object)
    keys = ["t", "i", "f"]
    assert paired_key_loss(before, starred, keys) == key_loss(before, starred, keys)
    assert sum(v.suppressed + v.generalized for v in key_loss(before, starred, keys)) > 0


def test_a_csv_by_chunks_is_read_twice(folder, monkeypatch):
    """The scan that types the columns counts the keys too (the search runs on its table): the
    file is read twice (count and type, write), DuckDB's own count over the file not at all,
    and the release is the in-memory run's."""
    import hidekit.release.stream_source as stream_source
    from hidekit.engines.file_engine import FileEngine

    data = _write(_table(N, 5), folder / "twice.csv")
    kw = {**CASES["l-diverse, entropy metric"]}
    kw["hierarchies"] = _hierarchies(kw["keys"])
    whole = jobs.anonymize_optimal(data, folder / "twice-whole.csv", **kw)
    scans, real = [], stream_source.batches

    def counting(con, source, columns, rows, *args):
        scans.append(list(columns))
        return real(con, source, columns, rows, *args)

    def refuse(*args, **kwargs):
        raise AssertionError("the search counted the file again")

    monkeypatch.setattr(stream_source, "batches", counting)
    monkeypatch.setattr(FileEngine, "cells", refuse)
    chunked = jobs.anonymize_optimal(data, folder / "twice-53.csv", chunk_rows=53, **kw)
    assert len(scans) == 2 and all(len(s) == len(_table(1, 0).columns) for s in scans)
    assert filecmp.cmp(folder / "twice-whole.csv", folder / "twice-53.csv", shallow=False)
    assert _figures(chunked) == _figures(whole)


def test_the_counted_engine_counts_as_a_group_by():
    """Cells of any key set from a counted table: a pandas group-by of the records it stands
    for (missing values a cell of their own)."""
    from hidekit.engines.counted import CountedEngine

    rng = np.random.default_rng(7)
    rows = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", None], 400),
            "b": rng.choice([1.0, 2.5, np.nan], 400),
            "c": rng.integers(0, 4, 400),
        }
    )
    table = rows.groupby(list(rows.columns), dropna=False).size().reset_index(name="n")
    engine = CountedEngine(table[list(rows.columns)], table["n"].to_numpy())
    assert engine.n_records == 400
    for keys in (["a"], ["b", "c"], ["a", "b", "c"]):
        got = engine.cell_counts(keys).sort_values(keys).reset_index(drop=True)
        want = rows.groupby(keys, dropna=False).size().reset_index(name="_n").sort_values(keys)
        assert got["_n"].tolist() == want["_n"].tolist(), keys
        stats = engine.keyset_stats([keys], 3)[0]
        assert stats.records == 400 and stats.cells == len(want)
    with pytest.raises(OptionError):
        engine.record_cell_sizes(["a"])
