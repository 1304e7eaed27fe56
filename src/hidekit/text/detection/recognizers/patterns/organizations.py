"""Organizations and places of care named after a cue ("works at", "seen at")."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.common import _CAP, _UP, CS, _alt
from hidekit.text.detection.recognizers.patterns.dates import MONTHS_EN
from hidekit.text.detection.recognizers.patterns.hospitals import not_department
from hidekit.text.detection.recognizers.patterns.occupations import job_heads

_ORG_WORD = rf"(?:{_CAP}|[{_UP}]{{2,}}|&)"
# the head words of a unit inside an organization; such a unit named only by common words or a
# specialty ("Department of Medicine", "Emergency Department", "Customer Services", "School of
# Physics") points to no one: the organization it belongs to is the identifier
_UNIT_HEADS = frozenset("department departments services service division school unit".split())  # noqa: SIM905
_UNIT_GLUE = frozenset("of for and & the".split())  # noqa: SIM905
_SPECIALTY_ENDS = (
    "ology",
    "ological",
    "iatry",
    "iatrics",
    "ics",
    "therapy",
    "graphy",
    "medicine",
    "surgery",
)


def generic_unit(value: str) -> bool:
    """True for a unit named by its head word and common or specialty words alone: "Department
    of Cardiology", "Accident & Emergency Department", "HR Shared Services" (an acronym of two or
    three letters counts as common); not "Baylor Services", "School of Nursing Sciences Nairobi"."""
    from hidekit.text.detection.recognizers.gazetteers import word_bands

    words = [w.strip(".,") for w in value.split()]
    folded = [w.casefold() for w in words]
    if not words or not any(w in _UNIT_HEADS for w in folded):
        return False
    bands = word_bands()
    for w, f in zip(words, folded, strict=True):
        if f in _UNIT_HEADS or f in _UNIT_GLUE or f.endswith(_SPECIALTY_ENDS):
            continue
        if bands.get(f, 0) < 4 and not (w.isupper() and len(w) <= 3):
            return False
    return True


register_recognizer(
    PatternRecognizer(
        "organization_en",
        "ORGANIZATION",
        ("en",),
        0.7,
        validate=lambda v: not generic_unit(v),
        flags=CS,
        pattern=rf"\b(?:{_ORG_WORD}[ \t]+(?:(?:{_ORG_WORD}|of|and|the)[ \t]+){{0,4}}"
        r"(?:Inc|LLC|Ltd|Corp|Corporation|Company|Co|Group|PLC|Partners|Industries|Foundation|Bank"
        r"|University|College|High School|Middle School|Elementary School|School|Academy|Church"
        r"|Department|Airlines|Motors|Systems|Technologies|Services|Store|Restaurant|Factory|Farm)\b\.?"
        rf"|\b(?:University|College|School|Academy|Bank|Church|Department) of[ \t]+{_CAP}(?:[ \t]+{_CAP}){{0,3}})",
    )
)
register_recognizer(
    PatternRecognizer(
        "employer_context_en",
        "ORGANIZATION",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        pattern=rf"\b(?:[Ww]orks?|[Ww]orked|[Ww]orking|[Ee]mployed|[Ee]mployee|[Jj]ob|[Ee]mployer:?|[Ss]tudent)"
        rf"[ \t]+(?:(?:at|for|by|with|of)[ \t]+)?(?:the[ \t]+)?"
        rf"({_ORG_WORD}(?:[ \t]+(?:(?:of|and|the)[ \t]+)?{_ORG_WORD}){{0,5}})",
    )
)

register_recognizer(
    PatternRecognizer(
        "profession_phrase_en",
        "PROFESSION",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        # "is a retired postal carrier", "was a bookkeeper for", "as a roofer with": an article,
        # then up to two lower-case words ending in an occupation head noun
        pattern=r"\b(?:[Ii]s|[Ww]as|[Aa]s|[Bb]een|[Bb]e|[Bb]ecame|[Ff]ormer|[Rr]etired)[ \t]+an?[ \t]+"
        r"(?:(?:retired|former|part-time|full-time|self-employed|semi-retired|unemployed)[ \t]+)?"
        rf"((?:[a-z][a-z'-]*[ \t]+){{0,2}}(?:{_alt(job_heads())}))s?\b",
    )
)
register_recognizer(
    PatternRecognizer(
        "year_context_en",
        "DATE",
        ("en",),
        0.6,
        group=1,
        # a year after a preposition of time: "in 2019", "since 1999", "from 2015 to 2018"
        pattern=r"\b(?:[Ii]n|[Ss]ince|[Ff]rom|[Uu]ntil|[Tt]ill|[Bb]y|[Dd]uring|[Ss]ummer|[Ww]inter"
        r"|[Ss]pring|[Ff]all|[Aa]utumn|[Ee]arly|[Mm]id|[Ll]ate|[Aa]round|[Cc]irca|to|and)[ \t]+((?:19[3-9]|20[0-4])\d)"
        r"(?![\w/-]|\.\d|\s*(?:mg|mcg|g|mL|ml|units?|IU|cc|kcal|cal|steps)\b)",
    )
)
_NOT_PLACE = (  # capitalized words after "seen at", "transferred to" that are not places of care
    r"(?:Dr|Drs|Mr|Mrs|Ms|Miss|Prof|IV|IM|PO|ICU|CCU|NICU|PICU|OR|PACU|ED|ER|Day|Home|Clinic"
    r"|Medical|Surgical|Physical|Occupational|Internal|Pulmonology|Orthopa?edics|Oncology|Cardiology"
    r"|Neurology|Nephrology|Urology|Dermatology|Psychiatry|Gastroenterology|Endocrinology"
    r"|Rheumatology|Hematology|Radiology|Pediatrics|Obstetrics|Gynecology|Surgery|Rehab"
    r"|Rehabilitation|Hospice|Emergency|Urgent|Labor|Ward|Unit|Room|Bed"
    rf"|{_alt(MONTHS_EN[:12])}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)\b"
)
register_recognizer(
    PatternRecognizer(
        "care_place_context_en",
        "HOSPITAL",
        ("en",),
        0.7,
        validate=not_department,
        group=1,
        flags=CS,
        # a capitalized name after a verb of care and a preposition: "treated at Moffitt",
        # "transferred from St. Vincent's", "home hospice with Compassus", "delivered at Mount Auburn"
        pattern=r"(?:(?i:\b(?:treated|seen|admitted|transferred|delivered|born|done|performed|imaging"
        r"|scans?|biopsy|surgery|hospitali[sz]ed|discharged|referred|followed|dialysis|infusions?"
        r"|appointment|stay|stayed)[ \t]+(?:(?:up|back|home|again|there|here|recently|previously)[ \t]+)?"
        r"(?:at|to|from|through))"
        r"|(?i:\b(?:hospice|home health|home care|rehab|rehabilitation|physio(?:therapy)?|therapy"
        r"|nursing|PT|OT|dental home)[ \t]+(?:at|with|through|from)))[ \t]+(?:the[ \t]+)?"
        rf"(?!{_NOT_PLACE})((?:St\.|Saint|Mount|Mt\.|{_CAP})(?:[ \t]+(?:of[ \t]+|at[ \t]+|and[ \t]+)?"
        rf"(?:{_CAP}|[{_UP}]{{2,6}})){{0,4}})",
    )
)
