"""Pattern recognizers: regular expressions with checksums and context words, English and Spanish.

Labels are generic (DATE, AGE, PHONE, FAX, EMAIL, URL, IP, SSN, NATIONAL_ID, SOCIAL_SECURITY, MRN,
ACCOUNT, ZIP, ADDRESS, HOSPITAL, NAME); a trained model maps them to its corpus labels.
Word lists that exist in Faker's locale data (street types, states) are taken from there.
"""

from __future__ import annotations

import ipaddress
import re

from faker.providers.address import en_US as _addr_en
from faker.providers.address import es_ES as _addr_es

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer

CS = 0  # case-sensitive flags
_UP = "A-ZÁÉÍÓÚÑÜ"
_LO = "a-záéíóúñü"
_CAP = rf"[{_UP}][{_LO}{_UP}'’.-]*[{_LO}]"  # a capitalized word (at least two letters)


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


# ---------------------------------------------------------------- checksums and validators
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_valid(value: str) -> bool:
    """Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter): letter = number mod 23."""
    v = re.sub(r"[\s.-]", "", value).upper()
    if re.fullmatch(r"[XYZ]\d{7}[A-Z]", v):
        v = str("XYZ".index(v[0])) + v[1:]
    if not re.fullmatch(r"\d{8}[A-Z]", v):
        return False
    return _DNI_LETTERS[int(v[:8]) % 23] == v[8]


def nass_valid(value: str) -> bool:
    """Spanish social-security number (NASS): 2-digit province, 8 digits, 2 control digits (mod 97)."""
    v = re.sub(r"[\s./-]", "", value)
    if not re.fullmatch(r"\d{12}", v):
        return False
    prov, num, ctrl = int(v[:2]), int(v[2:10]), int(v[10:])
    base = num + prov * 10_000_000 if num < 10_000_000 else int(v[:10])
    return base % 97 == ctrl


def ssn_valid(value: str) -> bool:
    """US SSN rules: area not 000, 666 or 900-999; group not 00; serial not 0000."""
    v = re.sub(r"[\s-]", "", value)
    if not re.fullmatch(r"\d{9}", v):
        return False
    area, group, serial = v[:3], v[3:5], v[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def ip_valid(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def numeric_date_valid(value: str) -> bool:
    """d/m/y or m/d/y or y-m-d with plausible parts (one of the first two ≤ 12, both ≤ 31)."""
    parts = [p for p in re.split(r"[/.-]", value) if p]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return False
    if len(parts[0]) == 4:
        y, a, b = parts
    else:
        a, b, y = parts
    a, b = int(a), int(b)
    if len(y) == 4 and not 1800 <= int(y) <= 2199:
        return False
    return 1 <= a <= 31 and 1 <= b <= 31 and min(a, b) <= 12


def month_year_valid(value: str) -> bool:
    m, y = re.split(r"[/.-]", value)
    return 1 <= int(m) <= 12 and 1800 <= int(y) <= 2199


def age_valid(value: str) -> bool:
    m = re.match(r"\d+", value)
    return m is not None and int(m.group()) <= 125


def phone_digits_valid(value: str) -> bool:
    d = re.sub(r"\D", "", value)
    return 9 <= len(d) <= 13


# ---------------------------------------------------------------- dates
MONTHS_EN = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Sept",
    "Oct",
    "Nov",
    "Dec",
]
MONTHS_ES = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "setiembre",
    "octubre",
    "noviembre",
    "diciembre",
    "ene",
    "feb",
    "mar",
    "abr",
    "may",
    "jun",
    "jul",
    "ago",
    "sep",
    "sept",
    "oct",
    "nov",
    "dic",
]
_MEN = rf"(?:{_alt(MONTHS_EN)})\.?"
_MES = rf"(?:{_alt(MONTHS_ES)})\.?"
_ORD = r"(?:st|nd|rd|th)?"
_Y = r"(?:1[89]\d\d|2[01]\d\d)"

