"""``hidekit anonymize`` by chunks (issue 17): Mondrian on the count table of the keys, the records
released chunk by chunk, gives the in-memory run's file byte for byte and its figures; every
release is k-anonymous and keeps every record (Hypothesis); a statistical file read in chunks
equals the whole read, value labels included."""

from __future__ import annotations

import filecmp
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hidekit.jobs.table as job_table
from hidekit import jobs
from hidekit.anonymize.diversity import DiversityRule
from hidekit.anonymize.mondrian_cuts import class_labels, encode_key, partition
from hidekit.io.hierarchy import Hierarchy
from hidekit.jobs import SecretOptions

FIXTURES = Path(__file__).parent / "fixtures"
ADULT = FIXTURES / "adult"


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["01234", "02345", "11111", "22222", "=1+2"], n),
            "education": rng.choice(["Bachelors", "Masters", "11th", "HS-grad", "Doctorate"], n),
            "income": np.round(rng.normal(3e4, 1e4, n), 2),
            "dx": rng.choice(["flu", "cold", "hiv", "ok", None], n),
            "mixed": rng.choice(["1.5", "2", "", "x, y", 'say "hi"'], n),
        }
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("chunks")
    path = folder / "in.csv"
    _table(600, 0).to_csv(path, index=False)
    (folder / "key").write_bytes(b"k" * 32)
    return path


def _figures(result) -> dict:
    out = dict(result.figures)
    out.pop("output")
    out["stats"] = {k: v for k, v in out["stats"].items() if k != "seconds"}
    return out


CASES = {
    "k5": {"keys": ["age", "sex", "zip"], "k": 5},
    "l-diverse": {"keys": ["age", "zip"], "k": 3, "l": 2, "sensitive": "dx"},
    "hierarchy and order": {
        "keys": ["education", "sex", "age"],
        "k": 4,
        "hierarchies": {"education": str(ADULT / "adult_hierarchy_education.csv")},
        "order": {"sex": ["M", "F"]},
    },
    "in order, identifiers": {
        "keys": ["age", "sex"],
        "k": 4,
        "shuffle": False,
        "identifiers": ["name"],
    },
    "full": {"keys": ["age", "sex"], "k": 4, "mode": "full", "identifiers": ["name"]},
    "partial": {"keys": ["age", "sex"], "k": 4, "mode": "partial", "sensitive": "dx"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_chunks_give_the_in_memory_release(data, case, monkeypatch):
    """Chunks smaller than the file (primes, just under the file): the same bytes,
    the same figures and warnings as the whole table in memory."""
    kw = CASES[case]
    secrets = SecretOptions(key_file=str(data.parent / "key"))
    whole = jobs.anonymize(data, data.parent / f"{case}-whole.csv", secrets=secrets, **kw)
    real = job_table._anonymize_in_memory

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run fell back to memory")

    monkeypatch.setattr(job_table, "_anonymize_in_memory", refuse)
    for rows in (13, 97, 599):
        out = data.parent / f"{case}-{rows}.csv"
        chunked = jobs.anonymize(data, out, secrets=secrets, chunk_rows=rows, **kw)
        assert filecmp.cmp(data.parent / f"{case}-whole.csv", out, shallow=False), rows
        assert _figures(chunked) == _figures(whole)
        assert chunked.warnings == whole.warnings
    monkeypatch.setattr(job_table, "_anonymize_in_memory", real)


def test_scratch_parts_are_removed_and_small_files_stay_in_memory(data, monkeypatch):
    """The shuffle's scratch folder is gone after the run; without ``chunk_rows`` a small file is
    read whole (the chunked run is for files of 64 MB or more)."""
    secrets = SecretOptions(key_file=str(data.parent / "key"))
    folder = data.parent / "out"
    folder.mkdir()
    jobs.anonymize(data, folder / "a.csv", keys=["age"], k=3, secrets=secrets, chunk_rows=50)
    assert [p.name for p in folder.iterdir()] == ["a.csv"]
    called = []
    monkeypatch.setattr(
        "hidekit.jobs.anonymize_stream.anonymize_by_chunks", lambda *a, **k: called.append(1)
    )
    jobs.anonymize(data, folder / "b.csv", keys=["age"], k=3, secrets=secrets)
    assert not called


def test_a_bad_request_reads_as_in_memory(data):
    """Errors are the in-memory run's one-liners (a missing key in a small or a chunked run)."""
    from hidekit.errors import HidekitError

    messages = []
    for rows in (None, 10):
        with pytest.raises(HidekitError) as err:
            jobs.anonymize(data, data.parent / "bad.csv", keys=["nope"], k=3, chunk_rows=rows)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "nope" in messages[0]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n=st.integers(4, 120),
    k=st.integers(1, 6),
    seed=st.integers(0, 2**16),
    rows=st.integers(1, 40),
)
def test_chunked_release_is_k_anonymous_and_keeps_every_record(tmp_path, n, k, seed, rows):
    k = min(k, n)
    frame = _table(n, seed).drop(columns=["name", "mixed"]).assign(record=np.arange(n))
    frame["zip"] = frame["zip"].replace("=1+2", "33333")  # what goes in comes out, as text
    path = tmp_path / f"t{seed}-{n}-{k}-{rows}.csv"
    frame.to_csv(path, index=False)
    out = path.with_suffix(".out.csv")
    keys = ["age", "sex", "zip"]
    jobs.anonymize(path, out, keys=keys, k=k, chunk_rows=rows)
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(released) == n
    assert released.groupby(keys).size().min() >= k
    assert sorted(released["record"].astype(int)) == list(range(n))
    back = released.set_index(released["record"].astype(int)).sort_index()
    original = pd.read_csv(path, dtype=str, keep_default_na=False)
    for col in ("education", "income", "dx"):
        assert back[col].tolist() == original[col].tolist()
    for key in keys:  # each released value covers the record's own value
        for value, label in zip(original[key], back[key], strict=True):
            assert value == label or value in label.strip("{}").split(",") or "-" in label


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 300),
    k=st.integers(1, 8),
    seed=st.integers(0, 2**16),
    with_rule=st.booleans(),
    with_hierarchy=st.booleans(),
)
def test_weighted_cuts_are_the_record_cuts(n, k, seed, with_rule, with_hierarchy):
    """Cutting distinct combinations with their counts gives the classes, sizes and labels of
    cutting the records (strict Mondrian never splits equal keys)."""
    rng = np.random.default_rng(seed)
    f = pd.DataFrame(
        {
            "a": rng.integers(0, int(rng.integers(1, 30)), n),
            "b": rng.choice(list("pqrstuv")[: int(rng.integers(1, 7))], n),
            "c": rng.integers(0, 5, n).astype(float),
            "s": rng.choice(list("xyzw"), n),
        }
    )
    k = min(k, n)
    rule = DiversityRule(2, "distinct", None) if with_rule and f["s"].nunique() > 1 else None
    groups = [["pq", "rst", "uv"][0 if v in "pq" else 1 if v in "rst" else 2] for v in "pqrstuv"]
    tree = Hierarchy.from_rows([[v, g, "*"] for v, g in zip("pqrstuv", groups, strict=True)])
    hier = tree if with_hierarchy else None
    keys = ["a", "b", "c"]
    cols = keys + (["s"] if rule else [])

    def cut(table: pd.DataFrame, weights):
        dims = [encode_key(table[c], c, hier if c == "b" else None) for c in keys]
        sens = pd.factorize(table["s"])[0].astype(np.int64) if rule else None
        classes = partition(dims, k, sens, rule, weights=weights)
        labels = pd.DataFrame({d.name: class_labels(d, classes) for d in dims})
        return classes, labels

    by_record, labels = cut(f, None)
    g = f.groupby(cols, sort=False).size().rename("n").reset_index()
    by_combo, labels2 = cut(g, g["n"].to_numpy())
    combo_of = f.merge(g.assign(cls=by_combo.record_class), on=cols, how="left")["cls"]
    assert labels.equals(labels2)
    assert np.array_equal(by_record.sizes, by_combo.sizes)
    assert np.array_equal(by_record.record_class, combo_of.to_numpy())


