"""The clinical safe-list: detected spans that must be left as written.

A detector's false positive costs little when it is redacted, but a surrogate changes what the
note says: "AFib on apixaban" becomes "Vincent on apixaban", "E. coli" becomes "H. coli", a
blood pressure is shifted as a date. The anonymize step (not the detector: detection and
replacement stay separate, as in Presidio) asks this list before replacing a span, and leaves
the span as it is when it is

- a clinical abbreviation ("AFib", "CHF", "INR"; case-sensitive, or all in capitals), or a run
  of such words, drug names and short joining words ("AFib on apixaban") — except in spans
  labelled as codes (states, countries, numbers: "CA", "MI" and "OR" are states there);
- inside a drug, organism or named clinical term written in the text ("E. coli", "Foley
  catheter", "Glasgow Coma Scale"), or inside an eponym followed by a clinical head word
  ("Parkinson disease", "Murphy's sign", "Wolff-Parkinson-White syndrome", "Gleason 4+3"),
  unless a title stands before it ("Mr. Parkinson");
- a number or ratio that reads as a measurement: after a vital-sign or lab word ("BP 120/80",
  "INR 2.3", "GCS 15"), before a unit ("132/84 mmHg", "5/5 strength"), or a duration in day /
  week / month notation ("for 3/7", "2/52 ago"). A full date with a year is never a measurement
  ("T: 2/2/23" is a time stamp). Only spans labelled as dates (or with a label hidekit does not
  know) are read as measurements: ages over 89 must go, and a phone number is never a pH.

The lists are data files shipped in ``hidekit/data`` (``safelist-*.txt``, sources in the README
beside them); ``load_safelist(extra=...)`` adds a user's own terms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources

from hidekit.text.anonymization.surrogates import KINDS
from hidekit.text.dates import parse_date
from hidekit.text.detection.termlists import norm_term, term_alternation

FILES = {
    "abbreviation": "safelist-abbreviations.txt",
    "organism": "safelist-organisms.txt",
    "drug": "safelist-drugs.txt",
    "term": "safelist-terms.txt",
    "eponym": "safelist-eponyms.txt",
    "eponym-head": "safelist-eponym-heads.txt",
    "unit": "safelist-units.txt",
    "measure-keyword": "safelist-measure-keywords.txt",
}
# labels whose values are short codes that collide with abbreviations: never kept as one
_CODE_KINDS = {"state", "country", "shape", "phone", "email", "url", "ip"}
_JOINERS = {"on", "with", "and", "or", "of", "in", "for", "to", "the", "a", "&", "+", "w/", "/"}
_TITLE_BEFORE = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame)\.?\s+)$", re.IGNORECASE)
_NUMBER = r"\d{1,4}(?:[.,]\d{1,3})?"  # vitals and lab values, not phone or record numbers
_MEASURE = re.compile(rf"[<>≤≥~]?{_NUMBER}(?:\s*(?:/|\+|=|x|:)\s*{_NUMBER})*\s*%?", re.IGNORECASE)
_DURATION = re.compile(r"\d{1,2}/(?:7|52|12)")
_DURATION_BEFORE = re.compile(r"(?:\b(?:for|x|over|past|last|within)\s*)$", re.IGNORECASE)
_DURATION_AFTER = re.compile(r"^\s*(?:ago|hx|history)\b", re.IGNORECASE)


def read_list(name: str) -> list[str]:
    """One shipped list: one term a line, ``#`` comments and blank lines skipped."""
    raw = (resources.files("hidekit") / "data" / name).read_text(encoding="utf-8")
    return [ln.strip() for ln in raw.splitlines() if ln.strip() and not ln.startswith("#")]


