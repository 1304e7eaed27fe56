"""National and record identifiers: SSN, DNI/NIE, NASS, medical record and account numbers
introduced by their label."""

from __future__ import annotations

from hidekit.text.detection.recognizers.base import PatternRecognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.common import CS
from hidekit.text.detection.recognizers.patterns.validators import dni_valid, nass_valid, ssn_valid

# ---------------------------------------------------------------- national and record identifiers
register_recognizer(
    PatternRecognizer(
        "ssn",
        "SSN",
        ("en",),
        0.9,
        validate=ssn_valid,
        pattern=r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "ssn_context",
        "SSN",
        ("en",),
        0.85,
        validate=ssn_valid,
        pattern=r"(?<![\w-])\d{9}(?![\w-])",
        context=("ssn", "social security", "ss#", "soc sec"),
    )
)
register_recognizer(
    PatternRecognizer(
        "dni_nie",
        "NATIONAL_ID",
        score=0.95,
        validate=dni_valid,
        flags=CS,
        pattern=r"(?<![\w-])(?:\d{8}|[XYZ][\s-]?\d{7})[\s-]?[A-Z](?![\w-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "nass",
        "SOCIAL_SECURITY",
        ("es",),
        0.95,
        validate=nass_valid,
        pattern=r"(?<![\w/-])\d{2}[\s/-]?\d{8}[\s/-]?\d{2}(?![\w/-])",
    )
)
register_recognizer(
    PatternRecognizer(
        "nass_context",
        "SOCIAL_SECURITY",
        ("es",),
        0.8,
        pattern=r"(?<![\w/-])\d{2}[\s/-]?\d{7,8}(?:[\s/-]?\d{2})?(?![\w/-])",
        context=("nass", "seguridad social", "afiliación", "n.a.s.s", "naf"),
        window=30,
    )
)

_ID_VALUE = r"([A-Z]{0,4}[-\s]?\d[\dA-Z-]{3,15}\d|\d{4,})"
register_recognizer(
    PatternRecognizer(
        "mrn",
        "MRN",
        score=0.9,
        group=1,
        pattern=r"(?:\bMRN|\bN\.?H\.?C\.?|\bmedical record(?:\s+(?:number|no\.?|#))?|\brecord\s+(?:number|no\.?|#)"
        r"|\bhistoria\s+cl[ií]nica|\bn[º°o]\.?\s+(?:de\s+)?historia|\bchart\s+(?:number|no\.?|#)|\bpatient\s+id)"
        r"\s*(?:n[º°o]\.?|number|#)?\s*[:#.]?\s*" + _ID_VALUE,
    )
)
register_recognizer(
    PatternRecognizer(
        "account",
        "ACCOUNT",
        score=0.85,
        group=1,
        pattern=r"(?:\baccount|\bacct\.?|\bn[º°]?\s*(?:de\s+)?cuenta|\bcuenta|\bbilling|\bpolicy|\bp[óo]liza|\bmember\s+id"
        r"|\binsurance\s+(?:id|number|no\.?)|\btarjeta\s+sanitaria|\bCIP)"
        r"\s*(?:number|no\.?|n[º°]\.?|#)?\s*[:#.]?\s*" + _ID_VALUE,
    )
)
