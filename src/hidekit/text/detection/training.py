"""Training the CRF: BIO tags from gold spans, crfsuite training (cross-validation is in
``hidekit.text.detection.cross_validation``).

HIDE (Gardner & Xiong, 2.3 and 3) trains a CRF on tagged reports and reports 10-fold
cross-validation per label (Table 2). We do the same: ``train_model`` builds a ``Detector`` from
annotated documents, ``cross_validate`` reports strict/relaxed/token figures per type, HIDE's
per-BIO-tag table and the overall token accuracy. Training is deterministic: crfsuite's L-BFGS
has no randomness, and folds come from a seeded shuffle.
"""

from __future__ import annotations

import bisect
import os
import random
import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pycrfsuite

from hidekit.errors import InputError, OptionError
from hidekit.text.detection.detector import FEATURE_VERSION, MODEL_FORMAT, Detector
from hidekit.text.detection.dev_split import EN_DEV_UPTO as EN_DEV_UPTO
from hidekit.text.detection.dev_split import held_for_validation as held_for_validation
from hidekit.text.detection.dev_split import in_validation as in_validation
from hidekit.text.detection.features import cluster_key, document_features, sequences, tokens_for
from hidekit.text.detection.recognizers import get_recognizers, run_recognizers
from hidekit.text.detection.tokenize import Token
from hidekit.text.spans import Document, Span

DEFAULTS = {
    "c1": 0.05,
    "c2": 0.01,
    "max_iterations": 200,
    "min_freq": 1,
    "document_features": True,  # feature version 2: mentions of a word elsewhere in the document
    "clusters": 0,  # feature version 2: number of word clusters learned from the texts (0 = none)
    "phi_threshold": None,  # decoding: also report O-tagged tokens whose P(PHI) reaches this
    "fill_precision": None,  # recognizers whose hits overlap gold PHI this often fill CRF gaps
    # privacy: "drop" keeps out of the model the word features of words seen fewer than
    # private_min_count times in the training texts (a surname seen once is not written in it)
    "private_features": None,
    "private_min_count": 5,
}
DIRECT_PRECISION = 0.9  # a recognizer reports on its own when this share of its hits is one label
DIRECT_MIN_HITS = 5
FILL_MIN_SCORE = 0.7  # a recognizer's own precision prior (its score) needed to fill gaps


def bio_tags(tokens: Sequence[Token], spans: Sequence[Span]) -> list[str]:
    """B-/I-LABEL for tokens overlapping a span, O elsewhere; on overlapping gold, longer span wins."""
    tags = ["O"] * len(tokens)
    taken = [False] * len(tokens)
    j0 = 0
    for s in sorted(spans, key=lambda x: (-x.length, x.start)):
        first = True
        idx = [
            i for i in range(j0, len(tokens)) if tokens[i].start < s.end and tokens[i].end > s.start
        ]
        if any(taken[i] for i in idx):
            continue
        for i in idx:
            tags[i] = ("B-" if first else "I-") + s.label
            taken[i] = True
            first = False
    return tags


@dataclass
class Prepared:
    """One document turned into CRF sequences (features and tags) plus its recognizer hits."""

    doc: Document
    xseqs: list[list[list[str]]]
    yseqs: list[list[str]]
    hits: list[Span]


def prepare(doc: Document, recognizers, options: dict | None = None) -> Prepared:
    tokens, feats, hits = document_features(doc.text, recognizers, options)
    tags = bio_tags(tokens, doc.spans)
    xs, ys = [], []
    for seq in sequences(doc.text, tokens):
        xs.append([feats[i] for i in seq])
        ys.append([tags[i] for i in seq])
    return Prepared(doc, xs, ys, hits)


