"""Dates as written in text: read in any of the usual formats, shifted, and written again in the
format they came in (so a surrogate date reads like the original).

Formats use moment.js-like tokens: ``YYYY YY MMMM MMM MM M DD D Do``. Every format written
round-trips through ``parse_date``; a few day-first formats are read but never written.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = list(calendar.month_name)[1:]
MONTHS_ABBR = list(calendar.month_abbr)[1:]

# (format, weight when writing). Every format round-trips through parse_date.
DATE_FORMATS: list[tuple[str, float]] = [
    ("M/D/YY", 10),
    ("MM/DD/YYYY", 14),
    ("M/D/YYYY", 10),
    ("MM/DD/YY", 5),
    ("MMMM D, YYYY", 10),
    ("MMM D, YYYY", 6),
    ("YYYY-MM-DD", 8),
    ("D MMM YYYY", 5),
    ("DD-MMM-YYYY", 3),
    ("MMMM D", 4),
    ("MMM D", 2),
    ("M/D", 4),
    ("MMMM YYYY", 3),
    ("MM-DD-YYYY", 3),
    ("D MMMM YYYY", 3),
    ("MMMM Do, YYYY", 2),
    ("MMMM Do", 1),
    ("MM/YYYY", 2),
    ("YYYY", 2),
    ("YYYYMMDD", 1),
    ("MMM. D, YYYY", 1),
]
# Read but never written (day first): only chosen when the month-first reading is impossible.
_PARSE_ONLY = [
    # padded first: "25/12/2020" shifted must stay "04/01/2021", not become "4/1/2021"
    "DD/MM/YYYY",
    "D/M/YYYY",
    "DD/MM/YY",
    "D/M/YY",
    "DD.MM.YYYY",
    "D.M.YYYY",
    "DD.MM.YY",
    "D.M.YY",
    "Do MMMM YYYY",
    "Do MMM YYYY",
    "Do MMMM",
    "D MMMM",
    "D MMM",
    "MMM-DD",
    "DD-MMM",
    "MMM-D",
    "MMMM",
    "MMM",
    "Do",
]

_TOKEN = re.compile(r"YYYY|YY|MMMM|MMM|MM|M|Do|DD|D")
_TOKEN_RE = {
    "YYYY": r"(?P<YYYY>\d{4})",
    "YY": r"(?P<YY>\d{2})",
    "MMMM": r"(?P<MMMM>[A-Za-z]{3,9})",
    "MMM": r"(?P<MMM>[A-Za-z]{3,4})",
    "MM": r"(?P<MM>\d{2})",
    "M": r"(?P<M>\d{1,2})",
    "Do": r"(?P<Do>\d{1,2})(?:st|nd|rd|th|ST|ND|RD|TH)",
    "DD": r"(?P<DD>\d{2})",
    "D": r"(?P<D>\d{1,2})",
}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def format_date(d: date, fmt: str) -> str:
    """Write ``d`` in ``fmt`` (tokens as in DATE_FORMATS); other characters are copied."""
    values = {
        "YYYY": f"{d.year:04d}",
        "YY": f"{d.year % 100:02d}",
        "MMMM": MONTHS[d.month - 1],
        "MMM": MONTHS_ABBR[d.month - 1],
        "MM": f"{d.month:02d}",
        "M": str(d.month),
        "Do": _ordinal(d.day),
        "DD": f"{d.day:02d}",
        "D": str(d.day),
    }
    return _TOKEN.sub(lambda m: values[m.group()], fmt)


def _compile(fmt: str) -> re.Pattern:
    out, pos = [], 0
    for m in _TOKEN.finditer(fmt):
        out.append(re.escape(fmt[pos : m.start()]))
        out.append(_TOKEN_RE[m.group()])
        pos = m.end()
    out.append(re.escape(fmt[pos:]))
    return re.compile("".join(out), re.IGNORECASE)


_ALL_FORMATS = [f for f, _ in DATE_FORMATS] + _PARSE_ONLY
_COMPILED = [(f, _compile(f)) for f in _ALL_FORMATS]
_MONTH_INDEX = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
_MONTH_INDEX.update({m.lower(): i + 1 for i, m in enumerate(MONTHS_ABBR)})
_MONTH_INDEX["sept"] = 9
# Placeholder parts for formats that omit them: 2000 is a leap year, so Feb 29 survives.
_NO_YEAR, _NO_MONTH, _NO_DAY = 2000, 7, 15


# A weekday written before its date belongs to the DATE span ("Thursday 4 March 2021", "Tues
# 12/03/2024": the annotation conventions and the detector agree); a shifted date gets the
# weekday of its new day, written in the same style (full or short, case, dot, separator).
_WEEKDAY_HEAD = re.compile(
    r"(?P<wd>(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?P<day>day|sday|nesday|urday)?)"
    r"(?P<dot>\.?)(?P<sep>,?\s+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedDate:
    value: date
    fmt: str
    upper: bool  # month names written in capitals ("22-JUN-2001")
    weekday: str = ""  # the weekday written before the date, as written ("Mon", "TUESDAY")
    weekday_sep: str = " "  # what stood between it and the date (", ")

    @property
    def has_year(self) -> bool:
        return "Y" in self.fmt

    def emit(self, d: date) -> str:
        s = format_date(d, self.fmt)
        s = s.upper() if self.upper else s
        return _weekday_like(self.weekday, d) + self.weekday_sep + s if self.weekday else s


def _weekday_like(written: str, d: date) -> str:
    """The weekday of ``d`` in the style of ``written`` (full or three letters, case, dot)."""
    full = written.rstrip(".").lower().endswith("day")
    name = calendar.day_name[d.weekday()] if full else calendar.day_abbr[d.weekday()]
    name += "." if written.endswith(".") else ""
    letters = written.rstrip(".")
    return name.upper() if letters.isupper() else name.lower() if letters.islower() else name


def _from_groups(g: dict, year_pivot: int) -> date | None:
    try:
        if g.get("YYYY"):
            year = int(g["YYYY"])
        elif g.get("YY"):
            yy = int(g["YY"])
            year = 2000 + yy if yy <= year_pivot else 1900 + yy
        else:
            year = _NO_YEAR
        if name := g.get("MMMM") or g.get("MMM"):
            month = _MONTH_INDEX.get(name.lower().rstrip("."))
            if month is None:
                return None
        elif number := g.get("MM") or g.get("M"):
            month = int(number)
        else:
            month = _NO_MONTH
        day = int(g.get("DD") or g.get("D") or g.get("Do") or _NO_DAY)
        return date(year, month, day)
    except (TypeError, ValueError):
        return None


def parse_date(text: str, year_pivot: int = 30) -> ParsedDate | None:
    """The date and the format ``text`` is written in, or None when it is not a date we know.

    The chosen format is one that writes the parsed date back to exactly ``text`` (case aside),
    so padding ("06/02" vs "6/2") and month-name style survive a shift. Two-digit years up to
    ``year_pivot`` are 20xx, later ones 19xx.
    """
    s = text.strip()
    head = _WEEKDAY_HEAD.match(s)
    if head and (rest := parse_date(s[head.end() :], year_pivot)) is not None:
        own = calendar.day_abbr[rest.value.weekday()].lower()
        if rest.weekday or (rest.has_year and not head.group("wd").lower().startswith(own)):
            return None  # two weekdays, or a weekday that is not the date's own
        wd = head.group("wd") + head.group("dot")
        return ParsedDate(rest.value, rest.fmt, rest.upper, wd, head.group("sep"))
    for fmt, rx in _COMPILED:
        m = rx.fullmatch(s)
        if not m:
            continue
        d = _from_groups(m.groupdict(), year_pivot)
        if d is None:
            continue
        if format_date(d, fmt).lower() == s.lower():
            upper = any(c.isalpha() for c in s) and s.upper() == s
            return ParsedDate(d, fmt, upper)
    return None


def shift_date(text: str, days: int) -> str | None:
    """``text`` moved by ``days`` and written in its own format; None if it is not a date."""
    p = parse_date(text)
    if p is None:
        return None
    return p.emit(p.value + timedelta(days=days))
