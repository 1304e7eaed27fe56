"""Person names and street words from Faker's locale data, loaded offline (no typed lists).

Faker ships its providers as Python modules; we read their tuples directly, so the scanner knows
some 30,000 first names and 28,000 family names from 80+ locales, and the street types of the
English, Spanish and French address providers.
"""

from __future__ import annotations

import importlib
import pkgutil
import unicodedata
from functools import lru_cache

# USPS abbreviations and their Spanish/French counterparts: Faker spells street types out.
_STREET_ABBREVIATIONS = {
    "st",
    "ave",
    "av",
    "rd",
    "dr",
    "ln",
    "blvd",
    "ct",
    "pl",
    "hwy",
    "pkwy",
    "ter",
    "cir",
    "sq",
    "trl",
    "apt",
    "ste",
    "suite",
    "c",
    "cl",
    "avda",
    "pza",
    "ctra",
    "bd",
    "bvd",
    "imp",
    "ch",
    "carrera",
    "cra",
    "kr",
    "diagonal",
    "transversal",
    "rue",
    "allee",
    "impasse",
    "chemin",
    "route",
    "quai",
    "place",
    "calle",
    "avenida",
    "camino",
    "carretera",
    "paseo",
    "plaza",
}
_ADDRESS_LOCALES = ("en_US", "en_GB", "es_ES", "es_MX", "fr_FR", "fr_CA")


def fold(text: str) -> str:
    """Lower case without accents: 'Sigfrødr' and 'SIGFRØDR' compare equal."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def _tuple_attr(cls, name: str) -> list[str]:
    value = cls.__dict__.get(name)
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    return []  # some locales compute lists in properties: skip them


@lru_cache(maxsize=1)
def person_names() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, family names), folded, from every Faker person locale."""
    import faker.providers.person as person

    first: set[str] = set()
    last: set[str] = set()
    for info in pkgutil.iter_modules(person.__path__):
        try:
            cls = importlib.import_module(f"{person.__name__}.{info.name}").Provider
        except Exception:  # pragma: no cover - a broken locale must not break the scan
            continue
        for attr in ("first_names", "first_names_male", "first_names_female"):
            first.update(fold(n) for n in _tuple_attr(cls, attr))
        last.update(fold(n) for n in _tuple_attr(cls, "last_names"))
    return frozenset(first), frozenset(last)


@lru_cache(maxsize=1)
def street_words() -> frozenset[str]:
    """Street types (Avenue, Calle, rue, ...) from Faker's address providers, plus abbreviations."""
    words = set(_STREET_ABBREVIATIONS)
    for loc in _ADDRESS_LOCALES:
        try:
            cls = importlib.import_module(f"faker.providers.address.{loc}").Provider
        except Exception:  # pragma: no cover
            continue
        for attr in ("street_suffixes", "street_prefixes"):
            for w in _tuple_attr(cls, attr):
                words.add(fold(w).rstrip("."))
    return frozenset(w for w in words if w)
