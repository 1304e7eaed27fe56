"""Recognizers: small registered pieces that each find one kind of PHI in text.

A recognizer returns spans with generic labels (DATE, PHONE, ID, …). The CRF reads its hits as
features; a trained model also learns which recognizers are precise enough to report spans on
their own and which corpus label each maps to (see ``hidekit.text.detection.detector``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter

from hidekit.errors import OptionError
from hidekit.registry import RECOGNIZERS
from hidekit.text.detection.recognizers.gates import _gate_passes, regex_gate
from hidekit.text.detection.recognizers.scans import Scan, scan_for, scan_matches
from hidekit.text.spans import Span


@dataclass
class Recognizer:
    """Base: ``find(text)`` gives spans labelled ``label``; ``languages`` empty means any."""

    name: str
    label: str
    languages: tuple[str, ...] = ()
    score: float = 0.85

    def find(self, text: str) -> list[Span]:  # pragma: no cover - abstract
        raise NotImplementedError

    def applies_to(self, language: str | None) -> bool:
        return not self.languages or language is None or language in self.languages

    def emits(self, label: str) -> bool:
        """Whether ``label`` is one this recognizer gives (its ``label``; a family may give more)."""
        return label == self.label


@dataclass
class PatternRecognizer(Recognizer):
    """A regular expression, an optional checksum/validator, and optional context words.

    ``group`` picks the capture group that is the PHI (e.g. the number after "MRN:").
    With ``context`` set, a match counts only when one of the words appears within
    ``window`` characters before it (case-insensitive), as Presidio's context enhancer does,
    but as a requirement rather than a score boost.
    """

    pattern: str = ""
    flags: int = re.IGNORECASE
    group: int | str = 0
    validate: Callable[[str], bool] | None = None
    context: tuple[str, ...] = ()
    window: int = 40
    _rx: re.Pattern | None = field(default=None, repr=False, compare=False)
    _ctx: re.Pattern | None = field(default=None, repr=False, compare=False)

    _gate: tuple | None = field(default=None, repr=False, compare=False)
    _scan: Scan | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self._rx = re.compile(self.pattern, self.flags)
        if self.context:
            words = "|".join(re.escape(w) for w in sorted(self.context, key=len, reverse=True))
            self._ctx = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)
        self._gate = regex_gate(self._rx, context=self.context)
        self._scan = scan_for(self.pattern, self.flags)

    def gate_passes(self, text: str) -> bool:
        """False only when the pattern cannot match anywhere in ``text`` (see ``regex_gate``)."""
        return self._gate is None or _gate_passes(self._gate, text)

    def find(self, text: str) -> list[Span]:
        if self._gate is not None and not _gate_passes(self._gate, text):
            return []
        found = []
        group = self.group
        for m, s, e in scan_matches(self._scan, text):
            if group != 0:
                s, e = m.span(group)
            if s < 0 or e <= s:
                continue
            value = text[s:e]
            if self.validate is not None and not self.validate(value):
                continue
            if self._ctx is not None and not self._ctx.search(text, max(0, s - self.window), s):
                continue
            found.append(Span(s, e, self.label, value, self.name, self.score))
        return found


_ORDER = attrgetter("start", "end", "label")


def register_recognizer(rec: Recognizer) -> Recognizer:
    """Add ``rec`` to the registry under its name (a name is used once)."""
    return RECOGNIZERS.add(rec.name, rec)


def get_recognizers(
    language: str | None = None, names: Iterable[str] | None = None
) -> list[Recognizer]:
    """Registered recognizers for ``language`` (or exactly ``names``, in registry order)."""
    if names is not None:
        names = list(names)
        unknown = [n for n in names if n not in RECOGNIZERS]
        if unknown:
            raise OptionError(
                f"unknown recognizer(s): {', '.join(unknown)} "
                f"(known: {', '.join(sorted(RECOGNIZERS))})"
            )
        return [RECOGNIZERS[n] for n in names]
    return [r for r in RECOGNIZERS.values() if r.applies_to(language)]


def run_recognizers(text: str, recognizers: Iterable[Recognizer]) -> list[Span]:
    """All hits of all recognizers, sorted; overlaps are kept (the caller decides)."""
    hits: list[Span] = []
    for rec in recognizers:
        hits.extend(rec.find(text))
    hits.sort(key=_ORDER)  # Span's own order (start, end, label), stable, without __lt__ calls
    return hits
