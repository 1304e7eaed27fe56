"""A release plan run by chunks (``hidekit.release.stream``) gives the release the in-memory run
gives, byte for byte: same data file, same audit figures, same crosswalk; and the chunk size
changes nothing. Plans that cannot be chunked run in memory."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.demo.survey import generate_survey
from hidekit.io import read_table
from hidekit.io.csv_chunks import csv_rows, header_line
from hidekit.io.writers import neutralize_formulas
from hidekit.jobs.files import new_key_file, read_crosswalk
from hidekit.jobs.release_job import run_plan
from hidekit.release.stream_source import ColumnTypes, typed_frame

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "tests" / "fixtures" / "adult"


def _audit(folder: Path) -> list[dict]:
    lines = [json.loads(x) for x in (folder / "audit.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("seconds", None)
    return lines


def _same_release(plan: Path, tmp_path: Path, chunks: list[int]) -> list:
    """Run ``plan`` in memory and by each chunk size; every release equal. The results."""
    mem = run_plan(plan, output=tmp_path / "mem")
    assert mem.chunks == 0
    data = mem.files["data"]
    results = [mem]
    for n in chunks:
        res = run_plan(plan, output=tmp_path / f"c{n}", chunk_rows=n)
        assert res.chunks == -(-mem.records // n)  # it did run by chunks
        assert (tmp_path / f"c{n}" / data).read_bytes() == (tmp_path / "mem" / data).read_bytes()
        assert _audit(tmp_path / f"c{n}") == _audit(tmp_path / "mem")
        assert (
            res.to_dict()["steps"][0]["cells_changed"] == mem.to_dict()["steps"][0]["cells_changed"]
        )
        results.append(res)
    return results


def _survey_plan(tmp_path: Path, records: int, steps: str) -> Path:
    generate_survey(records, 5).to_csv(tmp_path / "survey.csv", index=False)
    new_key_file(tmp_path / "k.key")
    plan = (ROOT / "examples" / "demo-plan.toml").read_text()
    plan = plan.replace("../demo-output/survey.csv", "survey.csv")
    plan = plan.replace("../demo-output/demo.key", "k.key")
    plan = plan.replace('folder = "../demo-output/release"', 'folder = "release"')
    if steps:
        plan = plan[: plan.index("[[steps]]")] + steps
    path = tmp_path / "plan.toml"
    path.write_text(plan)
    return path


def test_demo_plan_by_chunks_is_the_in_memory_release(tmp_path):
    # encode (crosswalk), remove, DHS jitter (keyed draws), bin, safe_harbor, map_values,
    # topcode (a percentile of the whole column) and local suppression (k = 3)
    plan = _survey_plan(tmp_path, 3000, "")
    mem, small, _ = _same_release(plan, tmp_path, [7, 1000])
    assert any(s.cells_changed for s in mem.steps if s.use == "suppress")
    for folder in ("c7", "c1000"):
        a = read_crosswalk(tmp_path / "mem.private" / "crosswalk.hkcw", key_file=tmp_path / "k.key")
        b = read_crosswalk(
            tmp_path / f"{folder}.private" / "crosswalk.hkcw", key_file=tmp_path / "k.key"
        )
        pd.testing.assert_frame_equal(a, b)
    assert small.loss == mem.loss and small.after == mem.after and small.before == mem.before


def _adult_plan(tmp_path: Path, records: int) -> str:
    """A plan over Adult's first ``records`` records (written as adult.csv): a hierarchy, age
    bands and k = 5 local suppression."""
    frame = pd.read_csv(ADULT / "adult.csv", sep=";").head(records)
    frame.to_csv(tmp_path / "adult.csv", index=False)
    keys = ["sex", "age", "race", "marital-status", "education"]
    return f"""
