"""English: wider coverage. Formats that text written by people (rather than hidekit's generator)
often uses; they feed the CRF as features, and a model lets one report on its own only when
training shows it precise."""

from __future__ import annotations

import re

from faker.providers.address import en_US as _addr_en

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.addresses import _SUFFIX_EN
from hidekit.text.detection.recognizers.patterns.common import _CAP, _UP, CS, _alt
from hidekit.text.detection.recognizers.patterns.dates import _ORD, _Y, MONTHS_EN
from hidekit.text.detection.recognizers.patterns.hospitals import not_department
from hidekit.text.detection.recognizers.patterns.validators import age_valid, numeric_date_valid

# ---------------------------------------------------------------- English: wider coverage
# Formats that text written by people (rather than hidekit's generator) often uses. They feed
# the CRF as features; a model lets one report on its own only when training shows it precise.
_MEN_ANY = (  # full names take no dot ("March."), abbreviations may ("Mar.")
    rf"(?:(?:{_alt(MONTHS_EN[:12] + [m.upper() for m in MONTHS_EN[:12]])})"
    rf"|(?:{_alt(MONTHS_EN[12:] + [m.upper() for m in MONTHS_EN[12:]])})\.?)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"
_WEEKDAY = r"(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs?)?|Fri|Sat(?:ur)?|Sun)(?:day)?"
for rec in [
    PatternRecognizer(
        "date_text_en_wide",
        "DATE",
        ("en",),
        0.85,
        flags=CS,
        pattern=rf"\b(?:{_WEEKDAY},?\s+)?(?:{_MEN_ANY}\s+{_DAY}{_ORD}(?:,?\s+{_Y})?"
        rf"|{_DAY}{_ORD}\s+(?:of\s+)?{_MEN_ANY}(?:,?\s+{_Y})?|{_MEN_ANY},?\s+(?:of\s+)?{_Y}"
        rf"|{_DAY}-{_MEN_ANY}-(?:{_Y}|\d\d))(?![\w-])",
    ),
    PatternRecognizer(
        "date_ymd_slash",
        "DATE",
        ("en",),
        score=0.9,
        validate=numeric_date_valid,
        pattern=r"(?<![\w/.-])\d{4}[/.]\d{1,2}[/.]\d{1,2}(?![\w/-]|\.\d)",
    ),
    PatternRecognizer(
        "date_month_day_context",
        "DATE",
        ("en",),
        0.6,
        group=1,
        pattern=r"\b(?:on|since|from|until|till|through|dated?|by|of|before|after|DOS|DOB|seen)"
        r"\s*:?\s+((?:0?[1-9]|1[0-2])/(?:[12]\d|3[01]|0?[1-9]))(?![\w/.-])",
    ),
    PatternRecognizer(
        "holiday_en",
        "DATE",
        ("en",),
        0.6,
        flags=CS,
        pattern=r"\b(?:Christmas(?:\s+Eve)?|Thanksgiving|New Year's(?:\s+(?:Eve|Day))?|Easter"
        r"|Halloween|Independence Day|Memorial Day|Labor Day|Veterans Day)\b",
    ),
]:
    register_recognizer(rec)

_NUM_WORD = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four"
    r"|five|six|seven|eight|nine))?|one hundred(?:\s+and\s+\w+)?|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|ten|one|two|three|four|five|six|seven|eight|nine)"
)
for rec in [
    PatternRecognizer(
        "age_en_wide",
        "AGE",
        ("en",),
        0.85,
        group="n",
        validate=lambda v: not v[:1].isdigit() or age_valid(v),
        pattern=rf"\b(?P<n>\d{{1,3}}|{_NUM_WORD})(?:[\s-]+(?:years?|yrs?|y)[\s-]+(?:of[\s-]+age|old)"
        r"|[\s-]*(?:yo|y/o|y\.o\.?|yrs? old|year-old|years-old)(?![\w/]))",
    ),
    PatternRecognizer(
        "age_en_decade",
        "AGE",
        ("en",),
        0.7,
        group=1,
        pattern=r"\b(?:in\s+(?:his|her|their)\s+(?:early\s+|mid\s*-?\s*|late\s+)?)(\d0'?s)\b",
    ),
    PatternRecognizer(
        "age_en_sex",
        "AGE",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        validate=age_valid,
        # "65 M", "a 45F", "72 yo F"; not after ":" ("Temp: 101 F" is a temperature)
        pattern=r"(?:^|(?<=\n)|(?<=\ba\s)|(?<=\bis\s))(\d{1,3})\s?(?:M|F|yo\s?[MF])\b(?!\s*°)",
    ),
]:
    register_recognizer(rec)

