"""Leak-closing rules on streets (``consistency.close_leaks`` runs them): a place found before a
street type is the street's name, a street keeps its units, buildings and type, and two parts of
one address with a comma between them are one street."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hidekit.text.detection.consistency_parts import fits_at, grown
from hidekit.text.detection.street_types import LONG_TYPES, SHORT_TYPES, alternatives
from hidekit.text.spans import Span, sort_spans

_UNIT = re.compile(
    r",?[ \t]*(?:apt|apartment|unit|suite|ste|flat|bldg|building|floor|fl|app|block|blk|bât|bat|"
    r"tower|wing|#)\.?[ \t]*#?"
    r"[A-Za-z]?\d{0,5}[A-Za-z]?(?![\w])",
    re.IGNORECASE,
)
_UNIT_BEFORE = re.compile(
    r"(?:^|(?<=[\s,(]))(?:(?:apt|apartment|unit|suite|flat|bldg|building|house|plot|stand|lot|"
    r"block|blk|door|shop|room|no)\.?(?:[ \t]*no\.?)?[ \t]*#?[A-Za-z]?-?\d{1,5}[A-Za-z]?"
    r"|\d{1,3}(?:st|nd|rd|th)[ \t]+floor|(?:ground|first|second|third|top)[ \t]+floor),?[ \t]*$",
    re.IGNORECASE,
)
# a named building or estate before a street, after a comma ("Apartment 22, The Maltings, Mill
# Road", "flat 2214, wah kin house, wah fu estate", "SHOP 7, AL-HAFEEZ PLAZA, MAIN BOULEVARD")
_BUILDING_BEFORE = re.compile(
    r"(?:^|(?<=[,:\n(]))[ \t]*((?:the[ \t]+)?[^\W\d_][\w'’&.-]*(?:[ \t]+[^\W\d_][\w'’&.-]*){0,3}),"
    r"[ \t]*$",
    re.IGNORECASE,
)
_BUILDING_WORDS = frozenset(
    """
    house court plaza estate tower towers apartments apts mansions building bldg block residency
    residences heights villas villa complex centre center mall chambers lodge flats gardens park
    arcade enclave society quarters cottage cottages farm manor hall maltings courtyard
    """.split()  # noqa: SIM905
)
# a street type written after a street found without it ("2210 Orchard Crest" + " Dr"), unless
# the street already ends with one
_STREET_TYPE = re.compile(
    rf"[ \t]+(?:{alternatives(SHORT_TYPES + LONG_TYPES)})\.?(?![\w])", re.IGNORECASE
)
_STREET_TYPE_END = re.compile(rf"\b(?:{alternatives(SHORT_TYPES + LONG_TYPES)})\.?$", re.IGNORECASE)


# before a street that starts with its house number: the word that names that number ("No. 17
# Zoo Road", "Blk 303 Jurong East Street", "Unit 4/27 Albert St"), the first number of a range
# or a flat before a slash ("14/22-26 Marsden Street", "12-14 mitchell st"), or a flat number
# alone opening the line or field ("0/2, 18 Allison Street", "Address: C-204, Gaur Green Avenue")
_NUMBER_WORD_BEFORE = re.compile(
    r"(?:^|(?<=[\s,(:]))(?:(?:no|nr|blk|block|apt|unit|flat|house|hse|h/no|plot|lot|rmb|rr|stand|"
    r"shop|door|suite|level|lvl)\.?[ \t]*"
    r"|\d{1,5}[A-Za-z]?[/-]"
    r"|(?<![^\n:(])[ \t]*(?:[A-Za-z]-?)?\d{1,5}(?:[/-]\d{1,5})?[A-Za-z]?\d?,[ \t]*)$",
    re.IGNORECASE,
)
_UNIT_NUMBER = re.compile(r"#\d{1,3}-\d{1,5}[A-Za-z]?")  # "#08-447": floor and unit
# a street type after a word the model took for a place ("eccles" + " boulevard"), with the
# house number before it ("2 church row")
_TYPE_AFTER = re.compile(
    rf"[ \t]+(?:{alternatives(LONG_TYPES + SHORT_TYPES)})\b\.?",
    re.IGNORECASE,
)
_HOUSE_BEFORE = re.compile(r"(?<![\w/.-])\d{1,5}[A-Za-z]?[ \t]+$")


def place_streets(text: str, spans: Sequence[Span]) -> list[Span]:
    """A city or organization found right before a street type is the street's name: the span
    becomes a STREET with the type, and the house number written before it."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in ("CITY", "ORGANIZATION") or not (m := _TYPE_AFTER.match(text, s.end)):
            continue
        word = m.group().strip(" \t.")
        if not (word.isupper() == s.text.isupper() and word.islower() == s.text.islower()):
            continue  # written in the name's case: "eccles boulevard", "Mersey Rd"
        h = _HOUSE_BEFORE.search(text, max(0, s.start - 8), s.start)
        a = h.start() if h else s.start
        if fits_at(out, k, a, m.end()):
            out[k] = Span(a, m.end(), "STREET", text[a : m.end()], s.source, s.score)
    return out


def street_parts(text: str, spans: Sequence[Span]) -> list[Span]:
    """Two parts of one address line found apart, with only a comma between them, are one
    street ("Flat 12, Paradise Student Village" + ", " + "40 Paradise Street"): the comma is
    part of the address as written."""
    out: list[Span] = []
    for s in sort_spans(spans):
        p = out[-1] if out else None
        if (
            p is not None
            and p.label == "STREET"
            and (s.label == "STREET" or _UNIT_NUMBER.fullmatch(s.text))
            and re.fullmatch(r",[ \t]*", text[p.end : s.start])
        ):
            out[-1] = grown(text, p, p.start, s.end)
        else:
            out.append(s)
    return out


def street_units(text: str, spans: Sequence[Span]) -> list[Span]:
    """Streets keep the unit, flat or building and the street type written beside them, and the
    word, range or flat before a house number ("No. 17 Zoo Road", "12-14 mitchell st")."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label != "STREET":
            continue
        a, b = s.start, s.end
        m = _STREET_TYPE.match(text, b)
        if m and not _STREET_TYPE_END.search(text[a:b]):
            b = m.end()
        m = _UNIT.match(text, b)
        if m and any(c.isdigit() for c in m.group()) or (m and m.group().rstrip()[-1:].isupper()):
            b = m.end()
        a = _address_start(text, a)
        if text[a : a + 1].isdigit() and (w := _NUMBER_WORD_BEFORE.search(text, max(0, a - 20), a)):
            a = _address_start(text, w.end() - len(w.group().lstrip()))
        if a > 0 and text[a - 1] == "#" and text[a : a + 1].isdigit():
            a -= 1  # "#03-44 Peninsula Plaza": the sign is written with the unit
        if (a, b) != (s.start, s.end) and fits_at(out, k, a, b):
            out[k] = grown(text, s, a, b)
    return out


def _address_start(text: str, a: int) -> int:
    """Where the address line of a street starting at ``a`` starts: units, floors and house
    numbers before it, and named buildings ("X House", "Y Plaza"; "the X" only with a unit
    before it: "apt 4, the courtyard"), up to four parts."""
    sure = a
    for _ in range(4):
        before = _UNIT_BEFORE.search(text, max(0, a - 30), a)
        if before:
            a = sure = before.start()
            continue
        m = _BUILDING_BEFORE.search(text, max(0, a - 60), a)
        if not m:
            break
        words = m.group(1).split()
        building = words[-1].casefold() in _BUILDING_WORDS
        if not (building or words[0].casefold() == "the"):
            break
        a = m.start(1)
        if building:
            sure = a
    return sure
