"""The numba CRF decoder against pycrfsuite: same weights, tags, marginals, features and spans."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.jobs.files import save_model
from hidekit.text.detection.crf_decode import CrfDecoder, CrfWeights, read_crfsuite
from hidekit.text.detection.crf_kernels import _tag_sequences
from hidekit.text.detection.detector import load_model
from hidekit.text.detection.features import document_features, sequences, token_lists, tokens_for
from hidekit.text.detection.recognizers import run_recognizers
from hidekit.text.spans import Span
from hidekit.text.synthesis import generate_notes

FIXTURES = Path(__file__).parent / "fixtures"
EDGE = [
    "",
    "\n\n\n",
    " ",
    "Dr.",
    "İ",
    "😀 Dr. 😀 Smith 😀 MartínezNºCol",
    "Ünïcödé: Zoë Ångström, ß straße 12, 東京都 ١٢٣",
    "MRN:1234567|DOB:01/02/1960|Name:SMITH,JOHN ||| a|b",
    "\n".join(["Dr. Smith."] * 50),
]


def _model(name):
    try:
        return load_model(name)
    except Exception as exc:  # pragma: no cover - a build without shipped models
        pytest.skip(str(exc))


def _texts(name: str) -> list[str]:
    out = [d.text for d in generate_notes(5, seed=23)]
    if name == "es":
        out += [
            p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "meddocan").glob("*.txt"))
        ]
    long_line = " ".join(out[:3]).replace("\n", " ")
    return [*out, long_line, *EDGE]


def _reference_spans(det, text):
    """The CRF and recall spans as the detector computed them with pycrfsuite (hidekit <= 0.1)."""
    tokens, feats, _ = document_features(text, det.recognizers, det.feature_options)
    tagger, threshold = det._tagger, det.phi_threshold
    phi_tags = sorted(t for t in tagger.labels() if t != "O")
    spans, extra = [], []
    for seq in sequences(text, tokens):
        tags = tagger.tag([feats[i] for i in seq])
        k, n = 0, len(seq)
        while k < n:
            kind, _, label = tags[k].partition("-")
            if kind not in ("B", "I"):
                k += 1
                continue
            j = k + 1
            while j < n and tags[j] == "I-" + label:
                j += 1
            score = min(tagger.marginal(tags[m], m) for m in range(k, j))
            s, e = tokens[seq[k]].start, tokens[seq[j - 1]].end
            spans.append(Span(s, e, label, text[s:e], "crf", round(score, 4)))
            k = j
        if threshold is None:
            continue
        likely = [tags[k] == "O" and 1.0 - tagger.marginal("O", k) >= threshold for k in range(n)]
        k = 0
        while k < n:
            if not likely[k]:
                k += 1
                continue
            j = k
            while j < n and likely[j]:
                j += 1
            mass: dict[str, float] = {}
            for m in range(k, j):
                for tag in phi_tags:
                    mass[tag[2:]] = mass.get(tag[2:], 0.0) + tagger.marginal(tag, m)
            label = max(sorted(mass), key=mass.get)
            score = min(1.0 - tagger.marginal("O", m) for m in range(k, j))
            s, e = tokens[seq[k]].start, tokens[seq[j - 1]].end
            extra.append(Span(s, e, label, text[s:e], "crf-recall", round(score, 4)))
            k = j
    return spans, extra


def _key(spans):
    return [(s.start, s.end, s.label, s.text, s.source, s.score) for s in spans]


@pytest.mark.parametrize("name", ["en", "es"])
def test_weights_are_read_exactly_from_the_model_file(name):
    det = _model(name)
    labels, attrs, feats = read_crfsuite(det.crf_model)
    assert labels == det._tagger.labels()
    info = det._tagger.info()  # weights printed with six decimals
    state = {(attrs[s], labels[d]): w for t, s, d, w in feats.tolist() if t == 0}
    trans = {(labels[s], labels[d]): w for t, s, d, w in feats.tolist() if t == 1}
    assert state.keys() == info.state_features.keys()
    assert trans.keys() == info.transitions.keys()
    assert max(abs(w - info.state_features[k]) for k, w in state.items()) <= 5.1e-7
    assert max(abs(w - info.transitions[k]) for k, w in trans.items()) <= 5.1e-7


@pytest.mark.parametrize("name", ["en", "es"])
def test_viterbi_and_marginals_equal_pycrfsuite(name):
    det = _model(name)
    weights = det._decoder.weights
    tagger = det._tagger
    for text in _texts(name)[:7]:
        tokens, feats, _ = document_features(text, det.recognizers, det.feature_options)
        for seq in sequences(text, tokens):
            xseq = [feats[i] for i in seq]
            tags, marg = weights.tag(xseq)
            assert tags == tagger.tag(xseq)
            ref = np.array(
                [[tagger.marginal(t, k) for t in weights.labels] for k in range(len(seq))]
            )
            assert np.abs(marg - ref).max() <= 1e-9


@pytest.mark.parametrize("name", ["en", "es"])
def test_numeric_features_score_as_the_feature_strings(name):
    """The decoder's feature ids give the very sums the strings give (in crfsuite's order)."""
    det = _model(name)
    dec = det._decoder
    for text in _texts(name):
        tokens, feats, hits = document_features(text, det.recognizers, det.feature_options)
        S, seqs = dec.scores(text, hits)
        assert seqs == sequences(text, tokens)
        assert _same_bits(S, dec.weights.state_scores(feats))


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()  # -0.0 and 0.0 differ here


_WORDS = sorted({w for d in generate_notes(8, seed=41) for w in d.text.split()})
_EN: list = []


def _en():
    if not _EN:
        _EN.append(_model("en"))
    return _EN[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(_WORDS), st.sampled_from([" ", " ", "\n", ", ", "  ", ""])),
        max_size=60,
    )
)
def test_a_token_starts_from_its_words_summed_rows_same_bits_as_row_by_row(parts):
    """The word table keeps each word's own rows of W summed (``OWN``); a token's scores start
    from that sum. Against the strings' scores, added row by row: the same bits."""
    det = _en()
    text = "".join(w + sep for w, sep in parts)
    tokens, feats, hits = document_features(text, det.recognizers, det.feature_options)
    if not tokens:
        return
    S, _ = det._decoder.scores(text, hits)
    assert _same_bits(S, det._decoder.weights.state_scores(feats))


