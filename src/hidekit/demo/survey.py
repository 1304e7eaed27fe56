"""A seeded synthetic health survey: direct identifiers, key variables and a sensitive attribute.

Realistic enough to exercise every tool (names, SSNs, phones, GPS points, ZIPs, dates, diagnoses)
and entirely fake: Faker draws the identifiers, numpy the distributions, both from one seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# (zip, city, state, latitude, longitude, urban?) — real ZIP centroids, a mix of urban and rural.
PLACES = [
    ("02139", "Cambridge", "MA", 42.3647, -71.1042, True),
    ("02446", "Brookline", "MA", 42.3435, -71.1217, True),
    ("01002", "Amherst", "MA", 42.3671, -72.4646, False),
    ("01247", "North Adams", "MA", 42.6970, -73.1118, False),
    ("10027", "New York", "NY", 40.8116, -73.9530, True),
    ("11215", "Brooklyn", "NY", 40.6681, -73.9806, True),
    ("13820", "Oneonta", "NY", 42.4529, -75.0638, False),
    ("14830", "Corning", "NY", 42.1429, -77.0547, False),
    ("30322", "Atlanta", "GA", 33.7942, -84.3256, True),
    ("31794", "Tifton", "GA", 31.4505, -83.5085, False),
    ("60637", "Chicago", "IL", 41.7808, -87.6038, True),
    ("61801", "Urbana", "IL", 40.1106, -88.2073, True),
    ("62901", "Carbondale", "IL", 37.7273, -89.2168, False),
    ("77030", "Houston", "TX", 29.7070, -95.4013, True),
    ("79735", "Fort Stockton", "TX", 30.8940, -102.8793, False),
    ("94305", "Stanford", "CA", 37.4241, -122.1661, True),
    ("95521", "Arcata", "CA", 40.8665, -124.0828, False),
    ("98195", "Seattle", "WA", 47.6553, -122.3035, True),
    ("99163", "Pullman", "WA", 46.7313, -117.1796, False),
    ("59801", "Missoula", "MT", 46.8721, -113.9940, False),
]
RACES = ["White", "Black", "Asian", "American Indian", "Pacific Islander", "Other"]
RACE_P = [0.62, 0.17, 0.09, 0.03, 0.02, 0.07]
MARITAL = ["Never married", "Married", "Divorced", "Widowed", "Separated"]
EDUCATION = ["Less than high school", "High school", "Some college", "Bachelor", "Graduate"]
DIAGNOSES = [
    "Hypertension",
    "Type 2 diabetes",
    "Asthma",
    "Depression",
    "COPD",
    "Coronary artery disease",
    "Osteoarthritis",
    "Chronic kidney disease",
    "Migraine",
    "Hypothyroidism",
]

DIRECT = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]
KEYS = ["sex", "age", "zip", "race", "marital_status", "education", "visit_date"]
SENSITIVE = "diagnosis"


def _weighted(names: dict) -> tuple[np.ndarray, np.ndarray]:
    keys = np.array(list(names.keys()), dtype=object)
    w = np.array(list(names.values()), dtype=float)
    return keys, w / w.sum()


def _digits(rng: np.random.Generator, n: int, width: int, low: int = 0) -> np.ndarray:
    """``n`` zero-padded random numbers of ``width`` digits, as strings (vectorized)."""
    values = rng.integers(max(low, 0), 10**width, size=n)
    return np.char.zfill(values.astype(str), width)


def generate_survey(n: int = 2000, seed: int = 7) -> pd.DataFrame:
    """``n`` fake survey respondents; the same seed gives the same table.

    Vectorized over Faker's own name and street lists (weighted as Faker weights them), so a
    million rows take seconds, not minutes.
    """
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], size=n, p=[0.52, 0.48])
    age = np.clip(rng.gamma(5.0, 9.0, size=n).round().astype(int) + 18, 18, 104)
    place = rng.integers(0, len(PLACES), size=n)
    zips = np.array([p[0] for p in PLACES])[place]
    urban = np.array([p[5] for p in PLACES])[place]
    spread = np.where(urban, 0.03, 0.12)
    lat = np.array([p[3] for p in PLACES])[place] + rng.normal(0, 1, n) * spread
    lon = np.array([p[4] for p in PLACES])[place] + rng.normal(0, 1, n) * spread
    first, last, street = _names_and_street(rng, n, sex)
    visit, birth = _visit_and_birth(rng, n, age)
    ssn, phone = _ssn(rng, n), _phone(rng, n)
    email = _email(rng, n, first, last)
    frame = pd.DataFrame(
        {
            "record_id": np.arange(1, n + 1),
            "name": first + " " + last,
            "ssn": ssn,
            "phone": phone,
            "email": email,
            "street_address": street,
            "city": np.array([p[1] for p in PLACES], dtype=object)[place],
            "state": np.array([p[2] for p in PLACES], dtype=object)[place],
            "zip": zips.astype(object),
            "latitude": lat.round(5),
            "longitude": lon.round(5),
            "urban_rural": np.where(urban, "urban", "rural").astype(object),
            "sex": sex.astype(object),
            "age": age,
            "birth_date": pd.to_datetime(birth).strftime("%Y-%m-%d"),
            "race": rng.choice(RACES, size=n, p=RACE_P).astype(object),
            "marital_status": rng.choice(MARITAL, size=n, p=[0.33, 0.47, 0.11, 0.06, 0.03]).astype(
                object
            ),
            "education": rng.choice(EDUCATION, size=n, p=[0.1, 0.27, 0.28, 0.22, 0.13]).astype(
                object
            ),
            "visit_date": pd.to_datetime(visit).strftime("%Y-%m-%d"),
            "diagnosis": rng.choice(DIAGNOSES, size=n).astype(object),
            "income": (rng.lognormal(10.8, 0.7, size=n) // 100 * 100).astype(int),
            "bmi": rng.normal(27.5, 5.0, size=n).round(1),
        }
    )
    return frame


# The draws below are made in this order (the same seed gives the same table).
def _names_and_street(rng: np.random.Generator, n: int, sex: np.ndarray) -> tuple:
    """First and last names (by sex, weighted as Faker weights them) and street addresses."""
    from faker.providers.address.en_US import Provider as Address
    from faker.providers.person.en_US import Provider as Person

    female, pf = _weighted(Person.first_names_female)
    male, pm = _weighted(Person.first_names_male)
    lasts, pl = _weighted(Person.last_names)
    first = np.where(sex == "F", rng.choice(female, size=n, p=pf), rng.choice(male, size=n, p=pm))
    last = rng.choice(lasts, size=n, p=pl)
    street_first, _ = _weighted(Person.first_names_female | Person.first_names_male)
    street = (
        rng.integers(1, 9999, size=n).astype(str).astype(object)
        + " "
        + rng.choice(np.concatenate([lasts, street_first]), size=n)
        + " "
        + rng.choice(np.array(Address.street_suffixes, dtype=object), size=n)
    )
    return first, last, street


def _visit_and_birth(rng: np.random.Generator, n: int, age: np.ndarray) -> tuple:
    """Visit dates in 2023-2024 and birth dates that give ``age`` on 30 June 2024."""
    start = np.datetime64("2023-01-01")
    visit = start + rng.integers(0, 730, size=n).astype("timedelta64[D]")
    birth = (
        np.datetime64("2024-06-30")
        - (age * 365.25).astype("timedelta64[D]")
        - rng.integers(0, 365, size=n).astype("timedelta64[D]")
    )
    return visit, birth


def _ssn(rng: np.random.Generator, n: int) -> np.ndarray:
    area = rng.integers(1, 900, size=n)
    area = np.where(area == 666, 665, area)  # SSA never issues area 666
    return (
        np.char.zfill(area.astype(str), 3).astype(object)
        + "-"
        + _digits(rng, n, 2, 1).astype(object)
        + "-"
        + _digits(rng, n, 4, 1).astype(object)
    )


def _phone(rng: np.random.Generator, n: int) -> np.ndarray:
    return (
        "("
        + rng.integers(201, 990, size=n).astype(str).astype(object)
        + ") "
        + rng.integers(200, 999, size=n).astype(str).astype(object)
        + "-"
        + _digits(rng, n, 4).astype(object)
    )


def _email(rng: np.random.Generator, n: int, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    from faker.providers.internet.en_US import Provider as Internet

    domains = np.array(Internet.free_email_domains, dtype=object)
    return (
        np.char.lower(first.astype(str)).astype(object)
        + "."
        + np.char.lower(last.astype(str)).astype(object)
        + rng.integers(1, 99, size=n).astype(str).astype(object)
        + "@"
        + rng.choice(domains, size=n)
    )
