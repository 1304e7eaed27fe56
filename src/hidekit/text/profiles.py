"""Profiles: which detected spans count as PHI, after the rule a release follows (issue 14).

A model finds everything it was trained to find; a profile then says what the release must hide:

- ``hipaa`` — the 18 identifiers of HIPAA's Safe Harbor (45 CFR 164.514(b)(2)): names, every
  geographic unit smaller than a state (street, city, ZIP, and the hospitals, wards and employers
  that place a person), every element of a date *except the year*, ages over 89, and every number,
  code and address that reaches a person. Kept as written: a year alone ("quit 2010"), ages of 89
  and under, states, countries, professions, room and bed numbers. Clinicians' names are masked
  too (Safe Harbor does not ask for it; hidekit does not tell a clinician from a relative well
  enough to leave them).
- ``i2b2`` — the categories of the 2014 i2b2/UTHealth de-identification track: everything above
  plus years alone, every age, states and countries, professions, rooms and departments.
- ``strict`` — everything that can point to a person, for GDPR-style releases: every label any
  model gives (also labels hidekit does not know, and a person's sex in MEDDOCAN's labels).
- ``general`` — the personal data of non-clinical text (survey open answers, e-mails, chats,
  support logs): everything ``strict`` hides except a year alone, plus nationalities ("she is
  Ghanaian") and personal titles ("Mrs", "Rev.") found by the recognizers of
  ``hidekit.text.detection.recognizers.general_pii``. It runs on the English model (trained on
  general-PII texts beside the notes).

Professions: Safe Harbor's 18 identifiers do not list occupations, so ``hipaa`` keeps them and an
evaluation under ``hipaa`` removes PROFESSION from the gold standard as well as from the
predictions (``restrict_documents``): a model is neither credited nor blamed for them there.

Profiles also run the identifier recognizers of ``hidekit.text.detection.recognizers.identifiers`` (IBANs,
payment cards, international phones, usernames, hospital numbers with letters and slashes, licence
numbers, military mail, rooms) beside any model that was trained without them, and drop look-alikes
that are not PHI in any profile: blood pressures and scores read as dates (``148/90``), clock times
read as postcodes (``at 1400``). (The clinical safe-list of ``hidekit.text.anonymization.safelist`` was tried
here too: +0.003 precision on en-dev for a quarter more detection time, so it stays in anonymize.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import overload

from hidekit.errors import OptionError
from hidekit.text.spans import Document, Span, sort_spans

# MEDDOCAN's labels read as the generic ones (the es model)
ALIASES = {
    "FECHAS": "DATE",
    "EDAD_SUJETO_ASISTENCIA": "AGE",
    "PAIS": "COUNTRY",
    "PROFESION": "PROFESSION",
    "SEXO_SUJETO_ASISTENCIA": "SEX",
}
# labels of direct identifiers: a note "leaks" when a character of one is left in the text
DIRECT_LABELS = frozenset(
    {"NAME", "DOCTOR", "PHONE", "FAX", "EMAIL", "URL", "IP", "SSN", "MRN", "ID", "ACCOUNT"}
    | {"STREET", "USERNAME", "ZIP"}
)
# identifiers with a checksum: their hits replace the model's spans inside them (an IBAN the CRF
# took for a phone number is an account number)
CHECKSUMMED = frozenset({"iban", "payment_card"})
SUPPLEMENTS = (
    "iban",
    "payment_card",
    "phone_international",
    "phone_national",
    "username_cue",
    "username_at",
    "hospital_number_cue",
    "licence_number_cue",
    "military_address",
    "named_ward",
    "room_bed",
    # names after a cue in any case ("dr okafor", "her daughter ama"): lower-case notes
    "person_cue_any_en",
    "clinician_cue_any_en",
    # sign-off and typist initials, extensions with their cue (recognizers.signatures)
    "typist_reference",
    "signoff_initials",
    "phone_extension",
    "chat_speaker",
    "speaker_label",
    "bracket_initials",
    "relative_name",
    "age_en_birthday",
    "card_ending",
    "username_shape",
    "username_cued",
    "username_dotted",
    "username_keyvalue",
    "username_spaced",
    "chat_handle_line",
    "username_app",
    "username_bold",
    "letter_digit_id",
    "road_number",
    # identifiers and streets by their shape (recognizers.shapes)
    "slashed_code",
    "payment_handle",
    "vehicle_plate",
    "vehicle_plate_cue",
    "street_any_case",
    "street_european",
    "city_lower_note",
    "username_name_dotted",
    "cashtag",
    "date_digits_shape",
    "town_after_place_word",
)


@dataclass(frozen=True)
class Profile:
    """What a release hides: labels left as written, whether a year alone is PHI, the youngest
    age that is PHI."""

    name: str
    summary: str
    keep_labels: frozenset[str]  # generic labels left in the text (not PHI in this profile)
    year_alone: bool
    min_age: int = 0
    recognizers: tuple[str, ...] = ()  # run beside the model for this profile only

    def counts(self, text: str, span: Span) -> bool:
        """True when ``span`` is PHI in this profile."""
        label = ALIASES.get(span.label, span.label)
        if label in self.keep_labels:
            return False
        if label == "DATE" and not self.year_alone and is_year_alone(span_text(text, span)):
            return False
        if label == "AGE" and self.min_age:
            age = age_value(span_text(text, span))
            return age is None or age >= self.min_age
        return True


PROFILES = {
    p.name: p
    for p in (
        Profile(
            "hipaa",
            "HIPAA Safe Harbor: years alone, ages under 90, states, countries, professions and "
            "rooms are kept",
            frozenset({"STATE", "COUNTRY", "PROFESSION", "ROOM", "SEX", "NATIONALITY"}),
            year_alone=False,
            min_age=90,
        ),
        Profile(
            "i2b2",
            "2014 i2b2/UTHealth categories: also years alone, every age, states, countries, "
            "professions, rooms and departments",
            frozenset({"SEX", "NATIONALITY"}),
            year_alone=True,
        ),
        Profile(
            "strict",
            "everything that can point to a person (GDPR-style)",
            frozenset(),
            year_alone=True,
        ),
        Profile(
            "general",
            "general personal data (survey answers, e-mails, chat): everything but a year "
            "alone, with nationalities and personal titles",
            frozenset(),
            year_alone=False,
            recognizers=("nationality_en", "title_en"),
        ),
    )
}
# the profiles a gold standard is compared with, narrowest first (``gold_profile``)
CLINICAL_PROFILES = ("hipaa", "i2b2", "strict")


@overload
def get_profile(name: None) -> None: ...
@overload
def get_profile(name: str | Profile) -> Profile: ...
def get_profile(name: str | Profile | None) -> Profile | None:
    """The profile called ``name`` (None stays None: the model's own labels, nothing added)."""
    if name is None or isinstance(name, Profile):
        return name
    if name not in PROFILES:
        raise OptionError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})")
    return PROFILES[name]