[input]
path = "adult.csv"
[output]
folder = "release"
[roles]
keys = {json.dumps(keys)}
[risk]
k = 5
rp = 0.0
[[steps]]
use = "hierarchy"
column = "education"
path = "{ADULT}/adult_hierarchy_education.csv"
level = 1
[[steps]]
use = "bin"
columns = ["age"]
width = 10
[[steps]]
use = "suppress"
keys = {json.dumps(keys)}
k = 5
"""


def test_adult_plan_with_a_hierarchy_and_suppression_by_chunks(tmp_path):
    # k = 5 on Adult's first 4,000 records: the search splits classes (records taken by rank)
    (tmp_path / "plan.toml").write_text(_adult_plan(tmp_path, 4000))
    mem, *_ = _same_release(tmp_path / "plan.toml", tmp_path, [1, 333, 4000])
    assert sum(mem.steps[-1].cells_changed.values()) > 0


def test_two_processes_release_what_one_releases(tmp_path, monkeypatch):
    # the second half in a forked process (its suppression started from the first half's
    # class counts: k = 5 splits classes across the halves), and when that process fails, the
    # second half released by this one: the same files each time
    from hidekit.release import stream, stream_scan

    (tmp_path / "plan.toml").write_text(_adult_plan(tmp_path, 4000))
    runs = {}
    parent = os.getpid()

    def in_parent_only(task):
        def run(*args):
            if os.getpid() != parent:
                raise RuntimeError("the forked process fails")
            return task(*args)

        return run

    for name, workers in (("one", 1), ("two", 2), ("failed", 2)):
        monkeypatch.setattr(stream, "WORKERS", workers)
        if name == "failed":  # both forked halves (scan and release) fail
            monkeypatch.setattr(stream_scan, "_scan_range", in_parent_only(stream_scan._scan_range))
            monkeypatch.setattr(stream, "_second_half", in_parent_only(stream._second_half))
        res = run_plan(tmp_path / "plan.toml", output=tmp_path / name, chunk_rows=333)
        assert res.chunks == 13
        runs[name] = res
    want = (tmp_path / "one" / "adult.csv").read_bytes()
    for name in ("two", "failed"):
        assert (tmp_path / name / "adult.csv").read_bytes() == want
        assert _audit(tmp_path / name) == _audit(tmp_path / "one")
        assert not list((tmp_path / name).glob("*.part"))
    assert runs["two"].steps[-1].cells_changed == runs["one"].steps[-1].cells_changed
    assert runs["two"].loss == runs["one"].loss and runs["two"].after == runs["one"].after
    assert sum(runs["one"].steps[-1].cells_changed.values()) > 0


def test_a_forked_process_that_hangs_is_stopped_and_its_share_done_here(tmp_path, monkeypatch):
    # the watchdog: a forked half (scan or release) that never answers is killed once its
    # time is up, and this process releases the same bytes by itself, leaving no part file
    import multiprocessing as mp
    import time

    from hidekit.release import stream, stream_fork, stream_scan

    (tmp_path / "plan.toml").write_text(_adult_plan(tmp_path, 4000))
    parent = os.getpid()

    def hangs_when_forked(task):
        def run(*args):
            if os.getpid() != parent:
                time.sleep(3600)  # a hang: neither an answer nor an end
            return task(*args)

        return run

    monkeypatch.setattr(stream, "WORKERS", 1)
    run_plan(tmp_path / "plan.toml", output=tmp_path / "one", chunk_rows=333)
    monkeypatch.setattr(stream, "WORKERS", 2)
    monkeypatch.setattr(stream_fork, "WAIT_FLOOR", 0.5)
    monkeypatch.setattr(stream_fork, "WAIT_FACTOR", 0.0)
    monkeypatch.setattr(stream_scan, "_scan_range", hangs_when_forked(stream_scan._scan_range))
    monkeypatch.setattr(stream, "_second_half", hangs_when_forked(stream._second_half))
    res = run_plan(tmp_path / "plan.toml", output=tmp_path / "hung", chunk_rows=333)
    assert res.chunks == 13
    assert (tmp_path / "hung" / "adult.csv").read_bytes() == (
        tmp_path / "one" / "adult.csv"
    ).read_bytes()
    assert _audit(tmp_path / "hung") == _audit(tmp_path / "one")
    assert not list((tmp_path / "hung").glob("*.part"))
    assert not mp.active_children()  # both hung processes were ended


def test_the_watchdog_waits_for_a_slow_answer_and_stops_a_silent_process(monkeypatch):
    # an answer that comes within the watchdog's time is taken; a silent process is killed
    import multiprocessing as mp
    import time

    from hidekit.release import stream_fork

    monkeypatch.setattr(stream_fork, "WAIT_FLOOR", 5.0)
    monkeypatch.setattr(stream_fork, "WAIT_FACTOR", 0.0)
    assert stream_fork.forked(lambda: (time.sleep(0.2), 42)[1])() == 42
    assert stream_fork.forked(lambda: 1 // 0)() is None  # failed: None at once
    monkeypatch.setattr(stream_fork, "WAIT_FLOOR", 0.3)
    wait = stream_fork.forked(lambda: time.sleep(3600))
    assert mp.active_children()
    assert wait() is None
    assert not mp.active_children()
    monkeypatch.setattr(stream_fork, "WAIT_FLOOR", 3600.0)
    wait = stream_fork.forked(lambda: time.sleep(3600))  # this process failed: stop it now
    assert wait(stop=True) is None
    assert not mp.active_children()


def test_a_failed_forked_process_s_error_is_logged(caplog):
    # the error the failed child sends back is logged (one line), not dropped
    import logging

    from hidekit.release import stream_fork

    def fails():
        raise ValueError("the second half broke\nsecond line")

    with caplog.at_level(logging.WARNING, logger="hidekit.release"):
        assert stream_fork.forked(fails)() is None
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "the forked process failed (ValueError: the second half broke): its share done here"
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hidekit.release"):
        assert stream_fork.forked(lambda: 42)() == 42
        assert stream_fork.forked(lambda: 1)(stop=True) is None  # stopped by us: nothing
    assert not caplog.records


def test_batches_come_in_the_size_asked():
    import pyarrow as pa

    from hidekit.release.stream_source import rebatched

    parts = [pa.record_batch({"a": list(range(i, i + n))}) for i, n in ((0, 5), (5, 1), (6, 7))]
    for rows in (1, 3, 4, 13, 20):
        got = list(rebatched(iter(parts), rows))
        assert [b.num_rows for b in got] == [rows] * (13 // rows) + (
            [13 % rows] if 13 % rows else []
        )
        assert [v for b in got for v in b.column("a").to_pylist()] == list(range(13))


def test_a_plan_that_needs_the_whole_table_runs_in_memory(tmp_path):
    plan = _survey_plan(
        tmp_path,
        500,
        '[[steps]]\nuse = "remove"\ncolumns = ["name", "ssn", "phone", "email", '
        '"street_address", "birth_date", "record_id", "latitude", "longitude"]\n'
        '[[steps]]\nuse = "mondrian"\nkeys = ["sex", "age", "state", "race", "marital_status"]\n'
        "k = 3\n",
    )
    res = run_plan(plan, output=tmp_path / "out", chunk_rows=100)
    assert res.chunks == 0 and res.released


def test_column_types_by_batches_are_read_tables(tmp_path):
    # leading zeros, padded numbers, signs, exponents, text outside ASCII, missing cells; whole
    # numbers past 64 bits and digits or spaces to_numeric cannot read stay text
    cols = {
        "wide": ["1", "9223372036854775808", "", "5"],
        "wide_late": ["1", "2", "3", "-9223372036854775809"],
        "int64_ends": ["9223372036854775807", "-9223372036854775808", "", "1"],
        "wide_real": ["1.5", "2", "3", "123456789012345678901234"],
        "arabic_digit": ["1", "2", "\u0663", "4"],
        "no_break_space": ["1", "\xa02", "3", "4"],
        "zip": ["02139", "10027", "", "94305"],
        "padded": [" 5", "6 ", "7", ""],
        "signed": ["+3", "-4", "5", "6"],
        "real": ["1e5", ".5", "3.", "-2.5E-3"],
        "mixed": ["1", "a", "2", "3"],
        "accented": ["é1", "3", "4", "5"],
        "accented_number": ["5", "ü", "7", ""],
        "late_float": ["1", "2", "3", "4.5"],  # batches of 3: integers first, then a decimal
        "late_text": ["1", "2", "3", "x"],
        "late_zero": ["1", "2", "3", "007"],
        "empty": ["", "", "", ""],
        "text": ["x", "", "y,z", 'q"r'],
    }
    path = tmp_path / "t.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    expected = read_table(path).frame
    import duckdb

    from hidekit.io.direct import direct_source
    from hidekit.release.stream_source import batches

    source = direct_source(path)
    con = duckdb.connect()
    types = ColumnTypes(list(cols))
    for batch in batches(con, source, list(cols), 3):
        types.see(batch)
    kinds = types.kinds()
    parts = [typed_frame(b, kinds, 0) for b in batches(con, source, list(cols), 3)]
    got = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(got, expected)


_cell = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(list("ab,;\"'\n\r=+-@ 01.é")), max_size=6),
)


@settings(max_examples=60, deadline=None)
@given(
    text=st.lists(_cell, min_size=1, max_size=12),
    floats=st.lists(st.one_of(st.none(), st.floats(allow_nan=False, width=64)), min_size=1),
    sep=st.sampled_from([",", ";", "\t", "|"]),
    plain=st.lists(st.floats(-200, 200), min_size=12, max_size=12),
)
def test_csv_rows_are_to_csv(text, floats, sep, plain):
    # plain: decimals as coordinates hold (Arrow writes their digits), whole and tiny ones too
    n = min(len(text), len(floats))
    frame = pd.DataFrame(
        {
            "t": pd.Series(text[:n], dtype=object),
            "f": pd.Series([np.nan if v is None else v for v in floats[:n]], dtype=float),
            "g": pd.Series([plain[i] / 10 ** (i % 7) for i in range(n)], dtype=float),
            "i": pd.array([None if i % 3 == 0 else i - 5 for i in range(n)], dtype="Int64"),
            "m": pd.Series([[1, True, "1", 2.5, None][i % 5] for i in range(n)], dtype=object),
        }
    )
    for part in (frame, frame[["t"]], frame[["f"]], frame[["f", "g", "i"]]):
        want = neutralize_formulas(part)[0].to_csv(index=False, sep=sep).encode()
        assert header_line(part.columns, sep) + csv_rows(part, sep) == want
        raw = part.to_csv(index=False, sep=sep).encode()
        assert header_line(part.columns, sep) + csv_rows(part, sep, neutralize=False) == raw


@pytest.mark.parametrize("chunk", [1, 4])
def test_chunks_of_an_empty_column_and_missing_points(tmp_path, chunk):
    # a record without coordinates keeps none, and the draws of the others do not move
    frame = generate_survey(12, 9)
    frame.loc[[2, 7], "latitude"] = np.nan
    frame.to_csv(tmp_path / "survey.csv", index=False)
    plan = _survey_plan(tmp_path, 0, "")
    frame.to_csv(tmp_path / "survey.csv", index=False)
    text = plan.read_text().replace("k = 3 ", "k = 1 ").replace("k = 3\n", "k = 1\n")
    plan.write_text(text.replace("rp = 0.0", "rp = 1.0"))
    _same_release(plan, tmp_path, [chunk])


def test_encode_fast_crosswalk_is_the_general_one(monkeypatch):
    # the Arrow path of Encode.fit (flat columns, no earlier crosswalk) against the general one
    from hidekit.transforms import identifiers
    from hidekit.transforms.identifiers import Encode

    frame = pd.DataFrame(
        {
            "id": pd.array([5, 12, None, 7, 5, 100, 3], dtype="Int64"),
            "name": ["b", "a\x00z", "é", None, "a", "Z", "b"],
            "f": [1.0, 2.0, np.nan, 2.0, 10.0, 3.0, 1.0],
        }
    )
    key = b"k" * 32
    fast = Encode(["id", "name", "f"], key=key).fit(frame)
    monkeypatch.setattr(identifiers, "_flat_crosswalk", lambda *a: None)
    slow = Encode(["id", "name", "f"], key=key).fit(frame)
    pd.testing.assert_frame_equal(fast.crosswalk_, slow.crosswalk_)
    pd.testing.assert_frame_equal(fast.transform(frame), slow.transform(frame))
    # fit_transform takes each value's code from the rows fit found (no second lookup)
    both = Encode(["id", "name", "f"], key=key).fit_transform(frame)
    pd.testing.assert_frame_equal(both, slow.transform(frame))
    monkeypatch.undo()
    pd.testing.assert_frame_equal(
        Encode(["f", "id"], key=key).fit_transform(frame),
        Encode(["f", "id"], key=key).fit(frame).transform(frame),
    )


def test_jitter_tags_and_urban_categories_are_the_per_value_ones():
    from hidekit.transforms.generalize import value_key
    from hidekit.transforms.geo import Jitter, _cluster_tags

    for names in (pd.Index([0, 5, 12]), pd.Index([0.0, 3.0, 7.0]), pd.Index([], dtype=float)):
        want = [("r" + str(value_key(v))).encode() for v in names]
        assert _cluster_tags(names, False).to_pylist() == want
    assert _cluster_tags(pd.Index(["a", 2, "\u00e9"]), True).to_pylist() == [
        b"ca",
        b"c2",
        "c\u00e9".encode(),
    ]
    j = Jitter("lat", "lon", urban="u", key=b"k" * 32)
    j.fit_urban(pd.Series(["urban", "rural"]))
    for values in (pd.Series(["urban", None, "rural", "urban"]), pd.Series(["x", 1.0, None])):
        want = values.map(lambda v: None if (k := value_key(v)) is None else j.urban_codes_.get(k))
        assert j._urban_categories(values).tolist() == want.tolist()


def test_text_keys_of_integers_are_value_keys():
    from hidekit.transforms.generalize import value_key
    from hidekit.transforms.loss import _text_keys

    for s in (
        pd.Series(pd.array([3, None, -12, 3, 2**53 - 1], dtype="Int64")),
        pd.Series(np.array([0, 7, -1], dtype=np.int64)),
        pd.Series(pd.array([2**60 + 1, 5], dtype="Int64")),  # past 2**53: the per-value path
    ):
        assert _text_keys(s).tolist() == [value_key(v) for v in s.tolist()]


def test_text_keys_of_text_are_the_texts():
    from hidekit.transforms.generalize import value_key
    from hidekit.transforms.loss import _text_keys

    s = pd.Series(["a", None, "b\x00", np.nan, "a"], dtype=object)
    assert _text_keys(s).tolist() == [value_key(v) for v in s.tolist()]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=5), st.text(max_size=5)), min_size=1, max_size=8))
def test_crosswalk_payload_by_arrow_is_json_dumps(rows):
    import json

    from hidekit.transforms.crosswalk import _json_rows, _text_payload

    frame = pd.DataFrame(rows, columns=["value", "code"], dtype=object)
    want = json.dumps(
        {"columns": ["value", "code"], "data": _json_rows(frame)}, ensure_ascii=False
    ).encode("utf-8")
    got = _text_payload(frame)
    assert got is None or got == want
    chars = [ord(ch) for r in rows for v in r for ch in v]
    plain = not any(c in (34, 92, 127) or c < 32 or 0xD800 <= c <= 0xDFFF for c in chars)
    assert got == want or not plain  # plain text: the Arrow path was taken


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(max_size=4), st.one_of(st.text(max_size=4), st.integers(-5, 5))),
        min_size=1,
        max_size=9,
    ),
    st.integers(1, 4),
)
def test_a_crosswalk_sealed_by_pieces_is_the_one_encrypted_whole(rows, piece):
    # the payload by pieces of rows (Arrow's text or json.dumps per piece) is the whole
    # payload: both files decrypt to the same table
    import json

    from hidekit.jobs.files import seal_crosswalk
    from hidekit.transforms.crosswalk import _json_rows, decrypt_frame, encrypt_frame, json_pieces

    frame = pd.DataFrame(rows, columns=["value", "code"], dtype=object)
    whole = json.dumps(
        {"columns": ["value", "code"], "data": _json_rows(frame)}, ensure_ascii=False
    )
    body = b", ".join(json_pieces(frame, piece)).decode("utf-8")
    assert whole == '{"columns": ["value", "code"], "data": [' + body + "]}"
    with tempfile.TemporaryDirectory() as tmp:
        key = new_key_file(Path(tmp) / "k.key")  # HKDF: fast, unlike a passphrase's scrypt
        sealed = bytes(seal_crosswalk(frame, key_file=key).envelope.getbuffer())
        got = decrypt_frame(sealed, key_file=key)
        want = decrypt_frame(encrypt_frame(frame, key_file=key), key_file=key)
    pd.testing.assert_frame_equal(got, want)


def test_a_refused_release_by_chunks_says_what_in_memory_says_and_leaves_nothing(tmp_path):
    from hidekit.errors import PolicyError

    plan = _survey_plan(tmp_path, 400, "")
    plan.write_text(plan.read_text().replace("k = 3          #", "k = 50          #"))
    with pytest.raises(PolicyError) as mem:
        run_plan(plan, output=tmp_path / "mem")
    with pytest.raises(PolicyError) as chunked:
        run_plan(plan, output=tmp_path / "chunks", chunk_rows=64)
    assert str(chunked.value) == str(mem.value)
    assert not (tmp_path / "chunks").exists() and not (tmp_path / "chunks.private").exists()


def test_jitter_draws_are_keyed_blake2b_of_the_tags():
    # the keyed state copied per tag gives each tag's BLAKE2b under the step's subkey
    import hashlib

    from hidekit.transforms.geo import Jitter

    j = Jitter("lat", "lon", key=b"k" * 32)
    tags = ["r0", "r17", "c\u00e9", ""]
    sub = j._random.subkey("jitter", "lat", "lon")
    raw = b"".join(
        hashlib.blake2b(f"3:{t}".encode(), key=sub, digest_size=32).digest() for t in tags
    )
    words = np.frombuffer(raw, "<u8").reshape(len(tags), 4)
    want = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    array = pa.array([t.encode() for t in tags], pa.binary())
    assert np.array_equal(j._uniforms(array, 3), want)


@pytest.mark.parametrize("values", [[10, 11, 12, 13], [13, 10, 12, 11], [1, None, 3, 2]])
def test_a_lookup_finds_each_record_s_row_and_refuses_an_unseen_value(values):
    # one column of distinct values (row = id when in first-seen order) or not: the rows a
    # dictionary gives; a value (or a missing one) the table lacks is refused
    from hidekit.release.stream_tables import Lookup, StreamUnsupported

    table = pd.DataFrame({"v": pd.array(values, dtype="Int64")})
    lookup = Lookup(table)
    where = {v: i for i, v in enumerate(values)}
    chunk = [values[i] for i in (3, 0, 0, 2, 1)]
    got = lookup.rows(pd.DataFrame({"v": pd.array(chunk, dtype="Int64")}))
    assert got.tolist() == [where[v] for v in chunk]
    for unseen in ([99], [None] if None not in values else [4]):
        with pytest.raises(StreamUnsupported):
            lookup.rows(pd.DataFrame({"v": pd.array([values[0], *unseen], dtype="Int64")}))


def test_a_lookup_refuses_a_table_whose_combinations_cannot_be_numbered():
    # four columns of 2**16 distinct values each: 65,537**4 > 2**62 combination numbers would
    # wrap around int64 and find wrong rows; the lookup refuses (the run goes in memory)
    from hidekit.release.stream_tables import Lookup, StreamUnsupported

    n = 2**16
    rng = np.random.default_rng(0)
    table = pd.DataFrame({c: rng.permutation(n) for c in "abcd"})
    with pytest.raises(StreamUnsupported, match="too many distinct combinations"):
        Lookup(table)
    assert len(Lookup(table[["a", "b", "c"]]).rows(table[["a", "b", "c"]].head(3))) == 3
