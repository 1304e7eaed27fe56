"""Property: every reader and the plan loader either return what they read or raise a
HidekitError — never another exception (a traceback), whatever the bytes (issue 18).

Random bytes under every suffix, random CSV shapes (delimiters, quotes, ragged rows, BOMs,
encodings, NULs), random plan TOML (any section, any value type, NaN and infinity included), and
random bytes for the side readers: JSONL corpora, hierarchies, population tables, crosswalks,
model files.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.errors import HidekitError
from hidekit.io import read_table
from hidekit.io.dataset import Dataset
from hidekit.io.hierarchy import Hierarchy
from hidekit.release import load_plan
from hidekit.release.plan import Plan
from hidekit.text.corpus import read_jsonl
from hidekit.text.detection.model_file import read_model_bytes
from hidekit.transforms.crosswalk import decrypt_frame
from hidekit.transforms.safe_harbor import read_population

SUFFIXES = [
    ".csv",
    ".tsv",
    ".txt",
    ".parquet",
    ".dta",
    ".sav",
    ".por",
    ".sas7bdat",
    ".xpt",
    ".xlsx",
]
FAST = settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _in_tmp(name: str, data: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="hk-fuzz-"))
    p = folder / name
    p.write_bytes(data)
    return p


def _reads_or_refuses(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except HidekitError as exc:
        message = str(exc)
        assert message and "\n" not in message, repr(message)  # one line
        return None


@FAST
@given(data=st.binary(max_size=2048), suffix=st.sampled_from(SUFFIXES))
def test_random_bytes_under_any_suffix(data, suffix):
    got = _reads_or_refuses(read_table, _in_tmp("x" + suffix, data))
    assert got is None or isinstance(got, Dataset)


CELL = st.one_of(
    st.text(max_size=8),
    st.integers(-(10**12), 10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", '"', '""', '"a,b"', "\\", "\x00", "\r", "20040404", "0012", "NaN", "[/]"]),
)


@st.composite
def csv_files(draw):
    sep = draw(st.sampled_from([",", ";", "\t", "|", " ", ":"]))
    n_cols = draw(st.integers(0, 6))
    rows = [
        [draw(CELL) for _ in range(draw(st.integers(0, n_cols + 2)))]
        for _ in range(draw(st.integers(0, 8)))
    ]
    text = "\n".join(sep.join(r) for r in rows) + draw(st.sampled_from(["", "\n", "\r\n"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32", "cp1252"]))
    data = text.encode(encoding, errors="replace")
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(data)))
        data = data[:cut]  # truncated mid-character
    given_sep = draw(st.sampled_from([None, sep, "||", "", "ab"]))
    return data, given_sep


@FAST
@given(csv=csv_files())
def test_random_csv_shapes(csv):
    data, sep = csv
    got = _reads_or_refuses(read_table, _in_tmp("t.csv", data), sep=sep)
    if got is not None:
        assert isinstance(got.frame, pd.DataFrame) and got.frame.shape[1] >= 1


SCALAR = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=10),
    st.sampled_from(["survey.csv", "age", "sex", "bin", "topcode", "hash", "safe_harbor", "."]),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "k"]), inner)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from(
    ["path", "sep", "folder", "overwrite", "direct", "keys", "sensitive", "k", "rp", "cell_min",
     "passphrase_env", "key_file", "columns", "width", "top", "level", "key", "seed", "x"]
)  # fmt: skip


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string for these characters
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"


@st.composite
def plans(draw):
    lines = []
    for section in draw(
        st.lists(st.sampled_from(["input", "output", "roles", "risk", "crosswalk", "bogus"]))
    ):
        lines.append(f"[{section}]")
        for key, value in draw(st.dictionaries(KEYS, VALUE, max_size=4)).items():
            lines.append(f"{key} = {_toml_value(value)}")
    for _ in range(draw(st.integers(0, 3))):
        lines.append("[[steps]]")
        use = draw(st.one_of(st.sampled_from(["bin", "topcode", "hash", "hierarchy"]), SCALAR))
        lines.append(f"use = {_toml_value(use)}")
        for key, value in draw(st.dictionaries(KEYS, VALUE, max_size=4)).items():
            if key != "use":
                lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


@FAST
@given(text=plans())
def test_random_plan_toml(text):
    p = _in_tmp("plan.toml", text.encode("utf-8"))
    (p.parent / "survey.csv").write_text("age,sex\n30,F\n40,M\n")
    got = _reads_or_refuses(load_plan, p)
    if got is not None:
        assert isinstance(got, Plan)
        assert isinstance(got.k, int) and not isinstance(got.k, bool) and got.k >= 1


@FAST
@given(data=st.binary(max_size=512))
def test_random_bytes_as_a_plan(data):
    got = _reads_or_refuses(load_plan, _in_tmp("plan.toml", data))
    assert got is None or isinstance(got, Plan)


JSON_VALUE = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-5, 50), st.floats(-1, 60), st.text(max_size=6)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["id", "text", "spans", "start", "end", "label", "patient"]), inner
        ),
    ),
    max_leaves=10,
)


@FAST
@given(records=st.lists(JSON_VALUE, min_size=1, max_size=4), junk=st.binary(max_size=40))
def test_random_jsonl_corpora(records, junk):
    text = "\n".join(json.dumps(r) for r in records).encode() + b"\n" + junk
    got = _reads_or_refuses(read_jsonl, _in_tmp("c.jsonl", text))
    assert got is None or isinstance(got, list)


@FAST
@given(data=st.binary(max_size=512))
def test_random_side_files(data):
    _reads_or_refuses(Hierarchy.read, _in_tmp("h.csv", data))
    _reads_or_refuses(read_population, _in_tmp("p.csv", data))
    _reads_or_refuses(decrypt_frame, data, passphrase="pw")
    _reads_or_refuses(read_model_bytes, data, "m.model")


@FAST
@given(header=st.dictionaries(st.sampled_from(["format", "version", "cipher", "kdf", "nonce",
                                                "ciphertext", "salt", "n", "r", "p", "name"]),
                              JSON_VALUE, max_size=8))  # fmt: skip
def test_random_crosswalk_headers(header):
    header = {**header, "format": "hidekit-crosswalk"}
    _reads_or_refuses(decrypt_frame, json.dumps(header).encode(), passphrase="pw")
