"""Spanish: more date and age forms (numbers written as words)."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.dates import _MES

# ---------------------------------------------------------------- Spanish: more date and age forms
_NUM_ES = (
    r"(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince"
    r"|dieciséis|diecisiete|dieciocho|diecinueve|veinte|veinti\w+|treinta|cuarenta|cincuenta|sesenta"
    r"|setenta|ochenta|noventa|cien)(?:\s+y\s+(?:un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve))?"
)
register_recognizer(
    PatternRecognizer(
        "age_es_words",
        "AGE",
        ("es",),
        0.7,
        pattern=rf"\b{_NUM_ES}\s+(?:años|meses|días|semanas)(?=\W|$)",
    )
)
register_recognizer(
    PatternRecognizer(
        "date_month_yy_es",
        "DATE",
        ("es",),
        0.8,
        pattern=rf"\b{_MES}[-/]\d{{2}}(?![\w/-])",
    )
)