def test_statistical_file_in_chunks_equals_the_whole_read_with_labels(tmp_path):
    """A Stata and an SPSS file with value labels, read 4 records at a time into Parquet parts:
    the parts hold read_table's values, and the labels come along."""
    import pyreadstat

    from hidekit.io import read_table
    from hidekit.io.stat_chunks import stat_to_parquet

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "sex": rng.choice([1.0, 2.0], 23),
            "region": rng.choice([1.0, 2.0, 3.0, np.nan], 23),
            "town": rng.choice(["Ayr", "Oban", ""], 23),
            "income": np.round(rng.normal(100, 10, 23), 1),
        }
    )
    labels = {"sex": {1.0: "male", 2.0: "female"}, "region": {1.0: "N", 2.0: "S", 3.0: "E"}}
    for name, writer, fmt in (
        ("t.dta", pyreadstat.write_dta, "stata"),
        ("t.sav", pyreadstat.write_sav, "spss"),
    ):
        path = tmp_path / name
        writer(
            frame, str(path), column_labels=["Sex", "Region", "Town", "Income"],
            variable_value_labels=labels,
        )  # fmt: skip
        folder = tmp_path / f"{fmt}-parts"
        folder.mkdir()
        parts, var_labels, value_labels = stat_to_parquet(path, fmt, folder, chunk_rows=4)
        assert len(parts) == 6
        whole = read_table(path)
        chunked = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
        pd.testing.assert_frame_equal(chunked, whole.frame.reset_index(drop=True))
        assert value_labels == whole.value_labels and value_labels["sex"] == labels["sex"]
        assert var_labels == whole.variable_labels and var_labels["town"] == "Town"


SUPPRESS = {
    "three keys": {"keys": ["age", "sex", "zip"], "k": 3},
    "importance": {"keys": ["sex", "zip", "education", "dx"], "k": 8, "importance": ["zip"]},
    "wildcard": {"keys": ["age", "dx"], "k": 2, "missing": "wildcard"},
}


@pytest.mark.parametrize("case", sorted(SUPPRESS))
def test_local_suppression_by_chunks_gives_the_in_memory_release(data, case, monkeypatch):
    """``hidekit suppress`` by chunks (the search on the key table, the blanks per chunk): the
    in-memory file and figures, and no record loses more than its keys."""
    import hidekit.transforms.suppression as suppression

    kw = SUPPRESS[case]
    whole = jobs.suppress(data, data.parent / f"s-{case}.csv", **kw)
    assert whole.figures["total_suppressed"] > 0

    def refuse(*args, **kwargs):
        raise AssertionError("the chunked run fell back to memory")

    monkeypatch.setattr(suppression, "local_suppression", refuse)
    for rows in (13, 599):
        out = data.parent / f"s-{case}-{rows}.csv"
        chunked = jobs.suppress(data, out, chunk_rows=rows, **kw)
        assert filecmp.cmp(data.parent / f"s-{case}.csv", out, shallow=False), rows
        assert {**chunked.figures, "output": ""} == {**whole.figures, "output": ""}
    before = pd.read_csv(data, dtype=str, keep_default_na=False)
    after = pd.read_csv(out, dtype=str, keep_default_na=False)
    others = [c for c in ("name", "sex", "education", "income") if c not in kw["keys"]]
    assert after[others].equals(before[others])
