"""Indirect identifiers that notes mention and the identifier view holds: how a mention is
read (an age as a number, a date as a date), how a person's value enters Mondrian, and how a
generalized value is written back into the text.

A span whose label is not listed here (names, record numbers, phones, …) is a direct identifier:
the text tool's operator removes it in every mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import pandas as pd

from hidekit.text.dates import parse_date
from hidekit.transforms.generalize import number_text

NUMBER, DATE, TEXT = "number", "date", "text"


@dataclass(frozen=True)
class Attribute:
    """One indirect identifier: its name in the view, its kind and the span labels that carry it."""

    name: str
    kind: str
    labels: tuple[str, ...]


ATTRIBUTES: dict[str, Attribute] = {
    a.name: a
    for a in (
        Attribute("age", NUMBER, ("AGE", "EDAD_SUJETO_ASISTENCIA")),
        Attribute("date", DATE, ("DATE", "FECHAS")),
        Attribute("zip", TEXT, ("ZIP",)),
        Attribute("city", TEXT, ("CITY", "TERRITORIO")),
        Attribute("state", TEXT, ("STATE",)),
        Attribute("hospital", TEXT, ("HOSPITAL", "HOSPITAL_NAME")),
    )
}
BY_LABEL: dict[str, Attribute] = {lab: a for a in ATTRIBUTES.values() for lab in a.labels}

_INT = re.compile(r"\d+")


def normalize(attr: Attribute, value) -> object | None:
    """A mention or a record value in the view's form: int age, ISO date, text; None if unreadable.

    Dates without a year ("June 22") are unreadable here: they cannot be placed in a year range.
    """
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if attr.kind == NUMBER:
        if isinstance(value, (int, float)):
            return int(value)
        m = _INT.search(str(value))
        return int(m.group()) if m else None
    if attr.kind == DATE:
        if isinstance(value, (date, pd.Timestamp)):
            return pd.Timestamp(value).date().isoformat()
        text = str(value).strip()
        parsed = parse_date(text)
        if parsed is not None:
            return parsed.value.isoformat() if parsed.has_year else None
        try:
            return pd.Timestamp(text).date().isoformat()
        except (ValueError, OverflowError):
            return None
    text = " ".join(str(value).split())
    if attr.name == "zip":
        digits = re.sub(r"\D", "", text)
        return (digits[:5] if len(digits) >= 5 else digits.zfill(5)) if digits else None
    return text or None


AGE_TOP = 90  # Safe Harbor: every age over 89 is one category, "90+"


def qi_value(attr: Attribute, value, top: bool = True):
    """What Mondrian generalizes: the age top-coded at 90 unless ``top`` is False (Safe Harbor:
    ages over 89 are one category), the year of a date (HIPAA lets years stay), the text."""
    if value is None:
        return None
    if attr.kind == DATE:
        return int(str(value)[:4])
    if attr.name == "age" and top:
        return min(int(value), AGE_TOP)
    return value


def same(attr: Attribute, a, b) -> bool:
    if attr.kind == TEXT:
        return str(a).casefold() == str(b).casefold()
    return a == b


# Generalized values ---------------------------------------------------------------------------
_RANGE = re.compile(r"^\[\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*\]$")
_OPEN = re.compile(r"^(\d+)\+$")


def top_coded_label(label: str) -> str:
    """A Mondrian age label with the top category written out: ``90`` → ``90+``, ``[85-90]`` →
    ``85+`` (85 or older); other labels unchanged. Released tables never show an age over 89."""
    top = float(AGE_TOP)
    m = _RANGE.match(label)
    if m and float(m.group(2)) >= top:
        return f"{number_text(float(m.group(1)))}+"
    try:
        return f"{AGE_TOP}+" if float(label) >= top else label
    except ValueError:
        return label


def covers(attr: Attribute, label: str, value) -> bool:
    """Does the released (generalized) ``label`` of a class contain the normalized ``value``?"""
    if value is None:
        return False
    if attr.kind == TEXT:
        inner = label[1:-1].split(",") if label.startswith("{") and label.endswith("}") else [label]
        return any(same(attr, x.strip(), value) for x in inner)
    v = float(qi_value(attr, value))
    m = _RANGE.match(label)
    o = _OPEN.match(label)
    if o:
        return v >= float(o.group(1))
    if m:
        return float(m.group(1)) <= v <= float(m.group(2))
    try:
        return float(label) == v
    except ValueError:
        return False


def render(label: str) -> str:
    """A class label as prose: ``[70-79]`` → ``70-79``, ``{Boston,Cambridge}`` → ``Boston or Cambridge``."""
    if _RANGE.match(label):
        return label[1:-1]
    if label.startswith("{") and label.endswith("}"):
        return " or ".join(x.strip() for x in label[1:-1].split(","))
    return label


def fallback(attr: Attribute, value) -> str | None:
    """Safe-Harbor-level generalization of a mention outside the privacy model (a relative's age,
    an earlier date): a ten-year band (90+ above 89), the year; None: hand it to the operator."""
    if value is None:
        return None
    if attr.kind == NUMBER:
        v = int(value)
        return "90+" if v > 89 else f"{v // 10 * 10}-{v // 10 * 10 + 9}"
    if attr.kind == DATE:
        return str(value)[:4]
    return None