for rec in [
    PatternRecognizer(
        "date_numeric",
        "DATE",
        score=0.9,
        validate=numeric_date_valid,
        pattern=r"(?<![\w/.-])(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})|\d{4}-\d{1,2}-\d{1,2})(?![\w/-]|\.\d)",
    ),
    PatternRecognizer(
        "date_month_year_numeric",
        "DATE",
        score=0.6,
        validate=month_year_valid,
        pattern=r"(?<![\w/.-])\d{1,2}[/-]\d{4}(?![\w/-])",
    ),
    PatternRecognizer(
        "date_text_en",
        "DATE",
        ("en",),
        0.9,
        flags=CS,
        pattern=rf"\b(?:{_MEN}\s+\d{{1,2}}{_ORD}(?:,?\s+{_Y})?|\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MEN},?\s+{_Y}|{_MEN},?\s+{_Y})\b",
    ),
    PatternRecognizer(
        "date_text_es",
        "DATE",
        ("es",),
        0.9,
        pattern=rf"\b(?:\d{{1,2}}\s+de\s+{_MES}(?:\s+(?:de|del)\s+{_Y})?|{_MES}\s+(?:(?:de|del)\s+)?{_Y}|\d{{1,2}}[-/\s]{_MES}[-/\s]{_Y})\b",
    ),
    PatternRecognizer("year", "DATE", score=0.4, pattern=rf"(?<![\w/.,-]){_Y}(?![\w/-]|[.,]\d)"),
]:
    register_recognizer(rec)

# ---------------------------------------------------------------- contact and network
register_recognizer(
    PatternRecognizer(
        "email", "EMAIL", score=0.99, pattern=r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"
    )
)
register_recognizer(
    PatternRecognizer(
        "url", "URL", score=0.95, pattern=r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:)\]]"
    )
)
register_recognizer(
    PatternRecognizer(
        "ipv4",
        "IP",
        score=0.95,
        validate=ip_valid,
        pattern=r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)",
    )
)
register_recognizer(
    PatternRecognizer(
        "ipv6",
        "IP",
        score=0.95,
        validate=ip_valid,
        pattern=r"(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}(?![\w:])",
    )
)

_PHONE_US = r"(?<![\w+])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?:\s*(?:x|ext\.?)\s*\d{1,5})?(?!\w)"
_PHONE_ES = r"(?<![\w+])(?:(?:\+|00)34[\s.-]?)?[6789]\d{1,2}(?:[\s.-]?\d{2,3}){2,3}(?!\w)"
_FAX_CONTEXT = ("fax", "facsimile", "telefax", "fax no", "fax number")
register_recognizer(
    PatternRecognizer(
        "fax_us", "FAX", ("en",), 0.9, pattern=_PHONE_US, context=_FAX_CONTEXT, window=25
    )
)
register_recognizer(
    PatternRecognizer(
        "fax_es",
        "FAX",
        ("es",),
        0.9,
        pattern=_PHONE_ES,
        validate=phone_digits_valid,
        context=_FAX_CONTEXT,
        window=25,
    )
)
register_recognizer(PatternRecognizer("phone_us", "PHONE", ("en",), 0.85, pattern=_PHONE_US))
register_recognizer(
    PatternRecognizer(
        "phone_es", "PHONE", ("es",), 0.85, pattern=_PHONE_ES, validate=phone_digits_valid
    )
)

# ---------------------------------------------------------------- national and record identifiers
register_recognizer(
    PatternRecognizer(
        "ssn",
        "SSN",
        ("en",),
        0.9,
        validate=ssn_valid,
        pattern=r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "ssn_context",
        "SSN",
        ("en",),
        0.85,
        validate=ssn_valid,
        pattern=r"(?<![\w-])\d{9}(?![\w-])",
        context=("ssn", "social security", "ss#", "soc sec"),
    )
)
register_recognizer(
    PatternRecognizer(
        "dni_nie",
        "NATIONAL_ID",
        score=0.95,
        validate=dni_valid,
        flags=CS,
        pattern=r"(?<![\w-])(?:\d{8}|[XYZ][\s-]?\d{7})[\s-]?[A-Z](?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "nass",
        "SOCIAL_SECURITY",
        ("es",),
        0.95,
        validate=nass_valid,
        pattern=r"(?<![\w/-])\d{2}[\s/-]?\d{8}[\s/-]?\d{2}(?![\w/-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "nass_context",
        "SOCIAL_SECURITY",
        ("es",),
        0.8,
        pattern=r"(?<![\w/-])\d{2}[\s/-]?\d{7,8}(?:[\s/-]?\d{2})?(?![\w/-])",
        context=("nass", "seguridad social", "afiliación", "n.a.s.s", "naf"),
        window=30,
    )
)

