"""Seeded synthetic clinical notes with annotated PHI: training and test text with no real patient.

Twenty-five kinds of note (admission, discharge, progress, ED, consult, radiology, pathology, lab,
nursing, ICU, operative, psychiatry, paediatric, palliative, physio/OT, social work, medication
reconciliation, sign-out lists, telephone and home-health visits, registration sheets, letters to
patients, insurers and employers, GP referral and discharge letters) are assembled from section
and sentence templates whose slots are filled by Faker and GeoNames surrogates. Each PHI value is
written into the text and recorded as a span in the same step, so offsets are exact by
construction. A patient lives in a region (US, UK, Ireland, Australia, New Zealand, Canada,
India: ``world``) that sets the layouts of dates, phones, postcodes and national numbers,
and has a name of a separately drawn origin. Each note is written in a style (all capitals,
terse abbreviations, typos, run-on sentences) applied to the text between spans only.
Negative examples stay unlabelled: eponyms and scores (Parkinson disease, Glasgow Coma Scale,
Gleason 3+4), drug and device brands, lab values and ratios that look like dates (BP 132/84,
3/5 power, "for 3/7"), beds and rooms, ICD codes, generic roles ("the on-call registrar"),
relative dates ("yesterday") and years alone ("quit in 2010").

Label set (stable; a HIPAA Safe Harbor reading of the i2b2 2014 categories), see ``LABELS``.
Titles ("Dr.", "Mr.") and credentials ("MD", "RN") are outside name spans; any named clinician
(nurse, therapist, pharmacist, social worker, midwife, dietitian) is ``DOCTOR``; for ages only
the number is annotated ("77" in "77-year-old", "67" in "67M"; a decade as "60s").

``generate_notes(n, seed)`` invents patients; ``generate_patient_notes(rows, k, seed)`` writes
``k`` notes per given table row (name, age, zip, city, record number … kept; the row's exact age
only), so notes can be linked to a table such as ``hidekit.demo.survey.generate_survey``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from faker import Faker

from hidekit.errors import OptionError
from hidekit.text.anonymization.surrogates import HOSPITAL_FORMS, us_places
from hidekit.text.dates import DATE_FORMATS, format_date
from hidekit.text.detection.recognizers.patterns import COMMON_OCCUPATIONS, INFORMAL_OCCUPATIONS
from hidekit.text.spans import Document, Span
from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import templates, words

LABELS: dict[str, str] = words("LABELS", "d")

NOTE_TYPES = words("NOTE_TYPES", "t")

DIAGNOSES = words("DIAGNOSES", "l")
EPONYMS = words("EPONYMS", "l")
SIGNS = words("SIGNS", "l")
DEVICES = words("DEVICES", "l")
PROCEDURES = words("PROCEDURES", "l")
DRUGS = words("DRUGS", "l")
DOSES = words("DOSES", "l")
FREQS = words("FREQS", "l")
SYMPTOMS = words("SYMPTOMS", "l")
# Clinics named by what they treat: not identifying, and they stay unlabelled
DEPARTMENT_CLINICS = words("DEPARTMENT_CLINICS", "l")
SERVICES = words("SERVICES", "l")
STUDIES = words("STUDIES", "lt")
FINDINGS = words("FINDINGS", "dl")
SPECIMENS = words("SPECIMENS", "lt")
TRAVEL = words("TRAVEL", "l")
ORG_FORMS = templates("ORG_FORMS", "l")
RELATIONS_F = words("RELATIONS_F", "l")
RELATIONS_M = words("RELATIONS_M", "l")

Segment = tuple[str, str | None]


@dataclass
class Patient:
    """Everything a note may say about one person; fields left None are drawn from Faker."""

    id: str
    first: str
    last: str
    sex: str  # "F" or "M"
    age: int
    birth_date: date
    middle: str = ""
    mrn: str = ""
    ssn: str = ""
    phone: str = ""
    email: str = ""
    street: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    account: str = ""
    member_id: str = ""
    profession: str = ""
    employer: str = ""
    diagnosis: str | None = None
    visit_date: date | None = None
    relatives: list[tuple[str, str, str]] = field(default_factory=list)  # (relation, first, last)
    doctors: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (first, middle initial, last)
    hospital: str = ""
    hospital2: str = ""
    country: str = ""
    region: str = "US"  # where the notes are written: formats of dates, phones, IDs, addresses
    nick: str = ""
    national: list[tuple[str, str, str]] = field(default_factory=list)  # (name, value, label)
    practice: str = ""  # GP practice / family clinic
    org: str = ""  # school, church, club, insurer … the notes may name
    others: list[tuple[str, str, str]] = field(default_factory=list)  # (role, first, last)
    staff: list[tuple[str, str, str]] = field(default_factory=list)  # (role, first, last)
    exact_age: bool = False  # a table row: notes state the row's age, never "in his 70s"


_ABBREVIATIONS = words("_ABBREVIATIONS", "lt")
_ABBREV_RE = [(re.compile(a), b) for a, b in _ABBREVIATIONS]
_WORD = re.compile(r"\b[a-z]{5,}\b")
_SENTENCE_END = re.compile(r"(?<=[a-z]{3})\. (?=[A-Z])")


@dataclass
class _Style:
    """How carelessly a note is written; applied to the text between spans only."""

    caps: bool = False  # whole note in capitals (old systems, some sign-out lists)
    terse: bool = False  # abbreviations, lower-case names
    typo_rate: float = 0.0  # per long word
    runon: float = 0.0  # share of sentence ends joined with a comma or a dash


def _draw_style(rng: random.Random, kind: str) -> _Style:
    terse_kinds = words("draw_style.1", "t")
    return _Style(
        caps=rng.random() < (0.25 if kind == "signout" else 0.05),
        terse=rng.random() < (0.6 if kind in terse_kinds else 0.15),
        typo_rate=rng.choice([0.0, 0.0, 0.01, 0.03]),
        runon=rng.choice([0.0, 0.0, 0.0, 0.3, 0.6]),
    )


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 2)
    r = rng.random()
    if r < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if r < 0.7:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


class _Writer:
    """Collects text segments (labelled or not); ``finish`` applies a style to the unlabelled
    text and records every span at the exact offsets of the final text."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []

    def add(self, text: str, label: str | None = None) -> None:
        if text:
            self.segments.append((text, label))

    def _gap(self, text: str, style: _Style, rng: random.Random) -> str:
        if style.terse:
            for rx, short in _ABBREV_RE:

                def shorten(m: re.Match, s: str = short) -> str:
                    return s if rng.random() < 0.7 else m.group()

                text = rx.sub(shorten, text)
        if style.typo_rate:
            text = _WORD.sub(
                lambda m: _typo(m.group(), rng) if rng.random() < style.typo_rate else m.group(),
                text,
            )
        if style.runon:
            text = _SENTENCE_END.sub(
                lambda m: (
                    rng.choice([", ", " - ", "; ", ",  "])
                    if rng.random() < style.runon
                    else m.group()
                ),
                text,
            )
        return text

    def finish(self, style: _Style, rng: random.Random) -> tuple[str, list[Span]]:
        merged: list[list] = []
        for text, label in self.segments:
            if label is None and merged and merged[-1][1] is None:
                merged[-1][0] += text
            else:
                merged.append([text, label])
        parts, spans, pos = [], [], 0
        for text, label in merged:
            if label is None:
                text = self._gap(text, style, rng)
            elif style.terse and label in ("NAME", "DOCTOR", "CITY") and rng.random() < 0.1:
                text = text.lower()
            if style.caps and len(text.upper()) == len(text):
                text = text.upper()
            if label is not None:
                spans.append(Span(pos, pos + len(text), label, text, "synth"))
            parts.append(text)
            pos += len(text)
        return "".join(parts), spans


_SLOT = re.compile(r"\{(\w+)\}")


def _profession(fake: Faker) -> str:
    """Faker's job titles read "Engineer, civil (contracting)"; notes say "civil engineer".
    Four times in ten an everyday occupation instead ("roofer", "bus driver"): Faker's titles are
    mostly white-collar, and notes written by people mention trades and services as often."""
    r = fake.random.random()
    if r < 0.15:
        return fake.random.choice(INFORMAL_OCCUPATIONS)
    if r < 0.45:
        return fake.random.choice(COMMON_OCCUPATIONS)
    job = re.sub(r"\s*\(.*?\)", "", fake.job()).strip()
    if ", " in job:
        head, tail = job.split(", ", 1)
        job = f"{tail} {head}"
    return job.lower() if not job.isupper() else job


