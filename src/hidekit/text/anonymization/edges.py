"""Span edges before replacement: punctuation and white space stay outside the replacement.

A detector (or an annotator) may take "Boston," or " (Smith)" or "03/04/2021." into a span;
replacing the whole span then deletes the comma, the bracket or the full stop, or a surrogate
name swallows a possessive ("Smith's" → "Jones"). ``trim_span`` moves such characters out of the
span so they survive as written: leading and trailing white space, sentence punctuation, quotes,
unmatched brackets, a final full stop that ends a sentence (kept after an initial or an
abbreviation: "J.", "Jr.", "St.", "Inc."), and a possessive ``'s`` after a name or a place.
"""

from __future__ import annotations

from hidekit.text.spans import Span

_LEAD = set(" \t\r\n\u00a0,;:!?.…\"'“”‘’«»)]}>-–—*•·|/\\")
_TRAIL = set(" \t\r\n\u00a0,;:!?…\"'“”‘’«»([{<-–—*•·|/\\")
_PAIRS = {")": "(", "]": "[", "}": "{"}
_OPENERS = {v: k for k, v in _PAIRS.items()}
_KEEP_DOT = {
    "jr", "sr", "st", "ste", "inc", "co", "corp", "ltd", "llc", "dr", "mr", "mrs", "ms", "mx",
    "prof", "ave", "blvd", "rd", "ln", "apt", "mt", "ft", "no", "dept", "univ", "hosp", "med",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}  # fmt: skip
_POSSESSIVE_KINDS = {"name", "city", "state", "country", "hospital", "organization", "street"}


def _keeps_dot(core: str) -> bool:
    """A final "." that belongs to the span: after an initial ("J.", "U.S.") or a listed
    abbreviation ("Jr.", "St.", "Inc.")."""
    words = core[:-1].split()
    last = words[-1].strip("(\"'").rsplit(".", 1)[-1] if words else ""
    return (len(last) == 1 and last.isalpha()) or last.casefold() in _KEEP_DOT


def _unbalanced(core: str, bracket: str, partner: str) -> bool:
    """More of ``bracket`` than of its partner: the edge one belongs to the sentence."""
    return core.count(bracket) > core.count(partner)


def _wraps(text: str, start: int, end: int) -> bool:
    """The bracket at ``start`` closes at ``end - 1``: "(Smith)", not "(617) 555-0143"."""
    depth = 0
    for i in range(start, end):
        depth += (text[i] == text[start]) - (text[i] == text[end - 1])
        if depth == 0:
            return i == end - 1
    return False


def trim_span(text: str, span: Span, kind: str = "") -> Span | None:
    """``span`` without the edges that belong to the sentence, or None when nothing is left."""
    start, end = span.start, span.end
    changed = True
    while changed and start < end:
        changed = False
        c = text[start]
        if c in _OPENERS and text[end - 1] == _OPENERS[c] and _wraps(text, start, end):
            start, end, changed = start + 1, end - 1, True
            continue
        if c in _LEAD or (c in _OPENERS and _unbalanced(text[start:end], c, _OPENERS[c])):
            start, changed = start + 1, True
            continue
        c = text[end - 1]
        if c in _TRAIL or (c in _PAIRS and _unbalanced(text[start:end], c, _PAIRS[c])):
            end, changed = end - 1, True
            continue
        if c == "." and not _keeps_dot(text[start:end]):
            end, changed = end - 1, True
            continue
        if kind in _POSSESSIVE_KINDS and end - start > 3:
            tail = text[end - 2 : end]
            if tail in ("'s", "’s", "'S", "’S"):
                end, changed = end - 2, True
    if start >= end:
        return None
    if (start, end) == (span.start, span.end):
        return span
    return Span(start, end, span.label, text[start:end], span.source, span.score)