def span_text(text: str, span: Span) -> str:
    return text[span.start : span.end] if text else span.text


_YEAR = re.compile(r"(?:1[89]|2[01])\d\d")


def is_year_alone(value: str) -> bool:
    return _YEAR.fullmatch(value.strip(" .,;:()")) is not None


def age_value(value: str) -> int | None:
    m = re.match(r"\s*(\d{1,3})", value)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- look-alikes
_BP = re.compile(r"(\d{2,3})\s*/\s*(\d{2,3})")
_CLOCK = re.compile(r"([01]\d|2[0-3])[0-5]\d")
_CLOCK_BEFORE = re.compile(r"(?:\bat|\bby|\bfrom|\buntil|\btill|\bto|@|-|–|\bsince)\s*$", re.I)
_CLOCK_AFTER = re.compile(r"\s*(?:hrs?\b|h\b|hours\b|-\s*\d{4}\b|–\s*\d{4}\b)", re.I)


# what makes a four-digit "year" a clock time, an amount or a law's name: a clock time after a
# date, "at" or "@", or before "hrs" or another time ("2025-02-11 2000", "given at 1900", "shift
# 1900 -> 0700", "2100 hrs"), a unit or currency ("2000 IU", "2000 rupees", "Rs 2000"), "Act"
# before it ("CJ Act 1967")
_DATE_BEFORE = re.compile(r"(?:\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}:\d\d|\b[Aa][Tt]|@)[ \t]+$")
_TIME_AFTER = re.compile(
    r"[ \t]*(?:hrs?\b|h\b|hours\b|(?:-+>?|–|→|to)[ \t]*(?:0\d{3}|[12]\d[0-5]\d[ \t]*(?:hrs?\b|h\b)))",
    re.IGNORECASE,
)
_AMOUNT_AFTER = re.compile(
    r"[ \t]*(?:iu|units?|mg|mcg|µg|ml|kcal|calories|steps|rupees|naira|shillings|cedis|rand|pesos"
    r"|dollars|euros|pounds|ringgit|taka|dirhams|words|km|metres|meters|feet|miles)\b",
    re.IGNORECASE,
)
_AMOUNT_BEFORE = re.compile(
    r"(?:[$€£₹₦¥]|\b(?:rs|inr|kes|ksh|ngn|usd|eur|gbp|php|zar|ghs|rm|aed|sgd|aud|cad|nzd)\.?)[ \t]*$",
    re.IGNORECASE,
)
_ACT_BEFORE = re.compile(r"\b(?:Act|ACT),?[ \t]+$")
# the year of a survey, a report or a cohort, not of a person ("Tracer Study 2024", "Transport
# Survey 2025", "MEMBERSHIP RENEWALS 2025")
_DOCUMENT_BEFORE = re.compile(
    r"\b(?:survey|study|report|register|census|round|wave|season|edition|guidelines?|audit"
    r"|strategy|policy|renewals|intake|batch|cohort)[ \t,(]*$",
    re.IGNORECASE,
)
# a vehicle's model year ("Vehicle: 2021 Ram 1500", "our car (2019 RAV4", "2017 HYUNDAI I30")
_VEHICLE_BEFORE = re.compile(r"\b(?:vehicle|car|truck|van|model)[ \t:]*\(?[ \t]*$", re.IGNORECASE)
_MAKE_AFTER = re.compile(
    r"[ \t]+(?:toyota|honda|ford|hyundai|vw|volkswagen|nissan|mazda|kia|ram|chevrolet|chevy|bmw"
    r"|mercedes|audi|subaru|suzuki|tesla|volvo|jeep|dodge|lexus|peugeot|renault|holden"
    r"|mitsubishi|isuzu|skoda|fiat|opel|vauxhall|gmc|buick|cadillac|chrysler|acura|jaguar"
    r"|porsche|proton|perodua|tata|mahindra|maruti|byd)\b",
    re.IGNORECASE,
)