@dataclass(frozen=True)
class SafeList:
    """Terms that are never PHI in clinical text (see the module docstring for the rules)."""

    abbreviations: frozenset[str]
    phrases: dict[str, str]  # casefolded phrase -> category (organism, drug, term, extra)
    eponyms: tuple[str, ...]
    heads: tuple[str, ...]
    units: tuple[str, ...]
    keywords: tuple[str, ...]
    _upper: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_upper", frozenset(a.upper() for a in self.abbreviations))

    @cached_property
    def _phrase_rx(self) -> re.Pattern:
        return re.compile(rf"(?<!\w)(?:{term_alternation(self.phrases)})(?!\w)", re.IGNORECASE)

    @cached_property
    def _eponym_rx(self) -> re.Pattern:
        """An eponym (or several, "Wolff-Parkinson-White") and a head word; a score eponym that
        is also a measurement word ("Apgar", "Gleason") may be followed by its number."""
        name = f"(?:{term_alternation(self.eponyms)})"
        keywords = {k.casefold() for k in self.keywords}
        scores = term_alternation(e for e in self.eponyms if e.casefold() in keywords)
        return re.compile(
            rf"(?<!\w)(?:{name}(?:\s*-\s*{name}|\s+and\s+{name})*(?:['’]s|s['’])?"
            rf"\s+(?:{term_alternation(self.heads)})"
            rf"|(?:{scores})s?\s*:?\s*\d+(?:\s*\+\s*\d+)?(?:\s*=\s*\d+)?)(?!\w)",
            re.IGNORECASE,
        )

    @cached_property
    def _unit_after(self) -> re.Pattern:
        return re.compile(rf"^\s*(?:{term_alternation(self.units)})(?![A-Za-z0-9])", re.IGNORECASE)

    @cached_property
    def _keyword_before(self) -> re.Pattern:
        """Keywords of four letters or more in any case; shorter ones as written ("Mg" is
        magnesium, "10 mg" a dose; "pH" is not "Ph:", a phone)."""
        long = term_alternation(k for k in self.keywords if len(k) >= 4)
        short = term_alternation(k for k in self.keywords if len(k) < 4)
        return re.compile(
            rf"(?<![\w/])(?:(?i:{long})|{short})\s*(?:[:=]|of|is|was)?\s*$",
        )

    # ------------------------------------------------------------------------------------
    def reason(self, text: str, start: int, end: int, label: str = "") -> str | None:
        """Why ``text[start:end]`` (a detected span) is left as written, or None to replace it."""
        span = text[start:end].strip()
        if not span:
            return None
        kind = KINDS.get(label.upper(), "date")
        # "CA", "MI", "OR" in a STATE span are states; "ED", "SL" in a name span are initials
        initials = kind == "name" and len(span.replace(".", "")) <= 2
        if kind not in _CODE_KINDS and not initials:
            if self._is_abbreviation(span):
                return "abbreviation"
            if self._safe_words(span):
                return "clinical words"
        lo, hi = max(0, start - 80), min(len(text), end + 80)
        for rx, category in ((self._phrase_rx, None), (self._eponym_rx, "eponym")):
            for m in rx.finditer(text, lo, hi):
                if (
                    m.start() <= start
                    and end <= m.end()
                    and not _TITLE_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
                ):
                    return category or self.phrases.get(norm_term(m.group()), "term")
        if kind == "date" and self._is_measurement(text, start, end, span):
            return "measurement"
        return None

    def _is_abbreviation(self, word: str) -> bool:
        return word in self.abbreviations or (word.isupper() and word in self._upper)

    def _safe_words(self, span: str) -> bool:
        """Every word an abbreviation, a one-word drug / organism / term or a joining word."""
        words = [w.strip(",;:()") for w in span.split()]
        if len(words) < 2:
            return False
        content = [w for w in words if w.casefold() not in _JOINERS]
        return bool(content) and all(
            self._is_abbreviation(w) or norm_term(w) in self.phrases for w in content
        )

    def _is_measurement(self, text: str, start: int, end: int, span: str) -> bool:
        if not _MEASURE.fullmatch(span):
            return False
        parsed = parse_date(span)
        if parsed is not None and parsed.has_year:
            return False  # "T: 2/2/23" is a time stamp, not a temperature: no vital has a year
        before, after = text[max(0, start - 30) : start], text[end : end + 30]
        if self._keyword_before.search(before) or self._unit_after.search(after):
            return True
        return bool(
            _DURATION.fullmatch(span)
            and (_DURATION_BEFORE.search(before) or _DURATION_AFTER.search(after))
        )


@lru_cache(maxsize=1)
def _shipped() -> SafeList:
    phrases: dict[str, str] = {}
    for category in ("organism", "drug", "term"):
        for t in read_list(FILES[category]):
            phrases.setdefault(norm_term(t), category)
    return SafeList(
        abbreviations=frozenset(read_list(FILES["abbreviation"])),
        phrases=phrases,
        eponyms=tuple(read_list(FILES["eponym"])),
        heads=tuple(read_list(FILES["eponym-head"])),
        units=tuple(read_list(FILES["unit"])),
        keywords=tuple(read_list(FILES["measure-keyword"])),
    )


def load_safelist(extra: Iterable[str] = ()) -> SafeList:
    """The shipped clinical safe-list, plus ``extra`` terms (matched like drug names)."""
    base = _shipped()
    extra = [t for t in extra if t.strip()]
    if not extra:
        return base
    phrases = dict(base.phrases)
    for t in extra:
        phrases.setdefault(norm_term(t), "extra")
    return SafeList(
        base.abbreviations, phrases, base.eponyms, base.heads, base.units, base.keywords
    )
