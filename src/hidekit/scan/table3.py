"""J-PAL's Table 3: which identifier is direct, strong indirect or indirect, and what to do with it.

The rows follow the guide (``../shared/papers/jpal-data-deidentification-guide.txt``); two rows the
table leaves implicit are added from HIPAA's list, which the guide defers to: the street address
(the guide partitions "Address" in its own example) and other dates tied to a person (visit,
admission), which HIPAA counts as identifiers except for the year.
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECT = "direct"
STRONG = "strong indirect"
INDIRECT = "indirect"
NONE = "none"
CATEGORIES = (DIRECT, STRONG, INDIRECT, NONE)
SEVERITY = {DIRECT: 3, STRONG: 2, INDIRECT: 1, NONE: 0}

# Method vocabulary used in findings and release plans. "assess" means: no rule of thumb in the
# guide, keep the variable in the key set whose k-anonymity is measured (``hidekit risk``).
# "text_columns" is the plan step that de-identifies free text cell by cell (PII detection).
METHODS = (
    "partition",
    "encode",
    "aggregate",
    "top-code",
    "jitter",
    "redact",
    "assess",
    "text_columns",
)


@dataclass(frozen=True)
class IdentifierType:
    key: str
    label: str  # the row of Table 3 (or the HIPAA item)
    category: str
    hipaa: str  # "yes", "no", or the condition ("if over 89", "if < 20,000 inhabitants")
    methods: tuple[str, ...]
    note: str = ""


_ROWS = [
    IdentifierType(
        "personal_id",
        "Personal ID number",
        DIRECT,
        "yes",
        ("partition",),
        "national ID, social security, passport, driving licence, medical record",
    ),
    IdentifierType("full_name", "Full name", DIRECT, "yes", ("partition",)),
    IdentifierType("date_of_birth", "Date of birth", STRONG, "yes", ("aggregate",)),
    IdentifierType(
        "year_of_birth",
        "Year of birth",
        STRONG,
        "if over 89",
        ("aggregate", "top-code"),
        "top/bottom code if few observations",
    ),
    IdentifierType(
        "age", "Age", STRONG, "if over 89", ("top-code", "assess"), "HIPAA: ages over 89 become 90+"
    ),
    IdentifierType("gender", "Gender", INDIRECT, "no", ("assess",)),
    IdentifierType("marital_status", "Marital status", INDIRECT, "no", ("assess",)),
    IdentifierType("household_composition", "Household composition", INDIRECT, "no", ("assess",)),
    IdentifierType(
        "occupation",
        "Occupation",
        INDIRECT,
        "no",
        ("aggregate",),
        "strong indirect when uncommon; aggregate if few observations",
    ),
    IdentifierType("industry", "Industry of employment", INDIRECT, "no", ("assess",)),
    IdentifierType("employment_status", "Employment status", INDIRECT, "no", ("assess",)),
    IdentifierType("education", "Education", INDIRECT, "no", ("assess",)),
    IdentifierType(
        "ethnicity",
        "Ethnicity",
        INDIRECT,
        "no",
        ("aggregate", "top-code"),
        "aggregate or top/bottom code if few observations",
    ),
    IdentifierType(
        "nationality",
        "Nationality",
        INDIRECT,
        "no",
        ("aggregate",),
        "aggregate if few observations",
    ),
    IdentifierType(
        "employer",
        "Workplace/Employer",
        INDIRECT,
        "no",
        ("aggregate",),
        "strong indirect when uncommon",
    ),
    IdentifierType("phone", "Phone number", DIRECT, "yes", ("partition",)),
    IdentifierType("email", "Email address", DIRECT, "yes", ("partition",)),
    IdentifierType(
        "media", "Audio, video or photograph of person(s)", DIRECT, "yes", ("partition",)
    ),
    IdentifierType(
        "bank_account",
        "Bank account number",
        STRONG,
        "yes",
        ("partition",),
        "includes payment card numbers",
    ),
    IdentifierType("ip_address", "IP address", STRONG, "yes", ("partition",)),
    IdentifierType(
        "vehicle_registration", "Vehicle registration number", DIRECT, "yes", ("partition",)
    ),
    IdentifierType(
        "web_address",
        "Web page address",
        INDIRECT,
        "yes",
        ("partition",),
        "strong indirect for a personal page or profile",
    ),
    IdentifierType("student_id", "Student ID number", STRONG, "yes", ("partition",)),
    IdentifierType("insurance_number", "Insurance number", STRONG, "yes", ("partition",)),
    IdentifierType(
        "postal_code",
        "Postal code",
        INDIRECT,
        "yes",
        ("aggregate",),
        "HIPAA: keep 3 digits, 000 where the area has under 20,000 people",
    ),
    IdentifierType("major_region", "Major region", INDIRECT, "no", ("assess",)),
    IdentifierType(
        "small_area",
        "Geographic area with less than 20,000 inhabitants",
        INDIRECT,
        "if < 20,000 inhabitants",
        ("encode",),
        "towns of 20,000 or more need no encoding",
    ),
    IdentifierType(
        "gps",
        "Household location (GPS coordinates)",
        DIRECT,
        "yes",
        ("aggregate", "jitter"),
        "village/town coordinates: jitter if under 20,000 inhabitants",
    ),
    IdentifierType(
        "street_address",
        "Street address (HIPAA)",
        DIRECT,
        "yes",
        ("partition",),
        "HIPAA geographic subdivision; the guide partitions addresses",
    ),
    IdentifierType(
        "event_date",
        "Date tied to a person (HIPAA)",
        INDIRECT,
        "yes",
        ("aggregate",),
        "HIPAA keeps the year only; or publish intervals (days from admission)",
    ),
]
_ROWS.append(
    IdentifierType(
        "free_text",
        "Free text containing PII (open-ended answers, comments)",
        DIRECT,
        "yes",
        ("text_columns",),
        "names, contact details and places written inside text; found by a detection model",
    )
)
TYPES: dict[str, IdentifierType] = {t.key: t for t in _ROWS}
