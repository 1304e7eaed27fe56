"""Bounded windows over long texts: work per window stays bounded, so time grows linearly.

Detection on a whole text of n characters is not linear in n (Python lists of every token and
span, document-level features, the CRF's arrays): a 5 MB note took minutes and gigabytes. A text
longer than ``size`` characters is read in windows instead. The text is first cut into *own
parts* at seams chosen near a paragraph break (else a line break, a sentence end, a space; a hard
cut only when none lies in the second half of the part). Each window reads its own part plus
``margin`` characters of context on both sides. A span is reported by the window that owns its
start, so a span crossing a seam is found whole (its window reads ``margin`` characters past the
seam) and once (the next window drops it: it starts before that window's own part); where two
kept spans still overlap across a seam, the one that starts first stays.

A text of at most ``size`` characters is one window: its results are exactly those of reading it
whole. Spans longer than ``margin`` that start in one part and end beyond the window's edge may be
cut short; PHI is never that long.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from hidekit.io.windows import MARGIN_CHARS, WINDOW_CHARS, Window, plan_windows
from hidekit.text.spans import Span, sort_spans

__all__ = [
    "MARGIN_CHARS",
    "WINDOW_CHARS",
    "Window",
    "detect_in_windows",
    "merge_windows",
    "plan_windows",
    "shift",
]


def shift(spans: Iterable[Span], offset: int) -> list[Span]:
    """Spans found in ``text[offset:]`` as spans of ``text``."""
    if not offset:
        return list(spans)
    return [
        Span(s.start + offset, s.end + offset, s.label, s.text, s.source, s.score) for s in spans
    ]


def merge_windows(windows: Sequence[Window], found: Sequence[Sequence[Span]]) -> list[Span]:
    """Spans of the whole text from each window's spans (offsets within the window's text)."""
    kept: list[Span] = []
    for w, spans in zip(windows, found, strict=True):
        for s in sort_spans(shift(spans, w.start)):
            if not w.own_start <= s.start < w.own_end:
                continue
            if kept and s.overlaps(kept[-1]):
                continue  # overlaps the span kept last, which starts first: one wins, the first
            kept.append(s)
    return kept


def detect_in_windows(
    detect: Callable[[str], list[Span]],
    text: str,
    size: int = WINDOW_CHARS,
    margin: int = MARGIN_CHARS,
) -> list[Span]:
    """``detect`` run on each window of ``text`` and merged (``detect(text)`` when one window)."""
    windows = plan_windows(text, size, margin)
    if len(windows) == 1:
        return detect(text)
    return merge_windows(windows, [detect(text[w.start : w.end]) for w in windows])
