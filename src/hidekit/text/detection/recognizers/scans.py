"""Fast scans: the matches of ``rx.finditer(text)``, trying the pattern only where a match can
start (after one of a few literal strings, or on a character of a set)."""

from __future__ import annotations

import re
from functools import lru_cache

from hidekit.text.detection.recognizers import literal_index
from hidekit.text.detection.recognizers.gates import (
    _EMPTY,
    _FOLD_EXTRA,
    _concat,
    _condition,
    _cost,
    _group,
    _item,
    _seq,
    _sre,
    _sre_parse,
    _uncased,
    _union,
    fold,
)

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
    ("" when nothing is known), and are cut to their first ``_TRIE_PREFIX`` characters (all a
    scan searches for), so long alternations stay small."""
    cur = _EMPTY
    for i, (op, av) in enumerate(items):
        if min(map(len, cur[1])) >= _TRIE_PREFIX:
            return cur
        if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
            continue  # zero-width: the consumed text goes on
        exact, _ = _item(op, av, ignorecase)
        if exact is not None:
            nxt = _concat(cur, _cut(exact))
            if nxt is None:
                return cur
            cur = _cut(nxt)
            continue
        if _min_width(op, av) == 0:
            head = _optional_head(op, av, items[i + 1 :], ignorecase)
            nxt = None if head is None else _concat(cur, head)
            return cur if nxt is None else _cut(nxt)
        head = _prefix_item(op, av, ignorecase)
        if head is None:
            return cur
        nxt = _concat(cur, _cut(head))
        return cur if nxt is None else _cut(nxt)
    return cur


def _cut(lits, n: int = 0):
    """A literal set with its strings cut to ``n`` (``_TRIE_PREFIX``) characters."""
    if lits is None or lits[0] is None:
        return lits
    return (lits[0], frozenset(x[: n or _TRIE_PREFIX] for x in lits[1]))


def _optional_head(op, av, rest, ignorecase: bool):
    """What a match starts with from an item that may match nothing (``(?:number\\s+)?``)
    followed by ``rest``: the item's own start, or, when it is skipped, the start of ``rest``."""
    if op not in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or av[0] != 0 or av[1] == 0:
        return None
    first = _prefix_seq(av[2], ignorecase)
    then = _prefix_seq(rest, ignorecase)
    if "" in first[1] or "" in then[1]:
        return None
    return _union([_cut(first), _cut(then)])


def _prefix_item(op, av, ignorecase: bool):
    """The literal set a non-empty match of one item starts with, or None."""
    if op is _sre.SUBPATTERN:
        return _prefix_seq(*_group(av, ignorecase))
    if op is _sre.BRANCH:
        heads = [_prefix_seq(alt, ignorecase) for alt in av[1]]
        for n in (_TRIE_PREFIX, 4, 3, 2):  # too many strings: shorter starts, fewer strings
            cut = [_cut(h, n) for h in heads]
            if all(h is not None for h in cut) and (got := _union(cut)) is not None:
                return got
        return None
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
# literal scans whose heads start with this many different characters or more are scanned in the
# shared compiled pass (``literal_index``): with fewer, ``re`` skips to candidates about as fast
_INDEX_MIN_FIRSTS = 5


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


def _heads(strings) -> list[str]:
    """Of each string only its first ``_TRIE_PREFIX`` characters, and no string that starts
    with another one: a match starts where one of ``strings`` starts iff one of these does."""
    heads = sorted({s[:_TRIE_PREFIX] for s in strings})
    return [s for i, s in enumerate(heads) if not any(s.startswith(t) for t in heads[:i])]


def _trie(strings) -> str:
    """A regex that matches where one of ``strings`` starts (``_heads``): alternatives
    factored by first character, so ``re`` tries a few literal characters per position."""
    return _trie_node(_heads(strings))


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