def _city_state(fake: Faker, rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.7:
        return rng.choice(us_places()[0])
    return fake.city(), fake.state_abbr(include_territories=False)


def _country(rng: random.Random) -> str:
    return rng.choice(TRAVEL) if rng.random() < 0.6 else rng.choice(us_places()[1]).strip()


def _hospital(fake: Faker, rng: random.Random, city: str) -> str:
    r = rng.random()
    if r < 0.15:
        return rng.choice(W.PLACE_CARE_FORMS).format(place=W.place_name(rng))
    forms = W.BARE_CARE_FORMS if r < 0.4 else HOSPITAL_FORMS
    return rng.choice(forms).format(
        city=city or fake.city(),
        last=fake.last_name(),
        last2=fake.last_name(),
        first=fake.first_name(),
    )


def _mrn(fake: Faker, rng: random.Random) -> str:
    return fake.numerify(rng.choice(words("mrn.1", "l")))


def _zip_in(fake: Faker, state: str) -> str:
    try:
        return fake.zipcode_in_state(state)
    except Exception:  # a state Faker has no ZIP range for
        return fake.zipcode()


CLINICIAN_ROLES = words("CLINICIAN_ROLES", "l")
# Roles as a note spells them in prose (key → words); the person's name is DOCTOR (any clinician).
ROLE_WORDS = words("ROLE_WORDS", "dl")
OTHER_ROLES = words("OTHER_ROLES", "l")


def new_patient(
    fake: Faker,
    rng: random.Random,
    pid: str,
    row: Mapping | None = None,
    world: Faker | None = None,
) -> Patient:
    """A patient from ``row`` (keys as in the demo survey) with the missing parts invented.

    A row is a US record; an invented patient lives in a region drawn from
    ``world.REGIONS`` and has a name of a drawn origin."""
    row = dict(row or {})
    world = world or W.world_faker(rng.randrange(2**31))
    region = "US" if row else W.pick_region(rng)
    g = world[W.REGIONS[region][0]] if region != "US" else fake
    sex = str(row.get("sex") or rng.choice("FM"))[:1].upper()
    if row.get("name"):
        parts = str(row["name"]).split()
        first, last = parts[0], " ".join(parts[1:]) or fake.last_name()
    elif rng.random() < 0.35:
        first = g.first_name_female() if sex == "F" else g.first_name_male()
        last = g.last_name()
    else:
        first, last = W.origin_name(world, rng, sex)
    if row.get("age") is not None:
        age = int(row["age"])
    else:
        age = rng.choice(
            [rng.randint(18, 89)] * 10
            + [
                rng.randint(90, 104),
                rng.randint(0, 17),
                rng.randint(2, 17),
                rng.randint(0, 1),
            ]
        )
    if row.get("birth_date"):
        birth = date.fromisoformat(str(row["birth_date"])[:10])
    else:
        birth = date(2024, 6, 30) - timedelta(days=int(age * 365.25) + rng.randint(0, 364))
    visit = date.fromisoformat(str(row["visit_date"])[:10]) if row.get("visit_date") else None
    if region == "US":
        city, state = _city_state(fake, rng)
    else:
        city, state = W.region_city(world, rng, region)
    if row.get("city"):
        city, state = str(row["city"]), str(row.get("state") or state)
    rel_pool = RELATIONS_F + RELATIONS_M
    relatives = []
    for _ in range(rng.randint(1, 3)):
        rel = rng.choice(rel_pool)
        rfirst = g.first_name_female() if rel in RELATIONS_F else g.first_name_male()
        rlast = last if rng.random() < 0.6 else g.last_name()
        relatives.append((rel, rfirst, rlast))
    others = []
    for _ in range(rng.randint(1, 3)):
        o_first, o_last = W.origin_name(world, rng, rng.choice("FM"))
        others.append((rng.choice(OTHER_ROLES), o_first, o_last))
    doctors = []
    for _ in range(rng.randint(2, 4)):
        d_first, d_last = W.origin_name(world, rng, rng.choice("FM"))
        doctors.append((d_first, rng.choice("ABCDEFGHJKLMNPRSTW"), d_last))
    staff = []
    for _ in range(rng.randint(2, 5)):
        s_first, s_last = W.origin_name(world, rng, rng.choice("FFFM"))
        staff.append((rng.choice(CLINICIAN_ROLES), s_first, s_last))
    record = row.get("record_id")
    if region == "US":
        street = str(row.get("street_address") or fake.street_address())
        if not row.get("street_address") and rng.random() < 0.3:
            street = W.street(world, rng, "US")
        phone = str(row.get("phone") or fake.numerify("(###) ###-####"))
        zip_code = str(row.get("zip") or _zip_in(fake, state))
        hospital = _hospital(fake, rng, city)
    else:
        street = W.street(world, rng, region)
        phone = W.phone(world, rng, region) or g.numerify("(###) ###-####")
        zip_code = W.postcode(world, region)
        hospital = W.care_place(world, rng, region, city, [])
    domain = rng.choice([fake.free_email_domain(), g.free_email_domain()])
    email_user = rng.choice(
        [
            f"{first}.{last}{rng.randint(1, 99)}",
            f"{first[0]}{last}",
            f"{first}{rng.randint(1, 9999)}",
        ]
    )
    return Patient(
        id=pid,
        first=first,
        last=last,
        sex=sex,
        age=age,
        birth_date=birth,
        middle=rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.5 else "",
        mrn=f"{int(record):07d}" if record is not None else _mrn(fake, rng),
        ssn=str(row.get("ssn") or fake.ssn()),
        phone=phone,
        email=str(
            row.get("email") or W.ascii_fold(f"{email_user}@{domain}").lower().replace(" ", "")
        ),
        street=street,
        city=city,
        state=state,
        zip=zip_code,
        account=fake.numerify(rng.choice(["#########", "##########", "A########", "####-####-##"])),
        member_id=fake.bothify(
            rng.choice(["???#########", "W########", "#########-01", "XJ#######"])
        ).upper(),
        profession=_profession(g),
        employer=g.company(),
        diagnosis=str(row["diagnosis"]).lower() if row.get("diagnosis") else None,
        visit_date=visit,
        relatives=relatives,
        doctors=doctors,
        hospital=hospital,
        hospital2=_hospital(fake, rng, _city_state(fake, rng)[0])
        if region == "US"
        else W.care_place(world, rng, region, W.region_city(world, rng, region)[0], HOSPITAL_FORMS),
        country=_country(rng),
        region=region,
        nick=W.nickname(first, rng),
        national=W.national_ids(world, rng, region),
        practice=W.care_place(world, rng, region, city, []),
        org=W.organization(world, rng, region, city),
        others=others,
        staff=staff,
        exact_age=row.get("age") is not None,
    )


# ---------------------------------------------------------------------------------------------
# One note


# Day-first layouts of the UK, Ireland, Australia, New Zealand, Canada and India (weights).
DAY_FIRST_FORMATS: list[tuple[str, float]] = [
    ("DD/MM/YYYY", 14),
    ("D/M/YYYY", 6),
    ("DD/MM/YY", 6),
    ("D MMM YYYY", 10),
    ("D MMMM YYYY", 8),
    ("Do MMMM YYYY", 3),
    ("DD-MMM-YYYY", 3),
    ("DD.MM.YY", 2),
    ("DD.MM.YYYY", 3),
    ("YYYY-MM-DD", 5),
    ("D MMM", 3),
    ("D/M", 3),
    ("MMMM YYYY", 2),
    ("Do MMMM", 2),
    ("D MMMM", 2),
    ("DD-MM-YYYY", 2),
    ("D-MMM-YY", 1),
]
# Informal forms written in running text only: "the 4th", "Mar-04", "in March", "March 4th".
INFORMAL_FORMATS = words("INFORMAL_FORMATS", "l")
US_FORMATS: list[tuple[str, float]] = [(f, w) for f, w in DATE_FORMATS if f != "YYYY"]
WRITTEN_DATE_FORMATS = tuple(
    dict.fromkeys([f for f, _ in US_FORMATS + DAY_FIRST_FORMATS] + INFORMAL_FORMATS)
)
WEEKDAYS = words("WEEKDAYS", "l")
MONTH_ABBR = words("MONTH_ABBR", "ll")
# holidays name a day: DATE under the annotation conventions
HOLIDAYS = words("HOLIDAYS", "l")
DECADE_WORDS = words("DECADE_WORDS", "l")
WEEKDAY_SHORT = words("WEEKDAY_SHORT", "l")
# languages and nationalities: capitalized, never PHI under the annotation conventions
LANGUAGES = words("LANGUAGES", "l")


Date = date  # the type, for annotations inside _Note (whose method ``date`` shadows it)


class _Note:
    """Fills template slots for one note of one patient; dates and formats stay coherent."""

    def __init__(self, p: Patient, kind: str, fake: Faker, rng: random.Random, world=None) -> None:
        self.p, self.kind, self.fake, self.rng = p, kind, fake, rng
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
        fn = _SLOTS.get(name)
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


def _phone_format(n: _Note, digits: str) -> str:
    d = re.sub(r"\D", "", digits)[-10:].rjust(10, "5")
    form = n.pick(templates("phone_format.1", "l"))
    out = form.format(a=d[:3], b=d[3:6], c=d[6:])
    if n.chance(0.08):
        out += n.pick([" x", " ext. ", " ext "]) + n.fake.numerify("###")
    return out


def _months(n: _Note) -> int:
    return n.p.age * 12 + n.rng.randint(1, 11) if n.p.age < 2 else 0


def _age_adj(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["{}-month-old", "{} month old", "{} mo old", "{}-mo", "{} m/o"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(templates("age_adj.1", "l"))
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_pred(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["aged {} months", "{} mo", "{} months old", "age {}/12"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(templates("age_pred.1", "l"))
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_sex(n: _Note) -> list[Segment]:
    """Sign-out shorthand: "67M", "67 F", "67yo M", "67/F"; a decade: "in her 60s"."""
    a, sx = str(n.p.age), n.p.sex
    if n.p.age < 2:
        return [(str(_months(n)), "AGE"), (n.pick(["mo ", " mo "]) + sx, None)]
    if 20 <= n.p.age < 100 and not n.p.exact_age and n.chance(0.15):
        his = "her" if sx == "F" else "his"
        decade = n.p.age // 10 * 10
        word = f"{decade}s" if n.chance(0.6) else DECADE_WORDS[decade // 10]
        return [(f"{sx} in {his} ", None), (word, "AGE")]
    form = n.pick(
        [
            "{}" + sx,
            "{} " + sx,
            "{}yo " + sx,
            "{}/" + sx,
            "{}" + sx.lower(),
            "{}y " + sx,
        ]
    )
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _md_table(n: _Note) -> list[Segment]:
    """A small lab table whose columns are days written without a year ("3/6  3/7  3/8")."""
    days = sorted({n.admit + timedelta(days=k) for k in n.rng.sample(range(-3, 6), 3)})
    out: list[Segment] = [(n.pick(["", "Labs", "Trend", "Date"]).ljust(10), None)]
    for d in days:
        out += n.month_day(d) + [("   ", None)]
    out.append(("\n", None))
    for test in n.rng.sample(words("md_table.1", "l"), 3):
        vals = "   ".join(f"{n.rng.uniform(0.5, 150):.1f}" for _ in days)
        out.append((f"{test.ljust(10)}{vals}\n", None))
    return out


def _sex_word(n: _Note) -> str:
    if n.p.age < 18:
        return n.pick(["girl", "female"]) if n.p.sex == "F" else n.pick(["boy", "male"])
    return n.pick(
        ["woman", "female", "lady", "F"] if n.p.sex == "F" else ["man", "male", "gentleman", "M"]
    )


def _address(n: _Note) -> list[Segment]:
    p = n.p
    sep = n.pick([", ", "\n"])
    if p.region == "US":
        return [
            (p.street, "STREET"),
            (sep, None),
            (p.city, "CITY"),
            (", ", None),
            (p.state, "STATE"),
            (n.pick([" ", "  "]), None),
            (p.zip, "ZIP"),
        ]
    out: list[Segment] = [(p.street, "STREET"), (sep, None), (p.city, "CITY")]
    if p.state:
        out += [(sep if p.region in ("GB", "IE") else ", ", None), (p.state, "STATE")]
    out += [(sep if p.region == "GB" else n.pick([" ", ", "]), None), (p.zip, "ZIP")]
    if n.chance(0.15):
        out += [(sep, None), (W.COUNTRY_NAMES[p.region], "COUNTRY")]
    return out


def _hosp_address(n: _Note) -> list[Segment]:
    f, region = n.fake, n.p.region
    if region != "US":
        city, state = W.region_city(n.world, n.rng, region)
        sep = n.pick([", ", "\n"])
        out: list[Segment] = [(W.street(n.world, n.rng, region), "STREET"), (sep, None)]
        out.append((city, "CITY"))
        if state and region not in ("GB", "NZ"):
            out += [(", " if region != "IE" else sep, None), (state, "STATE")]
        return out + [(n.pick([" ", sep]), None), (W.postcode(n.world, region), "ZIP")]
    city, state = _city_state(f, n.rng)
    zip_code = _zip_in(f, state) + (f.numerify("-####") if n.chance(0.2) else "")
    return [
        (f.street_address(), "STREET"),
        (n.pick([", ", "\n"]), None),
        (city, "CITY"),
        (", ", None),
        (state, "STATE"),
        (" ", None),
        (zip_code, "ZIP"),
    ]


def _ssn(n: _Note) -> str:
    s = re.sub(r"\D", "", n.p.ssn)
    return n.pick([f"{s[:3]}-{s[3:5]}-{s[5:]}"] * 4 + [s, f"{s[:3]} {s[3:5]} {s[5:]}"])


def _url(n: _Note) -> str:
    f = n.fake
    return n.pick(
        [
            f"https://www.{f.domain_name()}",
            f"www.{f.domain_name()}/portal",
            f"http://{f.domain_word()}health.org/patients/{f.user_name()}",
            f.url(),
            f"https://mychart.{f.domain_name()}/visit/{f.numerify('######')}",
        ]
    ).rstrip("/")


def _labs(n: _Note) -> str:
    r = n.rng
    return (
        f"Na {r.randint(128, 146)}, K {r.uniform(3.1, 5.6):.1f}, Cl {r.randint(95, 110)}, "
        f"HCO3 {r.randint(18, 30)}, BUN {r.randint(8, 60)}, Cr {r.uniform(0.6, 3.2):.1f}, "
        f"glucose {r.randint(70, 320)}. WBC {r.uniform(3.5, 18):.1f}, Hgb {r.uniform(7, 16):.1f}, "
        f"Plt {r.randint(90, 450)}."
    )


def _vitals(n: _Note) -> str:
    r = n.rng
    return (
        f"T {r.uniform(97, 102.5):.1f} F, BP {r.randint(90, 185)}/{r.randint(50, 105)}, "
        f"HR {r.randint(52, 128)}, RR {r.randint(12, 28)}, SpO2 {r.randint(86, 100)}% on "
        f"{n.pick(['RA', 'room air', '2L NC', '4 L nasal cannula'])}."
    )


def _med(n: _Note) -> str:
    return f"{n.pick(DRUGS)} {n.pick(DOSES)} {n.pick(FREQS)}"


def _dx(n: _Note) -> str:
    if n.p.diagnosis and n.chance(0.5):
        return n.p.diagnosis
    return n.pick(DIAGNOSES + EPONYMS[:8])


_SLOTS: dict[str, Callable[[_Note], str | list[Segment]]] = {
    # patient
    "pt": lambda n: n.patient_name(),
    "pt_full": lambda n: n.patient_name(n.pick(["full", "full", "middle"])),
    "pt_formal": lambda n: n.patient_name(n.pick(["formal", "formal", "full"])),
    "pt_first": lambda n: n.patient_name("first"),
    "pt_last": lambda n: [(n.p.last if n.chance(0.6) else n.p.last.upper(), "NAME")],
    "pt_header": lambda n: n.patient_name(n.pick(["lastfirst", "lastfirst", "full", "middle"])),
    "age_adj": _age_adj,
    "age_pred": _age_pred,
    "age_num": lambda n: [(str(n.p.age), "AGE")],
    "sexw": _sex_word,
    "sex": lambda n: n.pick([n.p.sex, "Female" if n.p.sex == "F" else "Male"]),
    "he": lambda n: "she" if n.p.sex == "F" else "he",
    "He": lambda n: "She" if n.p.sex == "F" else "He",
    "his": lambda n: "her" if n.p.sex == "F" else "his",
    "His": lambda n: "Her" if n.p.sex == "F" else "His",
    "him": lambda n: "her" if n.p.sex == "F" else "him",
    "rel": lambda n: n.relative(),
    "prof": lambda n: [(n.p.profession, "PROFESSION")],
    "employer": lambda n: [
        (
            n.pick(ORG_FORMS).format(
                company=n.p.employer,
                city=n.p.city,
                last=n.fake.last_name(),
                state_name=n.fake.state(),
                place_org=W.rng_place_org(n.rng),
            ),
            "ORGANIZATION",
        )
    ],
    "country": lambda n: [(n.p.country, "COUNTRY")],
    # clinicians and places
    "dr": lambda n: n.doctor(),
    "att": lambda n: n.doctor(n.attending),
    "pcp": lambda n: n.doctor(n.pcp),
    "dr_sig": lambda n: n.doctor(n.attending, sig=True),
    "dr2_sig": lambda n: n.doctor(sig=True),
    "hosp": lambda n: [(n.p.hospital, "HOSPITAL")],
    "hosp2": lambda n: [(n.p.hospital2, "HOSPITAL")],
    "city": lambda n: [(n.p.city, "CITY")],
    "city2": lambda n: [(_city_state(n.fake, n.rng)[0], "CITY")],
    "state": lambda n: [(n.pick([n.p.state, n.fake.state()]), "STATE")],
    "address": _address,
    "hosp_address": _hosp_address,
    # dates
    "admit": lambda n: n.date(n.admit),
    "discharge": lambda n: n.date(n.discharge),
    "followup": lambda n: n.date(n.followup),
    "past": lambda n: n.date(n.past()),
    "year": lambda n: str(n.past().year),  # a year alone is not PHI (Safe Harbor keeps years)
    "dob": lambda n: n.date(n.p.birth_date, header=True),
    "h_admit": lambda n: n.date(n.admit, header=True),
    "h_discharge": lambda n: n.date(n.discharge, header=True),
    # contacts and numbers
    "pt_phone": lambda n: [(_phone_format(n, n.p.phone), "PHONE")],
    "phone": lambda n: [(_phone_format(n, n.fake.numerify("##########")), "PHONE")],
    "pager": lambda n: [
        (n.fake.numerify(n.pick(["#####", "###-####", "(###) ###-####"])), "PHONE")
    ],
    "fax": lambda n: [(_phone_format(n, n.fake.numerify("##########")), "FAX")],
    "email": lambda n: [(n.p.email, "EMAIL")],
    "dr_email": lambda n: [
        (f"{n.attending[0][0]}{n.attending[2]}@{n.fake.domain_name()}".lower(), "EMAIL")
    ],
    "url": lambda n: [(_url(n), "URL")],
    "ip": lambda n: [(n.pick([n.fake.ipv4_public(), n.fake.ipv4_private()]), "IP")],
    "ssn": lambda n: [(_ssn(n), "SSN")],
    "mrn": lambda n: [(n.p.mrn, "MRN")],
    "acct": lambda n: [(n.p.account, "ACCOUNT")],
    "member": lambda n: [(n.p.member_id, "ID")],
    "accession": lambda n: [
        (
            n.fake.bothify(n.pick(["S##-#####", "SP-##-######", "RAD#######", "?##-####"])).upper(),
            "ID",
        )
    ],
    "license": lambda n: [
        (n.fake.bothify(n.pick(["??#######", "#######", "MD######"])).upper(), "ID")
    ],
    "device": lambda n: [
        (
            n.fake.bothify(n.pick(["SN ??#####-##", "#########", "PJN######?"])).upper(),
            "ID",
        )
    ],
    # clinical filler (never PHI)
    "dx": _dx,
    "dx2": lambda n: n.pick(DIAGNOSES),
    "eponym": lambda n: n.pick(EPONYMS),
    "sign": lambda n: n.pick(SIGNS),
    "device_name": lambda n: n.pick(DEVICES),
    "proc": lambda n: n.pick(PROCEDURES),
    "drug": lambda n: n.pick(DRUGS),
    "med": _med,
    "symptom": lambda n: n.pick(SYMPTOMS),
    "service": lambda n: n.pick(SERVICES),
    "dept_clinic": lambda n: n.pick(DEPARTMENT_CLINICS),
    "visiting": lambda n: n.pick(
        ["Visiting Nurse Service", "home health", "Meals on Wheels", "PT/OT"]
    ),
    "labs": _labs,
    "vitals": _vitals,
    "days": lambda n: str(n.rng.randint(2, 14)),
    "time": lambda n: f"{n.rng.randint(0, 23):02d}:{n.pick(['00', '15', '30', '45', '10', '52'])}",
    "n": lambda n: str(n.rng.randint(2, 9)),
    "lang": lambda n: n.pick(LANGUAGES),
    "wkday": lambda n: n.weekday_mention(n.admit - timedelta(days=n.rng.randint(0, 6))),
    "md": lambda n: n.month_day(n.admit + timedelta(days=n.rng.randint(-20, 20))),
    "rel_first": lambda n: [(n.pick(n.p.relatives)[1], "NAME")],
    "kid_age": lambda n: [(str(n.rng.randint(1, 17)), "AGE")],
    "md_table": lambda n: _md_table(n),
    "staff_bare": lambda n: _staff(n, 8),
}


# ---------------------------------------------------------------------------------------------
# Templates. Sections are lists of alternatives; each note picks a few of each.

_HEADER_FIELDS = templates("_HEADER_FIELDS", "ll")
_OPTIONAL_HEADER = {4: 0.5, 5: 0.2, 6: 0.3, 7: 0.3, 8: 0.35, 9: 0.15, 11: 0.5, 12: 0.5}

_HPI = templates("_HPI", "l")
_PMH = templates("_PMH", "l")
_MEDS = templates("_MEDS", "l")
_SOCIAL = templates("_SOCIAL", "l")
_FAMILY = templates("_FAMILY", "l")
_EXAM = templates("_EXAM", "l")
_PLAN = templates("_PLAN", "l")
_SIGN = templates("_SIGN", "l")


def _section(n: _Note, title: str, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    n.w.add(
        n.pick(
            [
                f"\n{title}:\n",
                f"\n{title.upper()}:\n",
                f"\n{title}: ",
                f"\n\n{title.upper()}\n",
            ]
        )
    )
    chosen = n.rng.sample(items, min(len(items), n.rng.randint(*k)))
    for i, t in enumerate(chosen):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _list_section(n: _Note, title: str, items: list[str], k: tuple[int, int]) -> None:
    n.w.add(n.pick([f"\n{title}:\n", f"\n{title.upper()}:\n"]))
    bullet = n.pick(["- ", "1. ", "* ", ""])
    for i in range(n.rng.randint(*k)):
        n.w.add(bullet if bullet != "1. " else f"{i + 1}. ")
        n.render(n.pick(items))
        n.w.add("\n")


def _header(n: _Note, title: str) -> None:
    n.w.add(n.pick([f"{title.upper()}\n", f"{title}\n", f"*** {title.upper()} ***\n"]))
    if n.chance(0.4):
        n.render("{hosp}\n")
        if n.chance(0.4):
            n.render("{hosp_address}\n")
    order = list(range(len(_HEADER_FIELDS)))
    if n.chance(0.3):
        n.rng.shuffle(order)
    for i in order:
        if i in _OPTIONAL_HEADER and not n.chance(_OPTIONAL_HEADER[i]):
            continue
        if i == 3 and n.chance(0.5):
            continue
        n.render(n.pick(_HEADER_FIELDS[i]))
    if title in ("Discharge Summary", "Admission Note", "Consultation"):
        n.render(n.pick(templates("header.1", "l")))
    if title == "Discharge Summary":
        n.render(
            n.pick(
                [
                    "Discharge Date: {h_discharge}\n",
                    "Date of Discharge: {h_discharge}\n",
                ]
            )
        )
    elif n.chance(0.7):
        n.render(n.pick(templates("header.2", "l")))


def _clinical_body(n: _Note, hpi: tuple[int, int]) -> None:
    _section(
        n,
        n.pick(["History of Present Illness", "HPI", "Chief Complaint / HPI"]),
        _HPI,
        hpi,
    )
    if n.chance(0.8):
        _list_section(n, n.pick(["Past Medical History", "PMH"]), _PMH, (2, 5))
    if n.chance(0.7):
        _list_section(n, n.pick(["Medications", "Home Medications", "Meds"]), _MEDS, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Allergies",
            templates("clinical_body.1", "l"),
            (1, 1),
        )
    if n.chance(0.7):
        _section(n, n.pick(["Social History", "SH"]), _SOCIAL, (1, 4))
    if n.chance(0.5):
        _section(n, n.pick(["Family History", "FH"]), _FAMILY, (1, 3))
    if n.chance(0.7):
        _section(n, n.pick(["Physical Exam", "Exam", "PE"]), _EXAM, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Labs",
            templates("clinical_body.2", "l"),
            (1, 2),
        )


def _admission(n: _Note) -> None:
    _header(n, n.pick(["Admission Note", "History and Physical", "Admission H&P"]))
    _clinical_body(n, (3, 6))
    _section(
        n,
        n.pick(["Assessment and Plan", "A/P", "Assessment/Plan"]),
        ["{pt_formal} is a {age_adj} {sexw} admitted with {dx}. "] + _PLAN,
        (3, 6),
    )
    n.render(n.pick(_SIGN))


def _discharge(n: _Note) -> None:
    _header(n, "Discharge Summary")
    _section(n, "Admission Diagnosis", templates("discharge.1", "l"), (1, 1))
    _section(n, "Discharge Diagnosis", templates("discharge.2", "l"), (1, 1))
    _section(
        n,
        "Hospital Course",
        templates("discharge.3", "l"),
        (3, 7),
    )
    _list_section(n, n.pick(["Discharge Medications", "Medications on Discharge"]), _MEDS, (2, 6))
    _section(
        n,
        n.pick(["Follow-up", "Disposition", "Follow Up Appointments"]),
        templates("discharge.4", "l"),
        (1, 3),
    )
    n.render(n.pick(_SIGN))


def _progress(n: _Note) -> None:
    n.w.add(
        n.pick(
            [
                "PROGRESS NOTE\n",
                "Progress Note - ",
                "Daily Progress Note\n",
                "SOAP NOTE\n",
            ]
        )
    )
    n.render(  # the chart header names the patient even when the text does not
        n.pick(templates("progress.3", "l"))
    )
    n.render(n.pick(templates("progress.4", "l")))
    _section(
        n,
        n.pick(["Subjective", "S"]),
        templates("progress.1", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(["Objective", "O"]),
        templates("progress.2", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(["Assessment/Plan", "A/P", "A&P"]),
        ["{age_adj} {sexw} with {dx}, hospital day {n}. "] + _PLAN,
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _referral(n: _Note) -> None:
    n.render("{hosp}\n")
    n.render("{hosp_address}\n")
    n.render(n.pick(templates("referral.2", "l")))
    n.render(n.pick(["\n{admit}\n\n", "\nDate: {admit}\n\n"]))
    n.render(n.pick(["{dr2_sig}\n{hosp2}\n\n", ""]))
    n.render(n.pick(templates("referral.3", "l")))
    n.render(n.pick(templates("referral.4", "l")))
    for t in n.rng.sample(
        templates("referral.1", "l"),
        n.rng.randint(4, 8),
    ):
        n.render(t)
    n.render(n.pick(templates("referral.5", "l")))
    if n.chance(0.4):
        n.render("cc: {pcp}; {pt_full}\n")


def _radiology(n: _Note) -> None:
    study, region = n.pick(STUDIES)
    n.w.add(n.pick(["RADIOLOGY REPORT\n", "Imaging Report\n", "DIAGNOSTIC IMAGING\n"]))
    n.render(n.pick(templates("radiology.1", "l")))
    n.render(n.pick(templates("radiology.2", "l")))
    n.render(n.pick(templates("radiology.3", "l")))
    n.render(n.pick(templates("radiology.4", "l")))
    n.w.add(f"\nEXAM: {study}\n")
    n.render(n.pick(templates("radiology.5", "l")))
    n.render(n.pick(templates("radiology.6", "l")))
    n.w.add("\nFINDINGS:\n")
    for f in n.rng.sample(FINDINGS[region], min(len(FINDINGS[region]), n.rng.randint(1, 3))):
        n.w.add(f + "\n")
    n.w.add("\nIMPRESSION:\n")
    n.render(
        n.pick(
            [
                "1. " + FINDINGS[region][0] + "\n",
                "No acute abnormality.\n",
                "Findings discussed with {dr} by telephone at {time} on {admit}.\n",
                "Recommend follow-up imaging in {n} months.\n",
            ]
        )
    )
    n.render(n.pick(templates("radiology.7", "l")))
    if n.chance(0.3):
        n.render("Images available at {url} (workstation {ip}).\n")


def _pathology(n: _Note) -> None:
    spec, dx = n.pick(SPECIMENS)
    n.w.add(n.pick(["SURGICAL PATHOLOGY REPORT\n", "Pathology Report\n"]))
    n.render("{hosp}\n")
    n.render(
        n.pick(
            [
                "Patient: {pt_header}   Med Rec: {mrn}   Acct: {acct}\n",
                "Name: {pt_header}\nMRN: {mrn}\nAccount #: {acct}\n",
            ]
        )
    )
    n.render(n.pick(templates("pathology.1", "l")))
    n.render(n.pick(["Accession: {accession}\n", "Case #: {accession}\n"]))
    n.render(
        n.pick(
            [
                "Collected: {h_admit}   Received: {h_admit}   Reported: {h_discharge}\n",
                "Date of procedure: {admit}\nDate reported: {discharge}\n",
            ]
        )
    )
    n.render(n.pick(templates("pathology.2", "l")))
    n.w.add(f"\nSPECIMEN: {spec}\n")
    n.render(
        n.pick(
            [
                "\nCLINICAL INFORMATION: {age_adj} {sexw} with {dx2}.\n",
                "\nCLINICAL HISTORY: {eponym}; rule out malignancy.\n",
            ]
        )
    )
    n.w.add(f"\nDIAGNOSIS:\n{dx}\n")
    n.render(
        n.pick(
            [
                "\nGROSS: Received in formalin labeled with the patient's name and medical record number, "
                "a tan-pink tissue measuring 1.1 x 0.6 x 0.3 cm. Submitted in toto in cassette A1.\n",
                '\nGROSS DESCRIPTION: Labeled "{pt_header}", the specimen consists of {n} cores.\n',
            ]
        )
    )
    n.render(
        n.pick(
            [
                "\nPathologist: {dr2_sig}\n",
                "\nElectronically signed out by {dr2_sig} on {h_discharge}\n",
            ]
        )
    )


def _ed(n: _Note) -> None:
    _header(n, n.pick(["Emergency Department Note", "ED Provider Note", "ED Triage Note"]))
    n.render(n.pick(templates("ed.2", "l")))
    _clinical_body(n, (2, 4))
    _section(
        n,
        n.pick(["ED Course", "MDM"]),
        templates("ed.1", "l"),
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _phone_note(n: _Note) -> None:
    n.render(n.pick(["TELEPHONE ENCOUNTER\n", "Phone Note\n", "Nurse Triage Call\n"]))
    n.render(n.pick(["{pt_header}  MRN {mrn}  DOB {dob}\n", "Patient: {pt_header}\n"]))
    n.render(n.pick(templates("phone_note.2", "l")))
    for t in n.rng.sample(
        templates("phone_note.1", "l"),
        n.rng.randint(3, 6),
    ):
        n.render(t)
    n.render(n.pick(templates("phone_note.3", "l")))


def _consult(n: _Note) -> None:
    _header(n, "Consultation")
    n.render(n.pick(templates("consult.2", "l")))
    _clinical_body(n, (2, 5))
    _section(
        n,
        "Impression and Recommendations",
        templates("consult.1", "l"),
        (2, 5),
    )
    n.render(n.pick(_SIGN))


_SLOTS.update(
    {
        "rel_bare": lambda n: (lambda r: [(f"{r[0]}, ", None), (r[1], "NAME")])(
            n.pick(n.p.relatives)
        ),
        "rel_age": lambda n: [(str(n.rng.randint(40, 99)), "AGE")],
        "dr_last": lambda n: [(n.pick(n.p.doctors)[2], "DOCTOR")],
        "rn": lambda n: [(n.fake.name(), "NAME")],
        "study": lambda n: n.pick(STUDIES)[0],
    }
)

# ---------------------------------------------------------------------------------------------
# More people, places, numbers and look-alikes (issue 5 follow-up: variety for generalization)

GP_DEGREES = words("GP_DEGREES", "dl")
GENERIC_ROLES = words("GENERIC_ROLES", "l")
RELATIVE_TIMES = words("RELATIVE_TIMES", "l")
BRANDS = words("BRANDS", "l")
SCALES = words("SCALES", "l")
ICD_CODES = words("ICD_CODES", "l")
BEDS = words("BEDS", "l")
# "3/7" = three days, "2/52" = two weeks, "6/12" = six months: British and Australian shorthand
DURATIONS = words("DURATIONS", "l")
US_DURATIONS = words("US_DURATIONS", "l")


def _staff(n: _Note, form: int | None = None, role: str | None = None) -> list[Segment]:
    """A named non-physician clinician (DOCTOR = any clinician) in one of many written forms."""
    pool = [s for s in n.p.staff if role is None or s[0] == role] or n.p.staff
    r, first, last = n.pick(pool)
    word = n.pick(ROLE_WORDS[r])
    form = n.rng.randrange(10) if form is None else form
    if form == 0:
        return [(f"{r} ", None), (f"{first[0]}. {last}", "DOCTOR")]
    if form == 1:
        return [(f"{first} {last}", "DOCTOR"), (f", {r}", None)]
    if form == 2:
        return [(f"{first[0]}. {last}", "DOCTOR"), (f" {r}", None)]
    if form == 3:
        return [(first, "DOCTOR"), (f" ({r})", None)]
    if form == 4:
        return [(f"{last.upper()}, {first}", "DOCTOR"), (f" {r}", None)]
    if form == 5:
        return [(f"{first[0]}{last[0]}".upper(), "DOCTOR")]
    if form == 6:
        return [(f"{word} ", None), (first, "DOCTOR")]
    if form == 8:  # a bare first name: "handed over to Priya"
        return [(first, "DOCTOR")]
    return [(f"{word} ", None), (f"{first} {last}", "DOCTOR")]


def _staff_sig(n: _Note) -> list[Segment]:
    r, first, last = n.pick(n.p.staff)
    return n.pick(
        [
            [(f"{first} {last}", "DOCTOR"), (f", {r}", None)],
            [(f"{first[0]}. {last}", "DOCTOR"), (f" {r}", None)],
            [(f"{r} ", None), (f"{first[0]}. {last}", "DOCTOR")],
            [("/", None), (f"{first[0]}{last[0]}".lower(), "DOCTOR")],
            [("-- ", None), (f"{first[0]}{last[0]}", "DOCTOR")],
            [(f"{last}, {first}", "DOCTOR"), (f" ({r})", None)],
        ]
    )


def _other(n: _Note) -> list[Segment]:
    role, first, last = n.pick(n.p.others)
    his = "her" if n.p.sex == "F" else "his"
    return n.pick(
        [
            [(f"{his} {role} ", None), (f"{first} {last}", "NAME")],
            [(f"{his} {role}, ", None), (first, "NAME")],
            [(f"{first} {last}", "NAME"), (f" ({role})", None)],
            [(f"{role} ", None), (f"{last.upper()}, {first}", "NAME")],
            [
                (f"{his} {role} ", None),
                (n.pick(["Mr. ", "Ms. ", "Mrs. ", "Mr ", "Ms "]), None),
            ]
            + [(last, "NAME")],
        ]
    )


def _gov_id(n: _Note) -> list[Segment]:
    if n.p.region == "US":
        return [
            (n.pick(["SSN: ", "Social Security #: ", "SS#: "]), None),
            (_ssn(n), "SSN"),
        ]
    name, value, label = n.pick(n.p.national)
    return [(f"{name}{n.pick([': ', ' '])}", None), (value, label)]


def _bleep(n: _Note) -> list[Segment]:
    d = n.fake.numerify(n.pick(["####", "#####", "#-####", "###"]))
    head = n.pick(words("bleep.1", "l"))
    if head == "x":  # written glued, the x is part of the number: "x4410"
        return [(head + d, "PHONE")]
    return [(head, None), (d, "PHONE")]


def _phone_any(n: _Note) -> list[Segment]:
    local = W.phone(n.world, n.rng, n.p.region) if n.chance(0.8) else None
    return [(local or _phone_format(n, n.fake.numerify("##########")), "PHONE")]


def _org_of(n: _Note, kind: str) -> list[Segment]:
    region, city = n.p.region, n.p.city
    if kind == "insurer":
        return [(n.pick(W.INSURERS[region]), "ORGANIZATION")]
    if kind == "pharmacy":
        if n.chance(0.5):
            return [(n.pick(W.PHARMACIES[region]), "ORGANIZATION")]
        name = n.pick(templates("org_of.1", "l"))
        return [(name.format(last=n.fake.last_name(), city=city), "ORGANIZATION")]
    if kind == "church":
        form = n.pick(templates("org_of.2", "l"))
        return [
            (
                form.format(first=n.fake.first_name(), city=city, last=n.fake.last_name()),
                "ORGANIZATION",
            )
        ]
    if kind == "school":
        form = n.pick(W.ORGANIZATION_FORMS[3:9])
        return [
            (
                form.format(last=n.fake.last_name(), city=city, first=n.fake.first_name()),
                "ORGANIZATION",
            )
        ]
    return [(W.organization(n.world, n.rng, region, city), "ORGANIZATION")]


_SLOTS.update(
    {
        "rn": lambda n: _staff(n, n.pick([1, 2, 7])),
        "staff": lambda n: _staff(n),
        "staff_sig": _staff_sig,
        "staff_init": lambda n: _staff(n, 5),
        "nurse": lambda n: _staff(n, role="RN"),
        "physio": lambda n: _staff(n, n.pick([1, 3, 6, 7]), role=n.pick(["PT", "OT"])),
        "sw": lambda n: _staff(n, n.pick([1, 6, 7]), role=n.pick(["LCSW", "MSW"])),
        "pharmacist": lambda n: _staff(n, n.pick([1, 6, 7]), role="PharmD"),
        "dietitian": lambda n: _staff(n, n.pick([1, 6, 7]), role="RD"),
        "midwife": lambda n: _staff(n, n.pick([1, 3, 7]), role="RM"),
        "other": _other,
        "nick": lambda n: n.patient_name("nick"),
        "gp_degree": lambda n: n.pick(GP_DEGREES[n.p.region]),
        "dr_plain": lambda n: [(f"{n.attending[0]} {n.attending[2]}", "DOCTOR")],
        "pt_initials": lambda n: n.patient_name("initials"),
        "pt_any": lambda n: n.patient_name(
            n.pick(["full", "formal", "first", "initial", "lastfirst", "caps_last", "nick"])
        ),
        "gov_id": _gov_id,
        "nat_id": lambda n: (lambda t: [(f"{t[0]} ", None), (t[1], t[2])])(n.pick(n.p.national)),
        "practice": lambda n: [(n.p.practice, "HOSPITAL")],
        "org": lambda n: [(n.p.org, "ORGANIZATION")],
        "insurer": lambda n: _org_of(n, "insurer"),
        "pharmacy": lambda n: _org_of(n, "pharmacy"),
        "school": lambda n: _org_of(n, "school"),
        "church": lambda n: _org_of(n, "church"),
        "org2": lambda n: _org_of(n, "any"),
        "rel_prof": lambda n: [(_profession(n.fake), "PROFESSION")],
        "i_past": lambda n: n.informal_date(n.past()),
        "i_admit": lambda n: n.informal_date(n.admit),
        "i_follow": lambda n: n.informal_date(n.followup),
        "bleep": _bleep,
        "phone_l": _phone_any,
        "npi": lambda n: [(W.npi(n.rng), "ID")],
        "group": lambda n: [(n.fake.bothify(n.pick(["GRP-#####", "######", "G#######"])), "ID")],
        "claim": lambda n: [(n.fake.bothify(n.pick(["CLM########", "##-#######-##"])), "ID")],
        "rx": lambda n: [(n.fake.numerify(n.pick(["#######", "RX######", "##-#####"])), "ID")],
        "age_sex": _age_sex,
        "score": lambda n: n.pick(SCALES),
        "bed": lambda n: n.pick(BEDS),
        "duration": lambda n: n.pick(DURATIONS if n.p.region != "US" else US_DURATIONS),
        "icd": lambda n: n.pick(ICD_CODES),
        "role": lambda n: n.pick(GENERIC_ROLES),
        "when": lambda n: n.pick(RELATIVE_TIMES),
        "brand": lambda n: n.pick(BRANDS),
        "dressing": lambda n: n.pick(["Mepilex Border", "Tegaderm dressing", "Allevyn foam"]),
        "supplement": lambda n: n.pick(["Ensure Plus", "Fortisip", "Fortijuce", "Boost"]),
        "inr": lambda n: f"INR {n.rng.uniform(0.9, 4.5):.1f}",
        "bp": lambda n: f"BP {n.rng.randint(90, 185)}/{n.rng.randint(50, 105)}",
        "power": lambda n: f"{n.rng.randint(2, 5)}/5",
        "cm_country": lambda n: [(W.COUNTRY_NAMES[n.p.region], "COUNTRY")],
    }
)


def _sign_any(n: _Note, staff: bool) -> None:
    if staff:
        n.render(n.pick(templates("sign_any.1", "l")))
    else:
        n.render(n.pick(_SIGN))


def _lines(n: _Note, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    for i, t in enumerate(n.rng.sample(items, min(len(items), n.rng.randint(*k)))):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _mini_header(n: _Note, title: str) -> None:
    n.w.add(
        n.pick(
            [
                f"{title.upper()}\n",
                f"{title}\n",
                f"== {title} ==\n",
                f"{title.upper()}: ",
            ]
        )
    )
    n.render(n.pick(templates("mini_header.1", "l")))
    n.render(n.pick(templates("mini_header.2", "l")))


def _nursing(n: _Note) -> None:
    _mini_header(n, n.pick(["Nursing Note", "Nursing Progress Note", "Shift Report", "RN Note"]))
    _lines(
        n,
        templates("nursing.1", "l"),
        (4, 9),
    )
    _sign_any(n, True)


def _icu(n: _Note) -> None:
    _mini_header(n, n.pick(["ICU Progress Note", "MICU Daily Note", "Critical Care Ward Round"]))
    n.render("Day {n} of ICU stay. Admitted {admit} from {hosp2}.\n")
    for title, items in [
        ("Neuro", templates("icu.1", "l")),
        ("CVS", ["{bp} on noradrenaline 0.08 mcg/kg/min. ", "SR 88, lactate 1.9. "]),
        (
            "Resp",
            ["Intubated, PS 10/5, FiO2 0.35. ", "Extubated {when} to HFNC 40L/0.4. "],
        ),
        ("Renal", ["UO 0.6 mL/kg/h. Cr {n}.1. ", "CRRT running, net -100 mL/h. "]),
        (
            "ID",
            [
                "Day {n} {drug}. Cultures from {i_admit} pending. ",
                "Afebrile. WCC falling. ",
            ],
        ),
        (
            "Heme",
            ["{inr}, Hb 8.1. ", "DVT prophylaxis with heparin 5000 units SC BID. "],
        ),
        (
            "Lines",
            [
                "R IJ CVC ({i_past}), art line L radial. {device_name}. ",
                "PICC in situ. ",
            ],
        ),
    ]:
        n.w.add(n.pick([f"{title}: ", f"{title.upper()} - ", f"- {title}: "]))
        n.render(n.pick(items))
        n.w.add("\n")
    n.render(n.pick(templates("icu.2", "l")))
    _sign_any(n, n.chance(0.3))


def _operative(n: _Note) -> None:
    _header(n, n.pick(["Operative Report", "Operation Note", "Brief Op Note"]))
    n.render(n.pick(templates("operative.3", "l")))
    n.render("Surgeon: {dr_sig}\nAssistant: {dr}\n")
    n.render(n.pick(["Anaesthetist: {dr}\n", "Anesthesia: {dr}, general endotracheal\n"]))
    n.render(n.pick(templates("operative.4", "l")))
    n.render("\nPreoperative diagnosis: {dx}\nProcedure: {proc}\n")
    _section(
        n,
        n.pick(["Findings", "Operative Findings"]),
        templates("operative.1", "l"),
        (3, 6),
    )
    _section(
        n,
        "Post-op plan",
        templates("operative.2", "l"),
        (2, 3),
    )
    n.render(n.pick(_SIGN))


def _psychiatry(n: _Note) -> None:
    _header(
        n,
        n.pick(["Psychiatric Assessment", "Psychiatry Consult", "Mental Health Review"]),
    )
    _section(
        n,
        "History",
        templates("psychiatry.1", "l"),
        (4, 7),
    )
    _section(
        n,
        n.pick(["Mental State Examination", "MSE"]),
        templates("psychiatry.2", "l"),
        (3, 5),
    )
    _section(
        n,
        "Risk and plan",
        templates("psychiatry.3", "l"),
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _paediatric(n: _Note) -> None:
    _header(
        n,
        n.pick(["Paediatric Clinic Letter", "Pediatric Well Child Visit", "Paeds Review"]),
    )
    _section(
        n,
        "History",
        templates("paediatric.1", "l"),
        (4, 7),
    )
    _section(
        n,
        "Examination",
        [
            "Weight 14.2 kg (50th centile), height 96 cm (25th centile). ",
            "Alert, interactive. Chest clear. ",
            "Gross motor and fine motor appropriate for age. ",
            "Ears: grommet in situ R. ",
        ],
        (2, 4),
    )
    _section(
        n,
        "Plan",
        templates("paediatric.2", "l"),
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _palliative(n: _Note) -> None:
    _mini_header(n, n.pick(["Palliative Care Review", "Hospice Visit", "Supportive Care Note"]))
    _lines(
        n,
        templates("palliative.1", "l"),
        (4, 8),
    )
    _sign_any(n, n.chance(0.5))


def _therapy(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(
            [
                "Physiotherapy Note",
                "Occupational Therapy Assessment",
                "PT Treatment Note",
            ]
        ),
    )
    _lines(
        n,
        templates("therapy.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _social_work(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(["Social Work Assessment", "Social Work Progress Note", "Case Management"]),
    )
    _lines(
        n,
        templates("social_work.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _pharmacy(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(["Medication Reconciliation", "Pharmacy Note", "Medicines Reconciliation"]),
    )
    n.render(n.pick(templates("pharmacy.2", "l")))
    n.w.add(n.pick(["\nDrug | Dose | Freq | Comment\n", "\nMEDICATION LIST\n", "\nMeds:\n"]))
    for _ in range(n.rng.randint(3, 7)):
        n.render(n.pick(templates("pharmacy.3", "l")))
    _lines(
        n,
        templates("pharmacy.1", "l"),
        (1, 3),
    )
    n.render(n.pick(["\n{pharmacist}\n", "\nReconciled by {pharmacist} {h_admit}\n"]))


def _letter(n: _Note) -> None:
    """Letters to the patient, an insurer or an employer."""
    n.render("{hosp}\n{hosp_address}\n")
    n.render(n.pick(templates("letter.2", "l")))
    n.render("\n{h_admit}\n\n")
    to = n.pick(["patient", "insurer", "employer"])
    if to == "patient":
        n.render("{pt_full}\n{address}\n\nOur ref: {mrn}\n\nDear {pt_formal},\n\n")
        body = templates("letter.1", "l")
    elif to == "insurer":
        n.render("{insurer}\nClaims Department\n\nRe: {pt_header}, member ID {member}, DOB {dob}\n")
        n.render("Medical record number: {mrn}\n\n")
        n.w.add("To whom it may concern,\n\n")
        body = templates("letter.3", "l")
    else:
        n.render("HR Department\n{org}\n\nRe: {pt_full} (our ref. {mrn})\n\nDear Sir or Madam,\n\n")
        body = templates("letter.4", "l")
    _lines(n, body, (2, len(body)))
    n.render(n.pick(["\n\nYours sincerely,\n\n{dr_sig}\n", "\n\nKind regards,\n{dr_sig}\n"]))
    if n.chance(0.4):
        n.render("cc: {pcp}; {practice}\n")


def _gp_referral(n: _Note) -> None:
    """A GP letter in the conventions of the UK, Ireland, Australia, New Zealand and Canada."""
    n.render("{practice}\n{hosp_address}\n")
    n.render(n.pick(templates("gp_referral.2", "l")))
    n.render("\n{h_admit}\n\n")
    n.render(n.pick(templates("gp_referral.3", "l")))
    n.render(n.pick(templates("gp_referral.4", "l")))
    n.render(n.pick(templates("gp_referral.5", "l")))
    _lines(
        n,
        templates("gp_referral.1", "l"),
        (4, 8),
    )
    n.render(n.pick(templates("gp_referral.6", "l")))
    if n.chance(0.5):
        n.render("cc: {pt_full}, {address}\n")


def _signout(n: _Note) -> None:
    n.render(n.pick(templates("signout.1", "l")))
    for _ in range(n.rng.randint(2, 5)):
        n.render(n.pick(templates("signout.4", "l")))
        _lines(
            n,
            templates("signout.2", "l"),
            (1, 3),
        )
        n.w.add("\n")
    n.render(n.pick(templates("signout.3", "l")))


def _thread(n: _Note) -> None:
    """A pager or secure-chat thread: time-stamped lines, speakers named by bare names."""
    n.render(n.pick(templates("thread.1", "l")))
    speakers = [_staff(n, 8), _staff(n, 8), [(n.attending[2], "DOCTOR")]]
    for k in range(n.rng.randint(4, 9)):
        head: list[Segment] = [(f"{n.rng.randint(0, 23):02d}:{n.rng.randint(0, 59):02d} ", None)]
        if k == 0 and n.chance(0.5):
            head = n.month_day(n.admit) + [(" ", None)] + head
        who = n.pick(speakers)
        if n.chance(0.3):
            who = [(n.pick(["Dr ", "RN ", "Dr. ", ""]), None)] + who
        for text, label in head + who:
            n.w.add(text, label)
        n.w.add(n.pick([": ", " - ", " > "]))
        n.render(n.pick(templates("thread.2", "l")))


def _home_health(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(["Home Health Visit", "District Nurse Visit", "Community Nursing Note"]),
    )
    _lines(
        n,
        templates("home_health.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _registration(n: _Note) -> None:
    n.w.add(
        n.pick(
            [
                "PATIENT REGISTRATION\n",
                "Demographics\n",
                "NEW PATIENT REGISTRATION FORM\n",
            ]
        )
    )
    n.render(n.pick(templates("registration.2", "l")))
    n.render(n.pick(["Surname: {pt_last}\nForename(s): {pt_first}\n", "Name: {pt_header}\n"]))
    fields = templates("registration.1", "l")
    for t in fields:
        if n.chance(0.7):
            n.render(t)


def _lab(n: _Note) -> None:
    n.w.add(n.pick(["LABORATORY REPORT\n", "Clinical Chemistry\n", "Haematology Report\n"]))
    n.render("{hosp}\n")
    n.render(n.pick(templates("lab.1", "l")))
    n.render(n.pick(templates("lab.2", "l")))
    n.render("Collected: {h_admit} {time}   Reported: {h_discharge}\n")
    n.render("Requested by: {dr} ({practice})\n\n")
    n.w.add("Test            Result   Units     Ref range\n")
    r = n.rng
    for name, lo, hi, unit, ref in [
        ("Sodium", 128, 146, "mmol/L", "135-145"),
        ("Potassium", 3, 6, "mmol/L", "3.5-5.3"),
        ("Creatinine", 50, 250, "umol/L", "45-90"),
        ("Haemoglobin", 80, 160, "g/L", "115-165"),
        ("WBC", 3, 18, "x10^9/L", "4.0-11.0"),
        ("Platelets", 90, 450, "x10^9/L", "150-400"),
        ("CRP", 1, 200, "mg/L", "<5"),
        ("INR", 1, 4, "", "0.8-1.2"),
        ("TSH", 0, 9, "mU/L", "0.27-4.2"),
    ]:
        if r.random() < 0.6:
            flag = " H" if r.random() < 0.2 else ""
            n.w.add(f"{name:<16}{r.randint(lo, hi)}{flag:<6} {unit:<9} {ref}\n")
    n.render(n.pick(templates("lab.3", "l")))


def _discharge_letter(n: _Note) -> None:
    n.render("{hosp}\n{service}\n")
    n.render(n.pick(templates("discharge_letter.2", "l")))
    n.render("\nDISCHARGE LETTER\n" if n.chance(0.5) else "\nDischarge Summary to GP\n")
    n.render("To: {pcp}, {practice}\n")
    n.render(
        n.pick(
            [
                "Patient: {pt_header}  DOB {dob}  {nat_id}  MRN {mrn}\n",
                "{pt_header}, {address}\nHosp No {mrn}\n",
            ]
        )
    )
    n.render("Admitted: {h_admit}   Discharged: {h_discharge}\nConsultant: {att}\n\n")
    _lines(
        n,
        templates("discharge_letter.1", "l"),
        (4, 8),
    )
    n.render(n.pick(_SIGN))


_BUILDERS: dict[str, Callable[[_Note], None]] = {
    "admission": _admission,
    "discharge": _discharge,
    "progress": _progress,
    "referral": _referral,
    "radiology": _radiology,
    "pathology": _pathology,
    "ed": _ed,
    "phone": _phone_note,
    "consult": _consult,
    "nursing": _nursing,
    "icu": _icu,
    "operative": _operative,
    "psychiatry": _psychiatry,
    "paediatric": _paediatric,
    "palliative": _palliative,
    "therapy": _therapy,
    "social_work": _social_work,
    "pharmacy": _pharmacy,
    "letter": _letter,
    "gp_referral": _gp_referral,
    "signout": _signout,
    "thread": _thread,
    "home_health": _home_health,
    "registration": _registration,
    "lab": _lab,
    "discharge_letter": _discharge_letter,
}
_KIND_WEIGHTS = {
    "admission": 3,
    "discharge": 3,
    "progress": 3,
    "referral": 2,
    "radiology": 2,
    "pathology": 1,
    "ed": 2,
    "phone": 1,
    "consult": 2,
    "nursing": 3,
    "icu": 2,
    "operative": 2,
    "psychiatry": 2,
    "paediatric": 8,  # drawn for children only
    "palliative": 1,
    "therapy": 2,
    "social_work": 2,
    "pharmacy": 2,
    "letter": 2,
    "gp_referral": 3,
    "signout": 2,
    "thread": 2,
    "home_health": 2,
    "registration": 2,
    "lab": 2,
    "discharge_letter": 2,
}


def _make_faker(locale: str, seed: int) -> Faker:
    try:
        fake = Faker(locale)
    except AttributeError as exc:
        raise OptionError(f"unknown Faker locale {locale!r}") from exc
    if not hasattr(fake, "state_abbr") or not hasattr(fake, "zipcode"):
        raise OptionError(f"locale {locale!r} has no US-style states and ZIP codes; use en_US")
    fake.seed_instance(seed)
    return fake


def _write_note(
    p: Patient, kind: str, fake: Faker, rng: random.Random, doc_id: str, world: Faker
) -> Document:
    n = _Note(p, kind, fake, rng, world)
    _BUILDERS[kind](n)
    text, spans = n.w.finish(_draw_style(rng, kind), rng)
    return Document(doc_id, text, spans, p.id, {"type": kind})


def _check_n(n: int, name: str) -> None:
    if not isinstance(n, int) or n < 0:
        raise OptionError(f"{name} must be a whole number ≥ 0, got {n!r}")


def _generate(
    rows: list[Mapping], per: int, seed: int, locale: str, kinds, invented: bool
) -> list[Document]:
    kinds = tuple(kinds or NOTE_TYPES)
    from hidekit.text.synthesis.general import (
        GENERAL_TYPES,
    )  # registers the general-PII kinds

    known = (*NOTE_TYPES, *GENERAL_TYPES)
    unknown = [k for k in kinds if k not in _BUILDERS]
    if unknown:
        raise OptionError(f"unknown note type {unknown[0]!r} (known: {', '.join(known)})")
    fake, rng = _make_faker(locale, seed), random.Random(seed)
    world = W.world_faker(seed)
    weights = [_KIND_WEIGHTS[k] for k in kinds]
    docs = []
    for i, row in enumerate(rows):
        pid = f"P{i + 1:05d}" if invented else str(row.get("record_id", i + 1))
        p = new_patient(fake, rng, pid, row, world)
        for j in range(per):
            kind = rng.choices(kinds, weights)[0]
            for _ in range(3):  # a paediatric note is about a child
                if kind != "paediatric" or p.age < 18:
                    break
                kind = rng.choices(kinds, weights)[0]
            doc_id = f"note-{i + 1:05d}" if invented and per == 1 else f"note-{pid}-{j + 1:02d}"
            docs.append(_write_note(p, kind, fake, rng, doc_id, world))
    return docs


def generate_patient_notes(
    rows: Iterable[Mapping],
    notes_per_patient: int = 3,
    seed: int = 0,
    locale: str = "en_US",
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``notes_per_patient`` notes for each row (dicts, or a DataFrame whose records are used).

    Known keys are used as given (``record_id`` → MRN, ``name``, ``sex``, ``age``,
    ``birth_date``, ``visit_date``, ``ssn``, ``phone``, ``email``, ``street_address``, ``city``,
    ``state``, ``zip``, ``diagnosis``); the rest is invented. ``Document.patient`` is the row's
    ``record_id`` (or its position), so notes link back to the table.
    """
    _check_n(notes_per_patient, "notes_per_patient")
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    return _generate(rows, notes_per_patient, seed, locale, kinds, invented=False)


def generate_notes(
    n: int,
    seed: int = 0,
    locale: str = "en_US",
    patients=None,
    notes_per_patient: int = 1,
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``n`` notes; the same seed gives the same corpus (for one Faker version).

    Without ``patients`` each run of ``notes_per_patient`` notes shares one invented patient
    (``Document.patient`` "P00001", …); with ``patients`` (rows as in
    ``generate_patient_notes``) the notes are spread over the rows, in order.
    """
    _check_n(n, "n")
    _check_n(notes_per_patient, "notes_per_patient")
    per = max(1, notes_per_patient)
    if patients is not None:
        rows = patients.to_dict("records") if hasattr(patients, "to_dict") else list(patients)
        if not rows:
            raise OptionError("patients is empty: no row to write notes about")
        per = max(1, -(-n // len(rows)))
        return _generate(rows[: -(-n // per)], per, seed, locale, kinds, invented=False)[:n]
    return _generate([{}] * -(-n // per), per, seed, locale, kinds, invented=True)[:n]


def write_synthetic_corpus(
    n: int,
    seed: int,
    out_path,
    fmt: str = "brat",
    notes_per_patient: int = 1,
    patients=None,
    locale: str = "en_US",
    overwrite: bool = False,
) -> dict:
    """Generate and write a corpus (brat folder, or JSONL); a JSON-ready summary.

    ``patients``: a table file (CSV, Parquet, …) whose rows the notes are about."""
    from collections import Counter
    from pathlib import Path

    from hidekit.errors import InputError
    from hidekit.io.atomic import atomic_dir, check_output_dir, check_output_file
    from hidekit.text.corpus import write_brat_dir, write_jsonl

    out_path = Path(out_path)
    if fmt not in ("brat", "jsonl"):
        raise OptionError(f"unknown format {fmt!r} (brat or jsonl)")
    protect = (patients,)
    one_file = fmt == "jsonl" and out_path.suffix == ".jsonl"
    if one_file:
        check_output_file(out_path, protect)
    else:
        check_output_dir(out_path, overwrite=overwrite, protect=protect)
    if n < 1:
        raise OptionError(f"--n must be at least 1, got {n}")
    rows = None
    if patients is not None:
        from hidekit.io import read_table

        rows = read_table(patients).frame
        if len(rows) == 0:
            raise InputError(f"{patients}: the table has no rows")
    docs = generate_notes(n, seed, locale, patients=rows, notes_per_patient=notes_per_patient)
    if one_file:
        if out_path.exists() and not overwrite:
            raise OptionError(f"{out_path} exists (use --overwrite)")
        target = write_jsonl(docs, out_path)
    else:
        with atomic_dir(out_path, overwrite=overwrite, protect=protect) as tmp:
            if fmt == "brat":
                write_brat_dir(docs, tmp)
            else:
                write_jsonl(docs, tmp / "notes.jsonl")
        target = out_path if fmt == "brat" else out_path / "notes.jsonl"
    labels = Counter(s.label for d in docs for s in d.spans)
    return {
        "documents": len(docs),
        "patients": len({d.patient for d in docs}),
        "characters": sum(len(d.text) for d in docs),
        "spans": sum(labels.values()),
        "by_label": dict(sorted(labels.items())),
        "seed": seed,
        "format": fmt,
        "out": str(target),
    }
