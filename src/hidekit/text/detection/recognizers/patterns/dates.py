"""Date recognizers: numeric dates, month names in English and Spanish, years."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.common import CS, _alt
from hidekit.text.detection.recognizers.patterns.validators import (
    month_year_valid,
    numeric_date_valid,
)

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
