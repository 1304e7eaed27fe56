"""The shared literal index (recognizers.literal_index) finds, for every literal scan at once,
exactly the positions the scan's own finder (the ``re`` alternation of its heads) finds one by
one; and literal scans read through it give ``finditer``'s matches."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.text.detection.recognizers import literal_index
from hidekit.text.detection.recognizers.gates import fold
from hidekit.text.detection.recognizers.scans import Scan, _heads, _trie

# a small alphabet with the characters that matter: ASCII, a cased non-ASCII letter, a letter
# outside the basic plane, a newline, a tab, a space
_ALPHABET = "abAB1 \n\té\u0130\U0001d400"
_HEAD = st.text(_ALPHABET, min_size=2, max_size=4)


def _finder_starts(strings, hay: str) -> list[int]:
    """The old scan: ``finder.search(hay, pos)`` from each start plus one."""
    rx = re.compile(_trie(strings))
    found, pos = [], 0
    while (m := rx.search(hay, pos)) is not None:
        found.append(m.start())
        pos = m.start() + 1
    return found


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_HEAD, min_size=1, max_size=6), min_size=1, max_size=4),
    st.text(_ALPHABET, max_size=60),
)
def test_index_finds_what_each_finder_finds(string_sets, hay):
    index = literal_index.HeadIndex([tuple(_heads(s)) for s in string_sets])
    assert index.starts(hay) == [_finder_starts(s, hay) for s in string_sets]


def test_index_makes_room_for_many_starts():
    hay = "ab" * 5000  # more starts than the first guess of room
    index = literal_index.HeadIndex([("ab",), ("ba",), ("ab", "bab")])
    got = index.starts(hay)
    assert got[0] == list(range(0, 10000, 2))
    assert got[1] == list(range(1, 9999, 2))
    assert got[2] == list(range(9999))  # "ab" at even places, "bab" at odd ones but the last
    assert index.starts("a") == [[], [], []]


def test_scans_with_few_first_characters_keep_their_own_search():
    scan = Scan(re.compile(r"(?<![\w/.,-])(?:1[89]\d\d|2[01]\d\d)(?![\w/-])"))
    assert scan.kind == "literal" and scan.head_id == -1
    text = "in 1999, 2019/20 and 2101 x1999"
    assert [(s, e) for _, s, e in scan.matches(text)] == [(3, 7), (21, 25)]


def test_the_same_heads_are_registered_once():
    first = literal_index.register(["zq", "qz"])
    assert literal_index.register(("qz", "zq", "qz")) == first
    assert literal_index.register(["zq"]) != first
    assert literal_index.head_starts("zqz", first) == [0, 1]


def test_heads_must_be_two_characters():
    try:
        literal_index.HeadIndex([("a",)])
    except ValueError:
        return
    raise AssertionError("a one-character head was accepted")


_PATTERNS = [  # literal scans whose heads start with five characters or more: indexed
    (r"\b(?:licen[cs]e|permit|ref|badge|order|serial)\s*(?:no\.?|#)?\s*([A-Z0-9]{2,8})", re.I),
    (r"(?<![\w])(?:Dr|Mrs?|Prof|Sister|Nurse|Father)\.?\s+([A-Z][a-z]+)", 0),
    (r"\b(?:aged|age:?|age of|born|turned|now|since|was)\s+(\d{1,3})\b", re.IGNORECASE),
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "licence ",
                "LICENSE no ",
                "permit# ",
                "ref ",
                "Dr. ",
                "Mrs ",
                "aged ",
                "AGE: ",
                "age of ",
                "Smith ",
                "ab12 ",
                "99 ",
                "\n",
                "ſ",
                "\u212a",
                "é",
                " ",
                "x",
            ]
        ),  # fmt: skip
        max_size=25,
    ).map("".join)
)
def test_literal_scans_match_finditer(text):
    for pattern, flags in _PATTERNS:
        scan = Scan(re.compile(pattern, flags))
        assert scan.kind == "literal" and scan.head_id >= 0
        assert len(fold(text)) == len(text) or "\u0130" in text
        got = [(s, e, m.groups()) for m, s, e in scan.matches(text)]
        want = [(m.start(), m.end(), m.groups()) for m in scan.rx.finditer(text)]
        assert got == want


@settings(max_examples=200, deadline=None)
@given(st.text("abAB1 ,\n\u0130\u017f\u212ae", max_size=40))
def test_indexed_gates_pass_as_gates_do(text):
    from hidekit.text.detection.recognizers.gates import (
        _gate_passes,
        indexed_gate,
        indexed_gate_passes,
    )

    gates = [
        ((True, ("ab", "b1", "1 a", "ka", "se"), object()),),  # many strings: indexed
        ((False, ("AB", "B,"), None), (True, ("a,",), None)),  # few: substring checks
        ((True, ("ab", "e,", "ba", "a a"), object()), (False, (",", "\n"), None)),
    ]
    for gate in gates:
        plan = indexed_gate(gate)
        assert [c[3] >= 0 for c in plan] == [c[2] is not None for c in gate]
        # the matcher of an indexed condition is never called (here it is not callable)
        want = all(
            any(s in (fold(text) if folded else text) for s in strings)
            for folded, strings, _ in gate
        )
        assert indexed_gate_passes(plan, text) == want
        if all(c[2] is None for c in gate):
            assert _gate_passes(gate, text) == want