def _year_lookalike(text: str, start: int, end: int) -> bool:
    """A four-digit year alone that reads as a clock time, an amount, a law's name, a vehicle's
    model year or the year of a survey, a report or a cohort."""
    before = text[max(0, start - 16) : start]
    return bool(
        _DATE_BEFORE.search(before)
        or _AMOUNT_BEFORE.search(before)
        or _ACT_BEFORE.search(before)
        or _VEHICLE_BEFORE.search(before)
        or _DOCUMENT_BEFORE.search(text, max(0, start - 24), start)
        or _TIME_AFTER.match(text, end)
        or _AMOUNT_AFTER.match(text, end)
        or _MAKE_AFTER.match(text, end)
    )


def is_lookalike(text: str, span: Span) -> bool:
    """Not PHI in any profile: a blood pressure or score read as a date (``148/90``), a clock
    time read as a postcode (``at 1400``, ``2200 hrs``), a year alone that is a clock time, an
    amount, a law's name, a model year or a survey's year (``2000 IU``, ``shift 1900 -> 0700``,
    ``CJ Act 1967``, ``Vehicle: 2021 Ram``, ``Tracer Study 2024``)."""
    label = ALIASES.get(span.label, span.label)
    value = span_text(text, span)
    if label == "DATE":
        if text and _YEAR.fullmatch(value):
            return _year_lookalike(text, span.start, span.end)
        m = _BP.fullmatch(value)
        return m is not None and (int(m.group(1)) > 31 or int(m.group(2)) > 31)
    if label == "ZIP" and _CLOCK.fullmatch(value):
        before = text[max(0, span.start - 8) : span.start]
        return bool(_CLOCK_BEFORE.search(before) or _CLOCK_AFTER.match(text, span.end))
    return False