@pytest.mark.parametrize("name", ["en", "es"])
def test_detector_spans_equal_the_pycrfsuite_reference(name):
    det = _model(name)
    for text in _texts(name):
        hits = run_recognizers(text, det.recognizers)
        crf, extra = det._crf_spans(text, hits)
        ref_crf, ref_extra = _reference_spans(det, text)
        assert _key(crf) == _key(ref_crf)
        assert _key(extra) == _key(ref_extra)


def test_recall_spans_with_a_threshold_on_a_model_without_one():
    det = _model("es")
    text = _texts("es")[-len(EDGE) - 2]
    det.phi_threshold = 0.05
    hits = run_recognizers(text, det.recognizers)
    assert _key(det._crf_spans(text, hits)[1]) == _key(_reference_spans(det, text)[1])


def test_a_small_word_table_starts_afresh_and_changes_nothing():
    det = _model("en")
    small = CrfDecoder(CrfWeights.from_model(det.crf_model), det.feature_options, word_limit=60)
    for text in _texts("en"):
        hits = run_recognizers(text, det.recognizers)
        assert small.spans(text, hits, 0.25) == det._decoder.spans(text, hits, 0.25)
    assert len(small.words.index) <= 60


def test_token_lists_are_tokens_for():
    for text in [*_texts("es"), "MartínezNºCol AbcDef aBC", "x\u0301y Ǆemal"]:
        toks = tokens_for(text)
        assert token_lists(text) == (
            [t.text for t in toks],
            [t.start for t in toks],
            [t.end for t in toks],
        )


def test_saved_and_loaded_model_detects_the_same(tmp_path):
    det = _model("en")
    path = save_model(det, tmp_path / "en-copy.model")
    again = load_model(path)
    for text in _texts("en")[:4]:
        assert _key(again.detect(text)) == _key(det.detect(text))


