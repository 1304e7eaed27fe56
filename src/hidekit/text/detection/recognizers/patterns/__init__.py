"""Pattern recognizers: regular expressions with checksums and context words, English and Spanish.

Labels are generic (DATE, AGE, PHONE, FAX, EMAIL, URL, IP, SSN, NATIONAL_ID, SOCIAL_SECURITY, MRN,
ACCOUNT, ZIP, ADDRESS, HOSPITAL, NAME); a trained model maps them to its corpus labels.
Word lists that exist in Faker's locale data (street types, states) are taken from there.

One module per kind of value. Each registers its recognizers when imported; they are imported
here in a fixed order, which is the registry's order (the order ``get_recognizers`` returns and
a trained model's features follow), whichever of them is imported first.
"""

# isort: off
from hidekit.text.detection.recognizers.patterns import common  # noqa: F401
from hidekit.text.detection.recognizers.patterns import validators  # noqa: F401
from hidekit.text.detection.recognizers.patterns import dates  # noqa: F401
from hidekit.text.detection.recognizers.patterns import contact  # noqa: F401
from hidekit.text.detection.recognizers.patterns import record_ids  # noqa: F401
from hidekit.text.detection.recognizers.patterns import ages  # noqa: F401
from hidekit.text.detection.recognizers.patterns import postal  # noqa: F401
from hidekit.text.detection.recognizers.patterns import addresses  # noqa: F401
from hidekit.text.detection.recognizers.patterns import hospitals  # noqa: F401
from hidekit.text.detection.recognizers.patterns import english_wide  # noqa: F401
from hidekit.text.detection.recognizers.patterns import occupations  # noqa: F401
from hidekit.text.detection.recognizers.patterns import organizations  # noqa: F401
from hidekit.text.detection.recognizers.patterns import spanish  # noqa: F401
# isort: on