# ---------------------------------------------------------------- applying a profile
def _add_free(spans: list[Span], extra: Iterable[Span]) -> list[Span]:
    """``spans`` plus each span of ``extra`` that overlaps none kept so far (longest first)."""
    kept = sort_spans(spans)
    for cand in sorted(extra, key=lambda s: (-(s.end - s.start), s.start)):
        if not any(cand.start < k.end and k.start < cand.end for k in kept):
            kept.append(cand)
            kept.sort()
    return kept


@lru_cache(maxsize=8)
def _supplements(known: tuple[str, ...], extra: tuple[str, ...] = ()) -> tuple:
    from hidekit.text.detection.recognizers import get_recognizers

    names = [n for n in (*SUPPLEMENTS, *extra) if n not in known]
    return tuple(get_recognizers(names=names))


def apply_profile(
    text: str,
    spans: Sequence[Span],
    profile: Profile | str,
    language: str | None = "en",
    model_recognizers: Iterable[str] = (),
) -> list[Span]:
    """The spans a release under ``profile`` must hide.

    For English: identifier recognizers the model does not run yet add their hits where nothing
    was found, years alone are added when the profile counts them, look-alikes go; then every
    span the profile does not count as PHI is left out."""
    from hidekit.text.detection.recognizers import run_recognizers

    prof = get_profile(profile)
    out = list(spans)
    if language in (None, "en"):
        extra = run_recognizers(
            text, _supplements(tuple(sorted(model_recognizers)), prof.recognizers)
        )
        if prof.year_alone:
            extra += [
                Span(h.start, h.end, "DATE", h.text, "year_alone", h.score)
                for h in run_recognizers(text, _year_recognizer())
            ]
        strong = [h for h in extra if h.source in CHECKSUMMED]
        out = [s for s in out if not any(h.start <= s.start and s.end <= h.end for h in strong)]
        out = _add_free(out, extra)
        out = [s for s in out if not is_lookalike(text, s)]
    return [s for s in out if prof.counts(text, s)]


@lru_cache(maxsize=1)
def _year_recognizer() -> tuple:
    from hidekit.text.detection.recognizers import get_recognizers

    return tuple(get_recognizers(names=["year"]))


def restrict_documents(docs: Iterable[Document], profile: Profile | str) -> list[Document]:
    """Documents keeping only the spans ``profile`` counts as PHI (nothing added): how gold and
    predictions are compared under one profile."""
    prof = get_profile(profile)
    return [d.with_spans([s for s in d.spans if prof.counts(d.text, s)]) for d in docs]


def gold_profile(docs: Sequence[Document]) -> dict:
    """Which conventions a gold standard follows, read from its spans: whether it annotates years
    alone, ages under 90, states or countries, professions and rooms, and the narrowest profile
    whose PHI includes every gold span."""
    seen = {
        "years_alone": False,
        "ages_under_90": False,
        "states_or_countries": False,
        "professions": False,
        "rooms": False,
    }
    for d in docs:
        for s in d.spans:
            label, value = ALIASES.get(s.label, s.label), span_text(d.text, s)
            seen["years_alone"] |= label == "DATE" and is_year_alone(value)
            age = age_value(value) if label == "AGE" else None
            seen["ages_under_90"] |= age is not None and age < 90
            seen["states_or_countries"] |= label in ("STATE", "COUNTRY")
            seen["professions"] |= label == "PROFESSION"
            seen["rooms"] |= label == "ROOM"
    closest = next(
        name
        for name in CLINICAL_PROFILES
        if all(PROFILES[name].counts(d.text, s) for d in docs for s in d.spans)
    )
    return {"closest": closest, "annotates": seen}