register_recognizer(
    PatternRecognizer(
        "phone_context",
        "PHONE",
        ("en",),
        0.8,
        group=1,
        validate=lambda v: 4 <= len(re.sub(r"\D", "", v)) <= 15,
        pattern=r"\b(?:phone|tel|telephone|call|called|pager|page|beeper|cell|mobile|contact|ext"
        r"|extension|reached at)\.?\s*(?:number|no\.?|#)?\s*[:#]?\s*(\+?\(?\d[\d().\s-]{2,16}\d)(?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "id_context",
        "ID",
        ("en",),
        score=0.75,
        pattern=r"(?<![\w-])(?=[\w-]*\d)[A-Z0-9][A-Z0-9-]{3,19}[A-Z0-9](?![\w-])",
        context=(
            "id",
            "identifier",
            "no",
            "number",
            "license",
            "licence",
            "npi",
            "dea",
            "accession",
            "serial",
            "specimen",
            "case",
            "member",
            "policy",
            "group",
            "plan",
            "certificate",
            "device",
            "#",
        ),
        window=14,
    )
)
register_recognizer(
    PatternRecognizer(
        "long_number",
        "ID",
        ("en",),
        score=0.6,
        pattern=r"(?<![\w.,/-])\d{6,}(?![\w.,/-]|[.,]\d)",
    )
)
register_recognizer(
    PatternRecognizer(
        "code_alnum",
        "ID",
        ("en",),
        score=0.5,
        flags=CS,
        pattern=r"(?<![\w-])(?=(?:[A-Z-]*\d){3})(?=[A-Z0-9-]*[A-Z])[A-Z0-9](?:[A-Z0-9-]{4,18})[0-9](?![\w-])",
    )
)

_UPW = rf"[{_UP}][{_UP}'’-]+"  # an all-capitals word
_NAME_PART = rf"(?:{_CAP}|[{_UP}]\.)"
register_recognizer(
    PatternRecognizer(
        "name_degree",
        "NAME",
        ("en",),
        0.8,
        group=1,
        flags=CS,
        pattern=rf"\b((?:{_CAP}|{_UPW})(?:[ \t]+(?:{_NAME_PART}|{_UPW})){{0,3}}),?[ \t]+"
        r"(?:MD|M\.D\.|DO|D\.O\.|RN|NP|PA-C|PA|PhD|Ph\.D\.|FACS|FACP|MBBS|DDS|CNM|CRNA|LPN|APRN)(?![\w])",
    )
)
register_recognizer(
    PatternRecognizer(
        "name_field",
        "NAME",
        ("en",),
        0.8,
        group=1,
        flags=CS,
        pattern=rf"(?:\b(?:Patient|Pt|Name|Patient Name|Attending|Physician|Provider|PCP|Surgeon|Resident"
        rf"|Nurse|Dictated by|Signed|Signed by|Referring|Contact|Emergency contact|Guardian|Spouse"
        rf"|Caller|Doula|Midwife|RN|LPN|CNA|Interpreter|Translator|Chaplain|Therapist|Pharmacist"
        rf"|Case manager|Social worker|Scribe|Witness|Informant|Accompanied by|Proxy|POA)\s*:\s*)"
        rf"(?!(?:Dr|Drs|Mr|Mrs|Ms|Miss|Prof)\b)((?:{_CAP}|{_UPW})(?:,?[ \t]+(?:{_NAME_PART}|{_UPW})){{0,3}})",
    )
)
register_recognizer(
    PatternRecognizer(
        "name_relative",
        "NAME",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        pattern=rf"\b(?:[Ww]ife|[Hh]usband|[Ss]on|[Dd]aughter|[Mm]other|[Ff]ather|[Ss]ister|[Bb]rother"
        rf"|[Pp]artner|[Ff]riend|[Nn]iece|[Nn]ephew|patient|[Gg]randson|[Gg]randdaughter|[Aa]unt|[Uu]ncle"
        rf"|[Cc]ousin|[Ff]iancée?|[Gg]irlfriend|[Bb]oyfriend|[Cc]aregiver|[Nn]eighbou?r|[Pp]astor|[Cc]haplain)"
        rf"\s*,?[ \t]+({_CAP}(?:[ \t]+{_CAP})?)",
    )
)
register_recognizer(
    PatternRecognizer(
        "titled_name_wide",
        "NAME",
        ("en",),
        0.8,
        group=1,
        flags=CS,
        pattern=rf"\b(?:Dr|Drs|Mr|Mrs|Ms|Miss|Mx|Prof|Doctor|Nurse|Sister|Father|Rev)\.?\s+"
        rf"((?:{_NAME_PART}|{_UPW})(?:[ \t]+(?:{_NAME_PART}|{_UPW})){{0,3}})",
    )
)

