"""Registered recognizers (patterns with checksums and context; Faker-derived dictionaries)."""

from hidekit.text.detection.recognizers.base import (
    RECOGNIZERS,
    PatternRecognizer,
    Recognizer,
    get_recognizers,
    register_recognizer,
)
from hidekit.text.detection.recognizers.hits import run_recognizers

__all__ = [
    "RECOGNIZERS",
    "PatternRecognizer",
    "Recognizer",
    "get_recognizers",
    "register_recognizer",
    "run_recognizers",
]
