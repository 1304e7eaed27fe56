"""Recognizers: small registered pieces that each find one kind of PHI in text.

A recognizer returns spans with generic labels (DATE, PHONE, ID, …). The CRF reads its hits as
features; a trained model also learns which recognizers are precise enough to report spans on
their own and which corpus label each maps to (see ``hidekit.text.detection.detector``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import TypeAlias

from hidekit.errors import OptionError
from hidekit.registry import RECOGNIZERS
from hidekit.text.detection.recognizers.gates import (
    _gate_passes,
    indexed_gate,
    indexed_gate_passes,
    regex_gate,
)
from hidekit.text.detection.recognizers.scans import Scan, scan_for, scan_matches
from hidekit.text.spans import Span

# a recognizer's hits in one text: starts, ends, and one label for all or a label per hit
HitLists: TypeAlias = tuple[list[int], list[int], "str | list[str]"]


@dataclass
class Recognizer:
    """Base: ``find(text)`` gives spans labelled ``label``; ``languages`` empty means any."""

    name: str
    label: str
    languages: tuple[str, ...] = ()
    score: float = 0.85

    def find(self, text: str) -> list[Span]:
        """The hits in ``text``: a subclass implements this or ``find_arrays``."""
        if type(self).find_arrays is Recognizer.find_arrays:
            raise NotImplementedError(f"{type(self).__name__} implements neither find method")
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        """The hits of ``find`` as (starts, ends, labels): ``labels`` one string for every hit or
        a list with one per hit. Detection reads hits this way, without a ``Span`` per hit
        (``hits.HitRunner``); a recognizer that implements it gets ``find`` from it, so the
        two cannot disagree. Every hit carries the recognizer's name and score."""
        spans = self.find(text)
        return [s.start for s in spans], [s.end for s in spans], [s.label for s in spans]

    def spans_of(self, text: str, hits: HitLists) -> list[Span]:
        """``find_arrays``' hits as spans."""
        starts, ends, labels = hits
        name, score = self.name, self.score
        each: Iterable[str] = repeat(labels) if isinstance(labels, str) else labels
        return [
            Span(s, e, lab, text[s:e], name, score)
            for s, e, lab in zip(starts, ends, each, strict=False)
        ]

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
    _gate_plan: tuple | None = field(default=None, repr=False, compare=False)  # indexed_gate
    _scan: Scan | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self._rx = re.compile(self.pattern, self.flags)
        if self.context:
            words = "|".join(re.escape(w) for w in sorted(self.context, key=len, reverse=True))
            self._ctx = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)
        self._scan = scan_for(self.pattern, self.flags)
        gate = regex_gate(self._rx, context=self.context)
        if gate is not None and self._scan.kind == "literal":
            # a literal scan is itself a search for strings: only substring checks pay before it
            gate = tuple(c for c in gate if c[2] is None) or None
        self._gate = gate
        self._gate_plan = indexed_gate(gate)

    def gate_passes(self, text: str) -> bool:
        """False only when the pattern cannot match anywhere in ``text`` (see ``regex_gate``)."""
        return self._gate is None or _gate_passes(self._gate, text)

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        if self._gate_plan is not None and not indexed_gate_passes(self._gate_plan, text):
            return [], [], self.label
        found = scan_matches(self._scan, text)
        group, validate, ctx = self.group, self.validate, self._ctx
        if group == 0 and validate is None and ctx is None:  # every non-empty match is a hit
            found = [f for f in found if f[2] > f[1]]
            return [f[1] for f in found], [f[2] for f in found], self.label
        starts, ends = [], []
        for m, s, e in found:
            if group != 0:
                s, e = m.span(group)
            if s < 0 or e <= s:
                continue
            if validate is not None and not validate(text[s:e]):
                continue
            if ctx is not None and not ctx.search(text, max(0, s - self.window), s):
                continue
            starts.append(s)
            ends.append(e)
        return starts, ends, self.label


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
