"""Bounded windows over a long text: where to cut it so work per window stays bounded.

The text is cut into *own parts* at seams chosen near a paragraph break (else a line break, a
sentence end, a space; a hard cut only when none lies in the second half of the part). Each window
reads its own part plus ``margin`` characters of context on both sides, so whatever starts in an
own part and is shorter than ``margin`` lies whole inside that part's window. Detection
(``hidekit.text.detection.windows``) and the scan's free-text search (``hidekit.scan.patterns``) read long
texts this way.
"""

from __future__ import annotations

from dataclasses import dataclass

from hidekit.errors import OptionError

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
