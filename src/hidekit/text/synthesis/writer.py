"""Text segments (labelled or not) and the style a note is written in: ``_Writer.finish`` applies
the style (capitals, abbreviations, typos, run-on sentences) to the text between spans only,
so span offsets stay exact."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from hidekit.text.spans import Span
from hidekit.text.synthesis.data_files import words

Segment = tuple[str, str | None]


_ABBREVIATIONS = words("_ABBREVIATIONS", "lt")
_ABBREV_RE = [(re.compile(a), b) for a, b in _ABBREVIATIONS]
_WORD = re.compile(r"\b[a-z]{5,}\b")
_SENTENCE_END = re.compile(r"(?<=[a-z]{3})\. (?=[A-Z])")


@dataclass
class _Style:
    """How carelessly a note is written; applied to the text between spans only."""

    caps: bool = False  # whole note in capitals (old systems, some sign-out lists)
    terse: bool = False  # abbreviations, lower-case names
    typo_rate: float = 0.0  # per long word
    runon: float = 0.0  # share of sentence ends joined with a comma or a dash


def _draw_style(rng: random.Random, kind: str) -> _Style:
    terse_kinds = words("draw_style.1", "t")
    return _Style(
        caps=rng.random() < (0.25 if kind == "signout" else 0.05),
        terse=rng.random() < (0.6 if kind in terse_kinds else 0.15),
        typo_rate=rng.choice([0.0, 0.0, 0.01, 0.03]),
        runon=rng.choice([0.0, 0.0, 0.0, 0.3, 0.6]),
    )


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 2)
    r = rng.random()
    if r < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if r < 0.7:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


class _Writer:
    """Collects text segments (labelled or not); ``finish`` applies a style to the unlabelled
    text and records every span at the exact offsets of the final text."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []

    def add(self, text: str, label: str | None = None) -> None:
        if text:
            self.segments.append((text, label))

    def _gap(self, text: str, style: _Style, rng: random.Random) -> str:
        if style.terse:
            for rx, short in _ABBREV_RE:

                def shorten(m: re.Match, s: str = short) -> str:
                    return s if rng.random() < 0.7 else m.group()

                text = rx.sub(shorten, text)
        if style.typo_rate:
            text = _WORD.sub(
                lambda m: _typo(m.group(), rng) if rng.random() < style.typo_rate else m.group(),
                text,
            )
        if style.runon:
            text = _SENTENCE_END.sub(
                lambda m: (
                    rng.choice([", ", " - ", "; ", ",  "])
                    if rng.random() < style.runon
                    else m.group()
                ),
                text,
            )
        return text

    def finish(self, style: _Style, rng: random.Random) -> tuple[str, list[Span]]:
        merged: list[list] = []
        for text, label in self.segments:
            if label is None and merged and merged[-1][1] is None:
                merged[-1][0] += text
            else:
                merged.append([text, label])
        parts, spans, pos = [], [], 0
        for text, label in merged:
            if label is None:
                text = self._gap(text, style, rng)
            elif style.terse and label in ("NAME", "DOCTOR", "CITY") and rng.random() < 0.1:
                text = text.lower()
            if style.caps and len(text.upper()) == len(text):
                text = text.upper()
            if label is not None:
                spans.append(Span(pos, pos + len(text), label, text, "synth"))
            parts.append(text)
            pos += len(text)
        return "".join(parts), spans
