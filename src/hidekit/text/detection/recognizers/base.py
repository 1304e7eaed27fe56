"""Recognizers: small registered pieces that each find one kind of PHI in text.

A recognizer returns spans with generic labels (DATE, PHONE, ID, …). The CRF reads its hits as
features; a trained model also learns which recognizers are precise enough to report spans on
their own and which corpus label each maps to (see ``hidekit.text.detection.detector``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from hidekit.errors import OptionError
from hidekit.registry import RECOGNIZERS
from hidekit.text.spans import Span


@dataclass
class Recognizer:
    """Base: ``find(text)`` gives spans labelled ``label``; ``languages`` empty means any."""

    name: str
    label: str
    languages: tuple[str, ...] = ()
    score: float = 0.85

    def find(self, text: str) -> list[Span]:  # pragma: no cover - abstract
        raise NotImplementedError

    def applies_to(self, language: str | None) -> bool:
        return not self.languages or language is None or language in self.languages


@dataclass
class PatternRecognizer(Recognizer):
    """A regular expression, an optional checksum/validator, and optional context words.

    ``group`` picks the capture group that is the PHI (e.g. the number after "MRN:").
    With ``context`` set, a match counts only when one of the words appears within
    ``window`` characters before it (case-insensitive), as Presidio's context enhancer does,
    but as a requirement rather than a score boost.
    """

    pattern: str = ""
    flags: int = re.IGNORECASE
    group: int | str = 0
    validate: Callable[[str], bool] | None = None
    context: tuple[str, ...] = ()
    window: int = 40
    _rx: re.Pattern | None = field(default=None, repr=False, compare=False)
    _ctx: re.Pattern | None = field(default=None, repr=False, compare=False)

    _gate: tuple | None = field(default=None, repr=False, compare=False)
    _scan: Scan | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self._rx = re.compile(self.pattern, self.flags)
        if self.context:
            words = "|".join(re.escape(w) for w in sorted(self.context, key=len, reverse=True))
            self._ctx = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)
        self._gate = regex_gate(self._rx, context=self.context)
        self._scan = scan_for(self.pattern, self.flags)

    def gate_passes(self, text: str) -> bool:
        """False only when the pattern cannot match anywhere in ``text`` (see ``regex_gate``)."""
        return self._gate is None or _gate_passes(self._gate, text)

    def find(self, text: str) -> list[Span]:
        if self._gate is not None and not _gate_passes(self._gate, text):
            return []
        found = []
        group = self.group
        for m, s, e in scan_matches(self._scan, text):
            if group != 0:
                s, e = m.span(group)
            if s < 0 or e <= s:
                continue
            value = text[s:e]
            if self.validate is not None and not self.validate(value):
                continue
            if self._ctx is not None and not self._ctx.search(text, max(0, s - self.window), s):
                continue
            found.append(Span(s, e, self.label, value, self.name, self.score))
        return found


# ---------------------------------------------------------------- gates
# A gate is a cheap test that every text a pattern matches in must pass: sets of literal strings
# of which the text must contain at least one (one set per condition, all must hold), derived
# from the parsed pattern. A plain substring search is ~20-50 times faster than letting ``re``
# try the pattern at every position, and most recognizers find nothing in most texts.
try:
    from re import _constants as _sre  # type: ignore[attr-defined]  # private: not in typeshed
    from re import _parser as _sre_parse  # type: ignore[attr-defined]  # private: not in typeshed
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre
    import sre_parse as _sre_parse

# Characters outside ASCII that re.IGNORECASE matches to an ASCII letter; every other character c
# it matches to an ASCII letter is ASCII, and c.lower() is then that letter (tests check this
# against every code point).
_FOLD_EXTRA = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_FOLD_CHARS = tuple(chr(c) for c in _FOLD_EXTRA)  # ``str.translate`` is slow: used when needed
_GATE_SET_LIMIT = 64  # the most strings one literal set may hold
_EMPTY = (None, frozenset([""]))


@lru_cache(maxsize=8)
def fold(text: str) -> str:
    """``text`` as gates of case-insensitive patterns read it (lower case; see ``_FOLD_EXTRA``)."""
    if text.isascii() or not any(ch in text for ch in _FOLD_CHARS):
        return text.lower()
    return text.translate(_FOLD_EXTRA).lower()


def _uncased(ch: str) -> bool:
    return ch.lower() == ch and ch.upper() == ch


def _lit(ch: str, ignorecase: bool):
    """The literal-set of one pattern character: ("raw", {ch}) or, ignoring case, ("fold", …)."""
    if not ignorecase:
        return ("raw", frozenset([ch]))
    if ch.isascii() or _uncased(ch):
        return ("fold", frozenset([ch.lower()]))
    return None


def _to_fold(lits):
    """A raw literal set read in folded text (possible when each character folds on its own)."""
    mode, strings = lits
    if mode != "raw":
        return lits
    if all(c.isascii() or _uncased(c) for s in strings for c in s):
        return ("fold", frozenset(s.lower() for s in strings))
    return None


def _same_mode(a, b):
    if a[0] is None or b[0] is None or a[0] == b[0]:
        return a, b
    a, b = _to_fold(a), _to_fold(b)
    if a is None or b is None:
        return None
    return a, b


def _concat(a, b):
    pair = _same_mode(a, b)
    if pair is None:
        return None
    a, b = pair
    strings = frozenset(x + y for x in a[1] for y in b[1])
    if len(strings) > _GATE_SET_LIMIT:
        return None
    return (a[0] or b[0], strings)


def _union(sets):
    out = sets[0]
    for s in sets[1:]:
        pair = _same_mode(out, s)
        if pair is None:
            return None
        a, b = pair
        out = (a[0] or b[0], a[1] | b[1])
        if len(out[1]) > _GATE_SET_LIMIT:
            return None
    return out


def _cost(lits) -> float:
    """Rough chance that a random position starts one of the strings (lower is more selective)."""
    total = 0.0
    for s in lits[1]:
        p = 1.0
        for c in s:
            if c.isspace():
                p *= 0.15
            elif c.isdigit():
                p *= 0.02
            elif c.isalpha():
                p *= 0.008 if lits[0] == "raw" and c.isupper() else 0.06
            else:
                p *= 0.01
        total += p
    return total


def _best(conditions):
    return min(conditions, key=_cost) if conditions else None


def _condition(exact):
    """An exact set as a condition: usable when it cannot be the empty string."""
    return exact if exact is not None and "" not in exact[1] else None


def _group(av, ignorecase: bool):
    """A group's items and whether they ignore case (inline flags ``(?i:...)`` / ``(?-i:...)``)."""
    _, add, remove, sub = av
    ic = (ignorecase or bool(add & _sre.SRE_FLAG_IGNORECASE)) and not (
        remove & _sre.SRE_FLAG_IGNORECASE
    )
    return sub, ic


