"""The detector's speed-ups change nothing: recognizer gates skip only texts a pattern cannot match."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.text.detection.leak_names import _CUES
from hidekit.text.detection.recognizers import RECOGNIZERS, PatternRecognizer
from hidekit.text.detection.recognizers.gates import _FOLD_EXTRA, _uncased, fold, regex_gate
from hidekit.text.synthesis import generate_notes

FIXTURES = Path(__file__).parent / "fixtures"
PATTERNS = [r for r in RECOGNIZERS.values() if isinstance(r, PatternRecognizer)]
# characters re.IGNORECASE matches to ASCII letters: swapped in to test the folding of gates
_SPECIAL = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a", "I": "\u0130\u0131", "S": "\u017f"}


def _ungated(rec: PatternRecognizer, text: str):
    gate, rec._gate = rec._gate, None
    plan, rec._gate_plan = rec._gate_plan, None  # the gate as the shared literal index runs it
    try:
        return rec.find(text)
    finally:
        rec._gate, rec._gate_plan = gate, plan


@pytest.fixture(scope="module")
def texts() -> list[str]:
    out = [d.text for d in generate_notes(40, seed=3)]
    out += [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "en-dev").glob("*.txt"))[:10]]
    out += [
        p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "meddocan").glob("*.txt"))[:10]
    ]
    return out


def _variants(s: str) -> list[str]:
    """A matched text in other cases and with characters that only re's case folding equates."""
    out = [s, s.upper(), s.lower(), s.swapcase(), s.title()]
    for a, repl in _SPECIAL.items():
        for r in repl:
            out.append(s.replace(a, r))
            out.append(s.upper().replace(a.upper(), r))
    return out


def test_fold_covers_every_character_ignorecase_equates_with_an_ascii_letter():
    letters = re.compile("[a-z]", re.IGNORECASE)
    for cp in range(0x110000):
        ch = chr(cp)
        if letters.fullmatch(ch):
            matched = [a for a in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(a, ch, re.I)]
            assert len(matched) == 1 and fold(ch) == matched[0], (hex(cp), matched)
    assert all(len(ch) == 1 for ch in _FOLD_EXTRA.values())


def test_uncased_characters_are_matched_only_by_themselves():
    import _sre

    for cp in range(0x110000):
        if _uncased(chr(cp)):
            assert not _sre.unicode_iscased(cp), hex(cp)


def test_every_match_passes_its_gate(texts):
    for rec in PATTERNS:
        for text in texts:
            for m in rec._rx.finditer(text):
                window = text[max(0, m.start() - 60) : m.end() + 10]
                for v in [text, *_variants(window)]:
                    # a gate may also require a context word: then only texts with hits count
                    if rec._rx.search(v) and (not rec.context or _ungated(rec, v)):
                        assert rec.gate_passes(v), (rec.name, v[:200])


def test_gated_recognizers_give_the_same_hits(texts):
    crafted = [
        "",
        "\n\n",
        "fax",
        "FAX: 617-555-0100",
        "\u017fsn 123456789",
        "Social \u017fecurity: 123456789",
        "seen 3/4 on 3/4",
        "Worked as a roofer",
        "WORKED AS A ROOFER",
        "In 1999 and \u0130n 2001",
        "\u0130d: AB-1234",
        "Dr. José Núñez, MD; Boston, MA 02115",
        "N\u00ba historia clínica: 1234567 ; NHC 998877",
        "Edad: 45 años. EDAD 45",
    ]
    for rec in PATTERNS:
        for text in [*texts, *crafted]:
            assert rec.find(text) == _ungated(rec, text), rec.name


@pytest.mark.parametrize(
    ("pattern", "flags", "yes", "no"),
    [
        (r"\b(?:abc|de)f", re.I, ["xx ABCF", "deF"], ["abf", "xyz"]),
        (r"(?<!\w)foo(?:bar)?", 0, ["foo"], ["Foo", "FOO"]),
        (r"x(?i:yz)", 0, ["xYZ"], ["XYZ", "xy"]),
        (r"a{2}b", 0, ["aab"], ["ab", "b"]),
        (r"(?:ab)+c", re.I, ["ABABC"], ["AC"]),
        (r"[ab]cd", re.I, ["BCD", "acd"], ["cd"]),
        (r"zip\s*(\d{5})", re.I, ["ZIP 02115"], ["zi 02115"]),
        (r"s\d", re.I, ["\u017f1", "S1"], ["x1"]),
    ],
)
def test_gate_on_small_patterns(pattern, flags, yes, no):
    rx = re.compile(pattern, flags)
    rec = PatternRecognizer("t", "T", pattern=pattern, flags=flags)
    assert rec._gate == regex_gate(rx)
    for text in yes:
        assert rx.search(text) and rec.gate_passes(text), text
    for text in no:
        assert not rx.search(text)
        assert rec.find(text) == []


