"""Checksums and plausibility checks that keep a pattern's match only when the value could be
real (Spanish DNI/NIE and NASS check digits, US SSN ranges, IP addresses, calendar dates, ages)."""

from __future__ import annotations

import ipaddress
import re

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
