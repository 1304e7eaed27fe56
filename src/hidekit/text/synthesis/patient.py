"""One invented (or table-given) patient: names, ages, places, contacts and the people around
them, drawn once and reused by every note about that patient."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from faker import Faker

from hidekit.text.anonymization.surrogates import HOSPITAL_FORMS, us_places
from hidekit.text.detection.recognizers.patterns.occupations import (
    COMMON_OCCUPATIONS,
    INFORMAL_OCCUPATIONS,
)
from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import words
from hidekit.text.synthesis.vocab import (
    CLINICIAN_ROLES,
    OTHER_ROLES,
    RELATIONS_F,
    RELATIONS_M,
    TRAVEL,
)


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
    first, last = _name(row, fake, g, world, rng, sex)
    age, birth, visit = _age_and_dates(row, rng)
    if region == "US":
        city, state = _city_state(fake, rng)
    else:
        city, state = W.region_city(world, rng, region)
    if row.get("city"):
        city, state = str(row["city"]), str(row.get("state") or state)
    relatives, others, doctors, staff = _people_around(g, world, rng, last)
    record = row.get("record_id")
    street, phone, zip_code, hospital = _home(row, fake, g, world, rng, region, city, state)
    email = _email(g, fake, rng, first, last)
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
        email=str(row.get("email") or email),
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


def _name(
    row: dict, fake: Faker, g: Faker, world: Faker, rng: random.Random, sex: str
) -> tuple[str, str]:
    """The row's name, else a name of the region's locale or of a drawn origin."""
    if row.get("name"):
        parts = str(row["name"]).split()
        return parts[0], " ".join(parts[1:]) or fake.last_name()
    if rng.random() < 0.35:
        first = g.first_name_female() if sex == "F" else g.first_name_male()
        return first, g.last_name()
    return W.origin_name(world, rng, sex)


def _age_and_dates(row: dict, rng: random.Random) -> tuple[int, date, date | None]:
    """Age (mostly adults, some very old, some children and infants), birth and visit dates."""
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
    return age, birth, visit


Person = tuple[str, str, str]


def _people_around(
    g: Faker, world: Faker, rng: random.Random, last: str
) -> tuple[list[Person], list[Person], list[Person], list[Person]]:
    """Relatives (relation, first, last), other people (role, first, last), doctors (first,
    middle initial, last) and other clinicians (role, first, last)."""
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
    return relatives, others, doctors, staff


def _home(
    row: dict,
    fake: Faker,
    g: Faker,
    world: Faker,
    rng: random.Random,
    region: str,
    city: str,
    state: str,
) -> tuple[str, str, str, str]:
    """Street, phone, postcode and hospital: the row's, else drawn in the region's layouts."""
    if region == "US":
        street = str(row.get("street_address") or fake.street_address())
        if not row.get("street_address") and rng.random() < 0.3:
            street = W.street(world, rng, "US")
        phone = str(row.get("phone") or fake.numerify("(###) ###-####"))
        zip_code = str(row.get("zip") or _zip_in(fake, state))
        return street, phone, zip_code, _hospital(fake, rng, city)
    street = W.street(world, rng, region)
    phone = W.phone(world, rng, region) or g.numerify("(###) ###-####")
    zip_code = W.postcode(world, region)
    return street, phone, zip_code, W.care_place(world, rng, region, city, [])


def _email(g: Faker, fake: Faker, rng: random.Random, first: str, last: str) -> str:
    """An e-mail address made of the name (drawn even when the row gives one: same draws)."""
    domain = rng.choice([fake.free_email_domain(), g.free_email_domain()])
    email_user = rng.choice(
        [
            f"{first}.{last}{rng.randint(1, 99)}",
            f"{first[0]}{last}",
            f"{first}{rng.randint(1, 9999)}",
        ]
    )
    return W.ascii_fold(f"{email_user}@{domain}").lower().replace(" ", "")
