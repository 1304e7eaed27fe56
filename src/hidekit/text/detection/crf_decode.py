"""CRF inference without pycrfsuite: the trained weights, our own feature ids, numba decoding.

Training stays on sklearn-crfsuite / pycrfsuite; a saved model's weights are read once per process
(``decoder_for``) into a dense matrix ``W`` (attributes x labels) and ``T`` (label transitions).
At inference a token's score for each label is the sum of the ``W`` rows of its features; the
features are the ones ``hidekit.text.detection.features.document_features`` builds as strings, but here they
are numbers looked up once per distinct word (``WordTable``) or per document (recognizer hits,
document-level features), and the per-token assembly, Viterbi and forward-backward marginals run in
one compiled call per document (``crf_kernels._decode_document``).

The arithmetic follows crfsuite's (crf1d_context.c) step by step: state scores summed in the
feature order, Viterbi keeping the first best previous label, scaled forward-backward with
``P(y_t = l | x) = alpha_t(l) beta_t(l) / scale_t``. Tags are therefore the same as pycrfsuite's
``Tagger.tag`` and marginals agree with ``Tagger.marginal`` to rounding
(tests/test_text_crf_decode.py checks both, and that the numeric features equal the strings).

Compilation happens once per process, on first use (``warm_up``); compiled code is cached on disk
when numba finds a writable place (next to this file, ``NUMBA_CACHE_DIR``, or the user cache),
and compiled without a cache otherwise. ``Detector.detect_documents`` warms up before it starts
worker processes, so forked workers inherit the compiled code.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import threading
from collections.abc import Mapping, Sequence

import numpy as np

from hidekit.errors import InputError
from hidekit.text.detection.crf_kernels import (
    _decode_document,
    _exp_array,
    _sequences,
    _state_scores,
    _tag_sequences,
)
from hidekit.text.detection.features import (
    _LP,
    _PAD,
    _WS_AFTER,
    _WS_BEFORE,
    _word,
    cluster_key,
    token_lists,
)
from hidekit.text.spans import Span

# recognizer hits as the kernels read them (``CrfDecoder.hit_arrays``)
HitArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


# --------------------------------------------------------------------------- the model
def read_crfsuite(crf_model: bytes) -> tuple[list[str], list[str], np.ndarray]:
    """Labels, attributes and features of a crfsuite model file (crf1d format, "lCRF"/"FOMC").

    The features come back as a structured array (type 0 state: attribute -> label, type 1
    transition: label -> label; weight). The weights are read from the binary: pycrfsuite's
    ``Tagger.info()`` prints them with six decimals.
    """
    b = crf_model
    try:
        if b[:4] != b"lCRF" or b[8:12] != b"FOMC":
            raise ValueError("not a crfsuite CRF1d model")
        off_feat, off_labels, off_attrs = struct.unpack_from("<III", b, 28)
        if b[off_feat : off_feat + 4] != b"FEAT":
            raise ValueError("no feature chunk")
        (num,) = struct.unpack_from("<I", b, off_feat + 8)
        feats = np.frombuffer(b, _FEATURE, count=num, offset=off_feat + 12)
        labels, attrs = _cqdb(b, off_labels), _cqdb(b, off_attrs)
    except (ValueError, struct.error, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the CRF weights ({exc})") from exc
    return labels, attrs, feats


_FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("weight", "<f8")])


def _cqdb(b: bytes, off: int) -> list[str]:
    """The strings of a crfsuite constant database, by id (its backward array)."""
    if b[off : off + 4] != b"CQDB":
        raise ValueError("no string database")
    n, bwd = struct.unpack_from("<II", b, off + 16)
    out = []
    for k, r in enumerate(struct.unpack_from(f"<{n}I", b, off + bwd)):
        rid, size = struct.unpack_from("<II", b, off + r)
        if rid != k:
            raise ValueError("string database out of order")
        out.append(b[off + r + 8 : off + r + 7 + size].decode("utf-8"))
    return out


def transition_gaps(T: np.ndarray) -> np.ndarray:
    """gap[a, i] = min over j of T[a, j] - T[i, j], less a margin (1e-9 (1 + max |T|), far above
    the rounding of these sums): how far label i's Viterbi score may trail label a's before a
    beats i at every next label (``crf_kernels._viterbi`` skips such an i)."""
    margin = 1e-9 * (1.0 + float(np.abs(T).max(initial=0.0)))
    return np.ascontiguousarray(
        (T[:, None, :] - T[None, :, :]).min(axis=2, initial=np.inf) - margin
    )


class CrfWeights:
    """A crfsuite model's labels, attributes (those with a weight) and weights as dense arrays."""

    def __init__(self, labels: list[str], attrs: list[str], W: np.ndarray, T: np.ndarray):
        self.labels = list(labels)
        self.attr: dict[str, int] = {a: k for k, a in enumerate(attrs)}
        self.W = np.ascontiguousarray(W, dtype=np.float64)
        self.T = np.ascontiguousarray(T, dtype=np.float64)
        self.expT = np.empty_like(self.T)
        _exp_array(self.T, self.expT)
        self.expTT = np.ascontiguousarray(self.expT.T)
        self.gap = transition_gaps(self.T)

    @classmethod
    def from_model(cls, crf_model: bytes) -> CrfWeights:
        labels, attrs, feats = read_crfsuite(crf_model)
        L = len(labels)
        state = feats[feats["type"] == 0]
        trans = feats[feats["type"] == 1]
        # only attributes that carry a weight get a row
        used, rows = np.unique(state["src"].astype(np.int64), return_inverse=True)
        W = np.zeros((len(used), L))
        W[rows, state["dst"].astype(np.int64)] = state["weight"]
        T = np.zeros((L, L))
        T[trans["src"].astype(np.int64), trans["dst"].astype(np.int64)] = trans["weight"]
        return cls(labels, [attrs[a] for a in used.tolist()], W, T)

    def state_scores(self, feats: Sequence[Sequence[str]]) -> np.ndarray:
        """Label scores of tokens given as lists of feature strings (unknown strings ignored)."""
        S = np.zeros((len(feats), len(self.labels)))
        get = self.attr.get
        for t, f in enumerate(feats):
            for x in f:
                a = get(x)
                if a is not None:
                    S[t] += self.W[a]
        return S

    def tag(self, feats: Sequence[Sequence[str]]) -> tuple[list[str], np.ndarray]:
        """Viterbi tags and the marginals P[t, label index] of one sequence of feature lists."""
        S = self.state_scores(feats)
        tags = np.zeros(len(feats), np.int32)
        P = np.zeros_like(S)
        seq = np.array([0, len(feats)], np.int64)
        _tag_sequences(S, seq, 1, self.T, self.expT, self.expTT, self.gap, tags, P)
        return [self.labels[k] for k in tags], P