def _seq(items, ignorecase: bool):
    """(the literal set of everything ``items`` can match, or None; conditions on the text)."""
    conditions: list = []
    cur, whole = _EMPTY, True
    for op, av in items:
        exact, conds = _item(op, av, ignorecase)
        conditions.extend(conds)
        if exact is not None:
            nxt = _concat(cur, exact)
            if nxt is not None:
                cur = nxt
                continue
            if _condition(cur):
                conditions.append(cur)
            cur, whole = exact, False  # a new run of literals starts here
            continue
        if _condition(cur):
            conditions.append(cur)
        cur, whole = _EMPTY, False
    if _condition(cur):
        conditions.append(cur)
    return (cur if whole else None), conditions


def _item(op, av, ignorecase: bool):
    if op is _sre.LITERAL:
        return _lit(chr(av), ignorecase), []
    if op is _sre.IN:
        chars = []
        for o, a in av:
            if o is _sre.LITERAL:
                chars.append(chr(a))
            elif o is _sre.RANGE and a[1] - a[0] < _GATE_SET_LIMIT:
                chars.extend(chr(c) for c in range(a[0], a[1] + 1))
            else:
                return None, []
        lits = [_lit(c, ignorecase) for c in chars]
        if not lits or any(x is None for x in lits):
            return None, []
        return _union(lits), []
    if op is _sre.SUBPATTERN:
        return _seq(*_group(av, ignorecase))
    if op is getattr(_sre, "ATOMIC_GROUP", object()):
        return _seq(av, ignorecase)
    if op is _sre.BRANCH:
        results = [_seq(alt, ignorecase) for alt in av[1]]
        exacts = [e for e, _ in results]
        exact = _union(exacts) if all(e is not None for e in exacts) else None
        each = [_best([*conds, *filter(None, [_condition(e)])]) for e, conds in results]
        if all(c is not None for c in each):
            either = _union(each)
            return exact, [either] if either is not None else []
        return exact, []
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(
        _sre, "POSSESSIVE_REPEAT", object()
    ):
        lo, hi, sub = av
        exact, conds = _seq(sub, ignorecase)
        if lo == 0:
            if hi == 1 and exact is not None:
                return _union([exact, _EMPTY]), []
            return (_EMPTY if hi == 0 else None), []
        conds = [*conds, *filter(None, [_condition(exact)])]
        out = exact if lo == hi else None
        for _ in range(lo - 1):
            if out is None:
                break
            out = _concat(out, exact)
        return out, conds
    if op is _sre.AT or op is _sre.ASSERT_NOT:
        return _EMPTY, []
    if op is _sre.ASSERT:  # a lookaround: consumes nothing, but what it sees is in the text
        exact, conds = _seq(av[1], ignorecase)
        return _EMPTY, [*conds, *filter(None, [_condition(exact)])]
    return None, []  # any character, categories, back-references: no literal to require