def learn_clusters(
    texts: Iterable[str],
    fine: int = 256,
    coarse: int = 32,
    *,
    min_count: int = 3,
    contexts: int = 400,
    dims: int = 40,
    iterations: int = 15,
    seed: int = 0,
) -> dict[str, str]:
    """Word clusters from unlabelled text: word -> "coarse:fine" cluster ids.

    Each word of at least ``min_count`` occurrences is described by the words at -2, -1, +1 and
    +2 around it (the ``contexts`` most frequent words), weighted by positive PMI, reduced to
    ``dims`` dimensions (eigenvectors of the context Gram matrix, i.e. a truncated SVD), then
    grouped by k-means into ``fine`` clusters, whose centroids k-means groups into ``coarse``
    ones. Words that behave alike (first names, street words, months) share a cluster, so the
    CRF can generalize from a word seen in training to one that was not. Deterministic: seeded
    initialisation, no sampling.
    """
    counts: Counter = Counter()
    docs_ids = []
    for text in texts:
        words = [cluster_key(t.text.lower()) for t in tokens_for(text)]
        counts.update(words)
        docs_ids.append(words)
    vocab = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if len(vocab) < 4 * fine:
        return {}
    index = {w: i for i, w in enumerate(vocab)}
    ctx = {w: i for i, w in enumerate(vocab[:contexts])}
    flat_w, flat_c = [], []
    for words in docs_ids:  # -1 padding keeps windows inside a document
        flat_w.extend([-1, -1, *(index.get(w, -1) for w in words), -1, -1])
        flat_c.extend([-1, -1, *(ctx.get(w, -1) for w in words), -1, -1])
    w_ids, c_ids = np.array(flat_w), np.array(flat_c)
    n_ctx = len(ctx)
    m = np.zeros((len(vocab), 4 * n_ctx))
    for slot, d in enumerate((-2, -1, 1, 2)):
        a = w_ids[max(0, -d) : len(w_ids) - max(0, d)]
        b = c_ids[max(0, d) : len(c_ids) - max(0, -d)]
        keep = (a >= 0) & (b >= 0)
        np.add.at(m, (a[keep], slot * n_ctx + b[keep]), 1.0)
    total = m.sum()
    expected = np.outer(m.sum(1), m.sum(0)) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        ppmi = np.where(m > 0, np.log(m / expected), 0.0)
    ppmi = np.maximum(ppmi, 0.0)
    _, vecs = np.linalg.eigh(ppmi.T @ ppmi)
    emb = ppmi @ vecs[:, -dims:]
    emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    rng = np.random.default_rng(seed)
    fine_of, centroids = _kmeans(emb, fine, iterations, rng)
    coarse_of, _ = _kmeans(centroids, coarse, iterations, rng)
    return {w: f"{coarse_of[fine_of[i]]}:{fine_of[i]}" for i, w in enumerate(vocab)}


