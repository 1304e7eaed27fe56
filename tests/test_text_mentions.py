"""``consistency.mentions`` finds repeats of a name without compiling an expression per text (for
keys in ASCII): the same places as the expression it stands for."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.text.detection.consistency import mentions

FIXTURES = Path(__file__).parent / "fixtures"


def _expression(text: str, keys: list[str]) -> list[tuple[int, int]]:
    alternatives = "|".join(re.escape(k) for k in keys)
    rx = re.compile(rf"(?<![\w@./-])(?:{alternatives})(?![\w@]|[-'’.][\w])", re.IGNORECASE)
    return [m.span() for m in rx.finditer(text)]


def _keys(words: list[str]) -> list[str]:
    return sorted({w.casefold() for w in words}, key=len, reverse=True)


def test_mentions_of_fixture_names():
    keys = _keys(["smith", "smithson", "ann", "anne", "o'neil", "jean-paul", "kowalski", "li"])
    texts = [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "en-dev").glob("*.txt"))]
    texts += [
        "Smith, SMITH, smith's, Smithson, smith-jones, @smith, x.smith, Ann Anne ANNE anne-marie",
        "ſmith KOWALSKI Kowalſki İnna ınna O'NEIL o'neil's Jean-Paul JEAN-PAUL's LI li Li.",
        "annann ann ann/ann ann.ann ann- ann-x ann'x ann’ ann’s ann@ ann.",
    ]
    for text in texts:
        assert mentions(text, keys) == _expression(text, keys)


_CHARS = "aAnNsSiIkKlLoO'’-./@ _\nſıİKé"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="ansikloé'-", min_size=1, max_size=5), min_size=1, max_size=5),
    st.text(alphabet=_CHARS, max_size=60),
)
def test_mentions_are_the_expression_matches(words, text):
    keys = _keys(words)
    assert mentions(text, keys) == _expression(text, keys)
