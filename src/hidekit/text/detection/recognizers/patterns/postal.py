"""ZIP and postal-code recognizers (US ZIP after a state, Spanish códigos postales)."""

from __future__ import annotations

from faker.providers.address import en_US as _addr_en

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.common import _LO, _UP, CS, _alt

# ---------------------------------------------------------------- ZIP and postal codes
_STATES = list(_addr_en.Provider.states) + list(_addr_en.Provider.states_abbr)
register_recognizer(
    PatternRecognizer(
        "zip_us",
        "ZIP",
        ("en",),
        0.9,
        group=1,
        flags=CS,
        pattern=rf"\b(?:{_alt(_STATES)}),?\s+(\d{{5}}(?:-\d{{4}})?)(?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "zip_context",
        "ZIP",
        ("en",),
        0.85,
        group=1,
        pattern=r"\b(?:zip|zip code|postal code)\s*[:#]?\s*(\d{5}(?:-\d{4})?)(?![\w-])",
    )
)
_CP = r"(?:0[1-9]|[1-4]\d|5[0-2])\d{3}"
register_recognizer(
    PatternRecognizer(
        "cp_es",
        "ZIP",
        ("es",),
        0.85,
        group=1,
        pattern=rf"\b(?:C\.?\s?P\.?|c[óo]digo postal|cod\.? postal)\s*[:.]?\s*({_CP})(?!\w)",
    )
)
register_recognizer(
    PatternRecognizer(
        "cp_es_city",
        "ZIP",
        ("es",),
        0.7,
        group=1,
        flags=CS,
        pattern=rf"(?<![\w,.-])({_CP})(?=[\s,-]+[{_UP}][{_LO}])",
    )
)