_STATE_ABBR = _alt(_addr_en.Provider.states_abbr)
register_recognizer(
    PatternRecognizer(
        "zip_line_end",
        "ZIP",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        pattern=r"(?<=[A-Za-z.])(?:,?[ \t]+)(\d{5}(?:-\d{4})?)(?=[ \t]*(?:\n|$))",
    )
)
register_recognizer(
    PatternRecognizer(
        "city_before_state",
        "CITY",
        ("en",),
        0.8,
        group=1,
        flags=CS,
        # "Baltimore, MD 21201" but not "John Smith, MD": abbreviations that are also degrees or
        # words (MD, DO, PA, OR, ME, IN, OK, HI) count only before a ZIP code
        pattern=rf"\b((?:{_CAP}|St\.)(?:\s+{_CAP}){{0,3}}),\s+(?:(?!(?:MD|DO|PA|OR|ME|IN|OK|HI)\b)"
        rf"(?:{_STATE_ABBR})\b|(?:{_STATE_ABBR})\s+\d{{5}}|{_alt(_addr_en.Provider.states)}\b)",
    )
)
register_recognizer(
    PatternRecognizer(
        "state_after_city",
        "STATE",
        ("en",),
        0.8,
        group=1,
        flags=CS,
        pattern=rf"\b{_CAP},\s+({_STATE_ABBR})(?=\s+\d{{5}}\b|[\s.,;]*$|[\s.,;]*\n)",
    )
)
register_recognizer(
    PatternRecognizer(
        "street_en_wide",
        "ADDRESS",
        ("en",),
        0.8,
        pattern=rf"\b(?:\d{{1,6}}[A-Za-z]?(?:\s+[NSEW]\.?)?(?:\s+(?:{_CAP}|{_UPW}|\d+(?:st|nd|rd|th)|[A-Z]\.?)){{1,4}}"
        rf"\s+(?:{_alt(_SUFFIX_EN)}|{_alt(s.upper() for s in _SUFFIX_EN)})\b\.?"
        r"|P\.?\s?O\.?\s+Box\s+\d+)",
        flags=CS,
    )
)
_HOSP_EN_WIDE = (
    r"(?:Hospital|Hospitals|Medical Center|Medical Centre|Clinic|Clinics|Health Center|Health Centre"
    r"|Infirmary|Health System|Healthcare|Health Care|Medical Group|Regional Medical Center|Memorial"
    r"|Cancer Center|Cancer Institute|Surgery Center|Surgical Center|Rehabilitation Center|Rehab"
    r"|Nursing Home|Nursing Facility|Care Center|Urgent Care|Hospice|Sanatorium|Sanitarium|Institute"
    r"|Children's|Pediatrics|Associates|Practice|Family Medicine|Primary Care)"
)
register_recognizer(
    PatternRecognizer(
        "hospital_en_wide",
        "HOSPITAL",
        ("en",),
        0.75,
        validate=not_department,
        flags=CS,
        pattern=rf"\b(?:(?:{_CAP}|St\.|Saint|[A-Z]{{2,6}})\s+){{1,5}}{_HOSP_EN_WIDE}(?:\s+(?:Hospital|Center|Centre))?\b"
        rf"|\b(?:University|General|Memorial|Community|County|Regional)\s+Hospital(?:\s+of\s+{_CAP}(?:\s+{_CAP}){{0,3}})?",
    )
)
