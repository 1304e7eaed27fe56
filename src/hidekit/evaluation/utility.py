"""Moved to ``hidekit.anonymize.utility`` (table utility sits next to anonymization, so the two
packages no longer import each other); this old name stays an alias of that module."""

import sys

from hidekit.anonymize import utility

sys.modules[__name__] = utility
