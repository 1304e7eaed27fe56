"""Value patterns: does a cell look like an e-mail, a phone number, a national ID, a name?

Each pattern tests a Series of non-missing cell texts and returns one boolean per cell. Checksums
(Luhn, IBAN mod 97, DNI letter, NIR key) keep random numbers from passing as IDs. Strong patterns
can flag a column on their own; weak ones (five-digit numbers as ZIP codes, plain ten-digit
numbers as phones, numbers in the range of a latitude) only add evidence to a name or label.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from hidekit.io.windows import plan_windows
from hidekit.scan.lexicon import fold, person_names, street_words

# A cell longer than this is free text, not one value: value patterns (e-mail, phone, ID, name,
# address, date) are not tried on it, and the free-text search reads it in windows of this size.
LONG_CELL_CHARS = 10_000
LONG_CELL_MARGIN = 1_000  # longer than any e-mail, phone, ID or IP address searched for


@dataclass(frozen=True)
class ValuePattern:
    key: str
    type_key: str
    strong: bool
    description: str
    test: Callable[[pd.Series], np.ndarray]
    text_only: bool = True  # False: also tried on numeric columns


def _full(regex: str, flags: int = 0) -> Callable[[pd.Series], np.ndarray]:
    rx = re.compile(regex, flags)
    return lambda s: s.str.fullmatch(rx).fillna(False).to_numpy(dtype=bool)


def _digits(s: pd.Series) -> pd.Series:
    return s.str.replace(r"\D", "", regex=True)


def _each(s: pd.Series, check: Callable[[str], bool], mask: np.ndarray) -> np.ndarray:
    """Run a Python checksum only on cells the regex already accepted."""
    out = mask.copy()
    for i in np.flatnonzero(mask):
        out[i] = check(s.iat[i])
    return out


def _luhn(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


EMAIL = _full(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
URL = _full(r"(https?://|ftp://|www\.)\S+", re.IGNORECASE)


def ip_address(s: pd.Series) -> np.ndarray:
    # two colons before any dot; each colon is the first one left (no nested stars: linear time)
    mask = _full(r"(\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]*:[0-9A-Fa-f]*:[0-9A-Fa-f:.]*")(s)

    def valid(v: str) -> bool:
        try:
            ipaddress.ip_address(v)
            return True
        except ValueError:
            return False

    return _each(s, valid, mask)


def us_ssn(s: pd.Series) -> np.ndarray:
    mask = _full(r"\d{3}-\d{2}-\d{4}")(s)

    def valid(v: str) -> bool:
        area, group, serial = v.split("-")
        return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"

    return _each(s, valid, mask)


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def es_dni_nie(s: pd.Series) -> np.ndarray:
    t = s.str.upper().str.replace(r"[\s-]", "", regex=True)
    mask = _full(r"[XYZ]?\d{7,8}[A-Z]")(t)

    def valid(v: str) -> bool:
        body = v[:-1]
        if body[0] in "XYZ":
            body = str("XYZ".index(body[0])) + body[1:]
        return len(body) == 8 and _DNI_LETTERS[int(body) % 23] == v[-1]

    return _each(t, valid, mask)


def fr_nir(s: pd.Series) -> np.ndarray:
    t = s.str.upper().str.replace(r"\s", "", regex=True)
    mask = _full(r"[12]\d{4}(\d{2}|2A|2B)\d{8}")(t)

    def valid(v: str) -> bool:
        body = v[:13].replace("2A", "19").replace("2B", "18")
        return 97 - int(body) % 97 == int(v[13:])

    return _each(t, valid, mask)


UK_NINO = _full(r"[A-CEGHJ-PR-TW-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]", re.IGNORECASE)
MX_CURP = _full(r"[A-Z][AEIOUX][A-Z]{2}\d{6}[HM][A-Z]{5}[A-Z0-9]\d", re.IGNORECASE)


def national_id(s: pd.Series) -> np.ndarray:
    return us_ssn(s) | es_dni_nie(s) | fr_nir(s) | UK_NINO(s) | MX_CURP(s)


def phone_formatted(s: pd.Series) -> np.ndarray:
    """+33 6 12 34 56 78, (555) 123-4567, 06.12.34.56.78: digits in groups, 10-15 of them."""
    mask = _full(r"\+?\d{0,3}[\s.-]?(\(\d{1,4}\)|\d{1,4})([\s.-]?\d{2,4}){2,5}")(s)
    has_sep = s.str.contains(r"[\s.()+-]", regex=True).fillna(False).to_numpy(dtype=bool)
    n = _digits(s).str.len().to_numpy()
    return mask & has_sep & (n >= 10) & (n <= 15)


def phone_digits(s: pd.Series) -> np.ndarray:
    return _full(r"\+?\d{10,11}")(s)


def payment_card(s: pd.Series) -> np.ndarray:
    mask = _full(r"\d{4}([\s-]?\d{4}){2}[\s-]?\d{1,7}")(s)
    n = _digits(s).str.len().to_numpy()
    return _each(s, _luhn, mask & (n >= 13) & (n <= 19))


def iban(s: pd.Series) -> np.ndarray:
    t = s.str.upper().str.replace(r"\s", "", regex=True)
    mask = _full(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}")(t)

    def valid(v: str) -> bool:
        moved = v[4:] + v[:4]
        return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1

    return _each(t, valid, mask)


def bank_number(s: pd.Series) -> np.ndarray:
    return payment_card(s) | iban(s)


# US Medicare Beneficiary Identifier; Spanish social security number (mod-97 check).
_MBI = _full(
    r"\d[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?[AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y\d]\d-?"
    r"[AC-HJKMNP-RT-Y]{2}\d{2}",
    re.IGNORECASE,
)


def insurance_number(s: pd.Series) -> np.ndarray:
    mask = _full(r"\d{2}[/ -]\d{8}[/ -]\d{2}")(s)

    def valid(v: str) -> bool:
        d = re.sub(r"\D", "", v)
        return int(d[:10]) % 97 == int(d[10:])

    return _MBI(s) | _each(s, valid, mask)


def street_address(s: pd.Series) -> np.ndarray:
    """A house number and a street type: '4 Bayport Rd.', 'Calle Mayor 5', '12 rue de la Paix'."""
    mask = s.str.contains(r"\d", regex=True).fillna(False).to_numpy(dtype=bool)
    mask &= s.str.contains(r"[^\W\d_]{2,}", regex=True).fillna(False).to_numpy(dtype=bool)
    words = street_words()

    def has_street_word(v: str) -> bool:
        tokens = [fold(t).strip(".,#/") for t in re.split(r"[\s,]+", v)]
        return len(tokens) >= 2 and any(t in words for t in tokens)

    return _each(s, has_street_word, mask)


_NAME_TOKEN = re.compile(r"[^\W\d_]+(?:['’.-][^\W\d_]*)*")
_PARTICLES = {
    "de",
    "del",
    "la",
    "las",
    "los",
    "le",
    "van",
    "von",
    "der",
    "da",
    "di",
    "du",
    "y",
    "e",
    "bin",
    "ibn",
    "st",
    "mc",
    "mac",
}


def _name_shape(v: str) -> list[str] | None:
    tokens = v.split()
    if not tokens or not all(_NAME_TOKEN.fullmatch(t) for t in tokens):
        return None
    words = [t for t in tokens if fold(t) not in _PARTICLES]
    if not words:
        return None
    # Names are written consistently: Capitalised, UPPER or lower; "Never married" is not a name.
    if not (v.isupper() or v.islower() or all(w[0].isupper() for w in words)):
        return None
    return words


def full_name(s: pd.Series) -> np.ndarray:
    """Two to five name-shaped words, at least one of them a known first or family name."""
    first, last = person_names()
    out = np.zeros(len(s), dtype=bool)
    for i, v in enumerate(s.tolist()):
        words = _name_shape(v)
        if words is None or not 2 <= len(words) <= 5:
            continue
        parts = [fold(p) for w in words for p in re.split(r"[-’']", w) if p]
        out[i] = any(p in first or p in last for p in parts)
    return out


def first_name(s: pd.Series) -> np.ndarray:
    first, _ = person_names()
    out = np.zeros(len(s), dtype=bool)
    for i, v in enumerate(s.tolist()):
        words = _name_shape(v)
        out[i] = words is not None and len(words) == 1 and fold(words[0]) in first
    return out


_GENDER_WORDS = {
    "male",
    "female",
    "man",
    "woman",
    "men",
    "women",
    "boy",
    "girl",
    "hombre",
    "mujer",
    "masculino",
    "femenino",
    "varon",
    "homme",
    "femme",
    "masculin",
    "feminin",
    "non binary",
    "nonbinary",
    "other",
}


def gender_words(s: pd.Series) -> np.ndarray:
    return s.map(lambda v: fold(v).strip() in _GENDER_WORDS).to_numpy(dtype=bool)


GENDER_CODES = _full(r"[MFHmfh]")


def gps_pair(s: pd.Series) -> np.ndarray:
    m = s.str.extract(r"^\(?\s*([-+]?\d{1,2}\.\d{3,})\s*[,; ]\s*([-+]?\d{1,3}\.\d{3,})\s*\)?$")
    lat = pd.to_numeric(m[0], errors="coerce").to_numpy(dtype=float)
    lon = pd.to_numeric(m[1], errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        return (np.abs(lat) <= 90) & (np.abs(lon) <= 180)


def coordinate(s: pd.Series) -> np.ndarray:
    """A number within ±180 written with four decimals or more, as GPS readings are."""
    mask = _full(r"[-+]?\d{1,3}\.\d{4,}")(s)
    val = pd.to_numeric(s.where(mask), errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        return mask & (np.abs(val) <= 180)


US_ZIP = _full(r"\d{5}(-\d{4})?")
CA_UK_POSTCODE = _full(r"[A-Z]\d[A-Z]\s?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}")


# --- dates -------------------------------------------------------------------------------------

_DATE_FORMATS = [
    (r"\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?", "ISO8601"),
    (r"\d{4}/\d{1,2}/\d{1,2}", "%Y/%m/%d"),
    (r"\d{8}", "%Y%m%d"),
    (r"\d{1,2}/\d{1,2}/\d{4}", None),  # day/month or month/day: try both
    (r"\d{1,2}[.-]\d{1,2}[.-]\d{4}", None),
]


def parse_dates(s: pd.Series) -> pd.Series:
    """Cells read as dates (NaT elsewhere); the format that parses most cells wins per shape."""
    result = pd.Series(pd.NaT, index=s.index, dtype="datetime64[ns]")
    for regex, fmt in _DATE_FORMATS:
        mask = s.str.fullmatch(regex).fillna(False)
        if not mask.any():
            continue
        part = s[mask]
        if fmt is None:
            norm = part.str.replace(r"[.-]", "/", regex=True)
            a = pd.to_datetime(norm, format="%d/%m/%Y", errors="coerce")
            b = pd.to_datetime(norm, format="%m/%d/%Y", errors="coerce")
            parsed = a if a.notna().sum() >= b.notna().sum() else b
        else:
            parsed = pd.to_datetime(part, format=fmt, errors="coerce")
        result[mask] = parsed
    return result


def looks_like_birth_dates(dates: pd.Series, today: date | None = None) -> bool:
    """Dates spread over decades and all in the past read as birth dates, not visit dates."""
    d = dates.dropna()
    if d.empty:
        return False
    today = pd.Timestamp(today or date.today())
    years = d.dt.year
    return years.max() - years.min() >= 15 and (d <= today).mean() >= 0.99 and years.min() >= 1880


PATTERNS: list[ValuePattern] = [
    ValuePattern("email", "email", True, "e-mail address", EMAIL),
    ValuePattern("url", "web_address", True, "web address (URL)", URL),
    ValuePattern("ip", "ip_address", True, "IP address", ip_address),
    ValuePattern(
        "national_id",
        "personal_id",
        True,
        "national ID (US SSN, ES DNI/NIE, FR NIR, UK NINO, MX CURP)",
        national_id,
    ),
    ValuePattern("phone", "phone", True, "phone number", phone_formatted),
    ValuePattern("bank", "bank_account", True, "payment card (Luhn) or IBAN", bank_number),
    ValuePattern(
        "insurance", "insurance_number", True, "insurance number (US MBI, ES NSS)", insurance_number
    ),
    ValuePattern("gps_pair", "gps", True, "latitude, longitude pair", gps_pair),
    ValuePattern("postcode", "postal_code", True, "Canadian or UK postcode", CA_UK_POSTCODE),
    ValuePattern("street_address", "street_address", True, "street address", street_address),
    ValuePattern("full_name", "full_name", True, "person name (Faker name lists)", full_name),
    ValuePattern("gender_words", "gender", True, "gender words", gender_words),
    ValuePattern(
        "phone_digits", "phone", False, "10-11 digit number (phone?)", phone_digits, text_only=False
    ),
    ValuePattern(
        "zip", "postal_code", False, "five-digit number (ZIP/postal code?)", US_ZIP, text_only=False
    ),
    ValuePattern(
        "coordinate",
        "gps",
        False,
        "number with 4+ decimals within ±180 (coordinate?)",
        coordinate,
        text_only=False,
    ),
    ValuePattern(
        "gender_codes", "gender", False, "single-letter codes M/F/H (gender?)", GENDER_CODES
    ),
]
# A column of single first names must be nearly all names: colours and words are names too.
FIRST_NAME = ValuePattern(
    "first_name", "full_name", True, "first names (Faker name lists)", first_name
)
FIRST_NAME_SHARE = 0.8

# Searched inside free text (comments, "other, specify"): share of cells containing one.
CONTAINED = [
    (
        "email",
        "email",
        # a match starts where a run of address characters starts: the same cells contain one,
        # and a long run is not tried again from each of its characters (quadratic time)
        re.compile(
            r"(?<![A-Za-z0-9._%+'-])[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
        ),
    ),
    ("url", "web_address", re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)),
    ("national_id", "personal_id", re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")),
    (
        "phone",
        "phone",
        re.compile(
            r"(?<![\d-])(?:\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}"  # (555) 123-4567
            r"|\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}"  # +34 612 345 678
            r"|0\d(?:[\s.-]\d{2}){4})(?![\d-])"
        ),
    ),  # 06 12 34 56 78
    ("ip", "ip_address", re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")),
]


def search_in_windows(
    rx: re.Pattern, text: str, size: int = LONG_CELL_CHARS, margin: int = LONG_CELL_MARGIN
) -> bool:
    """Does ``text`` contain a match of ``rx``? Read in windows (``hidekit.io.windows``), so a
    long cell costs bounded work per window. A match that reaches a window's cut edge is checked
    in the whole text (a lookahead there saw the cut, not the next character); any match shorter
    than ``margin`` is found in the window that owns its start."""
    n = len(text)
    for w in plan_windows(text, size, margin):
        pos = w.own_start
        while (m := rx.search(text, pos, w.end)) is not None and m.start() < w.own_end:
            if m.end() < w.end or w.end == n or rx.match(text, m.start()) is not None:
                return True
            pos = m.start() + 1
    return False


def contains(values: pd.Series, rx: re.Pattern) -> np.ndarray:
    """One boolean per cell: does it contain a match of ``rx``? Long cells are read in windows."""
    long = (values.str.len() > LONG_CELL_CHARS).to_numpy(dtype=bool)
    if not long.any():
        return values.str.contains(rx).fillna(False).to_numpy(dtype=bool)
    out = np.zeros(len(values), dtype=bool)
    short = ~long
    if short.any():
        out[short] = values[short].str.contains(rx).fillna(False).to_numpy(dtype=bool)
    for i in np.flatnonzero(long):
        out[i] = search_in_windows(rx, values.iat[i])
    return out