def test_detection_works_when_numba_cannot_cache(tmp_path):
    """No place to write numba's cache: the kernels are compiled in memory, silently."""
    code = (
        "import numba.core.caching as c\n"
        "def refuse(self):\n"
        "    raise PermissionError('read-only')\n"
        "c._CacheLocator.ensure_cache_path = refuse\n"  # no cache location is writable
        "from hidekit.text.detection.detector import load_model\n"
        "det = load_model('en')\n"
        "print(repr([(s.start, s.end, s.label) for s in det.detect(TEXT)]))\n"
    )
    text = generate_notes(1, seed=4)[0].text
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    out = subprocess.run(
        [sys.executable, "-c", f"TEXT = {text!r}\n" + code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Warning" not in out.stderr, out.stderr
    det = _model("en")
    assert out.stdout.strip() == repr([(s.start, s.end, s.label) for s in det.detect(text)])


def _viterbi_reference(S: np.ndarray, T: np.ndarray) -> list[int]:
    """crfsuite's Viterbi in plain Python: every previous label tried, the first best on ties."""
    n, L = S.shape
    prev = [float(x) for x in S[0]]
    back = []
    for t in range(1, n):
        best, arg = [-1.7976931348623157e308] * L, [0] * L
        for i in range(L):
            for j in range(L):
                v = prev[i] + float(T[i, j])
                if best[j] < v:
                    best[j], arg[j] = v, i
        back.append(arg)
        prev = [best[j] + float(S[t, j]) for j in range(L)]
    tags = [max(range(L), key=lambda i: (prev[i], -i))]
    for arg in reversed(back):
        tags.append(arg[tags[-1]])
    return tags[::-1]


_SCORES = st.sampled_from([-40.0, -12.5, -3.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 2.25, 7.0, 35.0])


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.data())
def test_viterbi_skipping_beaten_labels_gives_the_reference_path(L, n, data):
    """``_viterbi`` skips previous labels that trail the best by more than their transition gap:
    the same path as trying them all (ties included: the scores repeat on purpose)."""
    S = np.array(data.draw(st.lists(_SCORES, min_size=n * L, max_size=n * L))).reshape(n, L)
    T = np.array(data.draw(st.lists(_SCORES, min_size=L * L, max_size=L * L))).reshape(L, L)
    w = CrfWeights([f"L{k}" for k in range(L)], [], np.zeros((0, L)), T)
    seq = np.array([0, n], np.int64)
    out = {}
    for name, gap in (("pruned", w.gap), ("all", np.full((L, L), -np.inf))):
        got, P = np.zeros(n, np.int32), np.zeros((n, L))
        _tag_sequences(S, seq, 1, w.T, w.expT, w.expTT, gap, got, P)
        out[name] = got.tolist()
    assert out["pruned"] == out["all"] == _viterbi_reference(S, T)


@pytest.mark.parametrize("name", ["en", "es"])
def test_viterbi_skipping_changes_no_tag_of_the_shipped_models(name):
    det = _model(name)
    dec, w = det._decoder, det._decoder.weights
    L = len(w.labels)
    assert (w.gap < 0).any()  # something can be skipped
    for text in _texts(name):
        S, seqs = dec.scores(text, run_recognizers(text, det.recognizers))
        if not seqs:
            continue
        ptr = np.array([s[0] for s in seqs] + [seqs[-1][-1] + 1], np.int64)
        tags = {}
        for key, gap in (("pruned", w.gap), ("all", np.full((L, L), -np.inf))):
            got, P = np.zeros(len(S), np.int32), np.zeros_like(S)
            _tag_sequences(S, ptr, len(seqs), w.T, w.expT, w.expTT, gap, got, P)
            tags[key] = got.tolist()
        assert tags["pruned"] == tags["all"]


def _plain_marginals(E, expT):
    """crfsuite's scaled forward-backward written plainly (one term added per step, ascending):
    the reference order of operations the compiled kernel must keep to the bit."""
    n, L = len(E), len(expT)
    alpha = [[0.0] * L for _ in range(n)]
    beta = [[0.0] * L for _ in range(n)]
    scale = [0.0] * n
    for t in range(n):
        for j in range(L):
            if t == 0:
                alpha[0][j] = E[0][j]
                continue
            for i in range(L):
                alpha[t][j] += alpha[t - 1][i] * expT[i][j]
            alpha[t][j] *= E[t][j]
        total = 0.0
        for j in range(L):
            total += alpha[t][j]
        scale[t] = 1.0 / total if total != 0.0 else 1.0
        alpha[t] = [a * scale[t] for a in alpha[t]]
    beta[n - 1] = [scale[n - 1]] * L
    for t in range(n - 2, -1, -1):
        row = [beta[t + 1][j] * E[t + 1][j] for j in range(L)]
        for i in range(L):
            for j in range(L):
                beta[t][i] += expT[i][j] * row[j]
            beta[t][i] *= scale[t]
    return [[alpha[t][j] * beta[t][j] / scale[t] for j in range(L)] for t in range(n)]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 9),
    st.integers(1, 7),
    st.lists(st.floats(-30, 30, allow_nan=False), min_size=7 * 9 + 81, max_size=7 * 9 + 81),
)
def test_compiled_marginals_keep_the_plain_order_of_operations(L, n, values):
    """The kernel adds four terms per pass over a row (``crf_kernels._weighted_sum``); each
    label's sum still takes its terms one by one in ascending order: the same bits as the plain
    loops, for any number of labels (not only multiples of four)."""
    from hidekit.text.detection.crf_kernels import _exp_array, _marginals

    S = np.array(values[: n * L]).reshape(n, L)
    T = np.array(values[-L * L :]).reshape(L, L)
    E, expT = np.empty_like(S), np.empty_like(T)
    _exp_array(S, E)
    _exp_array(T, expT)
    P = np.empty_like(E)
    alpha, beta, scale = np.empty_like(E), np.empty_like(E), np.empty(n)
    _marginals(E, 0, n, expT, np.ascontiguousarray(expT.T), alpha, beta, scale, P)
    assert _same_bits(P, np.array(_plain_marginals(E.tolist(), expT.tolist())))
