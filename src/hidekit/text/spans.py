"""Documents and labelled character spans: the currency of every text tool."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter


@dataclass(frozen=True, order=True)
class Span:
    """A labelled range ``text[start:end]`` (end exclusive), in characters (Python str offsets)."""

    start: int
    end: int
    label: str
    text: str = field(default="", compare=False)
    source: str = field(default="", compare=False)  # which recognizer / annotator produced it
    score: float = field(default=1.0, compare=False)

    def __post_init__(self):
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad span offsets {self.start}-{self.end}")

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def to_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "label": self.label, "text": self.text}


@dataclass
class Document:
    """One text with its spans; ``patient`` groups documents of one person (None: doc = person)."""

    id: str
    text: str
    spans: list[Span] = field(default_factory=list)
    patient: str | None = None
    meta: dict = field(default_factory=dict)

    def with_spans(self, spans) -> Document:
        return Document(self.id, self.text, sort_spans(spans), self.patient, dict(self.meta))


# Span's own order (start, end, label) as a key: sorting compares tuples in C, not by __lt__
SPAN_ORDER = attrgetter("start", "end", "label")


def sort_spans(spans: Iterable[Span]) -> list[Span]:
    """``sorted(spans)``, the same order (stable), without a Python call per comparison."""
    return sorted(spans, key=SPAN_ORDER)
