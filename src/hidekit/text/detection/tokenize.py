"""A tokenizer that keeps character offsets; no model needed.

Tokens are runs of letters/digits (Unicode-aware; internal apostrophes and hyphens are split off
as their own tokens) and single punctuation characters. Offsets index the original string, so
``text[t.start:t.end] == t.text`` always holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Rough sentence/line segments (newlines and . ! ? followed by space and a capital)."""
    bounds, start = [], 0
    for m in re.finditer(r"\n+|(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡])", text):
        if m.start() > start:
            bounds.append((start, m.start()))
        start = m.end()
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds
