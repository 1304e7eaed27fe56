"""Fast scans (base.Scan) and the shared dictionary word pass find exactly what the plain code
finds: ``rx.finditer`` for pattern recognizers, a word-by-word loop for dictionaries."""

from __future__ import annotations

import re
from itertools import product
from pathlib import Path

import pytest

from hidekit.text.detection.recognizers import RECOGNIZERS, PatternRecognizer, get_recognizers
from hidekit.text.detection.recognizers import dictionaries as dicts
from hidekit.text.detection.recognizers.gates import _FOLD_EXTRA, _gate_passes, _sre_parse, fold
from hidekit.text.detection.recognizers.scans import (
    Scan,
    _prefix_seq,
    _trie,
    case_variants,
    consumes_newline,
    scan_matches,
)
from hidekit.text.spans import Span
from hidekit.text.synthesis import generate_notes

FIXTURES = Path(__file__).parent / "fixtures"
get_recognizers()  # fill the registry
PATTERNS = [r for r in RECOGNIZERS.values() if isinstance(r, PatternRecognizer)]
DICTIONARIES = [
    r
    for r in RECOGNIZERS.values()
    if isinstance(r, (dicts.DictionaryRecognizer, dicts.WordListRecognizer))
]
# how a cue can sit in a text: at its start, after a newline, glued to a word or to digits, …
_PLACES = [
    "{c}",
    "{c} ",
    "{c}: 12/03/2020",
    "x{c} 123-45-6789",
    "\n{c} 4155550100",
    "9{c}1234567",
    "{c}12345678Z",
    "({c}) 02115",
    "text {c}",
    "Dr. {c} Smith, MD",
    "{c} 45 years old",
    "{c}-{c}",
]
_GENERIC_CUES = {"12", "(555)", "+1", "Hospital", "Calle", "de", "St.", "A1"}
_SPECIAL = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}


def _reference(rx: re.Pattern, text: str) -> list[tuple]:
    return [tuple(m.span(g) for g in range(rx.groups + 1)) for m in rx.finditer(text)]


def _scanned(scan: Scan, text: str) -> list[tuple]:
    return [
        ((s, e), *(m.span(g) for g in range(1, scan.rx.groups + 1)))
        for m, s, e in scan.matches(text)
    ]


def _cues(rec: PatternRecognizer) -> set[str]:
    """Literal strings the recognizer's scan, gate and context look for."""
    rx = rec._rx
    out = set(rec.context)
    lits = _prefix_seq(_sre_parse.parse(rx.pattern, rx.flags).data, bool(rx.flags & re.I))
    if lits is not None:
        out |= {s for s in lits[1] if s}
    for _, strings, _ in rec._gate or ():
        out |= set(strings)
    return {c for c in out if c}


def _variants(cue: str) -> list[str]:
    out = {cue, cue.upper(), cue.lower(), cue.title(), cue.swapcase()}
    for a, repl in _SPECIAL.items():
        for r in repl:
            out.add(cue.replace(a, r))
            out.add(cue.upper().replace(a.upper(), r))
    return sorted(out)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    notes = [d.text for d in generate_notes(30, seed=21)]
    out = notes + [t.upper() for t in notes[:5]] + [t.lower() for t in notes[:5]]
    out += [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "en-dev").glob("*.txt"))[:8]]
    out += [
        p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "meddocan").glob("*.txt"))[:8]
    ]
    out += [
        "",
        "\n",
        "\n" * 50,
        "x" * 5000,
        ("1234567 MRN 12/03/2020 " * 300),
        "İstanbul ſsn K MRN: 1234567 naïve Σ ΣΑΣ café Calle Mayor 5, 28013 Madrid DNI 12345678Z",
    ]
    return out


def test_every_pattern_scans_like_finditer(texts):
    kinds = {r.name: r._scan.kind for r in PATTERNS}
    assert {"literal", "first", "plain"} <= set(kinds.values())
    for rec in PATTERNS:
        for text in texts:
            assert _scanned(rec._scan, text) == _reference(rec._rx, text), rec.name


def test_every_pattern_scans_like_finditer_around_its_cue_words():
    for rec in PATTERNS:
        for cue in sorted(_cues(rec) | _GENERIC_CUES):
            variants = _variants(cue)
            texts = [p.format(c=v) for p, v in product(_PLACES, variants)]
            texts.append(" ".join(texts))
            texts.append("".join(variants))
            for text in texts:
                assert _scanned(rec._scan, text) == _reference(rec._rx, text), (rec.name, text)


