"""Token features for the CRF, after HIDE (Gardner & Xiong 2.3) plus recognizer and dictionary hits.

Each token gets: the word; the previous and next two words; capitalization, digit and special-character
flags; its word shape (full and collapsed); prefixes and suffixes; its place in the line and the
line's first word (form fields such as "Nombre:" or "MRN:"); the whitespace around it; and, for every
recognizer whose hit covers the token, the recognizer name and label with the token's B/I position.

Tokens come from ``hidekit.text.tokenize.tokenize``, refined at case changes inside a word
("MartínezNºCol" -> "Martínez", "NºCol") because annotated names are often glued to the next word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hidekit.text.recognizers import Recognizer, run_recognizers
from hidekit.text.spans import Span
from hidekit.text.tokenize import Token, tokenize

FEATURE_VERSION = 1
_CASE_SPLIT = re.compile(
    r"(?<=[^\W\d_])(?=[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü])|(?<=[a-záéíóúñüº])(?=[A-ZÁÉÍÓÚÑÜ])"
)


def tokens_for(text: str) -> list[Token]:
    """Offset-keeping tokens, with words split where a lower-case letter meets an upper-case one."""
    out = []
    for t in tokenize(text):
        if len(t.text) < 4 or t.text.isupper() or t.text.islower() or t.text.isdigit():
            out.append(t)
            continue
        cuts = [m.start() for m in _CASE_SPLIT.finditer(t.text)]
        if not cuts:
            out.append(t)
            continue
        prev = 0
        for c in [*cuts, len(t.text)]:
            if c > prev:
                out.append(Token(t.text[prev:c], t.start + prev, t.start + c))
            prev = c
    return out


def sequences(text: str, tokens: Sequence[Token]) -> list[list[int]]:
    """Token indices grouped by line (a newline ends a CRF sequence); long lines split at ". X"."""
    seqs: list[list[int]] = []
    cur: list[int] = []
    for i, t in enumerate(tokens):
        if cur:
            prev = tokens[cur[-1]]
            gap = text[prev.end : t.start]
            if "\n" in gap or (
                prev.text in ".!?" and gap and len(cur) > 40 and t.text[:1].isupper()
            ):
                seqs.append(cur)
                cur = []
        cur.append(i)
    if cur:
        seqs.append(cur)
    return seqs


def shape(word: str) -> str:
    s = re.sub(r"[A-ZÁÉÍÓÚÑÜ]", "X", word)
    s = re.sub(r"[^\WX\d_]", "x", s)
    return re.sub(r"\d", "d", s)


def short_shape(word: str) -> str:
    return re.sub(r"(.)\1+", r"\1", shape(word))


def _length(n: int) -> str:
    return "1" if n == 1 else "2" if n == 2 else "3-4" if n <= 4 else "5-8" if n <= 8 else "9+"


def _space(gap: str) -> str:
    return "nl" if "\n" in gap else "sp" if gap else "no"


def token_features(text: str, tokens: Sequence[Token], hits: Sequence[Span]) -> list[list[str]]:
    """One list of feature strings per token (crfsuite reads each string as a binary feature)."""
    n = len(tokens)
    low = [t.text.lower() for t in tokens]
    shapes = [short_shape(t.text) for t in tokens]
    rec: list[list[str]] = [[] for _ in range(n)]
    starts = [t.start for t in tokens]
    import bisect

    for h in hits:
        i = bisect.bisect_right(starts, h.start) - 1
        i = max(i, 0)
        first = True
        while i < n and tokens[i].start < h.end:
            if tokens[i].end > h.start:
                pos = "B" if first else "I"
                rec[i].append(f"r={h.source}:{pos}")
                rec[i].append(f"rl={h.label}:{pos}")
                first = False
            i += 1
    line_head = [""] * n
    line_pos = [0] * n
    head, pos = "", 0
    for i, t in enumerate(tokens):
        if i == 0 or "\n" in text[tokens[i - 1].end : t.start]:
            head, pos = low[i], 0
        line_head[i], line_pos[i] = head, pos
        pos += 1
    feats = []
    for i, t in enumerate(tokens):
        w, lw = t.text, low[i]
        f = [
            "b",
            f"w={lw}",
            f"sh={shape(w)[:10]}",
            f"ss={shapes[i]}",
            f"len={_length(len(w))}",
            f"p2={lw[:2]}",
            f"p3={lw[:3]}",
            f"s2={lw[-2:]}",
            f"s3={lw[-3:]}",
            f"s4={lw[-4:]}",
        ]
        if w[:1].isupper():
            f.append("title" if w[1:].islower() or len(w) == 1 else "cap")
        if w.isupper() and len(w) > 1:
            f.append("upper")
        if w.isdigit():
            f.append(f"digits={min(len(w), 10)}")
        elif any(c.isdigit() for c in w):
            f.append("hasdigit")
        if not w.isalnum():
            f.append("special")
        f.append(f"ws<={_space(text[tokens[i - 1].end : t.start] if i else chr(10))}")
        f.append(f"ws>={_space(text[t.end : tokens[i + 1].start] if i + 1 < n else chr(10))}")
        f.append(f"lp={min(line_pos[i], 4)}")
        if line_pos[i]:
            f.append(f"lh={line_head[i]}")
        for d in (-2, -1, 1, 2):
            j = i + d
            if 0 <= j < n:
                f.append(f"{d}w={low[j]}")
                f.append(f"{d}ss={shapes[j]}")
            else:
                f.append(f"{d}w=<pad>")
        if i:
            f.append(f"-1w|w={low[i - 1]}|{lw}")
        if i + 1 < n:
            f.append(f"w|+1w={lw}|{low[i + 1]}")
        f.extend(rec[i])
        for d in (-1, 1):
            j = i + d
            if 0 <= j < n:
                f.extend(f"{d}{x}" for x in rec[j] if x.startswith("rl="))
        feats.append(f)
    return feats


def document_features(text: str, recognizers: Sequence[Recognizer]):
    """Tokens, their features, and the recognizer hits for one text."""
    tokens = tokens_for(text)
    hits = run_recognizers(text, recognizers)
    return tokens, token_features(text, tokens, hits), hits