def _kmeans(x, k: int, iterations: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's k-means from ``k`` distinct seeded points; an emptied cluster keeps its centroid."""
    centroids = x[np.sort(rng.choice(len(x), k, replace=False))].copy()
    assign = np.zeros(len(x), dtype=int)
    for _ in range(iterations):
        d = (x**2).sum(1)[:, None] - 2 * x @ centroids.T + (centroids**2).sum(1)[None, :]
        assign = d.argmin(1)
        for c in range(k):
            members = x[assign == c]
            if len(members):
                centroids[c] = members.mean(0)
    return assign, centroids


_TITLE_BEFORE = re.compile(r"(?:Dr|Drs|Mr|Mrs|Ms|Miss|Doctor)\.?[ \t]+$")
_NAME_WORD = re.compile(r"[^\W\d_]{2,}")
AUGMENT_LOCALES = (
    "de_DE",
    "fr_FR",
    "it_IT",
    "pl_PL",
    "es_ES",
    "nl_NL",
    "pt_BR",
    "sv_SE",
    "en_GB",
    "en_IE",
)


def _renamer(rng: random.Random, pool: Sequence[str]) -> Callable[[re.Match], str]:
    """A replacement function for name words: one new name per word (any case), case kept."""
    mapping: dict[str, str] = {}

    def new_name(m: re.Match) -> str:
        w = m.group()
        v = mapping.setdefault(w.casefold(), rng.choice(pool))
        return v.upper() if w.isupper() else v.lower() if w.islower() else v

    return new_name


def augment_documents(
    docs: Sequence[Document],
    seed: int = 0,
    *,
    name_labels: Iterable[str] = ("NAME", "DOCTOR"),
    rename: float = 0.5,
    untitle: float = 0.3,
    flatten: float = 0.25,
    upper: float = 0.05,
    lower: float = 0.03,
    lower_names: float = 0.04,
) -> list[Document]:
    """Variants of annotated documents, annotation kept exact, so a model learns context over form.

    A CRF trained on generated notes can learn the generator: names that are all in one Faker
    list, a title before every clinician, one field per line. Each document, independently and
    seeded: with probability ``rename`` its name words get names from other Faker locales
    (consistently within the document, case kept); ``untitle`` drops "Dr."/"Mr." before names;
    ``flatten`` joins its lines with spaces; ``upper`` writes it in capitals; ``lower`` in lower
    case (hurried notes are: "spoke w/ wanda re dc"); ``lower_names`` only its names.
    """
    from hidekit.text.anonymization.surrogates import name_lists

    labels = set(name_labels)
    pool = sorted(
        {n for loc in AUGMENT_LOCALES for part in name_lists(loc) for n in part if " " not in n}
    )
    out = []
    for k, doc in enumerate(docs):
        rng = random.Random(f"{seed}:{k}")
        do_rename, do_untitle = rng.random() < rename, rng.random() < untitle
        do_flatten, do_upper = rng.random() < flatten, rng.random() < upper
        do_lower, do_lower_names = rng.random() < lower, rng.random() < lower_names
        if not (do_rename or do_untitle or do_flatten or do_upper or do_lower or do_lower_names):
            out.append(doc)
            continue
        new_name = _renamer(rng, pool)
        text, spans, pos = [], [], 0
        length = 0
        for s in sorted(doc.spans, key=lambda x: (x.start, -x.end)):
            if s.start < pos:  # overlapping gold: keep the first
                continue
            before = doc.text[pos : s.start]
            inside = doc.text[s.start : s.end]
            if s.label in labels:
                if do_untitle:
                    before = _TITLE_BEFORE.sub("", before)
                if do_rename:
                    inside = _NAME_WORD.sub(new_name, inside)
                if do_lower_names:
                    inside = inside.lower()
            text.append(before)
            length += len(before)
            spans.append((length, length + len(inside), s.label))
            text.append(inside)
            length += len(inside)
            pos = s.end
        text.append(doc.text[pos:])
        new = "".join(text)
        if do_flatten:
            new = re.sub(r"(?<!\n)\n(?!\n)", " ", new)
        if do_upper and len(new.upper()) == len(new):
            new = new.upper()
        elif do_lower and len(new.lower()) == len(new):
            new = new.lower()
        out.append(
            Document(
                doc.id,
                new,
                [Span(a, b, lab, new[a:b], "gold") for a, b, lab in spans],
                doc.patient,
                dict(doc.meta, augmented=True),
            )
        )
    return out


def learn_direct(prepared: Sequence[Prepared]) -> dict[str, str]:
    """Recognizers whose exact hits are one gold label ≥ 90% of the time, mapped to that label."""
    stats: dict[str, Counter] = defaultdict(Counter)
    for p in prepared:
        gold = {(s.start, s.end): s.label for s in p.doc.spans}
        for h in p.hits:
            stats[h.source][gold.get((h.start, h.end))] += 1
    direct = {}
    for source, c in sorted(stats.items()):
        label, n = max(
            ((k, v) for k, v in c.items() if k is not None), key=lambda kv: kv[1], default=(None, 0)
        )
        if label is not None and n >= DIRECT_MIN_HITS and n / sum(c.values()) >= DIRECT_PRECISION:
            direct[source] = label
    return direct


def learn_fill(
    prepared: Sequence[Prepared],
    min_share: float,
    exclude: Iterable[str] = (),
    scores: dict[str, float] | None = None,
    judged_on: Sequence[Prepared] = (),
) -> dict[str, str]:
    """Recognizers whose hits overlap some gold span at least ``min_share`` of the time (and at
    least ``DIRECT_MIN_HITS`` times), mapped to the label they overlap most: a recall-first model
    lets them report what neither the CRF nor a direct recognizer found (exact offsets matter less
    than finding the PHI). Only structured recognizers qualify (score >= ``FILL_MIN_SCORE``, given
    in ``scores``): in generated notes nearly every capitalized dictionary word is PHI, in real
    text it is not, so single-word dictionaries and bare numbers would learn the generator.

    ``judged_on``: texts written by people (a subset of the training texts, or others): a
    recognizer with at least ``DIRECT_MIN_HITS`` hits there that overlap gold less than
    ``min_share`` of the time does not fill, whatever the generated texts say (issue 14: the
    organization dictionary overlapped gold 79% of the time in the development texts, 10% of its
    gap-filling hits were PHI on the validation split)."""
    scores = scores or {}
    skip = set(exclude) | {r for r, score in scores.items() if score < FILL_MIN_SCORE}
    overlap, total, labels = _fill_counts(prepared, skip)
    if judged_on:
        j_overlap, j_total, _ = _fill_counts(judged_on, skip)
        skip |= {
            r for r, n in j_total.items() if n >= DIRECT_MIN_HITS and j_overlap[r] / n < min_share
        }
    return {
        source: max(sorted(labels[source]), key=labels[source].__getitem__)
        for source in sorted(total)
        if source not in skip
        and overlap[source] >= DIRECT_MIN_HITS
        and overlap[source] / total[source] >= min_share
    }


def _fill_counts(
    prepared: Sequence[Prepared], skip: set[str]
) -> tuple[Counter, Counter, dict[str, Counter]]:
    """Per recognizer (but those in ``skip``): hits overlapping a gold span, all hits, and the
    labels of the gold spans overlapped."""
    overlap: Counter = Counter()
    total: Counter = Counter()
    labels: dict[str, Counter] = defaultdict(Counter)
    for p in prepared:
        spans = sorted(p.doc.spans)
        starts = [s.start for s in spans]
        for h in p.hits:
            if h.source in skip:
                continue
            total[h.source] += 1
            i = max(bisect.bisect_right(starts, h.start) - 1, 0)
            hit = None
            while i < len(spans) and spans[i].start < h.end:
                if spans[i].end > h.start:
                    hit = spans[i]
                    break
                i += 1
            if hit is not None:
                overlap[h.source] += 1
                labels[h.source][hit.label] += 1
    return overlap, total, labels


def _check_docs(docs: Sequence[Document]) -> None:
    if not docs:
        raise InputError("no training documents")
    if not any(d.spans for d in docs):
        raise InputError("the training documents hold no annotated spans")


def _fit(
    prepared: Sequence[Prepared],
    language: str | None,
    names: list[str],
    params: dict,
    extra: dict | None = None,
    options: dict | None = None,
    judged_on: Sequence[Prepared] = (),
) -> Detector:
    trainer = pycrfsuite.Trainer(verbose=False)
    for p in prepared:
        for x, y in zip(p.xseqs, p.yseqs, strict=True):
            trainer.append(x, y)
    trainer.set_params(
        {
            "c1": params["c1"],
            "c2": params["c2"],
            "max_iterations": params["max_iterations"],
            "feature.minfreq": params["min_freq"],
            "feature.possible_transitions": True,
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer.train(path)
        with open(path, "rb") as fh:
            crf = fh.read()
    return Detector(crf, model_config(prepared, language, names, params, extra, options, judged_on))


def model_config(
    prepared: Sequence[Prepared],
    language: str | None,
    names: list[str],
    params: dict,
    extra: dict | None = None,
    options: dict | None = None,
    judged_on: Sequence[Prepared] = (),
) -> dict:
    """A model's ``model.json`` beside its CRF: labels, recognizers, the direct and fill
    recognizers learned from the training texts' hits (``judged_on``: see ``learn_fill``)."""
    labels = sorted({s.label for p in prepared for s in p.doc.spans})
    return {
        "format": MODEL_FORMAT,
        "feature_version": FEATURE_VERSION,
        "language": language,
        "labels": labels,
        "recognizers": names,
        "direct": (direct := learn_direct(prepared)),
        "fill": (
            learn_fill(
                prepared,
                params["fill_precision"],
                direct,
                {r.name: r.score for r in get_recognizers(names=names)},
                judged_on,
            )
            if params.get("fill_precision")
            else {}
        ),
        "features": options or {},
        "phi_threshold": params.get("phi_threshold"),
        "training": {
            "documents": len(prepared),
            "spans": sum(len(p.doc.spans) for p in prepared),
            **params,
            **(extra or {}),
        },
    }


def _params(overrides: dict) -> dict:
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise OptionError(f"unknown training parameter(s): {', '.join(sorted(unknown))}")
    params = {**DEFAULTS, **{k: v for k, v in overrides.items() if v is not None}}
    if params["private_features"] not in (None, "drop"):
        raise OptionError(
            f"private_features must be drop (or none), got {params['private_features']!r}"
        )
    if int(params["private_min_count"]) < 1:
        raise OptionError("private_min_count must be at least 1")
    if params["max_iterations"] < 1 or params["c1"] < 0 or params["c2"] < 0:
        raise OptionError("max_iterations must be ≥ 1 and c1, c2 ≥ 0")
    for key in ("phi_threshold", "fill_precision"):
        if params[key] is not None and not 0 < params[key] <= 1:
            raise OptionError(f"{key} must be in (0, 1]")
    return params


def train_model(
    docs: Sequence[Document],
    language: str | None = None,
    *,
    recognizers=None,
    progress: Callable | None = None,
    info: dict | None = None,
    unlabelled: Iterable[str] | None = None,
    fill_judged_on: Sequence[Document] = (),
    **overrides,
) -> Detector:
    """Train a Detector on annotated documents (``language`` picks the recognizers: en, es or None).

    ``unlabelled``: texts to learn word clusters from (default: the training documents' texts).
    ``fill_judged_on``: annotated texts written by people, on which a recognizer must also hold
    to fill the CRF's gaps (``learn_fill``'s ``judged_on``; usually some of ``docs``).
    """
    _check_docs(docs)
    recs = get_recognizers(language, recognizers)
    advance = progress or (lambda n=1, **_: None)
    params = _params(overrides)
    options = feature_options(
        params, unlabelled if unlabelled is not None else [d.text for d in docs]
    )
    prepared = []
    for d in docs:
        prepared.append(prepare(d, recs, options))
        advance(1)
    prepared, options = privatize(prepared, options, params)
    judged = hits_only(fill_judged_on, recs)
    return _fit(prepared, language, [r.name for r in recs], params, info, options, judged)


def hits_only(docs: Iterable[Document], recognizers) -> list[Prepared]:
    """Documents with their recognizer hits and no CRF sequences (to judge recognizers on)."""
    return [Prepared(d, [], [], run_recognizers(d.text, recognizers)) for d in docs]


# Private features ------------------------------------------------------------------------------
# A model keeps the names of its features, and word features name training words verbatim: a
# patient's surname seen once in the training notes is written in the model file. With
# ``private_features="drop"`` the word features (the word, its neighbours, word pairs, the line
# head, the document-level heads) of words seen fewer than ``private_min_count`` times in the
# training texts are left out of training, and so out of the model, as are their word clusters.
# Detection needs nothing new: a feature the model lacks has no weight. Prefix and suffix features
# (up to four letters) and shapes stay.

_WORD_FEATURES = frozenset(
    {"w=", "-2w=", "-1w=", "1w=", "2w=", "-1w|w=", "w|+1w=", "lh=", "dfh=", "df-1="}
)


def word_counts(docs: Iterable[Document]) -> Counter:
    """How often each lower-cased token occurs in the texts."""
    from hidekit.text.detection.features import token_lists

    counts: Counter = Counter()
    for d in docs:
        counts.update(w.lower() for w in token_lists(d.text)[0])
    return counts


def _names_rare_word(feature: str, rare: set[str]) -> bool:
    head, eq, words = feature.partition("=")
    return bool(eq) and f"{head}=" in _WORD_FEATURES and any(w in rare for w in words.split("|"))


def privatize(prepared: list[Prepared], options: dict, params: dict) -> tuple[list, dict]:
    """``prepared`` and the feature ``options`` without rare training words, when asked."""
    if params.get("private_features") != "drop":
        return prepared, options
    counts = word_counts(p.doc for p in prepared)
    rare = {w for w, n in counts.items() if n < int(params["private_min_count"])}
    out = [
        Prepared(
            p.doc,
            [[[f for f in tok if not _names_rare_word(f, rare)] for tok in x] for x in p.xseqs],
            p.yseqs,
            p.hits,
        )
        for p in prepared
    ]
    if options.get("clusters"):
        common: Counter[str] = Counter()
        for w, n in counts.items():
            common[cluster_key(w)] += n
        options = {
            **options,
            "clusters": {
                w: c
                for w, c in options["clusters"].items()
                if common[w] >= int(params["private_min_count"])
            },
        }
    return out, options


def feature_options(params: dict, texts: Iterable[str]) -> dict:
    """The model's ``features`` setting from the training parameters (clusters learned on ``texts``)."""
    options: dict = {}
    if params.get("document_features"):
        options["document"] = True
    if params.get("clusters"):
        clusters = learn_clusters(texts, fine=int(params["clusters"]))
        if clusters:
            options["clusters"] = clusters
    return options
