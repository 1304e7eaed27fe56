"""Age recognizers: "77-year-old", "aged 77", "her 95th birthday", "77 años"."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.validators import age_valid

# ---------------------------------------------------------------- ages
register_recognizer(
    PatternRecognizer(
        "age_en",
        "AGE",
        ("en",),
        0.9,
        group="n",
        validate=age_valid,
        pattern=r"\b(?P<n>\d{1,3})(?:[\s-]*(?:years?|yrs?)[\s-]*old|\s*-?\s*(?:y/o|y\.o\.|yo|yr old|year old)(?!\w)"
        r"|[\s-]+(?:year|yr)[\s-]+old)",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_en_aged",
        "AGE",
        ("en",),
        0.85,
        group=1,
        validate=age_valid,
        pattern=r"\b(?:aged|age:?|age of)\s+(\d{1,3})\b",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_en_birthday",  # "her 95th birthday": the ordinal is the age it marks
        "AGE",
        ("en",),
        0.85,
        group=1,
        validate=age_valid,
        pattern=r"\b(\d{1,3})(?:st|nd|rd|th)\s+birthday\b",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_es",
        "AGE",
        ("es",),
        0.9,
        validate=age_valid,
        pattern=r"\b\d{1,3}\s*(?:años|a\.|meses|días|semanas)(?=\W|$)",
    )
)
register_recognizer(
    PatternRecognizer(
        "age_es_edad",
        "AGE",
        ("es",),
        0.85,
        group=1,
        validate=age_valid,
        pattern=r"\bedad(?:\s+de)?\s*:?\s*(\d{1,3})\b",
    )
)
