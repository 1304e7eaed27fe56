"""Direct identifiers: encode (flat, hierarchical, reused crosswalk), redact, remove, hash,
partition — determinism, no record lost or reordered, IDs unique per distinct value."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import ColumnNotFound, InputError, OptionError
from hidekit.jobs.identifiers import write_partition
from hidekit.transforms.base import get_transform
from hidekit.transforms.identifiers import Encode, KeyedHash, Redact, Remove
from hidekit.transforms.partition import Partition, partition

# J-PAL guide, Table 2.
CITIES = pd.DataFrame(
    {
        "State": ["MA", "MA", "MA", "NH", "NH"],
        "City": ["Somerville", "Cambridge", "Boston", "Concord", "Nashua"],
        "income": [1, 2, 3, 4, 5],
    }
)


def test_registered_by_name():
    assert get_transform("encode") is Encode and get_transform("redact") is Redact
    assert get_transform("remove") is Remove and get_transform("hash") is KeyedHash
    assert get_transform("partition") is Partition


def test_table2_hierarchical_codes():
    out = Encode(hierarchy=["State", "City"], insecure_seed=True, seed=11).fit_transform(CITIES)
    assert sorted(out["State"].unique()) == ["1", "2"]
    for state, group in out.groupby("State"):
        assert all(c.startswith(state) and len(c) == 2 for c in group["City"])
        assert sorted(c[1] for c in group["City"]) == [str(i) for i in range(1, len(group) + 1)]
    assert out["income"].tolist() == [1, 2, 3, 4, 5]  # other columns and order untouched


def test_same_name_under_two_parents_gets_two_codes():
    df = pd.DataFrame({"district": ["a", "b", "a"], "village": ["Springfield"] * 3})
    out = Encode(hierarchy=["district", "village"], insecure_seed=True, seed=0).fit_transform(df)
    assert out["village"][0] == out["village"][2] != out["village"][1]


def test_codes_are_fixed_width_strings_with_leading_zeros_and_not_sorted():
    values = [f"person {i:03d}" for i in range(150)]
    df = pd.DataFrame({"name": values})
    out = Encode(["name"], insecure_seed=True, seed=3).fit_transform(df)
    assert set(out["name"].str.len()) == {3} and "001" in set(out["name"])
    assert sorted(out["name"].astype(int)) == list(range(1, 151))
    # alphabetical order of the names is not the order of the codes
    assert out["name"].tolist() != sorted(out["name"])


def test_seed_determinism_and_row_order_independence():
    df = pd.DataFrame({"name": list("abcdefghij") * 3, "x": range(30)})
    a = Encode(["name"], insecure_seed=True, seed=5).fit_transform(df)
    b = Encode(["name"], insecure_seed=True, seed=5).fit_transform(df)
    shuffled = df.sample(frac=1, random_state=1)
    c = Encode(["name"], insecure_seed=True, seed=5).fit_transform(shuffled)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(c.loc[a.index], a)  # same mapping whatever the row order
    assert list(c.index) == list(shuffled.index)  # no record reordered
    d = Encode(["name"], insecure_seed=True, seed=6).fit_transform(df)
    assert not d["name"].equals(a["name"])


def test_reused_crosswalk_keeps_codes_and_gives_new_values_unused_ids():
    r1 = pd.DataFrame({"village": ["a", "b", "c", "d"]})
    e1 = Encode(["village"], width=2, insecure_seed=True, seed=1).fit(r1)
    r2 = pd.DataFrame({"village": ["c", "e", "a", "f"]})
    e2 = Encode(["village"], width=2, insecure_seed=True, seed=99, crosswalk=e1.crosswalk_).fit(r2)
    old = dict(zip(e1.crosswalk_["value"], e1.crosswalk_["code"], strict=True))
    new = dict(zip(e2.crosswalk_["value"], e2.crosswalk_["code"], strict=True))
    assert all(new[k] == v for k, v in old.items())
    assert len(set(new.values())) == 6 and {new["e"], new["f"]}.isdisjoint(old.values())
    assert e2.transform(r2)["village"].tolist() == [old["c"], new["e"], old["a"], new["f"]]
    with pytest.raises(OptionError, match="width"):
        Encode(["village"], width=3, crosswalk=e1.crosswalk_).fit(r2)


def test_full_width_refuses_instead_of_growing():
    e1 = Encode(["v"], insecure_seed=True, seed=0).fit(
        pd.DataFrame({"v": list("abcdefghi")})
    )  # 9 codes, width 1
    with pytest.raises(OptionError, match="holds 9 codes"):
        Encode(["v"], crosswalk=e1.crosswalk_).fit(pd.DataFrame({"v": ["z"]}))


def test_missing_stays_missing_and_numbers_written_alike():
    df = pd.DataFrame({"id": [1675.0, np.nan, 1675.0, 12.0]})
    out = Encode(["id"], insecure_seed=True, seed=0).fit_transform(df)
    assert out["id"].isna().tolist() == [False, True, False, False]
    assert out["id"][0] == out["id"][2]
    e = Encode(["id"], insecure_seed=True, seed=0).fit(df)
    assert set(e.crosswalk_["value"]) == {"1675", "12"}
    with pytest.raises(InputError, match="not in the crosswalk"):
        e.transform(pd.DataFrame({"id": [99]}))


def test_secrets_never_in_params():
    e = Encode(["name"], crosswalk=pd.DataFrame(columns=["column", "parent", "value", "code"]))
    assert "crosswalk" not in e.get_params()
    h = KeyedHash(["name"], key="sekrit-0123456789abcdefghij")
    assert "key" not in h.get_params() and "sekrit" not in repr(h)


def test_redact_and_remove():
    df = pd.DataFrame({"name": ["a", None, "c"], "x": [1, 2, 3]})
    out = Redact(["name"]).fit_transform(df)
    assert out["name"].tolist()[0] == "XXXX" and pd.isna(out["name"][1])
    assert Redact(["name"], "CONFIDENTIAL").fit_transform(df)["name"][2] == "CONFIDENTIAL"
    assert list(Remove(["name"]).fit_transform(df).columns) == ["x"]
    assert df["name"].tolist()[0] == "a"  # input untouched


def test_keyed_hash_matches_an_independent_hmac():
    key = b"0123456789abcdef0123456789abcdef"
    out = KeyedHash(["name"], key=key).fit_transform(pd.DataFrame({"name": ["Ann", None, 7.0]}))
    mac = crypto_hmac.HMAC(key, hashes.SHA256())
    mac.update(b"Ann")
    assert out["name"][0] == mac.finalize().hex()
    assert pd.isna(out["name"][1])
    mac = crypto_hmac.HMAC(key, hashes.SHA256())
    mac.update(b"7")
    assert out["name"][2] == mac.finalize().hex()
    other = KeyedHash(["name"], key=b"another-key-0123456789abcdef").fit_transform(
        pd.DataFrame({"name": ["Ann"]})
    )
    assert other["name"][0] != out["name"][0]


@pytest.mark.parametrize("key", ["", b"", None])
def test_hash_refuses_an_empty_key(key):
    with pytest.raises(OptionError, match="secret key"):
        KeyedHash(["name"], key=key)


def test_partition_three_parts_join_back():
    from hidekit.demo.survey import generate_survey

    df = generate_survey(200, 1)
    ids = ["name", "ssn", "street_address"]
    p = partition(df, ids, insecure_seed=True, seed=2)
    assert list(p.original.columns) == ["hk_id", *df.columns]
    assert list(p.deidentified.columns) == ["hk_id", *[c for c in df.columns if c not in ids]]
    assert len(p.link) == len(df.drop_duplicates(ids)) and p.link["hk_id"].is_unique
    back = p.deidentified.merge(p.link, on="hk_id", how="left")
    pd.testing.assert_frame_equal(back[df.columns], df)  # nothing lost, nothing reordered
    again = partition(df, ids, insecure_seed=True, seed=2)
    pd.testing.assert_frame_equal(again.deidentified, p.deidentified)
    with pytest.raises(OptionError, match="already exists"):
        partition(p.original, ids)


def test_partition_same_identifiers_share_one_id():
    df = pd.DataFrame(
        {"District": ["d1", "d1", "d2", None], "Address": ["x", "x", "x", None], "v": [1, 2, 3, 4]}
    )
    p = partition(df, ["District", "Address"], insecure_seed=True, seed=0)
    assert p.deidentified["hk_id"][0] == p.deidentified["hk_id"][1] != p.deidentified["hk_id"][2]
    assert len(p.link) == 3 and p.deidentified["hk_id"].notna().all()


def test_write_partition_is_encrypted_private_and_all_or_nothing(tmp_path):
    from hidekit.jobs.files import read_crosswalk

    secret = {"passphrase": b"correct horse"}
    p = partition(CITIES, ["City"], insecure_seed=True, seed=1)
    paths = write_partition(p, tmp_path / "out", stem="cities", link_secret=secret)
    assert oct(os.stat(paths["original"]).st_mode & 0o777) == "0o600"
    assert oct(os.stat(paths["link"]).st_mode & 0o777) == "0o600"
    for name in ("original", "link"):  # no identifier readable without the secret
        assert paths[name].suffix == ".hkcw"
        assert b"Somerville" not in paths[name].read_bytes()
    back = read_crosswalk(paths["original"], **secret)
    assert back["City"].tolist() == CITIES["City"].tolist()
    assert "City" not in pd.read_csv(paths["deidentified"]).columns
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("x")
    with pytest.raises(OptionError, match="not empty"):
        write_partition(p, tmp_path / "busy", link_secret=secret)
    assert os.listdir(tmp_path / "busy") == ["keep.txt"]


def test_write_partition_refuses_a_plain_original(tmp_path):
    p = partition(CITIES, ["City"], insecure_seed=True, seed=1)
    for secret in (None, {}, {"passphrase": None}):
        with pytest.raises(OptionError, match="never in plain text"):
            write_partition(p, tmp_path / "out", link_secret=secret)
    assert not (tmp_path / "out").exists() and os.listdir(tmp_path) == []


def test_bad_input():
    with pytest.raises(ColumnNotFound):
        Encode(["nope"]).fit(CITIES)
    with pytest.raises(ColumnNotFound):
        Redact(["nope"]).fit_transform(CITIES)
    with pytest.raises(ColumnNotFound):
        partition(CITIES, ["nope"])
    with pytest.raises(OptionError):
        Encode()
    with pytest.raises(OptionError):
        Encode(["City"], hierarchy=["City"])
    with pytest.raises(OptionError):
        Encode(["City"]).transform(CITIES)
    with pytest.raises(InputError, match="not an encode crosswalk"):
        Encode(["City"], crosswalk=pd.DataFrame({"a": [1]})).fit(CITIES)


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.one_of(st.text(max_size=6), st.integers(-50, 50)), min_size=1, max_size=60),
    seed=st.integers(0, 2**16),
    width=st.one_of(st.none(), st.integers(2, 4)),
)
def test_property_one_id_per_distinct_value(values, seed, width):
    df = pd.DataFrame({"v": pd.Series(values, dtype=object)})
    out = Encode(["v"], insecure_seed=True, seed=seed, width=width).fit_transform(df)
    pairs = set(zip(df["v"].map(str), out["v"], strict=True))
    assert len({v for v, _ in pairs}) == len(pairs)  # a value has one code
    assert len({c for _, c in pairs}) == len(pairs)  # a code has one value
    assert len(set(out["v"].str.len())) == 1 and out["v"].str.fullmatch(r"\d+").all()


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from("ABC"), st.sampled_from("xyz"), st.integers(0, 12)),
        min_size=1,
        max_size=40,
    ),
    seed=st.integers(0, 1000),
)
def test_property_hierarchy_codes_nest_and_are_unique(rows, seed):
    df = pd.DataFrame(rows, columns=["p", "d", "v"])
    out = Encode(hierarchy=["p", "d", "v"], insecure_seed=True, seed=seed).fit_transform(df)
    assert all(
        d.startswith(p) and v.startswith(d)
        for p, d, v in zip(out["p"], out["d"], out["v"], strict=True)
    )
    for col in ["p", "d", "v"]:
        assert len(set(out[col].str.len())) == 1
    keys = list(zip(df["p"], df["d"], df["v"], strict=True))
    assert len(set(zip(keys, out["v"], strict=True))) == len(set(keys)) == out["v"].nunique()


def test_flat_codes_are_the_ranks_of_a_keyed_hash_of_each_value():
    """Recomputed independently: the subkey is HMAC-SHA256 of the key over the step's label, a
    value's place the rank of SHA-256(subkey hex + value); the general path agrees."""
    import hashlib
    import hmac

    from hidekit.transforms import identifiers

    key = bytes(range(50, 82))
    values = ["b", "a", "zz", "0007", "a", None, "é"]
    df = pd.DataFrame({"name": values})
    label = repr(("hidekit-rng-v1", "encode", "subkey", "name")).encode("utf-8")
    prefix = hmac.new(key, label, hashlib.sha256).hexdigest()
    distinct = sorted({v for v in values if v is not None})
    ranked = sorted(distinct, key=lambda v: hashlib.sha256((prefix + v).encode()).hexdigest())
    want = {v: str(i) for i, v in enumerate(ranked, 1)}
    out = Encode(["name"], key=key).fit_transform(df)
    assert out["name"].tolist() == [want.get(v) if v else None for v in values]
    fast = identifiers._flat_crosswalk
    try:
        identifiers._flat_crosswalk = lambda *a: None  # the general path, value by value
        slow = Encode(["name"], key=key).fit_transform(df)
    finally:
        identifiers._flat_crosswalk = fast
    assert slow.equals(out)
