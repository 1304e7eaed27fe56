"""Token features for the CRF, after HIDE (Gardner & Xiong 2.3) plus recognizer and dictionary hits.

Each token gets: the word; the previous and next two words; capitalization, digit and special-character
flags; its word shape (full and collapsed); prefixes and suffixes; its place in the line and the
line's first word (form fields such as "Nombre:" or "MRN:"); the whitespace around it; and, for every
recognizer whose hit covers the token, the recognizer name and label with the token's B/I position.

Feature version 2 adds two optional groups, switched on by a model's ``features`` setting:
document-level features (what the other mentions of a word look like) and word-cluster ids learned
offline from unlabelled text. Everything that depends only on the word is computed once per
distinct word (``_word``, cached), which keeps extraction cheap.

At detection, ``hidekit.text.detection.crf_decode`` computes the same features as numbers (attribute ids of
the trained model) instead of strings: a change here must be mirrored there
(tests/test_text_crf_decode.py compares the two).

Tokens come from ``hidekit.text.detection.tokenize.tokenize``, refined at case changes inside a word
("MartínezNºCol" -> "Martínez", "NºCol") because annotated names are often glued to the next word.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate

from hidekit.text.detection.recognizers import Recognizer, run_recognizers
from hidekit.text.detection.recognizers.scans import plain_ascii
from hidekit.text.detection.tokenize import _TOKEN, Token
from hidekit.text.spans import Span

FEATURE_VERSION = 2  # 2 adds the optional document-level and word-cluster features
SUPPORTED_VERSIONS = (1, 2)
_TOKEN_SPLIT = re.compile(f"({_TOKEN.pattern})")  # split: gap, token, gap, token, …, gap
# a case cut: before an upper-case letter that follows a letter and precedes a lower-case one, or
# that follows a lower-case letter. Written to start with the upper-case letter (a match is that
# one letter; its start is the cut) so that ``re`` skips to candidates in C: the same cuts as
# ``(?<=[^\W\d_])(?=[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü])|(?<=[a-záéíóúñüº])(?=[A-ZÁÉÍÓÚÑÜ])``
# (tests/test_text_speed_equivalence.py), which ``re`` tried at every character.
_CASE_SPLIT = re.compile(
    r"[A-ZÁÉÍÓÚÑÜ](?:(?<=[^\W\d_][A-ZÁÉÍÓÚÑÜ])(?=[a-záéíóúñü])|(?<=[a-záéíóúñüº][A-ZÁÉÍÓÚÑÜ]))"
)
# the token split compiled with re.ASCII, for ``plain_ascii`` texts (the same split there)
_TOKEN_SPLIT_ASCII = re.compile(_TOKEN_SPLIT.pattern, re.ASCII)


def tokens_for(text: str) -> list[Token]:
    """Offset-keeping tokens, with words split where a lower-case letter meets an upper-case one."""
    return [Token(*t) for t in zip(*token_lists(text), strict=True)]


def token_lists(text: str) -> tuple[list[str], list[int], list[int]]:
    """``tokens_for`` as three lists (texts, starts, ends), without Token objects (detection).

    Built with C-level passes (``re.split`` and running lengths); the case cuts, rare, are found
    by one scan of the whole text: ``_CASE_SPLIT`` only looks at letters, and a token is a maximal
    run of letters and digits, so a cut found in the text lies inside one token, as in the token
    alone; tokens too short or in one case are not cut."""
    parts = (_TOKEN_SPLIT_ASCII if plain_ascii(text) else _TOKEN_SPLIT).split(text)
    bounds = list(accumulate(map(len, parts)))
    texts = parts[1::2]
    starts = bounds[0:-1:2]
    ends = bounds[1::2]
    cuts = [m.start() for m in _CASE_SPLIT.finditer(text)]
    if not cuts:
        return texts, starts, ends
    by_token: dict[int, list[int]] = {}
    for c in cuts:
        k = bisect.bisect_right(starts, c) - 1
        w = texts[k]
        if not (len(w) < 4 or w.isupper() or w.islower() or w.isdigit()):
            by_token.setdefault(k, []).append(c - starts[k])
    for k in sorted(by_token, reverse=True):  # from the end: earlier indices stay valid
        w, s = texts[k], starts[k]
        prev = 0
        pieces_t, pieces_s, pieces_e = [], [], []
        for c in [*by_token[k], len(w)]:
            if c > prev:
                pieces_t.append(w[prev:c])
                pieces_s.append(s + prev)
                pieces_e.append(s + c)
            prev = c
        texts[k : k + 1] = pieces_t
        starts[k : k + 1] = pieces_s
        ends[k : k + 1] = pieces_e
    return texts, starts, ends


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


_UPPER_RX = re.compile(r"[A-ZÁÉÍÓÚÑÜ]")
_LOWER_RX = re.compile(r"[^\WX\d_]")
_DIGIT_RX = re.compile(r"\d")
_RUN_RX = re.compile(r"(.)\1+")


def shape(word: str) -> str:
    return _DIGIT_RX.sub("d", _LOWER_RX.sub("x", _UPPER_RX.sub("X", word)))


def short_shape(word: str) -> str:
    return _RUN_RX.sub(r"\1", shape(word))


def _length(n: int) -> str:
    return "1" if n == 1 else "2" if n == 2 else "3-4" if n <= 4 else "5-8" if n <= 8 else "9+"


def _space(gap: str) -> str:
    return "nl" if "\n" in gap else "sp" if gap else "no"


@lru_cache(maxsize=100_000)
def _word(w: str) -> tuple[str, str, tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Everything about a word that does not depend on its place: computed once per distinct word.

    Returns the lower-cased word, its collapsed shape, its own features, and the features it
    gives a neighbour at offsets -2, -1, +1, +2 (in that order).
    """
    lw = w.lower()
    ss = short_shape(w)
    f = [
        "b",
        f"w={lw}",
        f"sh={shape(w)[:10]}",
        f"ss={ss}",
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
    near = tuple((f"{d}w={lw}", f"{d}ss={ss}") for d in (-2, -1, 1, 2))
    return lw, ss, tuple(f), near


_PAD = {d: f"{d}w=<pad>" for d in (-2, -1, 1, 2)}
_WS_BEFORE = {k: f"ws<={k}" for k in ("nl", "sp", "no")}
_WS_AFTER = {k: f"ws>={k}" for k in ("nl", "sp", "no")}
_LP = [f"lp={k}" for k in range(5)]


def token_features(text: str, tokens: Sequence[Token], hits: Sequence[Span]) -> list[list[str]]:
    """One list of feature strings per token (crfsuite reads each string as a binary feature)."""
    return _token_features(text, tokens, hits)[0]


def _token_features(text: str, tokens: Sequence[Token], hits: Sequence[Span]):
    """The features, and per token the recognizer features of the hits covering it."""
    n = len(tokens)
    words = [_word(t.text) for t in tokens]
    low = [w[0] for w in words]
    rec: list[list[str]] = [[] for _ in range(n)]
    starts = [t.start for t in tokens]
    for h in hits:
        i = max(bisect.bisect_right(starts, h.start) - 1, 0)
        bio = "B"
        while i < n and tokens[i].start < h.end:
            if tokens[i].end > h.start:
                rec[i].append(f"r={h.source}:{bio}")
                rec[i].append(f"rl={h.label}:{bio}")
                bio = "I"
            i += 1
    # gaps[i] = whitespace class between token i-1 and token i (gaps[0] and gaps[n]: line ends)
    gaps = ["nl"] * (n + 1)
    for i in range(1, n):
        gap = text[tokens[i - 1].end : tokens[i].start]
        gaps[i] = "nl" if "\n" in gap else "sp" if gap else "no"
    feats = []
    head, pos = "", 0
    for i in range(n):
        lw, _, own, _ = words[i]
        if gaps[i] == "nl":
            head, pos = lw, 0
        f = list(own)
        f.append(_WS_BEFORE[gaps[i]])
        f.append(_WS_AFTER[gaps[i + 1]])
        f.append(_LP[min(pos, 4)])
        if pos:
            f.append(f"lh={head}")
        pos += 1
        for k, d in enumerate((-2, -1, 1, 2)):
            j = i + d
            if 0 <= j < n:
                f.extend(words[j][3][k])
            else:
                f.append(_PAD[d])
        if i:
            f.append(f"-1w|w={low[i - 1]}|{lw}")
        if i + 1 < n:
            f.append(f"w|+1w={lw}|{low[i + 1]}")
        f.extend(rec[i])
        if i and rec[i - 1]:
            f.extend(f"-1{x}" for x in rec[i - 1] if x.startswith("rl="))
        if i + 1 < n and rec[i + 1]:
            f.extend(f"1{x}" for x in rec[i + 1] if x.startswith("rl="))
        feats.append(f)
    return feats, rec


def _document_level(
    tokens: Sequence[Token], feats: list[list[str]], rec: list[list[str]], words, heads: list[str]
) -> None:
    """Features that look at the whole document, for capitalized words of three letters or more.

    A name or place is usually written several times in one note, and one mention is often easier
    than the others (after "Nombre:", after "Dr.", found by a recognizer). Each mention of a word
    gets: the recognizer labels that cover its *other* mentions (``drl=``), the line head and the
    word before its first mention (``dfh=``, ``df-1=``), and how often it occurs (``dn=``).
    """
    occurrences: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        w = t.text
        if len(w) >= 3 and w[0].isupper() and w.isalpha():
            occurrences.setdefault(words[i][0], []).append(i)
    for idx in occurrences.values():
        labels_at = [{x[3:-2] for x in rec[j] if x[1] == "l"} for j in idx]
        first = idx[0]
        common = [f"dn={min(len(idx), 3)}"]
        if heads[first]:
            common.append(f"dfh={heads[first]}")
        common.append(f"df-1={words[first - 1][0]}" if first else "df-1=<pad>")
        counts = Counter(lab for labels in labels_at for lab in labels)
        for k, i in enumerate(idx):
            other = {lab for lab, c in counts.items() if c > (lab in labels_at[k])}
            feats[i].extend(common)
            feats[i].extend(f"drl={lab}" for lab in sorted(other))


def _cluster_features(feats: list[list[str]], words, clusters: dict[str, str]) -> None:
    """Word-cluster ids (learned offline from unlabelled text) of the token and its neighbours."""
    ids = [clusters.get(cluster_key(w[0])) for w in words]
    n = len(ids)
    for i in range(n):
        for d in (-1, 0, 1):
            j = i + d
            if 0 <= j < n and (cid := ids[j]):
                coarse, fine = cid.split(":")
                feats[i].append(f"{d}c1={coarse}")
                feats[i].append(f"{d}c2={fine}")


_DIGITS = re.compile(r"\d")


def cluster_key(lower_word: str) -> str:
    """The form words are clustered under: lower case, every digit written 0."""
    return _DIGITS.sub("0", lower_word)


def document_features(
    text: str,
    recognizers: Sequence[Recognizer],
    options: dict | None = None,
):
    """Tokens, their features, and the recognizer hits for one text.

    ``options`` (a model's ``features`` setting): ``document`` adds the document-level features,
    ``clusters`` (word -> "coarse:fine" ids) the word-cluster features. Without options the
    features are those of feature version 1.
    """
    tokens = tokens_for(text)
    hits = run_recognizers(text, recognizers)
    feats, rec = _token_features(text, tokens, hits)
    if options and tokens:
        words = [_word(t.text) for t in tokens]
        if options.get("document"):
            heads = _line_heads(text, tokens, words)
            _document_level(tokens, feats, rec, words, heads)
        if options.get("clusters"):
            _cluster_features(feats, words, options["clusters"])
    return tokens, feats, hits


def _line_heads(text: str, tokens: Sequence[Token], words) -> list[str]:
    """For each token, the first word of its line ("" for the first token of a line)."""
    heads, head = [], ""
    for i, t in enumerate(tokens):
        if i == 0 or "\n" in text[tokens[i - 1].end : t.start]:
            head = words[i][0]
            heads.append("")
        else:
            heads.append(head)
    return heads
