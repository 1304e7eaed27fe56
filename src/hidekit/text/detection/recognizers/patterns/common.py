"""Regular-expression pieces the pattern recognizers share: letter classes with Spanish accents,
a capitalized word, an alternation of words (longest first)."""

from __future__ import annotations

import re

CS = 0  # case-sensitive flags
_UP = "A-ZÁÉÍÓÚÑÜ"
_LO = "a-záéíóúñü"
_CAP = rf"[{_UP}][{_LO}{_UP}'’.-]*[{_LO}]"  # a capitalized word (at least two letters)


def _alt(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