def _context_condition(context: Iterable[str]):
    """A recognizer with context words finds nothing in a text without one of them (they are
    matched ignoring case): each word, or its longest part that folds character by character."""
    parts = []
    for word in context:
        pieces = re.split(r"[^\x00-\x7f]", word) if not word.isascii() else [word]
        piece = max(pieces, key=len)
        if not piece:
            return None
        parts.append(piece.lower())
    return ("fold", frozenset(parts)) if parts else None


def regex_gate(rx: re.Pattern, max_conditions: int = 2, context: Iterable[str] = ()):
    """Conditions every text ``rx`` matches in satisfies, or None when none is worth testing.

    Each condition is (folded, strings, matcher): the text (``fold(text)`` when ``folded``)
    contains one of ``strings``. They are derived from the parsed pattern, so they are necessary
    by construction: a match consumes a literal run, one alternative of a group, at least one
    repetition of a repeated part. With ``context`` (a PatternRecognizer's context words, one of
    which must precede a hit) a text must also contain one of the words. Only selective
    conditions are kept (at most ``max_conditions``); a pattern the analysis does not understand
    gets no gate.
    """
    try:
        exact, conditions = _seq(_sre_parse.parse(rx.pattern, rx.flags), bool(rx.flags & re.I))
    except Exception:  # pragma: no cover - an unexpected parse tree: no gate
        return None
    if _condition(exact):
        conditions.append(exact)
    ctx = _context_condition(context) if context else None
    if ctx is not None:
        conditions.append(ctx)
    kept: list[tuple] = []
    seen: list[tuple] = []
    for lits in sorted(conditions, key=_cost):
        if _cost(lits) > 0.05 or len(kept) == max_conditions:
            break
        # a condition whose every string contains a string of a kept one adds little
        if any(
            mode == lits[0] and all(any(k in s for k in strings) for s in lits[1])
            for mode, strings in seen
        ):
            continue
        seen.append(lits)
        strings = tuple(sorted(lits[1], key=lambda s: (-len(s), s)))
        matcher = None
        if len(strings) > 3:
            matcher = re.compile("|".join(re.escape(s) for s in strings)).search
        kept.append((lits[0] == "fold", strings, matcher))
    return tuple(kept) or None