_ID_VALUE = r"([A-Z]{0,4}[-\s]?\d[\dA-Z-]{3,15}\d|\d{4,})"
register_recognizer(
    PatternRecognizer(
        "mrn",
        "MRN",
        score=0.9,
        group=1,
        pattern=r"(?:\bMRN|\bN\.?H\.?C\.?|\bmedical record(?:\s+(?:number|no\.?|#))?|\brecord\s+(?:number|no\.?|#)"
        r"|\bhistoria\s+cl[ií]nica|\bn[º°o]\.?\s+(?:de\s+)?historia|\bchart\s+(?:number|no\.?|#)|\bpatient\s+id)"
        r"\s*(?:n[º°o]\.?|number|#)?\s*[:#.]?\s*" + _ID_VALUE,
    )
)
register_recognizer(
    PatternRecognizer(
        "account",
        "ACCOUNT",
        score=0.85,
        group=1,
        pattern=r"(?:\baccount|\bacct\.?|\bn[º°]?\s*(?:de\s+)?cuenta|\bcuenta|\bbilling|\bpolicy|\bp[óo]liza|\bmember\s+id"
        r"|\binsurance\s+(?:id|number|no\.?)|\btarjeta\s+sanitaria|\bCIP)"
        r"\s*(?:number|no\.?|n[º°]\.?|#)?\s*[:#.]?\s*" + _ID_VALUE,
    )
)

# ---------------------------------------------------------------- ages
register_recognizer(
    PatternRecognizer(
        "age_en",
        "AGE",
        ("en",),
        0.9,
        group="n",
        validate=age_valid,
        pattern=r"\b(?P<n>\d{1,3})(?:[\s-]*(?:years?|yrs?)[\s-]*old|\s*-?\s*(?:y/o|y\.o\.|yo|yr old|year old)(?!\w)"
        r"|[\s-]+(?:year|yr)[\s-]+old)",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_en_aged",
        "AGE",
        ("en",),
        0.85,
        group=1,
        validate=age_valid,
        pattern=r"\b(?:aged|age:?|age of)\s+(\d{1,3})\b",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_es",
        "AGE",
        ("es",),
        0.9,
        validate=age_valid,
        pattern=r"\b\d{1,3}\s*(?:años|a\.|meses|días|semanas)(?=\W|$)",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_es_edad",
        "AGE",
        ("es",),
        0.85,
        group=1,
        validate=age_valid,
        pattern=r"\bedad(?:\s+de)?\s*:?\s*(\d{1,3})\b",
    )
)

# ---------------------------------------------------------------- ZIP and postal codes
_STATES = list(_addr_en.Provider.states) + list(_addr_en.Provider.states_abbr)
register_recognizer(
    PatternRecognizer(
        "zip_us",
        "ZIP",
        ("en",),
        0.9,
        group=1,
        flags=CS,
        pattern=rf"\b(?:{_alt(_STATES)}),?\s+(\d{{5}}(?:-\d{{4}})?)(?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "zip_context",
        "ZIP",
        ("en",),
        0.85,
        group=1,
        pattern=r"\b(?:zip|zip code|postal code)\s*[:#]?\s*(\d{5}(?:-\d{4})?)(?![\w-])",
    )
)
_CP = r"(?:0[1-9]|[1-4]\d|5[0-2])\d{3}"
register_recognizer(
    PatternRecognizer(
        "cp_es",
        "ZIP",
        ("es",),
        0.85,
        group=1,
        pattern=rf"\b(?:C\.?\s?P\.?|c[óo]digo postal|cod\.? postal)\s*[:.]?\s*({_CP})(?!\w)",
    )
)
register_recognizer(
    PatternRecognizer(
        "cp_es_city",
        "ZIP",
        ("es",),
        0.7,
        group=1,
        flags=CS,
        pattern=rf"(?<![\w,.-])({_CP})(?=[\s,-]+[{_UP}][{_LO}])",
    )
)

