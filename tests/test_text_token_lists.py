"""``features.token_lists`` (built by ``re.split`` and one case-cut scan of the whole text) gives
the tokens of the plain definition: each ``_TOKEN`` match, cut where the case changes inside a
mixed-case word of four characters or more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.text.detection.features import _CASE_SPLIT, token_lists
from hidekit.text.detection.tokenize import _TOKEN
from hidekit.text.synthesis import generate_notes


def reference(text: str) -> tuple[list[str], list[int], list[int]]:
    texts, starts, ends = [], [], []
    for m in _TOKEN.finditer(text):
        w, s = m.group(), m.start()
        cuts = []
        if not (len(w) < 4 or w.isupper() or w.islower() or w.isdigit()):
            cuts = [c.start() for c in _CASE_SPLIT.finditer(w)]
        prev = 0
        for c in [*cuts, len(w)]:
            if c > prev:
                texts.append(w[prev:c])
                starts.append(s + prev)
                ends.append(s + c)
            prev = c
    return texts, starts, ends


ALPHABET = "aAbBzZºªÁáÑñÜüÉé_-'’ 19\n\t.,McDonaldǅǈ日"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_token_lists_equal_the_plain_definition(text):
    assert token_lists(text) == reference(text)


def test_token_lists_on_notes_and_a_known_cut():
    for d in generate_notes(20, seed=8):
        assert token_lists(d.text) == reference(d.text)
    texts, starts, ends = token_lists("MartínezNºCol aBc McDonald")
    assert texts == ["Martínez", "Nº", "Col", "aBc", "Mc", "Donald"]
    assert (starts[2], ends[2]) == (10, 13)
