"""Contact and network recognizers: e-mail, URL, IP addresses, phones and faxes (US and Spain)."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.validators import ip_valid, phone_digits_valid

# ---------------------------------------------------------------- contact and network
register_recognizer(
    PatternRecognizer(
        "email", "EMAIL", score=0.99, pattern=r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"
    )
)
register_recognizer(
    PatternRecognizer(
        "url", "URL", score=0.95, pattern=r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:)\]]"
    )
)
register_recognizer(
    PatternRecognizer(
        "ipv4",
        "IP",
        score=0.95,
        validate=ip_valid,
        pattern=r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)",
    )
)
register_recognizer(
    PatternRecognizer(
        "ipv6",
        "IP",
        score=0.95,
        validate=ip_valid,
        pattern=r"(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}(?![\w:])",
    )
)

_PHONE_US = r"(?<![\w+])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?:\s*(?:x|ext\.?)\s*\d{1,5})?(?!\w)"
_PHONE_ES = r"(?<![\w+])(?:(?:\+|00)34[\s.-]?)?[6789]\d{1,2}(?:[\s.-]?\d{2,3}){2,3}(?!\w)"
_FAX_CONTEXT = ("fax", "facsimile", "telefax", "fax no", "fax number")
register_recognizer(
    PatternRecognizer(
        "fax_us", "FAX", ("en",), 0.9, pattern=_PHONE_US, context=_FAX_CONTEXT, window=25
    )
)
register_recognizer(
    PatternRecognizer(
        "fax_es",
        "FAX",
        ("es",),
        0.9,
        pattern=_PHONE_ES,
        validate=phone_digits_valid,
        context=_FAX_CONTEXT,
        window=25,
    )
)
register_recognizer(PatternRecognizer("phone_us", "PHONE", ("en",), 0.85, pattern=_PHONE_US))
register_recognizer(
    PatternRecognizer(
        "phone_es", "PHONE", ("es",), 0.85, pattern=_PHONE_ES, validate=phone_digits_valid
    )
)