@pytest.mark.parametrize(
    ("pattern", "flags", "kind", "text"),
    [
        (r"\bmrn\s*(\d+)", re.I, "literal", "MRN 1 xmrn 2 mrn3 \u212a mrn mrn 4"),
        (r"(?<!\w)(?:ab|abc)d", 0, "literal", "abd abcd xabd ab abcdabd"),
        (r"\b\d{2}(?:-\d{2})?", 0, "first", "12 12-34 1-2 x12 123-45"),
        (r"(?<=\n)\d{3}|^\d", 0, "first", "1\n234\n56 7\n\n890"),
        (r"(?<![\w-])[A-Z]{2}\d", 0, "first", "AB1 -CD2 xEF3 GH4GH5"),
        (r"(?:aa)+", 0, "literal", "aaaaa aaa"),
        (r"\bk\w*", re.I, "first", "\u212aelvin kilo K"),
        (r"x?y", 0, "first", "xy y xxy"),
    ],
)
def test_small_patterns(pattern, flags, kind, text):
    rx = re.compile(pattern, flags)
    scan = Scan(rx)
    assert scan.kind == kind
    for t in [text, "\n" + text, text + "\n", text * 3]:
        assert _scanned(scan, t) == _reference(rx, t)


def test_patterns_that_can_match_nothing_are_not_scanned():
    for pattern in [r"a*", r"\b", r"(?:mrn)?\d*", r"(?=x)"]:
        assert Scan(re.compile(pattern)).kind == "plain"


def test_patterns_the_scan_cannot_wrap_fall_back_to_finditer():
    for pattern in [r"(?i)\bk\d", r"(?x) \b k \d", rb"\bk\d"]:
        rx = re.compile(pattern)
        scan = Scan(rx)
        assert scan.kind == "plain"
        text = "K1 k2 xk3" if isinstance(pattern, str) else b"K1 k2 xk3"
        assert [(s, e) for _, s, e in scan.matches(text)] == [m.span() for m in rx.finditer(text)]


def test_lookbehind_and_boundaries_at_pos_see_the_text_before():
    rx = re.compile(r"(?<![\w-])\d+|\bab")
    assert rx.match("x12", 1) is None and rx.match("-12", 1) is None
    assert rx.match(" 12", 1).group() == "12"
    assert rx.match("cab", 1) is None and rx.match(" ab", 1).group() == "ab"
    assert re.compile(r"^\d").match("a1", 1) is None  # as finditer: ^ only at 0


def test_shared_patterns_are_scanned_once():
    fax, phone = RECOGNIZERS["fax_us"], RECOGNIZERS["phone_us"]
    assert fax._scan is phone._scan
    text = "Tel 617-555-0100, fax: 617-555-0199"
    scan_matches.cache_clear()
    phone.find(text)
    fax.find(text)
    assert scan_matches.cache_info().hits == 1


def test_case_variants_are_what_ignorecase_matches():
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    matched = {a: set() for a in letters}
    compiled = {a: (re.compile(a, re.I), re.compile(f"[{a}]", re.I)) for a in letters}
    for cp in range(0x110000):
        ch = chr(cp)
        low = ch.lower()
        # a character ignorecase equates with an ASCII letter lower-cases to one (or is special)
        key = _FOLD_EXTRA.get(cp, low if len(low) == 1 else "")
        for a in {key, key.upper()} & set(letters):
            lit, cls = compiled[a]
            if lit.fullmatch(ch):
                matched[a].add(ch)
            assert bool(lit.fullmatch(ch)) == bool(cls.fullmatch(ch))
    for a in letters:
        assert matched[a] == set(case_variants(a)), a
    # and no character outside those is matched (a full check for two letters)
    for a in "ks":
        lit = re.compile(a, re.I)
        assert {chr(c) for c in range(0x110000) if lit.fullmatch(chr(c))} == set(case_variants(a))
    assert case_variants("é") is None and case_variants("7") == {"7"}


def test_categories_match_the_same_ignoring_case():
    for cat in (r"\d", r"\s", r"\w", r"\D", r"\S", r"\W"):
        a, b = re.compile(cat), re.compile(cat, re.I)
        for cp in range(0, 0x110000, 7):
            assert bool(a.match(chr(cp))) == bool(b.match(chr(cp))), (cat, hex(cp))


def test_fold_keeps_every_offset():
    for cp in range(0x110000):
        assert len(fold.__wrapped__(chr(cp))) == 1, hex(cp)
    assert len(fold("a\u0130b")) == 3
    text = "ſsn \u212a \u0130d X"
    assert fold(text) == text.translate(_FOLD_EXTRA).lower()
    assert fold("Héllo") == "héllo"


def test_trie_finds_every_start():
    strings = ["age", "aged", "age of", "in", "is", "b", "around\t", "around "]
    rx = re.compile(_trie(strings))
    text = "aged in bis around\taround isage"
    starts = {i for i in range(len(text)) for s in strings if text.startswith(s, i)}
    found, pos = set(), 0
    while (m := rx.search(text, pos)) is not None:
        found.add(m.start())
        pos = m.start() + 1
    assert found == starts


