"""Letter case of a text: the one judgement of a text's case, and lower-casing that keeps offsets.

The en detector reads a text judged lower case with a second model trained on lower-cased text
(``en-lower``, issue 14): in such a text capitals carry nothing, so that model must learn context.
"""

from __future__ import annotations

from collections.abc import Iterable

from hidekit.text.spans import Document, Span

LOWER_SHARE = 0.02  # a text with fewer capitals among its cased letters is lower case …
UPPER_SHARE = 0.9  # … one with more is in capitals


_ASCII_UPPER, _ASCII_LOWER = bytes(range(65, 91)), bytes(range(97, 123))


def case_counts(text: str) -> tuple[int, int]:
    """(capitals, small letters) of ``text``: its ``str.isupper`` and ``str.islower`` characters
    (counted in C when the text is ASCII)."""
    if text.isascii():
        raw = text.encode("ascii")
        n = len(raw)
        return n - len(raw.translate(None, _ASCII_UPPER)), n - len(
            raw.translate(None, _ASCII_LOWER)
        )
    return sum(map(str.isupper, text)), sum(map(str.islower, text))


def text_case(text: str) -> str:
    """ "lower", "upper" or "mixed": how the text is typed, by the share of capitals among its
    cased letters over the whole text (< 2 %: lower, > 90 %: upper). The one judgement of a
    text's case: the en detector's choice of model, the name rules (``leak_names``), the
    signature recognizers and the benchmarks' per-case figures all read it."""
    up, low = case_counts(text)
    share = up / max(1, up + low)
    return "lower" if share < LOWER_SHARE else "upper" if share > UPPER_SHARE else "mixed"


def lower_same_length(text: str) -> str:
    """``text`` in lower case, character for character: a character whose lower case is longer
    (İ) stays as it is, so every offset into ``text`` holds in the result."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def lower_documents(docs: Iterable[Document]) -> list[Document]:
    """Annotated documents lower-cased (``lower_same_length``), their spans at the same offsets."""
    out = []
    for doc in docs:
        text = lower_same_length(doc.text)
        spans = [
            Span(s.start, s.end, s.label, text[s.start : s.end], s.source, s.score)
            for s in doc.spans
        ]
        out.append(Document(doc.id, text, spans, doc.patient, dict(doc.meta)))
    return out
