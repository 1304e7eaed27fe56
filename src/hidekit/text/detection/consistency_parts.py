"""Leak-closing rules on code prefixes, logins, organizations and dates (``consistency.close_leaks``
runs them): the letters before an identifier, a login in brackets after a name, the word that
closes an organization's name, a date written in digits found in part, an IP address found in
part; and the helpers the rule modules share."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hidekit.text.detection.recognizers.patterns.validators import ip_valid, numeric_date_valid
from hidekit.text.spans import Span, sort_spans

PERSON_LABELS = frozenset({"NAME", "DOCTOR"})
# codes that run on across "-" and "/" (a phone number stops at "/": "555-0128/9" is two)
JOINED_CODE_LABELS = frozenset({"ID", "MRN", "ACCOUNT", "SSN"})
WORD_RE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def fits_at(out: Sequence[Span], k: int, start: int, end: int) -> bool:
    """Whether span ``k`` of the sorted, disjoint ``out`` can grow to ``start:end``."""
    return (k == 0 or out[k - 1].end <= start) and (k + 1 == len(out) or end <= out[k + 1].start)


def grown(text: str, s: Span, start: int, end: int) -> Span:
    """Span ``s`` grown to ``start:end``: never shrunk (every consistency rule only adds or grows,
    so a piece of PHI found cannot be lost by a later rule)."""
    start, end = min(start, s.start), max(end, s.end)
    return part_of(text, s, start, end)


def part_of(text: str, s: Span, start: int, end: int) -> Span:
    """Span ``s``'s label, source and score on ``start:end``: a piece of it (``split_wife_of``)
    or, through ``grown``, a larger span."""
    return Span(start, end, s.label, text[start:end], s.source, s.score)


# one or two letters written before a number ("HPCSA PT 0118447", "tag SR 447182", "MMC M 44718",
# "card mx-0447182209", "(NI 188214)"): part of the identifier as written, unless a word or a
# cue ("no", "id", "on")
_CODE_PREFIX = re.compile(r"(?:^|(?<=[^\w./#-]))([A-Za-z]{1,2})[ -]$")
_DOTTED_PREFIX = re.compile(r"(?:^|(?<=[^\w.@/-]))([A-Za-z]{2,6})\.$")
_NOT_PREFIX = frozenset("no nr id on at in to of or is it by as am pm a i x ph tel mob ext".split())  # noqa: SIM905


def code_prefixes(text: str, spans: Sequence[Span]) -> list[Span]:
    """An identifier that starts with digits takes in the one or two letters written before it
    with a space or a hyphen (see ``_CODE_PREFIX``), in the note's case."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in JOINED_CODE_LABELS or not s.text[:1].isdigit():
            continue
        d = _DOTTED_PREFIX.search(text[max(0, s.start - 8) : s.start])
        if d and fits_at(out, k, s.start - len(d.group(1)) - 1, s.end):
            out[k] = grown(text, s, s.start - len(d.group(1)) - 1, s.end)  # "AIMS.0044718227"
            continue
        before = max(0, s.start - 4)
        m = _CODE_PREFIX.search(text[before : s.start])
        if not m or m.group(1).casefold() in _NOT_PREFIX or (before and m.start(1) == 0):
            continue
        letters = m.group(1)
        if letters.islower() and any(c.isupper() for c in text[max(0, s.start - 200) : s.start]):
            continue  # lower-case letters in a note with capitals: a word, not a prefix
        if fits_at(out, k, before + m.start(1), s.end):
            out[k] = grown(text, s, before + m.start(1), s.end)
    return out


_HANDLE_AFTER = re.compile(r"[ \t]*\(([a-z][a-z0-9._-]{2,30})\)")


def bracket_handles(text: str, spans: Sequence[Span]) -> list[Span]:
    """A login in brackets after a name, made of it ("Rosa Villalobos (rvillalobos)",
    "K. Lindqvist (klindqvist)", "Ingrid (ingrid.s)"), is a USERNAME."""
    out = sort_spans(spans)
    added = []
    for k, s in enumerate(out):
        m = _HANDLE_AFTER.match(text, s.end)
        if s.label not in PERSON_LABELS or not m:
            continue
        handle = m.group(1)
        if not any(len(w) >= 4 and w.casefold() in handle for w in WORD_RE.findall(s.text)):
            continue
        a, b = m.span(1)
        if k + 1 == len(out) or out[k + 1].start >= b:
            added.append(Span(a, b, "USERNAME", handle, "bracket_handle", s.score))
    return sort_spans(out + added) if added else out


_HANDLE_CHARS = re.compile(r"[\w.-]*", re.ASCII)