class WordTable:
    """Per distinct token text, the attribute ids of everything that depends only on the text
    (see the column notes above the kernels). Rows are added as words are met; past ``limit``
    words the table starts afresh. One table per model and feature options (``decoder_for``).
    """

    _COLUMNS = ("own", "near", "lh", "bg", "clus", "flags", "lwid", "dfh", "dfm1")

    def __init__(
        self,
        attr: Mapping[str, int],
        clusters: Mapping[str, str] | None,
        limit: int,
        W: np.ndarray,
    ):
        self.attr = attr
        self.W = W
        self.clusters = clusters or None
        self.limit = limit
        self.lock = threading.Lock()
        self.reset()

    def reset(self, cap: int = 1024) -> None:
        self.index: dict[str, int] = {}
        self.lower_ids: dict[str, int] = {}
        self.own = np.zeros((cap, self.W.shape[1]))
        self.near = np.full((cap, 4, 2), -1, np.int32)
        self.lh = np.full(cap, -1, np.int32)
        self.bg = np.full(cap, -1, np.int32)
        self.clus = np.full((cap, 3, 2), -1, np.int32)
        self.flags = np.zeros(cap, np.int8)
        self.lwid = np.full(cap, -1, np.int64)
        self.dfh = np.full(cap, -1, np.int32)
        self.dfm1 = np.full(cap, -1, np.int32)

    def arrays(self) -> tuple:
        return tuple(getattr(self, c) for c in self._COLUMNS)

    def _grow(self) -> None:
        cap = 2 * self.own.shape[0]
        for name in self._COLUMNS:
            old = getattr(self, name)
            new = np.full((cap, *old.shape[1:]), 0 if name in ("flags", "own") else -1, old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    def add(self, w: str, bigram_words: Mapping[str, int]) -> int:
        """The row of token text ``w`` (features._word and the parts of the other features that
        depend only on the word); call with ``lock`` held."""
        k = len(self.index)
        if k == self.own.shape[0]:
            self._grow()
        get = self.attr.get
        lw, _, own, near = _word(w)
        row = self.own[k]  # the sum of the word's own rows of W, added in feature order
        for a in (a for x in own if (a := get(x)) is not None):
            row += self.W[a]  # from zeros, as the kernel sums a token's scores: the same bits
        for d, pair in enumerate(near):
            ids = [a for x in pair if (a := get(x)) is not None]
            self.near[k, d, : len(ids)] = ids
        self.lh[k] = get("lh=" + lw, -1)
        self.bg[k] = bigram_words.get(lw, -1)
        if self.clusters is not None:
            cid = self.clusters.get(cluster_key(lw))
            if cid:
                coarse, fine = cid.split(":")
                for d in (-1, 0, 1):
                    ids = [
                        a for x in (f"{d}c1={coarse}", f"{d}c2={fine}") if (a := get(x)) is not None
                    ]
                    self.clus[k, d + 1, : len(ids)] = ids
        eligible = len(w) >= 3 and w[0].isupper() and w.isalpha()
        self.flags[k] = (1 if w in ".!?" else 0) | (2 if w[:1].isupper() else 0) | 4 * eligible
        self.lwid[k] = self.lower_ids.setdefault(lw, len(self.lower_ids))
        self.dfh[k] = get("dfh=" + lw, -1)
        self.dfm1[k] = get("df-1=" + lw, -1)
        self.index[w] = k
        return k


class CrfDecoder:
    """Detection-time CRF for one model: feature ids, Viterbi spans and recall spans."""

    def __init__(self, weights: CrfWeights, options: Mapping | None = None, word_limit=100_000):
        self.weights = wt = weights
        options = dict(options or {})
        document = bool(options.get("document"))
        clusters = bool(options.get("clusters"))
        get = wt.attr.get
        bg_words, nb, bg_keys, bg_vals = _bigrams(wt.attr)
        self._bg_words = bg_words
        # labels the "drl=" features name, in name order
        self._drl_labels = sorted(a[4:] for a in wt.attr if a.startswith("drl="))
        self._drl_index = {x: k for k, x in enumerate(self._drl_labels)}
        self.words = WordTable(
            wt.attr, options.get("clusters") if clusters else None, word_limit, wt.W
        )
        self._hits: dict[tuple[str, str], tuple[tuple, int]] = {}
        # tags: kind (0 other, 1 B-, 2 I-) and label; spans' label names
        labels = wt.labels
        names = sorted({t.partition("-")[2] for t in labels if t.partition("-")[0] in ("B", "I")})
        self.span_labels = names
        ent = {x: k for k, x in enumerate(names)}
        tag_kind = np.zeros(len(labels), np.int8)
        tag_ent = np.zeros(len(labels), np.int32)
        ent_itag = np.full(max(len(names), 1), -1, np.int32)
        for k, t in enumerate(labels):
            kind, _, lab = t.partition("-")
            if kind in ("B", "I"):
                tag_kind[k] = 1 if kind == "B" else 2
                tag_ent[k] = ent[lab]
                if kind == "I":
                    ent_itag[ent[lab]] = k
        phi = sorted(t for t in labels if t != "O")
        self.recall_labels = sorted({t[2:] for t in phi})
        rent = {x: k for k, x in enumerate(self.recall_labels)}

        def ids(keys):
            return np.array([get(x, -1) for x in keys], np.int32)

        self.model = (
            wt.W, wt.T, wt.expT,
            ids(_WS_BEFORE[k] for k in ("nl", "sp", "no")),
            ids(_WS_AFTER[k] for k in ("nl", "sp", "no")),
            ids(_LP), ids(_PAD[d] for d in (-2, -1, 1, 2)),
            bg_keys, bg_vals, nb,
            ids(f"dn={k}" for k in (1, 2, 3)), get("df-1=<pad>", -1),
            ids(f"drl={x}" for x in self._drl_labels),
            document, clusters,
            tag_kind, tag_ent, ent_itag, labels.index("O") if "O" in labels else -1,
            np.array([labels.index(t) for t in phi], np.int32),
            np.array([rent[t[2:]] for t in phi], np.int32), len(self.recall_labels),
            wt.expTT, wt.gap,
        )  # fmt: skip

    def _hit_ids(self, source: str, label: str) -> tuple[tuple, int]:
        """A hit's feature ids by place (B, I): "r=", "rl=", "-1rl=", "1rl="; its "drl=" index."""
        get = self.weights.attr.get
        got = (
            tuple(
                tuple(
                    get(x, -1)
                    for x in (
                        f"r={source}:{p}",
                        f"rl={label}:{p}",
                        f"-1rl={label}:{p}",
                        f"1rl={label}:{p}",
                    )
                )
                for p in "BI"
            ),
            self._drl_index.get(label, -1),
        )
        if len(self._hits) < 10_000:
            self._hits[(source, label)] = got
        return got

    def hit_arrays(self, hits: Sequence[Span]) -> HitArrays:
        """Recognizer hits as the kernels read them: starts, ends, feature ids (hits x 2 x 4)
        and "drl=" indices."""
        cache = self._hits
        hs, he, hid, hl = [], [], [], []
        for h in hits:
            got = cache.get((h.source, h.label)) or self._hit_ids(h.source, h.label)
            hs.append(h.start)
            he.append(h.end)
            hid.append(got[0])
            hl.append(got[1])
        return (
            np.array(hs, np.int64), np.array(he, np.int64),
            np.array(hid, np.int32).reshape(len(hid), 2, 4), np.array(hl, np.int32),
        )  # fmt: skip

    def pair_ids(self, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
        """Feature ids (pairs x 2 x 4) and "drl=" indices of hits of these (source, label)
        pairs: ``hit_arrays`` by table lookup for hits coded by pair (``recognizers.hits``)."""
        got = [self._hits.get(p) or self._hit_ids(*p) for p in pairs]
        ids = np.array([g[0] for g in got], np.int32).reshape(len(got), 2, 4)
        return ids, np.array([g[1] for g in got], np.int32)

    def _arguments(self, text: str, hits: HitArrays, tokens=None):
        """The token lists and the kernels' per-document arguments."""
        words_, starts, ends = token_lists(text) if tokens is None else tokens
        n = len(words_)
        table = self.words
        with table.lock:
            if len(table.index) + n > table.limit:
                table.reset()
            index = table.index
            wl = list(map(index.get, words_))
            if None in wl:
                for k, w in enumerate(wl):
                    if w is None:
                        t = words_[k]
                        w = index.get(t)
                        wl[k] = w if w is not None else table.add(t, self._bg_words)
            tables = table.arrays()
        nl = [m.start() for m in _NL.finditer(text)] if "\n" in text else ()
        args = (
            self.model, tables, np.array(wl, np.int64), np.array(starts, np.int64),
            np.array(ends, np.int64), np.array(nl, np.int64), *hits,
        )  # fmt: skip
        return starts, ends, args

    def spans(
        self,
        text: str,
        hits: Sequence[Span] | HitArrays,
        threshold: float | None,
        tokens: tuple[list[str], list[int], list[int]] | None = None,
    ) -> tuple[list[Span], list[Span]]:
        """The CRF's spans (Viterbi path) and, with a threshold, the recall spans of ``text``.

        ``hits``: the recognizers' hits on ``text`` (spans, or ``hit_arrays`` of them);
        ``tokens``: ``features.token_lists(text)`` when the caller has it already.
        """
        if not text:
            return [], []
        if not isinstance(hits, tuple):
            hits = self.hit_arrays(hits)
        starts, ends, args = self._arguments(text, hits, tokens)
        if not starts:
            return [], []
        recall = threshold is not None
        out = _decode_document(*args, recall, 0.0 if threshold is None else float(threshold))
        crf = _make_spans(text, starts, ends, out[0], out[1], out[2], self.span_labels, "crf")
        extra = _make_spans(
            text, starts, ends, out[3], out[4], out[5], self.recall_labels, "crf-recall"
        )
        return crf, extra

    def scores(self, text: str, hits: Sequence[Span]) -> tuple[np.ndarray, list[list[int]]]:
        """The per-token label scores (tokens x ``weights.labels``) and the CRF sequences (token
        indices) that ``spans`` decodes: for tests, to compare with the string features."""
        starts, _, args = self._arguments(text, self.hit_arrays(hits))
        n = len(starts)
        S = np.zeros((n, len(self.weights.labels)))
        gc = np.empty(n + 1, np.int8)
        _state_scores(*args, S, gc)
        seq_ptr = np.empty(n + 1, np.int64)
        m = _sequences(args[2], gc, args[1][5], seq_ptr)
        return S, [list(range(seq_ptr[k], seq_ptr[k + 1])) for k in range(m)]


def _make_spans(text, starts, ends, tok, lab, score, names, source) -> list[Span]:
    out = []
    for (a, b), k, x in zip(tok.tolist(), lab.tolist(), score.tolist(), strict=True):
        s, e = starts[a], ends[b]
        out.append(Span(s, e, names[k], text[s:e], source, round(x, 4)))
    return out


def _bigrams(attr: Mapping[str, int]):
    """Word-pair features ("-1w|w=a|b", "w|+1w=a|b") as a sorted table of pair keys: the words'
    ids, their number, the keys (a * number + b) and per key the two attribute ids (or -1)."""
    pairs: dict[tuple[str, str], list[int]] = {}
    for s, a in attr.items():
        for col, prefix in enumerate(("-1w|w=", "w|+1w=")):
            if s.startswith(prefix):
                rest = s[len(prefix) :]
                # a word may itself be "|": register every split (each one gives back s)
                for cut, ch in enumerate(rest):
                    if ch == "|":
                        pairs.setdefault((rest[:cut], rest[cut + 1 :]), [-1, -1])[col] = a
    words: dict[str, int] = {}
    for left, right in pairs:
        words.setdefault(left, len(words))
        words.setdefault(right, len(words))
    nb = max(len(words), 1)
    keyed = sorted((words[a] * nb + words[b], v) for (a, b), v in pairs.items())
    keys = np.array([k for k, _ in keyed], np.int64)
    vals = np.array([v for _, v in keyed], np.int32).reshape(len(keyed), 2)
    return words, nb, keys, vals


_NL = re.compile("\n")
_DECODERS: dict[str, CrfDecoder] = {}
_LOCK = threading.Lock()


def decoder_for(crf_model: bytes, options: Mapping | None = None) -> CrfDecoder:
    """The decoder of a model, built once per process (worker processes inherit it)."""
    h = hashlib.blake2b(crf_model, digest_size=16)
    h.update(json.dumps(options or {}, sort_keys=True, ensure_ascii=False).encode())
    key = h.hexdigest()
    with _LOCK:
        dec = _DECODERS.get(key)
        if dec is None:
            if len(_DECODERS) >= 4:
                _DECODERS.clear()
            dec = _DECODERS[key] = CrfDecoder(CrfWeights.from_model(crf_model), options)
    return dec


_WARM = False


def warm_up() -> None:
    """Compile the kernels now (or load them from numba's cache): once per process."""
    global _WARM
    if not _WARM:
        attrs = ["b", "w=ab", "drl=X", "r=x:B", "-1w|w=ab|abc", "0c1=1", "lh=ab", "dn=2"]
        rng = np.random.default_rng(0)
        weights = CrfWeights(["O", "B-X", "I-X"], attrs, rng.normal(size=(8, 3)), np.zeros((3, 3)))
        dec = CrfDecoder(weights, {"document": True, "clusters": {"ab": "1:2"}})
        dec.spans("Ab Abc.\nAbc ab", [Span(0, 2, "X", "Ab", "x")], 0.5)
        _WARM = True
