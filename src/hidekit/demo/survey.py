"""A seeded synthetic health survey: direct identifiers, key variables and a sensitive attribute.

Realistic enough to exercise every tool (names, SSNs, phones, GPS points, ZIPs, dates, diagnoses)
and entirely fake: Faker draws the identifiers, numpy the distributions, both from one seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from faker import Faker

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
DIAGNOSES = ["Hypertension", "Type 2 diabetes", "Asthma", "Depression", "COPD", "Coronary artery disease",
             "Osteoarthritis", "Chronic kidney disease", "Migraine", "Hypothyroidism"]

DIRECT = ["name", "ssn", "phone", "email", "street_address", "latitude", "longitude"]
KEYS = ["sex", "age", "zip", "race", "marital_status", "education", "visit_date"]
SENSITIVE = "diagnosis"


def generate_survey(n: int = 2000, seed: int = 7) -> pd.DataFrame:
    """``n`` fake survey respondents; the same seed gives the same table."""
    rng = np.random.default_rng(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    sex = rng.choice(["F", "M"], size=n, p=[0.52, 0.48])
    age = np.clip(rng.gamma(5.0, 9.0, size=n).round().astype(int) + 18, 18, 104)
    place = rng.integers(0, len(PLACES), size=n)
    zips = np.array([PLACES[i][0] for i in place])
    urban = np.array([PLACES[i][5] for i in place])
    spread = np.where(urban, 0.03, 0.12)
    lat = np.array([PLACES[i][3] for i in place]) + rng.normal(0, 1, n) * spread
    lon = np.array([PLACES[i][4] for i in place]) + rng.normal(0, 1, n) * spread
    first = [fake.first_name_female() if s == "F" else fake.first_name_male() for s in sex]
    last = [fake.last_name() for _ in range(n)]
    start = np.datetime64("2023-01-01")
    visit = start + rng.integers(0, 730, size=n).astype("timedelta64[D]")
    birth = (np.datetime64("2024-06-30") - (age * 365.25).astype("timedelta64[D]")
             - rng.integers(0, 365, size=n).astype("timedelta64[D]"))
    frame = pd.DataFrame({
        "record_id": np.arange(1, n + 1),
        "name": [f"{a} {b}" for a, b in zip(first, last, strict=True)],
        "ssn": [fake.ssn() for _ in range(n)],
        "phone": [fake.numerify("(###) ###-####") for _ in range(n)],
        "email": [f"{a}.{b}{rng.integers(1, 99)}@{fake.free_email_domain()}".lower()
                  for a, b in zip(first, last, strict=True)],
        "street_address": [fake.street_address() for _ in range(n)],
        "city": [PLACES[i][1] for i in place],
        "state": [PLACES[i][2] for i in place],
        "zip": zips,
        "latitude": lat.round(5),
        "longitude": lon.round(5),
        "urban_rural": np.where(urban, "urban", "rural"),
        "sex": sex,
        "age": age,
        "birth_date": pd.to_datetime(birth).strftime("%Y-%m-%d"),
        "race": rng.choice(RACES, size=n, p=RACE_P),
        "marital_status": rng.choice(MARITAL, size=n, p=[0.33, 0.47, 0.11, 0.06, 0.03]),
        "education": rng.choice(EDUCATION, size=n, p=[0.1, 0.27, 0.28, 0.22, 0.13]),
        "visit_date": pd.to_datetime(visit).strftime("%Y-%m-%d"),
        "diagnosis": rng.choice(DIAGNOSES, size=n),
        "income": (rng.lognormal(10.8, 0.7, size=n) // 100 * 100).astype(int),
        "bmi": rng.normal(27.5, 5.0, size=n).round(1),
    })
    return frame