def handle_names(text: str, spans: Sequence[Span]) -> list[Span]:
    """A name found inside a login written as one token ("priya" of "priya.s_kyc", "kwame" of
    "kwame_dev", "liam" of "@liam.s") covers the whole login, as a USERNAME: the token joins
    letters and digits with "_", or is written in lower case with a "." inside."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in PERSON_LABELS:
            continue
        a = s.start
        while a > 0 and (text[a - 1].isascii() and (text[a - 1].isalnum() or text[a - 1] in "._-")):
            a -= 1
        m = _HANDLE_CHARS.match(text, s.end)
        b = m.end() if m else s.end
        while b > s.end and text[b - 1] in ".-":
            b -= 1
        while a < s.start and text[a] in ".-":
            a += 1
        token = text[a:b]
        if token == s.text or "@" in text[b : b + 1] or not token.isascii():
            continue  # an e-mail address is the e-mail recognizers' to find
        if not (
            "_" in token or any(c.isdigit() for c in token) or ("." in token and token.islower())
        ):
            continue
        if fits_at(out, k, a, b):
            out[k] = Span(a, b, "USERNAME", token, s.source, s.score)
    return out


# words that close the name of an organization or a place of care ("Gapuwiyak school", "Cuan
# Mhuire nursing home", "CANADIAN TIRE CORPORATION"): in the en-dev annotations a span of these
# labels ends on such a word hundreds of times and stops right before one a handful of times
ORG_LABELS = frozenset({"ORGANIZATION", "HOSPITAL"})
_ORG_HEADS = frozenset(
    """
    hospital hospitals centre center clinic clinics polyclinic infirmary hospice dispensary
    surgery practice pharmacy chemist chemists laboratory laboratories lab labs school schools
    college university academy institute nursery kindergarten preschool library church mosque
    temple chapel cathedral parish market supermarket mall bank trust foundation fund society
    association union council commission committee authority agency network group holdings
    company corporation corp co ltd limited inc llc plc bhd services service home homes house
    lodge hotel motel club nightclub stadium airport station terminal works mine factory plant
    logistics estate hub court tribunal
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
# words that may stand between the name and its head ("Hollins Park care home", "Vaishali metro
# station"): taken only when a head follows
_ORG_MODIFIERS = frozenset(
    """
    medical general primary elementary secondary high care nursing community dental health
    public private memorial day business post bus metro surf regional district national
    central teaching children's women's men's family rest aged mental eye sports youth
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_ABBREVIATED_HEAD = frozenset({"corp", "co", "inc", "ltd", "bhd", "pty", "b.v", "llc", "plc"})
_LEGAL_FORMS = _ABBREVIATED_HEAD | {"(pty)", "limited", "sdn", "corporation"}
_AFTER_WORD = re.compile(r"[ \t]+(\(?[^\W\d_][\w'’]*(?:\.[^\W\d_]+)*\)?)")


def org_heads(text: str, spans: Sequence[Span]) -> list[Span]:
    """An organization or place of care found without the word that closes its name takes it
    in, with the modifiers before it ("Cuan Mhuire" + " nursing home"), and keeps the full stop
    of an abbreviated head ("Mining Corp."), "(Pty) Ltd" included."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in ORG_LABELS:
            continue
        end, pos = s.end, s.end
        own = WORD_RE.findall(s.text)
        # a name closed already takes only its legal form ("… Trust", not "… Trust committee";
        # "… SERVICES (PTY) LTD")
        closed = bool(own) and own[-1].casefold() in _ORG_HEADS
        while m := _AFTER_WORD.match(text, pos):
            word = m.group(1).casefold()
            if word in _LEGAL_FORMS:
                end = pos = m.end(1)
            elif closed or "(" in word or ")" in word:
                break  # "(school", "clinic)": an aside, not the name
            elif word in _ORG_HEADS:
                end = pos = m.end(1)
            elif word in _ORG_MODIFIERS:
                pos = m.end(1)
            else:
                break
        last = WORD_RE.findall(text[s.start : end])[-1:] or [""]
        if last[0].casefold() in _ABBREVIATED_HEAD and text[end : end + 1] == ".":
            end += 1
        if end > s.end and fits_at(out, k, s.start, end):
            out[k] = grown(text, s, s.start, end)
    return out


# "wife of" between two names ("Kajal w/o Pintu Kumar", "Gul Bano W/O Sher Zaman Afridi"): two
# people, annotated as two names with the marker outside (the training texts: 7 of 7); "s/o" and
# "d/o" are written inside a name as often as between two, and stay
_WIFE_OF = re.compile(r"[ \t]+[wW]/[oO][ \t]+")


def split_wife_of(text: str, spans: Sequence[Span]) -> list[Span]:
    """A name span holding " w/o " becomes the two names on either side of it."""
    out: list[Span] = []
    for s in spans:
        m = _WIFE_OF.search(s.text) if s.label in PERSON_LABELS else None
        if m is None or not m.start() or m.end() == len(s.text):
            out.append(s)
            continue
        out.append(part_of(text, s, s.start, s.start + m.start()))
        out.append(part_of(text, s, s.start + m.end(), s.end))
    return out


# a date written in digits with ".", "/" or "-" between its parts, year first ("1987.03.12",
# "2024-3-5") or day first ("12.03.2024", "3/4/24"; "-" only year first: "12-03-24" may be a
# reference); on the en-dev training texts all 1,012 such dates with a valid month and day are
# annotated PHI
_NUMERIC_DATE = re.compile(
    r"(?<![\w./-])(?:(?:19|20)\d\d([./-])\d{1,2}\1\d{1,2}"
    r"|\d{1,2}([./])\d{1,2}\2(?:19|20)?\d\d)(?![\w/-]|\.\d)"
)
_DATE_PARTS = frozenset({"DATE", "PHONE"})


def numeric_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of the dates written in digits with plausible parts (``numeric_date_valid``)."""
    return [m.span() for m in _NUMERIC_DATE.finditer(text) if numeric_date_valid(m.group())]


def date_runs(text: str, spans: Sequence[Span]) -> list[Span]:
    """A date written in digits found in part, as a date or a phone number ("1987.03" + ".12",
    "2024.3" of "2024.3.5"), becomes one DATE span over the whole date; spans reaching outside
    it or of another label leave it as it is."""
    out = sort_spans(spans)
    for a, b in numeric_dates(text) if out else ():
        inside = [s for s in out if s.start < b and a < s.end]
        if not inside or (len(inside) == 1 and inside[0].start == a and inside[0].end == b):
            continue
        if any(s.start < a or s.end > b or s.label not in _DATE_PARTS for s in inside):
            continue
        first = inside[0]
        date = Span(a, b, "DATE", text[a:b], first.source, first.score)
        out = sort_spans([s for s in out if not (s.start < b and a < s.end)] + [date])
    return out


# an IP address as written: IPv4, or IPv6 in any form ("2001:db8:85a3::8a2e:370:7334",
# "fe80::1ff:fe23:4567:890a%eth0" up to its zone, an IPv4 tail); a full stop may end a sentence
# after it ("from 203.0.113.7.")
_IP_CANDIDATE = re.compile(
    r"(?<![\w.:])(?:(?:\d{1,3}\.){3}\d{1,3}"
    r"|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?)"
    r"(?![\w:]|\.\d)"
)
# a device's hardware (MAC) address, a device identifier under Safe Harbor: six pairs of hex digits
# joined by ":" or "-" ("00:1A:2B:3C:4D:5E"), or three groups of four joined by "." ("001a.2b3c.4d5e")
_MAC_ADDRESS = re.compile(
    r"(?<![\w:.-])(?:[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![\w:-]|\.\w)"
)


def net_addresses(text: str) -> list[tuple[int, int, str]]:
    """Offsets and label of the network addresses of ``text``: valid IP addresses (Python's
    ``ipaddress`` says which; "::" alone and colon runs with fewer than three hex digits are
    separators) as IP, hardware addresses as ID."""
    if ":" not in text and "." not in text and "-" not in text:
        return []
    out = []
    for m in _IP_CANDIDATE.finditer(text):
        value = m.group()
        if sum(c not in ".:" for c in value) >= 3 and ip_valid(value):
            out.append((m.start(), m.end(), "IP"))
    out += [(m.start(), m.end(), "ID") for m in _MAC_ADDRESS.finditer(text)]
    return sorted(out)


def whole_addresses(text: str, spans: Sequence[Span]) -> list[Span]:
    """A network address is a direct identifier: found in part ("85a3" + ":8a2e:370:7334" of a
    compressed IPv6 address, "fe80" of a link-local one, "MAC 00" of a hardware address) or missed
    (an IPv4 address before a full stop), it becomes one span over the whole address (and over any
    span it cut into). An address one span already covers stays as it is."""
    out = sort_spans(spans)
    for a, b, label in net_addresses(text):
        inside = [s for s in out if s.start < b and a < s.end]
        if any(s.start <= a and b <= s.end for s in inside):
            continue
        start, end = min([a, *(s.start for s in inside)]), max([b, *(s.end for s in inside)])
        source, score = (inside[0].source, inside[0].score) if inside else ("net_address", 0.95)
        whole = Span(start, end, label, text[start:end], source, score)
        out = sort_spans([s for s in out if not (s.start < end and start < s.end)] + [whole])
    return out
