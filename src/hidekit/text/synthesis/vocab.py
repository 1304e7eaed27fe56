"""The generator's word lists and date layouts, read from ``data/words.json`` (``data_files``):
what a note may mention, never how it is assembled."""

from __future__ import annotations

from hidekit.text.dates import DATE_FORMATS
from hidekit.text.synthesis.data_files import templates, words

LABELS: dict[str, str] = words("LABELS", "d")

NOTE_TYPES = words("NOTE_TYPES", "t")

DIAGNOSES = words("DIAGNOSES", "l")
EPONYMS = words("EPONYMS", "l")
SIGNS = words("SIGNS", "l")
DEVICES = words("DEVICES", "l")
PROCEDURES = words("PROCEDURES", "l")
DRUGS = words("DRUGS", "l")
DOSES = words("DOSES", "l")
FREQS = words("FREQS", "l")
SYMPTOMS = words("SYMPTOMS", "l")
# Clinics named by what they treat: not identifying, and they stay unlabelled
DEPARTMENT_CLINICS = words("DEPARTMENT_CLINICS", "l")
SERVICES = words("SERVICES", "l")
STUDIES = words("STUDIES", "lt")
FINDINGS = words("FINDINGS", "dl")
SPECIMENS = words("SPECIMENS", "lt")
TRAVEL = words("TRAVEL", "l")
ORG_FORMS = templates("ORG_FORMS", "l")
RELATIONS_F = words("RELATIONS_F", "l")
RELATIONS_M = words("RELATIONS_M", "l")


CLINICIAN_ROLES = words("CLINICIAN_ROLES", "l")
# Roles as a note spells them in prose (key → words); the person's name is DOCTOR (any clinician).
ROLE_WORDS = words("ROLE_WORDS", "dl")
OTHER_ROLES = words("OTHER_ROLES", "l")


# ---------------------------------------------------------------------------------------------
# One note


# Day-first layouts of the UK, Ireland, Australia, New Zealand, Canada and India (weights).
DAY_FIRST_FORMATS: list[tuple[str, float]] = [
    ("DD/MM/YYYY", 14),
    ("D/M/YYYY", 6),
    ("DD/MM/YY", 6),
    ("D MMM YYYY", 10),
    ("D MMMM YYYY", 8),
    ("Do MMMM YYYY", 3),
    ("DD-MMM-YYYY", 3),
    ("DD.MM.YY", 2),
    ("DD.MM.YYYY", 3),
    ("YYYY-MM-DD", 5),
    ("D MMM", 3),
    ("D/M", 3),
    ("MMMM YYYY", 2),
    ("Do MMMM", 2),
    ("D MMMM", 2),
    ("DD-MM-YYYY", 2),
    ("D-MMM-YY", 1),
]
# Informal forms written in running text only: "the 4th", "Mar-04", "in March", "March 4th".
INFORMAL_FORMATS = words("INFORMAL_FORMATS", "l")
US_FORMATS: list[tuple[str, float]] = [(f, w) for f, w in DATE_FORMATS if f != "YYYY"]
WRITTEN_DATE_FORMATS = tuple(
    dict.fromkeys([f for f, _ in US_FORMATS + DAY_FIRST_FORMATS] + INFORMAL_FORMATS)
)
WEEKDAYS = words("WEEKDAYS", "l")
MONTH_ABBR = words("MONTH_ABBR", "ll")
# holidays name a day: DATE under the annotation conventions
HOLIDAYS = words("HOLIDAYS", "l")
DECADE_WORDS = words("DECADE_WORDS", "l")
WEEKDAY_SHORT = words("WEEKDAY_SHORT", "l")
# languages and nationalities: capitalized, never PHI under the annotation conventions
LANGUAGES = words("LANGUAGES", "l")

# ---------------------------------------------------------------------------------------------
# More people, places, numbers and look-alikes (issue 5 follow-up: variety for generalization)

GP_DEGREES = words("GP_DEGREES", "dl")
GENERIC_ROLES = words("GENERIC_ROLES", "l")
RELATIVE_TIMES = words("RELATIVE_TIMES", "l")
BRANDS = words("BRANDS", "l")
SCALES = words("SCALES", "l")
ICD_CODES = words("ICD_CODES", "l")
BEDS = words("BEDS", "l")
# "3/7" = three days, "2/52" = two weeks, "6/12" = six months: British and Australian shorthand
DURATIONS = words("DURATIONS", "l")
US_DURATIONS = words("US_DURATIONS", "l")
