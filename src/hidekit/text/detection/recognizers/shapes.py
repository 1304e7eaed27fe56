"""Recognizers of the profiles for identifiers and addresses by their written shape (issue 14).

Development texts by independent authors (en-dev dev210 onwards: Nigerian, Indian, Singaporean,
Filipino, Australian notes and survey answers) leak what the CRF rarely saw in generated notes:

- ``slashed_code``: a reference of three or more parts joined by "/", letters first and digits
  last ("LUTH/A&E/25/08817", "mh/pcmc/bocw/22817", "F/20250327/4471") — ID;
- ``payment_handle``: a payment or chat handle "name@bank" with no dot after the "@" (UPI ids
  "harpal.singh77@okaxis"; an e-mail address has a domain) — USERNAME;
- ``vehicle_plate``: capitals, digits, capitals ("ABJ 447 KW", "RSH 447 XA", "KA 05 MN 4417")
  where no letter group is a clinical abbreviation or an English word ("HR 88 BP" is two
  vitals, "BED 12 A" a bed) — ID;
- ``vehicle_plate_cue``: a registration after "registration", "plate", "van" … ("NK19 XPD",
  "TX NMR-4471", "umf 447k": a digit and a letter, no English word) — ID;
- ``city_lower_note``: in a note typed all in lower case, a world city whose words are rare in
  English ("latur", "kakamega") — CITY;
- ``ipv6_compressed``: an IPv6 address written with "::" ("2001:db8:4471::18") — IP;
- ``ssn_last_four``: the four digits after "last 4 SSN" or "SSN (last 4)" — SSN;
- ``street_any_case``: a street written in lower case, one or two words and a street type
  ("on king st", "oxford st", "14 cathedral walk"): the word before the type must not be common
  English (its Zipf band below 6 for "st", "rd", "ave"…; below 5 for "street", "road", "way"…)
  — STREET;
- ``street_european``: a street written the European way with its house number, a compound
  ending in a street word ("Eisenbahnstraße 118", "Keizersgracht 44-2") or a street word first
  ("Rue Vanderkindere 214", "17 rue des Trois-Frères", "ul. Długa 17/4") — STREET;
- ``username_name_dotted``: a lower-case login of two parts joined by "." or "_" with no cue,
  one part a given name or surname of the gazetteers ("priya.s", "conor.b", "lin_wei"), the first
  not common in English, the whole no English word, no file or domain — USERNAME;
- ``date_digits_shape``: a date written in digits with ".", "/" or "-" between its parts and a valid
  month and day, year first ("1987.03.12") or day first ("12.03.2024", "3/4/24") — DATE;
- ``town_after_place_word``: a town or village of GeoNames (1,000 people or more) whose words
  are all rare in English, no person's name, right after a place word ("lives in kathiani",
  "moved from Nyalenda", "born at …") — CITY;
- ``cashtag``: a payment tag, "$" included, then a letter, then letters or digits with a lower-case letter
  or a digit among them ("$jdoe22"; "$USD" is a currency) — USERNAME.

Like ``hidekit.text.detection.recognizers.signatures`` they run beside any model for the profiles
only (not trained on), so the shipped model's features stay as they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hidekit.text.detection.casing import text_case
from hidekit.text.detection.consistency import clinical_words
from hidekit.text.detection.consistency_parts import numeric_dates
from hidekit.text.detection.recognizers.base import (
    PatternRecognizer,
    Recognizer,
    register_recognizer,
)
from hidekit.text.detection.recognizers.signatures import (
    _DOMAIN_ENDS,
    _FILE_ENDS,
    PROFILE_ONLY,
    _band,
    _clinical,
)
from hidekit.text.detection.street_types import AMBIGUOUS, LONG_TYPES, SHORT_TYPES, alternatives
from hidekit.text.spans import Span

_SHORT_TYPES = alternatives(t for t in SHORT_TYPES if t not in AMBIGUOUS)
_LONG_TYPES = alternatives(LONG_TYPES)


@dataclass
class VehiclePlateRecognizer(Recognizer):
    _rx: re.Pattern = re.compile(
        r"(?<![\w/-])([A-Z]{2,3})[ -](\d{1,2}[ -][A-Z]{1,3}[ -]\d{3,4}|\d{2,4}[ -]?[A-Z]{1,3})"
        r"(?![\w/-])"
    )

    def find(self, text: str) -> list[Span]:
        clinical = clinical_words()
        out = []
        for m in self._rx.finditer(text):
            groups = [m.group(1), *re.findall(r"[A-Z]+", m.group(2))]
            # letters that are no English word and no clinical abbreviation ("BED 12 A" is not)
            if any(
                g.casefold() in clinical or g.casefold() in _UNITS or _band(g) >= 4 for g in groups
            ):
                continue
            out.append(Span(m.start(), m.end(), self.label, m.group(), self.name, self.score))
        return out


@dataclass
class CuedPlateRecognizer(Recognizer):
    """A registration after the word that says it is one ("registration NK19 XPD", "van SV72
    KPX", "plate TX NMR-4471", "number plate umf 447k"): letters and digits in one to three
    groups, with a digit and a letter, no group of letters alone a common English word or a
    clinical abbreviation ("car 2 days", "taxi at 10 am" are not)."""

    _rx: re.Pattern = re.compile(
        r"\b(?:registration|reg|rego|vrn|plate|plates|vehicle|van|car|truck|lorry|taxi|motorbike)"
        r"\b(?:[ \t]+(?:no\.?|number|#))?(?:[ \t]*[:#][ \t]*|[ \t]+)"
        r"((?:[A-Za-z]{2}[ \t]+)?[A-Za-z0-9]{2,4}(?:[ -][A-Za-z0-9]{1,4}){1,2})(?![\w/-]|\.\w)",
        re.IGNORECASE,
    )

    def find(self, text: str) -> list[Span]:
        clinical = clinical_words()
        out = []
        for m in self._rx.finditer(text):
            plate = m.group(1)
            chars = plate.replace(" ", "").replace("-", "")
            if not (5 <= len(chars) <= 9) or not re.search(r"\d", plate) or chars.isdigit():
                continue
            if not re.search(r"\d[ -]?[A-Za-z]|[A-Za-z][ -]?\d", plate):
                continue
            # a group of letters alone must be no common word and no clinical abbreviation
            words = [w for w in re.split(r"[ \t-]+", plate) if w.isalpha() and len(w) > 1]
            if any(
                w.casefold() in clinical
                or w.casefold() in _UNITS
                or _band(w) >= (3 if len(w) > 3 else 5)
                for w in words
            ):
                continue
            s, e = m.span(1)
            out.append(Span(s, e, self.label, plate, self.name, self.score))
        return out


@dataclass
class StreetAnyCaseRecognizer(Recognizer):
    _rx: re.Pattern = re.compile(
        r"(?<![\w'-])(?:(\d{1,5}[a-z]?)[ \t]+)?((?:[a-z][a-z'’-]{2,}[ \t]+)?[a-z][a-z'’-]{2,})"
        rf"[ \t]+(?:({_SHORT_TYPES})|({_LONG_TYPES}))(?![\w'-])"
    )

    def find(self, text: str) -> list[Span]:
        out = []
        for m in self._rx.finditer(text):
            words = m.group(2).split()
            limit = 6 if m.group(3) else 5
            keep = words[1:] if _band(words[0]) >= limit else words  # "on king st": "king st"
            if not keep or any(_band(w) >= limit for w in keep):
                continue
            start = m.start(1) if m.group(1) and keep == words else m.end(2) - len(keep[-1])
            if len(keep) == 2:
                start = m.start(1) if m.group(1) else m.start(2)
            # a long street type needs a house number ("14 cathedral walk"): "the other way",
            # "down the road" are not addresses
            if m.group(3) or (m.group(1) and keep == words):
                out.append(
                    Span(start, m.end(), self.label, text[start : m.end()], self.name, self.score)
                )
        return out


@dataclass
class LowerNoteCityRecognizer(Recognizer):
    """In a note typed all in lower case, a world city of the gazetteer (``city_any_en``) whose
    words are rare in English (Zipf band 2 or less: "latur", "kakamega", not "bath") and no
    clinical word — CITY. A name of four letters or fewer is not taken: in lower case such
    words are far more often words of another language or shorthand that share a town's
    name ("anak", "haan", "pare", "asha", "poa", "lido", "rota") than a city."""

    def find(self, text: str) -> list[Span]:
        if text_case(text) != "lower":
            return []
        from hidekit.text.detection.recognizers import get_recognizers, run_recognizers

        out = []
        for h in run_recognizers(text, get_recognizers(names=["city_any_en"])):
            words = h.text.split()
            if len(h.text) > 4 and all(_band(w) <= 2 and not _clinical(w) for w in words):
                out.append(Span(h.start, h.end, self.label, h.text, self.name, self.score))
        return out


@dataclass
class NamedHandleRecognizer(Recognizer):
    """A lower-case login of two parts joined by "." or "_", one of them a given name or surname
    (``gazetteers``): "priya.s", "wanjiru.k", "lin_wei". On the en-dev training texts every
    such token (20) is annotated PHI; "e.g", "a.m", "os.path", "notes.txt" are not names."""

    _rx: re.Pattern = re.compile(
        r"(?<![\w.@/\\-])([a-z][a-z0-9]{1,20})[._]([a-z][a-z0-9]{0,20})(?![\w@/-]|\.\w)"
    )

    def find(self, text: str) -> list[Span]:
        from hidekit.text.detection.recognizers.gazetteers import given_names, surnames

        names, family = given_names(), surnames()
        out = []
        for m in self._rx.finditer(text):
            a, b = m.group(1), m.group(2)
            if b in _DOMAIN_ENDS or b in _FILE_ENDS or _band(a) >= 4 or _band(m.group()):
                continue
            if a in names or a in family or b in names or b in family:
                out.append(Span(m.start(), m.end(), self.label, m.group(), self.name, self.score))
        return out


@dataclass
class NumericDateRecognizer(Recognizer):
    """Dates written in digits (``consistency_parts.numeric_dates``)."""

    def find(self, text: str) -> list[Span]:
        return [
            Span(a, b, self.label, text[a:b], self.name, self.score) for a, b in numeric_dates(text)
        ]


# the words a place follows ("lives in", "moved from", "near", "village"): on the en-dev training
# texts 366 of 367 such towns are annotated PHI
_PLACE_WORDS = frozenset(
    "in at from to near of around outside village town visiting moved lives living based born".split()  # noqa: SIM905
)
_TOWN_WORD = re.compile(r"[^\W\d_][\w'’-]*")


@dataclass
class TownRecognizer(Recognizer):
    """A town of ``gazetteers.small_towns`` (one to four words, in any case, no clinical word)
    written right after a place word, with at most three characters between them and no line
    break."""

    def find(self, text: str) -> list[Span]:
        from hidekit.text.detection.recognizers.gazetteers import small_towns

        towns = small_towns()
        words = [(m.start(), m.end(), m.group().casefold()) for m in _TOWN_WORD.finditer(text)]
        out = []
        for i in range(1, len(words)):
            a, _, key = words[i]
            if key not in towns or words[i - 1][2] not in _PLACE_WORDS:
                continue
            gap = text[words[i - 1][1] : a]
            if len(gap) > 3 or "\n" in gap:
                continue
            for town in towns[key]:
                k = town.count(" ") + 1
                if " ".join(w[2] for w in words[i : i + k]) == town and not any(
                    _clinical(w) for w in town.split()
                ):
                    end = words[i + k - 1][1]
                    if "\n" not in text[a:end]:
                        out.append(Span(a, end, self.label, text[a:end], self.name, self.score))
                        break
        return out


_UNITS = frozenset("mg mcg ug g kg ml l dl min h hr hrs d day wk mo mmol umol iu u".split())  # noqa: SIM905


def _units_only(code: str) -> bool:
    """A dose written with slashes ("mg/kg/1000"), not a reference."""
    words = [w.casefold() for w in re.findall(r"[A-Za-z]+", code)]
    return all(w in _UNITS for w in words)


def _ipv6(value: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


# a street written the European way, with its house number: a compound ending in a street word
# ("Eisenbahnstraße 118", "Seefeldstrasse 142", "Keizersgracht 44-2"), or a street word first
# ("Rue Vanderkindere 214", "17 rue des Trois-Frères", "Calle de la Paz 22", "ul. Długa 17/4",
# "Jalan Mawar 3")
_NUMBER = r"\d{1,4}[a-zA-Z]?(?:[/-]\d{1,4}[a-zA-Z]?)?"
_LINK = (
    r"(?:de|del|da|do|dos|das|des|du|la|le|les|di|della|dei|degli|y|e|san|santa|sainte|saint|st\.?)"
)
_STREET_FIRST = (
    r"(?:[Rr]ue|[Cc]alle|[Rr]ua|Via|Viale|[Aa]venida|[Jj]alan|[Jj]ln\.?|ul\.|[Uu]lica|"
    r"[Bb]óthar|[Tt]riq|[Cc]arrer|[Cc]orso|[Pp]iazza|[Ll]argo|[Tt]ravessa|[Pp]raça|[Cc]hemin|"
    r"[Qq]uai|[Ii]mpasse|[Aa]llée)"
)
_NAME_WORD = r"[A-ZÀ-ÝĀ-Ž][\w'’-]*"
_EUROPEAN_STREET = (
    r"(?<![\w/-])(?:"
    rf"[A-ZÄÖÜÅØÆ][\w'’-]*?(?:straße|strasse|gasse|weg|allee|platz|laan|gracht|straat|plein|kade|"
    rf"vej|gade|gatan|vägen|veien|gata)[ \t]+{_NUMBER}"
    rf"|(?:{_NUMBER},?[ \t]+)?{_STREET_FIRST}[ \t]+(?:{_LINK}[ \t]+)*{_NAME_WORD}"
    rf"(?:[ \t]+(?:{_LINK}[ \t]+)*{_NAME_WORD}){{0,3}}?[ \t]+{_NUMBER}"
    rf"|{_NUMBER},?[ \t]+{_STREET_FIRST}[ \t]+(?:{_LINK}[ \t]+)*{_NAME_WORD}"
    rf"(?:[ \t]+(?:{_LINK}[ \t]+)*{_NAME_WORD}){{0,3}}"
    r")(?![\w/-])(?![ \t]*(?:am|pm|a\.m|p\.m|h|hrs?|mins?|times|x)\b)"
)

SHAPE_RECOGNIZERS: list[Recognizer] = [
    PatternRecognizer(
        "ipv6_compressed",
        "IP",
        PROFILE_ONLY,
        0.9,
        pattern=r"(?<![\w:])(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?![\w:])",
        validate=_ipv6,
    ),
    PatternRecognizer(
        "ssn_last_four",
        "SSN",
        PROFILE_ONLY,
        0.8,
        pattern=r"\b(?:last[ \t-]?(?:4|four)(?:[ \t]+digits)?(?:[ \t]+of)?(?:[ \t]+(?:the|my|your))?"
        r"[ \t]+(?:ssn|social(?:[ \t]+security)?(?:[ \t]+(?:number|no\.?))?)|ssn[ \t]*\(last[ \t]?4\))"
        r"[ \t]*(?:is|:|#)?[ \t]*(\d{4})(?![\w-])",
        group=1,
    ),
    PatternRecognizer(
        "slashed_code",
        "ID",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w/.@-])[A-Za-z][A-Za-z&]{0,7}(?:/[A-Za-z0-9&]{1,10}){1,5}/\d{3,}"
        r"(?![\w/]|\.\d)",
        validate=lambda code: not _units_only(code),
    ),
    PatternRecognizer(
        "payment_handle",
        "USERNAME",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w.@+-])[A-Za-z][\w.-]{1,40}@[A-Za-z]{2,20}(?![\w@-]|\.\w)",
    ),
    PatternRecognizer(
        "street_european",
        "STREET",
        PROFILE_ONLY,
        0.7,
        flags=0,
        pattern=_EUROPEAN_STREET,
    ),
    VehiclePlateRecognizer("vehicle_plate", "ID", PROFILE_ONLY, 0.7),
    CuedPlateRecognizer("vehicle_plate_cue", "ID", PROFILE_ONLY, 0.7),
    StreetAnyCaseRecognizer("street_any_case", "STREET", PROFILE_ONLY, 0.7),
    LowerNoteCityRecognizer("city_lower_note", "CITY", PROFILE_ONLY, 0.7),
    NamedHandleRecognizer("username_name_dotted", "USERNAME", PROFILE_ONLY, 0.7),
    NumericDateRecognizer("date_digits_shape", "DATE", PROFILE_ONLY, 0.7),
    TownRecognizer("town_after_place_word", "CITY", PROFILE_ONLY, 0.7),
    PatternRecognizer(
        "cashtag",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        flags=0,
        pattern=r"(?<![\w$])\$[A-Za-z][A-Za-z0-9_-]{2,20}(?![\w-])",
        validate=lambda tag: any(c.islower() or c.isdigit() for c in tag),
    ),
]
for _rec in SHAPE_RECOGNIZERS:
    register_recognizer(_rec)
