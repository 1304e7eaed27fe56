"""Gates: cheap tests that every text a pattern matches in must pass (sets of literal strings, one
of which the text must contain), derived from the parsed pattern; and ``fold``, the case folding
they search in."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from hidekit.text.detection.recognizers import literal_index

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


def indexed_gate(gate):
    """The same gate with each condition of many strings (two characters or more each) answered
    by the shared literal index (``literal_index``: one compiled pass finds every registered
    string) instead of its own search: (folded, strings, matcher, index number or -1)."""
    if gate is None:
        return None
    return tuple(
        (
            folded,
            strings,
            matcher,
            literal_index.register(strings)
            if matcher is not None and min(map(len, strings)) >= 2
            else -1,
        )
        for folded, strings, matcher in gate
    )


def indexed_gate_passes(plan, text: str) -> bool:
    """``_gate_passes`` of the gate ``plan`` was made from (``indexed_gate``)."""
    for folded, strings, matcher, head_id in plan:
        hay = fold(text) if folded else text
        if head_id >= 0:
            if not literal_index.head_starts(hay, head_id):
                return False
        elif not _holds(hay, strings, matcher):
            return False
    return True


def _gate_passes(gate, text: str) -> bool:
    return all(_holds(fold(text) if f else text, strings, m) for f, strings, m in gate)


def _holds(hay: str, strings: tuple[str, ...], matcher) -> bool:
    """One condition of a gate: its expression finds one of ``strings``, or (few strings, no
    expression) one of them is in the text."""
    if matcher is not None:
        return matcher(hay) is not None
    return any(s in hay for s in strings)