# ---------------------------------------------------------------- scans by lines
# Most patterns are run over every character of a text. Some cannot consume a newline (every
# character a match takes is outside "\n"): their matches lie each within one line. When, in
# addition, every match contains one of a few selective literal strings (the set a gate would
# test, taken only from what the match consumes: no lookaround may bring one), a line without
# any of them holds no match, and finditer's matches are those it finds line by line in the
# lines that hold one (a match never crosses into the next line, so each line starts afresh):
# a scan "by lines" finds those lines by one literal search, then tries the pattern only at
# the candidates (a first character, or the scan's literal) of those lines, with
# ``rx.match(text, pos)`` on the whole text (lookarounds see what they always see).
_LINE_MAX_COST = 0.005  # the least selective literal set scanned for by lines (``_cost``)
_NEWLINE = 10
_CAT_NEWLINE = {
    getattr(_sre, "CATEGORY_NOT_DIGIT", None),
    getattr(_sre, "CATEGORY_SPACE", None),
    getattr(_sre, "CATEGORY_NOT_WORD", None),
    getattr(_sre, "CATEGORY_LINEBREAK", None),
}
_CAT_NO_NEWLINE = {
    getattr(_sre, "CATEGORY_DIGIT", None),
    getattr(_sre, "CATEGORY_NOT_SPACE", None),
    getattr(_sre, "CATEGORY_WORD", None),
    getattr(_sre, "CATEGORY_NOT_LINEBREAK", None),
}


def _class_has_newline(av) -> bool:
    negate = hit = False
    for op, a in av:
        if op is _sre.NEGATE:
            negate = True
        elif op is _sre.LITERAL:
            hit = hit or a == _NEWLINE
        elif op is _sre.RANGE:
            hit = hit or a[0] <= _NEWLINE <= a[1]
        elif op is _sre.CATEGORY and a in _CAT_NEWLINE:
            hit = True
        elif not (op is _sre.CATEGORY and a in _CAT_NO_NEWLINE):
            return True  # not understood: it may
    return hit != negate


def consumes_newline(items, dotall: bool) -> bool:
    """Whether a match of ``items`` (parsed) may take a newline; True when not understood.
    Lookarounds and anchors consume nothing. Case folding maps no character to a newline."""
    for op, av in items:
        if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
            continue
        if op is _sre.LITERAL:
            if av == _NEWLINE:
                return True
        elif op is _sre.NOT_LITERAL:
            if av != _NEWLINE:
                return True
        elif op is _sre.IN:
            if _class_has_newline(av):
                return True
        elif op is _sre.ANY:
            if dotall:
                return True
        elif op is _sre.SUBPATTERN:
            _, add, remove, sub = av
            dot = (dotall or bool(add & _sre.SRE_FLAG_DOTALL)) and not (
                remove & _sre.SRE_FLAG_DOTALL
            )
            if consumes_newline(sub, dot):
                return True
        elif op is _sre.BRANCH:
            if any(consumes_newline(alt, dotall) for alt in av[1]):
                return True
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            if consumes_newline(av[2], dotall):
                return True
        else:  # back-references, atomic groups, …: taken as "may"
            return True
    return False


def _lookaround(items) -> bool:
    """Whether ``items`` hold a positive lookaround (its literals may lie outside the match)."""
    for op, av in items:
        if op is _sre.ASSERT:
            return True
        if op is _sre.SUBPATTERN and _lookaround(av[3]):
            return True
        if op is _sre.BRANCH and any(_lookaround(alt) for alt in av[1]):
            return True
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and _lookaround(av[2]):
            return True
    return False


def line_literals(rx: re.Pattern):
    """The literal set (as gates use) one string of which every match of ``rx`` consumes, when
    no match can take a newline; else None."""
    parsed = _sre_parse.parse(rx.pattern, rx.flags)
    if consumes_newline(parsed.data, bool(rx.flags & re.DOTALL)) or _lookaround(parsed.data):
        return None
    exact, conditions = _seq(parsed.data, bool(rx.flags & re.IGNORECASE))
    if _condition(exact):
        conditions.append(exact)
    conditions = [c for c in conditions if c[0] is not None and "" not in c[1]]
    return min(conditions, key=_cost) if conditions else None


_ASCII_DIFFERS = re.compile("[\x1c-\x1f]")  # ASCII characters \s matches only in Unicode mode


@lru_cache(maxsize=16)
def plain_ascii(text: str) -> bool:
    """Whether every pattern matches ``text`` as the same pattern compiled with ``re.ASCII`` does:
    the text is ASCII and holds none of the four separators (``\\x1c``–``\\x1f``) that ``\\s``
    matches in Unicode mode only. On ASCII characters ``\\w``, ``\\d``, ``\\b`` and case folding
    agree in both modes (``tests/test_text_speed_equivalence.py``). ``re`` splits a text into words
    about a quarter faster in ASCII mode (most patterns it runs no faster)."""
    return text.isascii() and _ASCII_DIFFERS.search(text) is None