def _gate_passes(gate, text: str) -> bool:
    for folded, strings, matcher in gate:
        hay = fold(text) if folded else text
        if matcher is not None:
            if matcher(hay) is None:
                return False
        elif not any(s in hay for s in strings):
            return False
    return True


def register_recognizer(rec: Recognizer) -> Recognizer:
    """Add ``rec`` to the registry under its name (a name is used once)."""
    return RECOGNIZERS.add(rec.name, rec)


def get_recognizers(
    language: str | None = None, names: Iterable[str] | None = None
) -> list[Recognizer]:
    """Registered recognizers for ``language`` (or exactly ``names``, in registry order)."""
    if names is not None:
        names = list(names)
        unknown = [n for n in names if n not in RECOGNIZERS]
        if unknown:
            raise OptionError(
                f"unknown recognizer(s): {', '.join(unknown)} "
                f"(known: {', '.join(sorted(RECOGNIZERS))})"
            )
        return [RECOGNIZERS[n] for n in names]
    return [r for r in RECOGNIZERS.values() if r.applies_to(language)]


def run_recognizers(text: str, recognizers: Iterable[Recognizer]) -> list[Span]:
    """All hits of all recognizers, sorted; overlaps are kept (the caller decides)."""
    hits: list[Span] = []
    for rec in recognizers:
        hits.extend(rec.find(text))
    return sorted(hits)


# ---------------------------------------------------------------- fast scans
# ``re`` tries a pattern that starts with ``\b``, a lookbehind or a case-insensitive alternation
# at every position of the text. A scan finds the same matches as ``rx.finditer(text)`` while
# trying the pattern only where a match can start:
#   - "literal": every match starts with one of a few literal strings (after zero-width
#     assertions); their occurrences (in ``fold(text)`` when the pattern ignores case) are found
#     with a case-sensitive alternation, which ``re`` scans quickly, and ``rx.match(text, pos)``
#     is tried at each, skipping those inside the previous match as ``finditer`` does;
#   - "first": every match starts with a character of a set C; the pattern is run as
#     ``(?-i:[C])(?<=(?=(?:PATTERN)())(?s:.))``: ``re`` skips characters outside C in C code, the
#     lookahead matches the pattern itself at that position (same groups, same first path) and
#     the empty group at its end gives where the match ends.
# A lookbehind or ``\b`` in ``rx.match(text, pos)`` sees the characters before ``pos``, and the
# patterns scanned this way cannot match the empty string, so a match is followed by a search
# from its end, as in ``finditer``.
_CAT_CLASS = {
    getattr(_sre, "CATEGORY_DIGIT", None): r"\d",
    getattr(_sre, "CATEGORY_NOT_DIGIT", None): r"\D",
    getattr(_sre, "CATEGORY_SPACE", None): r"\s",
    getattr(_sre, "CATEGORY_NOT_SPACE", None): r"\S",
    getattr(_sre, "CATEGORY_WORD", None): r"\w",
    getattr(_sre, "CATEGORY_NOT_WORD", None): r"\W",
}
_FIRST_RANGE_LIMIT = 256  # the widest character range enumerated to add its case variants


def case_variants(ch: str) -> frozenset[str] | None:
    """Every character ``re.IGNORECASE`` matches to ``ch``, or None when not known here
    (a cased character outside ASCII; tests check the others against every code point)."""
    if _uncased(ch):
        return frozenset([ch])
    if not ch.isascii():
        return None
    low = ch.lower()
    return frozenset([low, ch.upper(), *(chr(k) for k, v in _FOLD_EXTRA.items() if v == low)])


def _class_chars(chars, ignorecase: bool):
    out: set[str] = set()
    for ch in chars:
        if ignorecase:
            variants = case_variants(ch)
            if variants is None:
                return None
            out |= variants
        else:
            out.add(ch)
    return out


def _first_seq(items, ignorecase: bool):
    """(the class items a match of ``items`` can start with, or None for any; can it be empty)."""
    parts: set[str] = set()
    for op, av in items:
        first, nullable = _first_item(op, av, ignorecase)
        if first is None:
            return None, False
        parts |= first
        if not nullable:
            return parts, False
    return parts, True


