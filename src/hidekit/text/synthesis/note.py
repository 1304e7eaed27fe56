"""One note being written: the patient, the note's dates and date layouts, and ``render``,
which fills a template's ``{slot}`` fields from a slot table (``slots.SLOTS``)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import date, timedelta

from faker import Faker

from hidekit.text.dates import format_date
from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import words
from hidekit.text.synthesis.patient import Patient
from hidekit.text.synthesis.vocab import (
    DAY_FIRST_FORMATS,
    HOLIDAYS,
    INFORMAL_FORMATS,
    MONTH_ABBR,
    US_FORMATS,
    WEEKDAY_SHORT,
    WEEKDAYS,
)
from hidekit.text.synthesis.writer import Segment, _Writer

_SLOT = re.compile(r"\{(\w+)\}")


SlotFn = Callable[["_Note"], "str | list[Segment]"]

Date = date  # the type, for annotations inside _Note (whose method ``date`` shadows it)


class _Note:
    """Fills template slots for one note of one patient; dates and formats stay coherent."""

    def __init__(
        self,
        p: Patient,
        kind: str,
        fake: Faker,
        rng: random.Random,
        world: Faker | None,
        slots: Mapping[str, SlotFn],
    ) -> None:
        self.p, self.kind, self.fake, self.rng = p, kind, fake, rng
        self.slots = slots
        self.world = world or W.world_faker(0)
        base = p.visit_date or date(2023, 1, 1) + timedelta(days=rng.randint(0, 730))
        self.admit = base
        self.discharge = base + timedelta(days=rng.randint(1, 12))
        self.followup = self.discharge + timedelta(days=rng.choice([7, 10, 14, 21, 30, 42, 90]))
        us = p.region == "US" or (p.region == "CA" and rng.random() < 0.5) or rng.random() < 0.05
        self.formats = US_FORMATS if us else DAY_FIRST_FORMATS
        fmts, weights = zip(*[(f, w) for f, w in self.formats if "YY" in f], strict=True)
        self.date_fmt = rng.choices(fmts, weights)[0]
        self.header_fmt = rng.choices(fmts, weights)[0]
        self.doctor_style = rng.randrange(4)
        self.attending, self.pcp = p.doctors[0], p.doctors[-1]
        self.w = _Writer()

    # -- helpers -------------------------------------------------------------------------
    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def date(self, d: Date, header: bool = False) -> list[Segment]:
        if self.chance(0.2):
            fmt = self.rng.choices(*zip(*self.formats, strict=True))[0]
        else:
            fmt = self.header_fmt if header else self.date_fmt
        text = format_date(d, fmt)
        if "MMM" in fmt and self.chance(0.1):
            text = text.upper()
        if not header and self.chance(0.1):
            # a weekday written with its date is one DATE span: "Mon 18 March 2024"
            text = self.weekday(d) + self.pick([" ", ", "]) + text
        return [(text, "DATE")]

    def weekday(self, d: Date) -> str:
        day = WEEKDAYS[d.weekday()]
        form = self.pick([day, day, day[:3], WEEKDAY_SHORT[d.weekday()], day.upper(), day.lower()])
        return form

    def weekday_mention(self, d: Date) -> list[Segment]:
        """A weekday that points to one day ("on Tuesday", "since Fri", "Sun 17/11")."""
        day = self.weekday(d)
        if self.chance(0.3):
            fmt = "M/D" if self.p.region == "US" else "D/M"
            return [(f"{day} {format_date(d, fmt)}", "DATE")]
        lead = self.pick(words("weekday_mention.1", "l"))
        return [(lead, None), (day, "DATE")]

    def month_day(self, d: Date) -> list[Segment]:
        """A numeric day and month without a year, in the note's order ("3/6" or "6/3")."""
        us = self.formats is US_FORMATS
        fmt = ("M/D" if us else "D/M") if self.chance(0.7) else ("MM/DD" if us else "DD/MM")
        return [(format_date(d, fmt), "DATE")]

    def informal_date(self, d: Date) -> list[Segment]:
        """Running-text forms: "the 4th", "Mar-04", "in March", "mid-May", "March 4th"."""
        fmt = self.pick(INFORMAL_FORMATS)
        if fmt == "M/D" and self.p.region != "US":
            fmt = "MMM-DD"
        text = format_date(d, fmt)
        if fmt == "Do":
            return [("the ", None), (text, "DATE")]
        if fmt == "MMMM":
            if self.chance(0.3):  # "in Sept", "since jan"
                text = self.pick(MONTH_ABBR)[d.month - 1]
                text = text.lower() if self.chance(0.2) else text
            if self.chance(0.2):  # "mid-May" is one DATE span
                return [
                    (self.pick(["in ", "since ", "by ", ""]), None),
                    ("mid-" + text, "DATE"),
                ]
            return [
                (self.pick(["in ", "early ", "late ", "since "]), None),
                (text, "DATE"),
            ]
        if self.chance(0.08):
            day = self.pick(HOLIDAYS)
            return [
                (self.pick(["over ", "at ", "since ", "on ", "before "]), None),
                (day.lower() if self.chance(0.15) else day, "DATE"),
            ]
        return [(text, "DATE")]

    def past(self) -> Date:
        return self.admit - timedelta(days=self.rng.randint(30, 3650))

    # -- names ---------------------------------------------------------------------------
    def patient_name(self, style: str | None = None) -> list[Segment]:
        p = self.p
        style = style or self.pick(words("patient_name.1", "l"))
        mid = f" {p.middle}." if p.middle else ""
        if style == "full":
            return [(f"{p.first} {p.last}", "NAME")]
        if style == "middle":
            return [(f"{p.first}{mid} {p.last}", "NAME")]
        if style == "formal":
            title = "Ms." if p.sex == "F" else "Mr."
            title = self.pick([title, title, "Mrs."]) if p.sex == "F" else title
            return [(f"{title} ", None), (p.last, "NAME")]
        if style == "first":
            return [(p.first, "NAME")]
        if style == "initial":
            return [(f"{p.first[0]}. {p.last}", "NAME")]
        if style == "initials":
            return [
                (
                    self.pick([f"{p.first[0]}{p.last[0]}", f"{p.first[0]}.{p.last[0]}."]),
                    "NAME",
                )
            ]
        if style == "nick":
            return [(p.nick, "NAME")]
        if style == "caps_last":
            return [(f"{p.first} {p.last.upper()}", "NAME")]
        if style == "lastfirst":
            form = self.pick(
                [
                    f"{p.last.upper()}, {p.first.upper()}",
                    f"{p.last}, {p.first}{mid}",
                    f"{p.last.upper()}, {p.first}",
                    f"{p.last}, {p.first}",
                    f"{p.last.upper()}, {p.first.upper()} {(p.middle or 'J')[0]}",
                ]
            )
            return [(form, "NAME")]
        raise ValueError(style)

    def doctor(self, who=None, sig: bool = False) -> list[Segment]:
        first, mid, last = who or self.pick(self.p.doctors)
        if sig:
            form = self.pick(
                [
                    [(f"{first} {last}", "DOCTOR"), (", MD", None)],
                    [(f"{first} {mid}. {last}", "DOCTOR"), (", M.D.", None)],
                    [(f"{last}, {first}", "DOCTOR"), (" MD", None)],
                    [(f"{first[0]}. {last}", "DOCTOR"), (" MD", None)],
                    [(f"{first.upper()} {last.upper()}", "DOCTOR"), (", MD", None)],
                ]
            )
            return form
        style = self.pick([0, 0, 1, 2, self.doctor_style])
        if style == 0:
            return [("Dr. ", None), (last, "DOCTOR")]
        if style == 1:
            return [("Dr. ", None), (f"{first} {last}", "DOCTOR")]
        if style == 2:
            return [("Dr ", None), (last, "DOCTOR")]
        return [(f"{first} {last}", "DOCTOR"), (self.pick([", MD", " MD", ""]), None)]

    def relative(self) -> list[Segment]:
        rel, first, last = self.pick(self.p.relatives)
        his = "her" if self.p.sex == "F" else "his"
        if self.chance(0.5):
            return [
                (f"{his} {rel}, ", None),
                (f"{first} {last}" if self.chance(0.5) else first, "NAME"),
            ]
        return [
            (f"{his} {rel} ", None),
            (first if self.chance(0.6) else f"{first} {last}", "NAME"),
        ]

    # -- slots -------------------------------------------------------------------------------
    def slot(self, name: str) -> list[Segment]:
        fn = self.slots.get(name)
        if fn is None:
            raise KeyError(f"unknown template slot {name!r}")
        out = fn(self)
        return [(out, None)] if isinstance(out, str) else out

    def render(self, template: str) -> None:
        pos = 0
        for m in _SLOT.finditer(template):
            self.w.add(template[pos : m.start()])
            for text, label in self.slot(m.group(1)):
                self.w.add(text, label)
            pos = m.end()
        self.w.add(template[pos:])

    def lines(self, templates: Iterable[str]) -> None:
        for t in templates:
            self.render(t)
