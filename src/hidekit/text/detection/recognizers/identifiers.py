"""Identifier recognizers for text written anywhere English is spoken (issue 14).

Checksums where the identifier has one (IBAN mod-97, payment cards Luhn), a prefix word where it
has none (hospital and unit numbers with letters and slashes, licence and permit numbers,
usernames), international and national phone formats (UK, Ireland, Australia, India, Nigeria …),
US military mail (PSC / Unit / CMR boxes, APO / FPO / DPO) and rooms, beds, bays and named wards.
Labels: ACCOUNT, PHONE, USERNAME, MRN, ID, STREET, CITY, STATE, ZIP, ROOM, DEPARTMENT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hidekit.text.detection.recognizers.base import (
    PatternRecognizer,
    Recognizer,
    register_recognizer,
)
from hidekit.text.detection.recognizers.patterns.hospitals import not_department
from hidekit.text.detection.recognizers.scans import scan_for, scan_matches
from hidekit.text.spans import Span

CS = 0  # case-sensitive flags

# IBAN lengths by country (SWIFT's IBAN registry, the countries most often met in English text and
# in Europe); an IBAN of another country is accepted at any length from 15 to 34.
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23, "GR": 27, "HR": 21,
    "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LT": 20, "LU": 20, "LV": 21, "MT": 31, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PT": 25, "RO": 24, "SA": 24, "SE": 24, "SI": 19, "SK": 24,
    "TR": 26,
}  # fmt: skip


def iban_valid(value: str) -> bool:
    """ISO 13616: country letters, two check digits, then the account; mod 97 of the rearranged
    number (letters as 10..35) is 1."""
    v = re.sub(r"[\s-]", "", value).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", v):
        return False
    if len(v) != IBAN_LENGTHS.get(v[:2], len(v)):
        return False
    digits = "".join(str(int(c, 36)) for c in v[4:] + v[:4])
    return int(digits) % 97 == 1


def luhn_valid(value: str) -> bool:
    """Payment card: 13 to 19 digits, a known first digit (2-6), Luhn check digit."""
    d = re.sub(r"[\s-]", "", value)
    if not (d.isdigit() and 13 <= len(d) <= 19) or d[0] not in "23456":
        return False
    total = 0
    for i, ch in enumerate(reversed(d)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def phone_digit_count(low: int, high: int):
    def valid(value: str) -> bool:
        return low <= len(re.sub(r"\D", "", value)) <= high

    return valid


def named_ward(value: str) -> bool:
    """A ward named after a person or place (``Nightingale Ward``), not a service
    (``Surgical Ward``, ``Maternity Wing``)."""
    return not_department(value.rsplit(None, 1)[0] + " Clinic")


def has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _anchored_matches(rx: re.Pattern, head: re.Pattern, offset: int, text: str):
    """``(start, end)`` of ``rx.finditer(text)`` when every match starts ``offset`` characters
    before a match of ``head`` (whose matches cannot overlap): ``rx`` is tried only there."""
    out, pos = [], 0
    for h in head.finditer(text):
        p = h.start() - offset
        if p >= pos and (m := rx.match(text, p)) is not None:
            pos = m.end()
            out.append((p, pos))
    return out


@dataclass
class IbanRecognizer(Recognizer):
    """IBANs written in groups of four or run together; a trailing group that breaks the
    checksum is let go (``GB29 NWBK 6016 1331 9268 19 on``)."""

    _rx: re.Pattern = re.compile(
        r"(?<![\w])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,3})?(?![\w])"
    )

    # every match has two letters then two digits at its start: only there is the pattern tried
    _head: re.Pattern = re.compile(r"\d\d(?<=[A-Za-z]{2}\d\d)")

    def find(self, text: str) -> list[Span]:
        found = []
        for s, e in _anchored_matches(self._rx, self._head, 2, text):
            value = text[s:e]
            while value and not iban_valid(value):
                cut = max(value.rfind(" "), value.rfind("-"))
                if cut <= 4:
                    value = ""
                    break
                value = value[:cut]
            if value:
                found.append(Span(s, s + len(value), self.label, value, self.name, self.score))
        return found


@dataclass
class MilitaryAddressRecognizer(Recognizer):
    """US military mail: ``PSC 1234, Box 5678`` / ``Unit 2050 Box 4190`` / ``CMR 450 Box 77``
    (STREET) and ``APO AE 09204`` (CITY, STATE, ZIP)."""

    _box: re.Pattern = re.compile(
        r"(?<![\w])(?:PSC|CMR|Unit)\s+\d{1,5},?\s+Box\s+\d{1,5}(?![\w])", re.IGNORECASE
    )
    _post: re.Pattern = re.compile(r"(?<![\w])(APO|FPO|DPO),?\s+(AE|AP|AA)(?:,?\s+(\d{5}))?(?!\w)")

    def find(self, text: str) -> list[Span]:
        found = [
            Span(s, e, "STREET", text[s:e], self.name, self.score)
            for _, s, e in scan_matches(scan_for(self._box.pattern, self._box.flags), text)
        ]
        for m, _, _ in scan_matches(scan_for(self._post.pattern, self._post.flags), text):
            for group, label in ((1, "CITY"), (2, "STATE"), (3, "ZIP")):
                if m.group(group):
                    s, e = m.span(group)
                    found.append(Span(s, e, label, text[s:e], self.name, self.score))
        return found


_ID_CHARS = r"[A-Za-z0-9][A-Za-z0-9/.-]{1,18}[A-Za-z0-9]"
_NO = r"(?:no\.?|num(?:ber)?\.?|#|id)"
_SEP = r"\s*(?:[:#=]|is|was)?\s*"
_HOSPITAL_CUES = (
    rf"hosp(?:ital)?\.?\s*{_NO}",
    rf"unit\s*{_NO}",
    rf"in-?patient\s*{_NO}",
    rf"IP\s*{_NO}",
    rf"patient\s*{_NO}",
    rf"reg(?:istration)?\.?\s*{_NO}",
    rf"case\s*{_NO}",
    rf"chart\s*{_NO}",
    rf"record\s*{_NO}",
    rf"UR\s*{_NO}?",
    r"URN",
    r"H/N",
    rf"CHI\s*{_NO}?",
    rf"NHS\s*{_NO}?",
    rf"NHI\s*{_NO}?",
    rf"clinic\s*{_NO}",
    rf"client\s*{_NO}",
)
_LICENCE_CUES = (
    rf"licen[cs]e\s*{_NO}?",
    rf"driver'?s\s+licen[cs]e\s*{_NO}?",
    rf"permit\s*{_NO}?",
    rf"passport\s*{_NO}?",
    rf"badge\s*{_NO}?",
    rf"(?:GMC|NMC|HCPC|AHPRA|MCI|IMC|MDCN|DEA|NPI|PPSN?|SIN|TFN|PAN|Aadhaa?r|NIN)\s*{_NO}?",
    rf"(?:vehicle|car)\s+reg(?:istration)?\.?\s*{_NO}?",
    rf"(?:number\s+)?plate\s*{_NO}?",
    rf"VIN\s*{_NO}?",
    rf"serial\s*{_NO}?",
    rf"membership\s*{_NO}",
    rf"member\s*{_NO}",
    rf"employee\s*{_NO}",
    rf"staff\s*{_NO}",
    rf"student\s*{_NO}",
    rf"customer\s*{_NO}",
    rf"order\s*{_NO}",
    rf"ticket\s*{_NO}",
    rf"reference\s*{_NO}?",
    rf"ref\.?\s*{_NO}?",
)
_USER_CUES = (
    r"user\s?name",
    r"user\s?id",
    r"login(?:\s+id)?",
    r"log-in",
    r"handle",
    r"screen\s?name",
    r"account\s+name",
    r"gamertag",
    r"skype",
    r"twitter",
    r"instagram",
    r"github",
    r"discord",
    r"telegram",
)


def _after(cues) -> str:
    return r"(?<![\w])(?:" + "|".join(cues) + r")"


IDENTIFIER_RECOGNIZERS = [
    IbanRecognizer("iban", "ACCOUNT", score=0.95),
    PatternRecognizer(
        "payment_card",
        "ACCOUNT",
        score=0.9,
        pattern=r"(?<![\w-])\d{4}(?:[ -]?\d{3,4}){2,3}(?:[ -]?\d{1,4})?(?![\w-])",
        validate=luhn_valid,
    ),
    PatternRecognizer(
        "phone_international",
        "PHONE",
        score=0.85,
        pattern=r"(?<![\w+])(?:\+|00)[1-9]\d{0,2}[\s.-]?(?:\(0?\d{1,4}\)[\s.-]?)?\d{1,5}"
        r"(?:[\s.-]?\d{2,5}){1,4}(?![\w])",
        validate=phone_digit_count(8, 15),
    ),
    PatternRecognizer(
        "phone_national",
        "PHONE",
        score=0.75,
        pattern=r"(?<![\w/.+-])(?:\(0\d{1,4}\)|0\d{1,4})[\s-]?\d{3,4}[\s-]?\d{3,4}(?![\w/-])",
        validate=phone_digit_count(10, 11),
    ),
    PatternRecognizer(
        "username_cue",
        "USERNAME",
        score=0.85,
        pattern=_after(_USER_CUES)
        + r"\s*(?:[:=]|is|was)\s*@?([A-Za-z0-9][\w.-]{1,30}[A-Za-z0-9_])",
        group=1,
    ),
    PatternRecognizer(
        "username_at",
        "USERNAME",
        score=0.75,
        pattern=r"(?<![\w.@/])@([A-Za-z][A-Za-z0-9_]{2,29})(?![\w@]|\.\w)",
        flags=CS,
        group=1,
    ),
    PatternRecognizer(
        "hospital_number_cue",
        "MRN",
        score=0.85,
        pattern=_after(_HOSPITAL_CUES) + _SEP + rf"({_ID_CHARS})(?![\w/-])",
        group=1,
        validate=has_digit,
    ),
    PatternRecognizer(
        "licence_number_cue",
        "ID",
        score=0.85,
        pattern=_after(_LICENCE_CUES) + _SEP + rf"({_ID_CHARS})(?![\w/-])",
        group=1,
        validate=has_digit,
    ),
    MilitaryAddressRecognizer("military_address", "STREET", score=0.9),
    PatternRecognizer(
        "named_ward",
        "DEPARTMENT",
        score=0.75,
        pattern=r"(?<![\w])((?:[A-Z][a-z'’]+\s){1,2}(?:Ward|Wing|Pavilion))(?![\w])",
        flags=CS,
        group=1,
        validate=named_ward,
    ),
    PatternRecognizer(
        "room_bed",
        "ROOM",
        score=0.8,
        pattern=r"(?<![\w])(?:room|rm\.?|bed|bay|cubicle|side\s?room|ward|pod|cell|bldg\.?)"
        r"\s*(?:no\.?|#)?\s*((?:\d{1,4}[A-Za-z]?|[A-Za-z]\d{1,3}[A-Za-z]?)(?:[-/]\d{1,3}[A-Za-z]?)?)"
        r"(?![\w/-])",
        group=1,
    ),
]
for _rec in IDENTIFIER_RECOGNIZERS:
    _rec.languages = ("en",)
    register_recognizer(_rec)