def _first_item(op, av, ignorecase: bool):
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
        return set(), True  # zero-width
    if op is _sre.LITERAL:
        chars = _class_chars([chr(av)], ignorecase)
        return (None, False) if chars is None else ({re.escape(c) for c in chars}, False)
    if op is _sre.IN:
        parts: set[str] = set()
        for o, a in av:
            if o is _sre.LITERAL:
                chars = _class_chars([chr(a)], ignorecase)
            elif o is _sre.RANGE:
                if not ignorecase:
                    parts.add(f"{re.escape(chr(a[0]))}-{re.escape(chr(a[1]))}")
                    continue
                if a[1] - a[0] > _FIRST_RANGE_LIMIT:
                    return None, False
                chars = _class_chars([chr(c) for c in range(a[0], a[1] + 1)], ignorecase)
            elif o is _sre.CATEGORY and a in _CAT_CLASS:
                parts.add(_CAT_CLASS[a])
                continue
            else:  # a negated class, …
                return None, False
            if chars is None:
                return None, False
            parts |= {re.escape(c) for c in chars}
        return parts, False
    if op is _sre.SUBPATTERN:
        return _first_seq(*_group(av, ignorecase))
    if op is getattr(_sre, "ATOMIC_GROUP", object()):
        return _first_seq(av, ignorecase)
    if op is _sre.BRANCH:
        parts, nullable = set(), False
        for alt in av[1]:
            first, empty = _first_seq(alt, ignorecase)
            if first is None:
                return None, False
            parts |= first
            nullable = nullable or empty
        return parts, nullable
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(
        _sre, "POSSESSIVE_REPEAT", object()
    ):
        lo, hi, sub = av
        first, empty = _first_seq(sub, ignorecase)
        if first is None:
            return None, False
        return first, empty or lo == 0
    return None, False  # any character, back-references, …


def _prefix_seq(items, ignorecase: bool):
    """A literal set (as gates use) every match of ``items`` starts with; strings may be short
    ("" when nothing is known)."""
    cur = _EMPTY
    for op, av in items:
        if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
            continue  # zero-width: the consumed text goes on
        exact, _ = _item(op, av, ignorecase)
        if exact is not None:
            nxt = _concat(cur, exact)
            if nxt is None:
                return cur
            cur = nxt
            continue
        if _min_width(op, av) == 0:
            return cur
        head = _prefix_item(op, av, ignorecase)
        if head is None:
            return cur
        nxt = _concat(cur, head)
        return cur if nxt is None else nxt
    return cur


def _prefix_item(op, av, ignorecase: bool):
    """The literal set a non-empty match of one item starts with, or None."""
    if op is _sre.SUBPATTERN:
        return _prefix_seq(*_group(av, ignorecase))
    if op is _sre.BRANCH:
        heads = [_prefix_seq(alt, ignorecase) for alt in av[1]]
        return _union(heads)
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
        return _prefix_seq(av[2], ignorecase)
    return None


def _min_width(op, av) -> int:
    sub = _sre_parse.SubPattern(_sre_parse.State(), [(op, av)])
    return sub.getwidth()[0]


_SCAN_MIN_LITERAL = 2  # shortest literal worth searching for
_SCAN_MAX_COST = 0.02  # the least selective literal set searched for (``_cost``)


_FIRST_MAX_LETTERS = 40  # a first-character set with more letters than this is not used
_TRIE_PREFIX = 6  # literals are searched for by their first characters only


def _class_letters(parts) -> int:
    chars: set[str] = set()
    for part in parts:
        if len(part) == 3 and part[1] == "-":
            chars.update(chr(c) for c in range(ord(part[0]), ord(part[2]) + 1))
        elif len(part) > 3 and "-" in part:
            return _FIRST_MAX_LETTERS + 1  # an escaped range
        else:
            chars.add(part[-1])
    return sum(c.isalpha() for c in chars)