# the case cuts as they were written before being rewritten to start with the upper-case letter
_CASE_SPLIT_REFERENCE = re.compile(
    r"(?<=[^\W\d_])(?=[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü])|(?<=[a-záéíóúñüº])(?=[A-ZÁÉÍÓÚÑÜ])"
)


def test_case_cuts_equal_the_zero_width_expression(texts):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from hidekit.text.detection.features import _CASE_SPLIT

    def cuts(rx: re.Pattern, text: str) -> list[int]:
        return [m.start() for m in rx.finditer(text)]

    for text in texts:
        assert cuts(_CASE_SPLIT, text) == cuts(_CASE_SPLIT_REFERENCE, text)
    assert cuts(_CASE_SPLIT, "MartínezNºCol aBCd McDONALD xY ÑÚ") == [8, 10, 15, 16, 21, 29]

    @settings(max_examples=400, deadline=None)
    @given(st.text(alphabet="aZbYºÁéÑ1_ -'.\n", max_size=30))
    def check(text: str) -> None:
        assert cuts(_CASE_SPLIT, text) == cuts(_CASE_SPLIT_REFERENCE, text)

    check()


def test_ascii_mode_splits_plain_ascii_texts_as_unicode_mode(texts):
    """Words and tokens of a ``plain_ascii`` text are split with ``re.ASCII`` (faster): the same
    split, and not used on texts with the separators only Unicode-mode ``\\s`` matches."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from hidekit.text.detection.features import _TOKEN_SPLIT, _TOKEN_SPLIT_ASCII
    from hidekit.text.detection.recognizers.dictionaries import _SPLIT, _SPLIT_ASCII
    from hidekit.text.detection.recognizers.scans import plain_ascii

    pairs = [(_TOKEN_SPLIT, _TOKEN_SPLIT_ASCII), (_SPLIT, _SPLIT_ASCII)]
    every = "".join(chr(c) for c in range(128))
    assert not plain_ascii(every) and plain_ascii(every.replace("\x1c\x1d\x1e\x1f", ""))
    assert not plain_ascii("café") and _TOKEN_SPLIT_ASCII.split("a\x1cb") != _TOKEN_SPLIT.split(
        "a\x1cb"
    )
    for text in [*texts, every.replace("\x1c\x1d\x1e\x1f", "")]:
        if plain_ascii(text):
            for uni, asc in pairs:
                assert asc.split(text) == uni.split(text)

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
    def check(text: str) -> None:
        if plain_ascii(text):
            for uni, asc in pairs:
                assert asc.split(text) == uni.split(text)

    check()


def _flat_cues():
    """leak_names' cue expressions with the plain longest-first alternation of the cue words."""
    from hidekit.text.detection import leak_names

    def flat(words):
        return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))

    pattern = leak_names._cue_pattern(flat)
    return (
        (re.compile(r"\b(?=[a-z])" + pattern), leak_names._CUE_LOWER),
        (re.compile(pattern, re.IGNORECASE), leak_names._CUE_RE),
    )


_CUE_PIECES = sorted(
    _CUES | {"mrsa", "m", "mr", "son-", "dr", "i am", "hi", "names are", "typed by", "İ", "K", "ſ"}
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_CUE_PIECES),
            st.sampled_from([" ", ". ", ": ", " (", "\t", "", "'", "-", ".", "\n", "s "]),
            st.booleans(),
        ),
        max_size=12,
    )
)
def test_cue_words_as_a_trie_match_as_the_longest_first_list(parts):
    """The cue words are one trie-shaped alternation (``leak_names._alternatives``): the same
    matches as the plain list, longest first, in lower case and ignoring case."""
    text = "".join((w.upper() if up else w) + sep + "jo " for w, sep, up in parts)
    for flat, trie in _flat_cues():
        for hay in (text, text.lower()):
            assert [m.span() for m in trie.finditer(hay)] == [m.span() for m in flat.finditer(hay)]


def test_cue_words_as_a_trie_on_notes(texts):
    for flat, trie in _flat_cues():
        for t in texts:
            for hay in (t, t.lower()):
                got = [m.span() for m in trie.finditer(hay)]
                assert got == [m.span() for m in flat.finditer(hay)]
