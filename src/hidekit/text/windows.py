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
from dataclasses import dataclass

from hidekit.errors import OptionError
from hidekit.text.spans import Span

WINDOW_CHARS = 50_000  # texts up to this length are read whole
MARGIN_CHARS = 2_000  # context each window reads beyond its own part, on both sides
_SENTENCE_ENDS = (". ", "! ", "? ", ".\t", ";\n")


@dataclass(frozen=True)
class Window:
    """``text[start:end]`` is read; spans starting in ``[own_start, own_end)`` are kept."""

    start: int
    end: int
    own_start: int
    own_end: int


def _seam_before(text: str, target: int, lo: int) -> int:
    """Where to cut near ``target`` (in ``(lo, target]``): after a blank line, else after a line
    break, a sentence end, a space; ``target`` itself when none of them lies in ``(lo, target]``."""
    i = text.rfind("\n\n", lo, target)
    if i >= 0:
        return i + 2
    i = text.rfind("\n", lo, target)
    if i >= 0:
        return i + 1
    i = max(text.rfind(end, lo, target) for end in _SENTENCE_ENDS)
    if i >= 0:
        return i + 2
    i = max(text.rfind(" ", lo, target), text.rfind("\t", lo, target))
    if i >= 0:
        return i + 1
    return target


def plan_windows(text: str, size: int = WINDOW_CHARS, margin: int = MARGIN_CHARS) -> list[Window]:
    """The windows of ``text``: one (the whole text) when it has at most ``size`` characters;
    otherwise windows of at most ``size`` characters whose own parts tile the text."""
    if margin < 0 or size <= 4 * margin:
        raise OptionError(f"window size {size} must exceed four times the margin {margin}")
    n = len(text)
    if n <= size:
        return [Window(0, n, 0, n)]
    own = size - 3 * margin  # own part + margin on both sides + room to reach a line start
    seams = [0]
    while n - seams[-1] > own:
        s = seams[-1]
        seams.append(_seam_before(text, s + own, s + own // 2))
    seams.append(n)
    out = []
    for a, b in zip(seams, seams[1:], strict=False):
        start, end = max(0, a - margin), min(n, b + margin)
        if start > 0:  # begin at a line start when one is near: the first line reads whole
            i = text.rfind("\n", max(0, start - margin // 2), start)
            start = i + 1 if i >= 0 else start
        out.append(Window(start, end, a, b))
    return out


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
        for s in sorted(shift(spans, w.start)):
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