def _trie(strings) -> str:
    """A regex that matches where one of ``strings`` starts (of each string only its first
    ``_TRIE_PREFIX`` characters, and no string that starts with another one): alternatives
    factored by first character, so ``re`` tries a few literal characters per position."""
    heads = sorted({s[:_TRIE_PREFIX] for s in strings})
    kept = [s for i, s in enumerate(heads) if not any(s.startswith(t) for t in heads[:i])]
    return _trie_node(kept)


def _trie_node(strings) -> str:
    groups: dict[str, list[str]] = {}
    for s in strings:
        groups.setdefault(s[0], []).append(s[1:])
    alts = []
    for ch, rests in groups.items():
        if rests == [""]:
            alts.append(re.escape(ch))
        else:
            alts.append(re.escape(ch) + _trie_node(rests))
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


class Scan:
    """``finditer`` of one compiled pattern, faster when the pattern allows (see above)."""

    def __init__(self, rx: re.Pattern):
        self.rx = rx
        self.kind = "plain"
        self.folded = False
        self.finder: re.Pattern | None = None
        self.end_group = 0
        try:
            self._plan()
        except Exception:  # an unexpected pattern (bytes, global inline flags, …): plain finditer
            self.kind, self.folded, self.finder, self.end_group = "plain", False, None, 0

    def _plan(self) -> None:
        rx = self.rx
        parsed = _sre_parse.parse(rx.pattern, rx.flags)
        if parsed.getwidth()[0] == 0 or rx.flags & re.VERBOSE or not isinstance(rx.pattern, str):
            return
        ignorecase = bool(rx.flags & re.IGNORECASE)
        lits = _prefix_seq(parsed.data, ignorecase)
        if (
            lits is not None
            and lits[0] is not None
            and min(map(len, lits[1])) >= _SCAN_MIN_LITERAL
            and _cost(lits) <= _SCAN_MAX_COST
        ):
            self.kind = "literal"
            self.folded = lits[0] == "fold"
            self.finder = re.compile(_trie(lits[1]))
            return
        first, nullable = _first_seq(parsed.data, ignorecase)
        if first is None or nullable:
            return
        if first & {r"\w", r"\W", r"\S", r"\D"} or _class_letters(first) > _FIRST_MAX_LETTERS:
            return  # most characters start a match: nothing to skip
        cls = "".join(sorted(first))
        self.kind = "first"
        self.finder = re.compile(rf"(?-i:[{cls}])(?<=(?=(?:{rx.pattern})())(?s:.))", rx.flags)
        self.end_group = self.finder.groups

    def matches(self, text: str) -> list:
        """[(match, start, end)]: as ``rx.finditer(text)``; ``match.span(g)`` for groups g > 0."""
        finder = self.finder  # None for kind "plain"
        if self.kind == "first" and finder is not None:
            search, g, out, pos = finder.search, self.end_group, [], 0
            while (m := search(text, pos)) is not None:
                pos = m.start(g)
                out.append((m, m.start(), pos))
            return out
        if self.kind == "literal" and finder is not None:
            hay = fold(text) if self.folded else text
            if len(hay) == len(text):
                search, match, out, pos = finder.search, self.rx.match, [], 0
                while (c := search(hay, pos)) is not None:
                    pos = c.start()
                    m = match(text, pos)
                    if m is None:
                        pos += 1
                    else:
                        pos = m.end()
                        out.append((m, m.start(), pos))
                return out
        return [(m, m.start(), m.end()) for m in self.rx.finditer(text)]


@lru_cache(maxsize=256)
def scan_for(pattern: str, flags: int) -> Scan:
    """The scan of ``re.compile(pattern, flags)``, shared by recognizers with the same pattern."""
    return Scan(re.compile(pattern, flags))


@lru_cache(maxsize=16)
def scan_matches(scan: Scan, text: str) -> list:
    """``scan.matches(text)``, kept for a few texts: recognizers that share a pattern (phone and
    fax numbers) scan each text once."""
    return scan.matches(text)
