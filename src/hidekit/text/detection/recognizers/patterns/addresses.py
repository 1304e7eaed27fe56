"""Street-address recognizers; street types and prefixes come from Faker's locale data."""

from __future__ import annotations

from faker.providers.address import en_US as _addr_en
from faker.providers.address import es_ES as _addr_es

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.common import _CAP, CS, _alt

# ---------------------------------------------------------------- street addresses
_SUFFIX_EN = list(_addr_en.Provider.street_suffixes) + [
    "St",
    "Ave",
    "Rd",
    "Blvd",
    "Ln",
    "Dr",
    "Ct",
    "Pl",
    "Ter",
    "Cir",
    "Pkwy",
    "Hwy",
    "Way",
    "Sq",
]
register_recognizer(
    PatternRecognizer(
        "street_en",
        "ADDRESS",
        ("en",),
        0.85,
        flags=CS,
        pattern=rf"\b\d{{1,6}}(?:\s+[NSEW]\.?)?(?:\s+(?:{_CAP}|\d+(?:st|nd|rd|th))){{1,4}}\s+(?:{_alt(_SUFFIX_EN)})\b\.?"
        r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|#)\.?\s*#?\w+)?",
    )
)
_PREFIX_ES = list(_addr_es.Provider.street_prefixes) + [
    "C/",
    "c/",
    "Avda.",
    "Avda",
    "Av.",
    "Pza.",
    "Pº",
    "Ctra.",
    "Carretera",
    "Travesía",
    "Plaza",
    "calle",
    "avenida",
    "plaza",
    "paseo",
    "Calle",
    "Paseo",
    "Camino",
]
_CONN = r"(?:de|del|la|las|los|el|y|San|Santa)"
register_recognizer(
    PatternRecognizer(
        "street_es",
        "ADDRESS",
        ("es",),
        0.85,
        flags=CS,
        pattern=rf"(?<!\w)(?:{_alt(_PREFIX_ES)})\s*(?:{_CONN}\s+)*(?:{_CAP}|\d+)(?:\s+(?:{_CONN}\s+)*{_CAP}){{0,4}}"
        r"(?:,?\s*(?:n[º°]\s*)?\d+(?:-\d+)?(?:,?\s*\d+[º°ª]\s*[A-Za-z]*)?)?",
    )
)
