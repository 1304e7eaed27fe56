"""Hospitals and titled names; clinics named by what they treat ("Heart Failure Clinic") are
not places that identify anyone (``not_department``)."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.addresses import _CONN
from hidekit.text.detection.recognizers.patterns.common import _CAP, CS

# ---------------------------------------------------------------- hospitals and titled names
_HOSP_EN = (
    r"(?:Hospital|Medical Center|Medical Centre|Clinic|Health Center|Infirmary|Health System)"
)
# "Heart Failure Clinic", "Rheumatology Clinic": named by what they treat, not places to identify
_DEPARTMENT_WORDS = frozenset(
    [
        "heart",
        "failure",
        "anticoagulation",
        "coumadin",
        "wound",
        "pain",
        "diabetes",
        "memory",
        "fracture",
        "rheumatology",
        "sleep",
        "lipid",
        "transplant",
        "infusion",
        "breast",
        "cardiology",
        "oncology",
        "neurology",
        "urology",
        "dermatology",
        "nephrology",
        "pulmonary",
        "pulmonology",
        "gastroenterology",
        "gi",
        "endocrine",
        "endocrinology",
        "allergy",
        "asthma",
        "headache",
        "epilepsy",
        "movement",
        "disorders",
        "spine",
        "hand",
        "eye",
        "travel",
        "hepatology",
        "liver",
        "kidney",
        "renal",
        "dialysis",
        "sports",
        "medicine",
        "orthopedic",
        "orthopaedic",
        "surgical",
        "surgery",
        "surgery's",
        "medical",
        "internal",
        "family",
        "primary",
        "care",
        "urgent",
        "outpatient",
        "women's",
        "men's",
        "children's",
        "pediatric",
        "geriatric",
        "psychiatry",
        "psychiatric",
        "behavioral",
        "health",
        "mental",
        "weight",
        "management",
        "smoking",
        "cessation",
        "hiv",
        "id",
        "infectious",
        "disease",
        "vascular",
        "vein",
        "stroke",
        "cancer",
        "social",
        "work",
        "palliative",
        "physical",
        "therapy",
        "occupational",
        "speech",
        "emergency",
        "department",
        "icu",
        "general",
        "the",
        "a",
        "our",
        "their",
        "your",
        "this",
        "same",
    ]
)
_HOSP_CUE_WORDS = frozenset(
    [
        "hospital",
        "hospitals",
        "medical",
        "center",
        "centre",
        "clinic",
        "clinics",
        "health",
        "infirmary",
        "system",
        "healthcare",
        "care",
        "group",
        "institute",
    ]
)


def not_department(value: str) -> bool:
    """False for a facility name made only of department words ("Heart Failure Clinic")."""
    words = [w.strip(".,").lower() for w in value.split()]
    named = [w for w in words if w not in _HOSP_CUE_WORDS]
    return any(w not in _DEPARTMENT_WORDS for w in named)


register_recognizer(
    PatternRecognizer(
        "hospital_en",
        "HOSPITAL",
        ("en",),
        0.8,
        validate=not_department,
        flags=CS,
        pattern=rf"\b(?:(?:{_CAP}|St\.)\s+){{1,4}}{_HOSP_EN}\b|\b{_HOSP_EN}\s+of\s+{_CAP}(?:\s+{_CAP}){{0,3}}",
    )
)
register_recognizer(
    PatternRecognizer(
        "hospital_es",
        "HOSPITAL",
        ("es",),
        0.8,
        flags=CS,
        pattern=rf"\b(?:Hospital|Clínica|Complejo Hospitalario|Centro de Salud|Sanatorio|Policlínica|Fundación)"
        rf"(?:\s+(?:Universitario|General|Clínico|Materno-Infantil|Infantil))?(?:\s+(?:{_CONN}\s+)*{_CAP}){{1,4}}",
    )
)
register_recognizer(
    PatternRecognizer(
        "titled_name",
        "NAME",
        score=0.8,
        group=1,
        flags=CS,
        pattern=rf"\b(?:Dr|Dra|Drs|Mr|Mrs|Ms|Miss|Sr|Sra|Srta|Prof|Doctor|Doctora|Don|Doña|Dña)\.?\s+"
        rf"({_CAP}(?:\s+(?:de\s+la\s+|de\s+|del\s+)?{_CAP}){{0,3}})",
    )
)