# ---------------------------------------------------------------- street addresses
_SUFFIX_EN = list(_addr_en.Provider.street_suffixes) + [
    "St",
    "Ave",
    "Rd",
    "Blvd",
    "Ln",
    "Dr",
    "Ct",
    "Pl",
    "Ter",
    "Cir",
    "Pkwy",
    "Hwy",
    "Way",
    "Sq",
]
register_recognizer(
    PatternRecognizer(
        "street_en",
        "ADDRESS",
        ("en",),
        0.85,
        flags=CS,
        pattern=rf"\b\d{{1,6}}(?:\s+[NSEW]\.?)?(?:\s+(?:{_CAP}|\d+(?:st|nd|rd|th))){{1,4}}\s+(?:{_alt(_SUFFIX_EN)})\b\.?"
        r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|#)\.?\s*#?\w+)?",
    )
)
_PREFIX_ES = list(_addr_es.Provider.street_prefixes) + [
    "C/",
    "c/",
    "Avda.",
    "Avda",
    "Av.",
    "Pza.",
    "Pº",
    "Ctra.",
    "Carretera",
    "Travesía",
    "Plaza",
    "calle",
    "avenida",
    "plaza",
    "paseo",
    "Calle",
    "Paseo",
    "Camino",
]
_CONN = r"(?:de|del|la|las|los|el|y|San|Santa)"
register_recognizer(
    PatternRecognizer(
        "street_es",
        "ADDRESS",
        ("es",),
        0.85,
        flags=CS,
        pattern=rf"(?<!\w)(?:{_alt(_PREFIX_ES)})\s*(?:{_CONN}\s+)*(?:{_CAP}|\d+)(?:\s+(?:{_CONN}\s+)*{_CAP}){{0,4}}"
        r"(?:,?\s*(?:n[º°]\s*)?\d+(?:-\d+)?(?:,?\s*\d+[º°ª]\s*[A-Za-z]*)?)?",
    )
)

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


# ---------------------------------------------------------------- occupations and organizations
# Everyday occupations that Faker's job titles (mostly professional and white-collar) lack; the
# generator draws from them too, so notes mention trades, services and farm work.
COMMON_OCCUPATIONS = (
    "roofer",
    "farmer",
    "dairy farmer",
    "rancher",
    "bookkeeper",
    "seamstress",
    "tailor",
    "barista",
    "lifeguard",
    "locksmith",
    "machinist",
    "fisherman",
    "commercial fisherman",
    "carpenter",
    "plumber",
    "electrician",
    "auto mechanic",
    "mechanic",
    "cashier",
    "janitor",
    "custodian",
    "truck driver",
    "long-haul truck driver",
    "bus driver",
    "taxi driver",
    "delivery driver",
    "mail carrier",
    "postal worker",
    "welder",
    "waitress",
    "waiter",
    "server",
    "bartender",
    "chef",
    "line cook",
    "cook",
    "dishwasher",
    "housekeeper",
    "nanny",
    "babysitter",
    "hairdresser",
    "barber",
    "homemaker",
    "stay-at-home mother",
    "salesman",
    "realtor",
    "real estate agent",
    "pastor",
    "minister",
    "logger",
    "coal miner",
    "miner",
    "construction worker",
    "laborer",
    "painter",
    "bricklayer",
    "mason",
    "landscaper",
    "gardener",
    "groundskeeper",
    "forklift operator",
    "warehouse worker",
    "factory worker",
    "assembly line worker",
    "security guard",
    "police officer",
    "firefighter",
    "paramedic",
    "soldier",
    "marine",
    "nursing assistant",
    "home health aide",
    "dental hygienist",
    "pharmacy technician",
    "paralegal",
    "teacher",
    "schoolteacher",
    "kindergarten teacher",
    "substitute teacher",
    "teacher's aide",
    "professor",
    "librarian",
    "accountant",
    "lawyer",
    "social worker",
    "secretary",
    "receptionist",
    "bank teller",
    "store clerk",
    "grocery clerk",
    "stocker",
    "butcher",
    "baker",
    "florist",
    "plumber's apprentice",
    "hvac technician",
    "dog groomer",
    "veterinarian",
    "pilot",
    "flight attendant",
    "sailor",
    "longshoreman",
    "crane operator",
    "welder-fitter",
    "seasonal farmworker",
    "fruit picker",
    "golf caddie",
    "pizza delivery driver",
    "uber driver",
    "student",
    "graduate student",
    "musician",
    "artist",
    "journalist",
)