def test_gates_still_hold(texts):
    for rec in PATTERNS:
        if rec._gate is None:
            continue
        for text in texts:
            if not _gate_passes(rec._gate, text):
                assert _reference(rec._rx, text) == [] or rec.context, rec.name


# ---------------------------------------------------------------- dictionaries
def _old_words(text):
    words = [(m.start(), m.end(), m.group()) for m in dicts._WORD.finditer(text)]
    capitalized = [(i, dicts._key(w[2])) for i, w in enumerate(words) if w[2][0].isupper()]
    return words, capitalized


def _old_find(rec, text):
    words, capitalized = _old_words(text)
    found = []
    if isinstance(rec, dicts.WordListRecognizer):
        for s, e, w in words:
            k = w.lower()
            if k in rec.words or (k[-1:] == "s" and k[:-1] in rec.words):
                found.append(Span(s, e, rec.label, w, rec.name, rec.score))
        return found
    nxt = 0
    for i, key in capitalized:
        if i < nxt:
            continue
        n = rec._first.get(key, 0)
        for size in range(min(n, len(words) - i), 0, -1):
            s, e = words[i][0], words[i + size - 1][1]
            joined = " ".join(x[2] for x in words[i : i + size])
            if dicts._key(joined) in rec.terms and " ".join(text[s:e].split()) == joined:
                found.append(Span(s, e, rec.label, text[s:e], rec.name, rec.score))
                nxt = i + size
                break
    return found


def test_dictionaries_find_what_the_word_loop_finds(texts):
    extra = [
        "New York New York, San José del Monte. María José GARCÍA-LÓPEZ d'Artagnan O’Brien",
        "Smith-Jones Teachers teacher's TEACHERS Nurse\nSan\nFrancisco  Los   Angeles",
    ]
    for text in [*texts, *extra]:
        words = dicts._Words(text)
        old_words, old_cap = _old_words(text)
        assert list(zip(words.starts, words.ends, words.words, strict=True)) == old_words
        assert list(zip(words.cap_index, words.cap_keys, strict=True)) == old_cap
        for rec in DICTIONARIES:
            assert [
                (h.start, h.end, h.label, h.text, h.source, h.score) for h in rec.find(text)
            ] == [
                (h.start, h.end, h.label, h.text, h.source, h.score) for h in _old_find(rec, text)
            ]


@pytest.mark.parametrize(
    ("pattern", "flags", "takes"),
    [
        (r"[A-Z][a-z]+[ \t]+MD", 0, False),
        (r"\bin[ \t]+(19\d\d)(?!\s*mg)", re.I, False),  # a lookahead may see past the line
        (r"a\s+b", 0, True),
        (r"a[^x]b", 0, True),
        (r"a[^\n]b", 0, False),
        (r"a\Wb", 0, True),
        (r"a\w\d\S.b", 0, False),
        (r"a.b", re.S, True),
        (r"a(?s:.)b", 0, True),
        (r"a(?-s:.)b", re.S, False),
        (r"(a)\1", 0, True),  # a back-reference: not understood, taken as "may"
        (r"a[\x00-\x7f]b", 0, True),
    ],
)
def test_what_can_take_a_newline(pattern, flags, takes):
    parsed = _sre_parse.parse(pattern, flags)
    assert consumes_newline(parsed.data, bool(flags & re.S)) is takes
    for text in ["a\nb", "a\n\nb"]:  # where the analysis says no, no match takes one
        if not takes:
            assert all("\n" not in m.group() for m in re.finditer(pattern, text, flags))


@pytest.mark.parametrize(
    ("pattern", "flags", "kind"),
    [
        (r"\b[A-Z][a-z]+,?[ \t]+(?:MD|RN)(?!\w)", 0, "first"),
        (r"\b(?:in|by|to)[ \t]+((?:199|200)\d)(?![\w/-]|\s*mg\b)", re.I, "literal"),
    ],
)
def test_patterns_scanned_by_lines(pattern, flags, kind):
    rx = re.compile(pattern, flags)
    scan = Scan(rx)
    assert scan.kind == kind and scan.lines is not None
    texts = [
        "Ann Lee MD\nBob Roe, RN\nno degree here\nCy Poe MDx\nDee Fox RN",
        "in 1999\nIN 2003 mg\nin 2004\n mg\nby 2010\nto\n1999 in 1998\n",
        "Ann Lee\nMD in\n1999\n\n\nAnn Lee MD" * 3,
        "MD RN 1999 2000\n",
        "",
        "\n",
    ]
    for text in texts:
        assert _scanned(scan, text) == _reference(rx, text), text


def test_patterns_that_may_cross_lines_are_scanned_whole():
    for pattern in [r"\b[A-Z][a-z]+\s+MD", r"[A-Z][a-z]+(?=[ \t]+MD)", r"\b[A-Z]\w+"]:
        assert Scan(re.compile(pattern)).lines is None