class Scan:
    """``finditer`` of one compiled pattern, faster when the pattern allows (see above)."""

    def __init__(self, rx: re.Pattern):
        self.rx = rx
        self.kind = "plain"
        self.folded = False
        self.finder: re.Pattern | None = None
        self.end_group = 0
        self.first: re.Pattern | None = None  # kind "first": its first characters alone
        self.lines: re.Pattern | None = None  # set when scanned by lines: their literals
        self.lines_folded = False
        self.heads: list[str] = []  # kind "literal": where a match can start (``_heads``)
        self.head_id = -1  # its number in ``literal_index`` (scanned there, not by ``finder``)
        try:
            self._plan()
            self._plan_lines()
        except Exception:  # an unexpected pattern (bytes, global inline flags, …): plain finditer
            self.kind, self.folded, self.finder, self.end_group = "plain", False, None, 0
            self.first, self.lines = None, None
        if (
            self.kind == "literal"
            and self.lines is None
            and len({h[0] for h in self.heads}) >= _INDEX_MIN_FIRSTS
        ):
            self.head_id = literal_index.register(self.heads)

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
            self.heads = _heads(lits[1])
            self.finder = re.compile(_trie_node(self.heads))
            self._cost = _cost(lits)
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
        self.first = re.compile(rf"(?-i:[{cls}])", rx.flags)

    def _plan_lines(self) -> None:
        """Scan by lines when the pattern allows and its line literals are selective enough
        (for a literal scan: far more than the literals it starts with)."""
        if self.kind == "plain" or not isinstance(self.rx.pattern, str):
            return
        lits = line_literals(self.rx)
        if lits is None or min(map(len, lits[1])) < 1:
            return
        cost = _cost(lits)
        if cost > _LINE_MAX_COST or (self.kind == "literal" and cost * 10 > self._cost):
            return
        self.lines = re.compile(_trie(lits[1]))
        self.lines_folded = lits[0] == "fold"

    def _by_lines(self, text: str) -> list | None:
        """``matches`` for a scan by lines (None: not usable on this text)."""
        lines = self.lines
        assert lines is not None
        hay = fold(text) if self.lines_folded else text
        starts = fold(text) if self.folded else text
        if len(hay) != len(text) or len(starts) != len(text):
            return None
        find, match, out, pos, n = lines.search, self.rx.match, [], 0, len(text)
        if self.kind == "first":
            assert self.first is not None
            cand, starts = self.first.search, text
        else:
            assert self.finder is not None
            cand = self.finder.search
        while pos < n and (c := find(hay, pos)) is not None:
            at = text.rfind("\n", 0, c.start()) + 1  # the line's start (after the last match)
            end = text.find("\n", c.start())
            end = n if end < 0 else end
            at = max(at, pos)
            while (c := cand(starts, at, end)) is not None:
                at = c.start()
                m = match(text, at)
                if m is None:
                    at += 1
                else:
                    at = m.end()
                    out.append((m, m.start(), at))
            pos = end + 1
        return out

    def matches(self, text: str) -> list:
        """[(match, start, end)]: as ``rx.finditer(text)``; ``match.span(g)`` for groups g > 0."""
        if self.lines is not None and (got := self._by_lines(text)) is not None:
            return got
        finder = self.finder  # None for kind "plain"
        if self.kind == "first" and finder is not None:
            search, g, out, pos = finder.search, self.end_group, [], 0
            while (m := search(text, pos)) is not None:
                pos = m.start(g)
                out.append((m, m.start(), pos))
            return out
        if self.kind == "literal" and finder is not None:
            hay = fold(text) if self.folded else text
            if len(hay) == len(text) and self.head_id >= 0:
                # finder.search's positions, found with every other literal scan's at once
                match, out, pos = self.rx.match, [], 0
                for at in literal_index.head_starts(hay, self.head_id):
                    if at >= pos and (m := match(text, at)) is not None:
                        pos = m.end()
                        out.append((m, m.start(), pos))
                return out
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