# occupations as people say them, not as job titles
INFORMAL_OCCUPATIONS = (
    "long-haul trucker",
    "trucker",
    "sparky",
    "chippy",
    "tradie",
    "cop",
    "sous chef",
    "line cook",
    "pharmacy tech",
    "school dinner lady",
    "dinner lady",
    "lollipop lady",
    "line supervisor",
    "orchardist",
    "kiwifruit orchardist",
    "shearer",
    "forklift driver",
    "bus driver",
    "cabbie",
    "barista",
    "bartender",
    "warehouse picker",
    "care worker",
    "carer",
    "hairdresser",
    "nail tech",
    "brickie",
    "labourer",
    "laborer",
    "drywaller",
    "welder",
    "machinist",
    "mechanic",
    "dental nurse",
    "teaching assistant",
    "postie",
    "mail carrier",
    "delivery driver",
    "Uber driver",
    "bouncer",
    "security guard",
    "janitor",
    "cleaner",
    "dishwasher",
    "fisherman",
    "deckhand",
    "miner",
    "oil rig worker",
    "landscaper",
    "roofer",
    "plasterer",
    "farmhand",
    "stockman",
    "nanny",
)


def job_heads() -> list[str]:
    """Occupation head nouns from Faker's job titles ("Engineer, civil" -> "engineer") and from
    COMMON_OCCUPATIONS and INFORMAL_OCCUPATIONS ("truck driver" -> "driver")."""
    from faker.providers.job import en_US as _jobs

    heads = set()
    for job in list(_jobs.Provider.jobs) + list(COMMON_OCCUPATIONS) + list(INFORMAL_OCCUPATIONS):
        head = re.sub(r"\s*\(.*?\)", "", job).split(",")[0].split()[-1].lower()
        if len(head) >= 4 and head.replace("-", "").isalpha():
            heads.add(head)
    return sorted(heads)


register_recognizer(
    PatternRecognizer(
        "profession_context_en",
        "PROFESSION",
        ("en",),
        0.7,
        group=1,
        flags=CS,
        # keywords in any case; the occupation itself: up to three lower-case words
        pattern=r"(?i:\b(?:works?|worked|working|employed|job|occupation|profession|retired|former))"
        r"\s*(?i:as|:)?\s*(?:an?\s+)?([a-z][a-z-]*(?:[ \t]+(?!(?:at|for|in|and|with|since|until|who"
        r"|but|on|from|of|to|when|after|before|until|is|was|and|or)\b)[a-z][a-z-]*){0,2})",
    )
)
_ORG_WORD = rf"(?:{_CAP}|[{_UP}]{{2,}}|&)"
register_recognizer(
    PatternRecognizer(
        "organization_en",
        "ORGANIZATION",
        ("en",),
        0.7,
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

# ---------------------------------------------------------------- Spanish: more date and age forms
_NUM_ES = (
    r"(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince"
    r"|dieciséis|diecisiete|dieciocho|diecinueve|veinte|veinti\w+|treinta|cuarenta|cincuenta|sesenta"
    r"|setenta|ochenta|noventa|cien)(?:\s+y\s+(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve))?"
)
register_recognizer(
    PatternRecognizer(
        "age_es_words",
        "AGE",
        ("es",),
        0.7,
        pattern=rf"\b{_NUM_ES}\s+(?:años|meses|días|semanas)(?=\W|$)",
    )
)
register_recognizer(
    PatternRecognizer(
        "date_month_yy_es",
        "DATE",
        ("es",),
        0.8,
        pattern=rf"\b{_MES}[-/]\d{{2}}(?![\w/-])",
    )
)
