"""PHI detection: recognizers plus a CRF, behind one small API.

API (stable; other parts of hidekit code against it)::

    from hidekit.text.detection.detector import load_model

    det = load_model("en")            # "en", "es" (shipped in hidekit/models) or a path to a model file
    spans = det.detect("Seen by Dr. John Smith on 03/04/2021.")   # -> list[Span], sorted, no overlaps
    docs = det.detect_documents(docs, n_jobs=2, progress=None)    # -> list[Document] with spans set
    det.labels                        # the labels this model can emit

Every span satisfies ``text[span.start:span.end] == span.text``; ``span.source`` names what found it
("crf" or a recognizer name) and ``span.score`` its confidence.

Overlap policy (one rule, applied to every text): candidates come from up to five places, in this
order of precedence — (1) deny-list terms, (2) the CRF, (3) recognizers that the model trusts on
their own ("direct" recognizers: during training, a recognizer whose exact hits carried one gold
label at least 90% of the time is mapped to that label), (4) "fill" recognizers of a recall-first
model (their hits overlapped gold PHI at least ``fill_precision`` of the time in training; for
English, not those of ``boundaries.OVERRULED_FILL``, whose hits the CRF tagged O rightly), (5) when
the model sets ``phi_threshold``, runs of tokens the CRF tagged O whose marginal probability of
being PHI reaches it and that look like PHI on their face (``boundaries.plausible_recall``: no
lone acronyms, no lower-case words except occupations, no phrase without an occupation word
guessed as one; for English, nothing the clinical
safe-list keeps: ``boundaries.drop_safe_recall``). A candidate is kept only if it overlaps no span
kept before it; within one source, higher score first, then longer, then earlier. The allow-list
removes any candidate (other than a deny-list term) whose text equals an allowed term
(case-insensitive, whitespace collapsed) or lies inside an occurrence of one, before overlaps are
resolved; both lists are enforced once more after the repairs below (``hidekit.text.detection.termlists``). One boundary repair comes
first: CRF spans lying strictly inside a direct recognizer's hit of the same label (and no other
CRF span touching that hit) give way to the hit (``widen_to_direct``). The repairs of
``hidekit.text.detection.boundaries`` come last, from the annotation conventions: languages are dropped,
lower-case names are dropped in a normally capitalized text, names run together are split
(quotes, brackets, "+", " - ", table gaps) and so are identifiers across table gaps, an age keeps
its number ("72" of "72M") and what does not read as an age, a postcode or an identifier is dropped,
"retired" leaves occupations, and titles,
roles, credentials and stray lower-case words leave the edges of name-like spans. They only
shrink, split or drop spans, and run for English models only (``language == "en"``). After the
profile, ``hidekit.text.detection.consistency`` closes leaks (English only): a name or code found
in part covers its whole word, a street keeps its unit, a name found once is masked at every
mention in the text.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np
import pycrfsuite

from hidekit.errors import InputError, OptionError
from hidekit.io.files import read_file_bytes
from hidekit.text.corpus import attach_spans
from hidekit.text.detection import crf_decode
from hidekit.text.detection.boundaries import (
    drop_languages,
    drop_lowercase_names,
    drop_overruled_fill,
    drop_safe_recall,
    drop_shapeless,
    plausible_recall,
    split_names,
    split_numbers,
    trim_age,
    trim_edges,
    trim_occupation,
)
from hidekit.text.detection.casing import text_case
from hidekit.text.detection.consistency import close_leaks
from hidekit.text.detection.crf_decode import HitArrays
from hidekit.text.detection.features import FEATURE_VERSION, SUPPORTED_VERSIONS
from hidekit.text.detection.leak_names import close_name_leaks
from hidekit.text.detection.model_file import model_file_bytes, read_model_parts
from hidekit.text.detection.recognizers import get_recognizers, literal_index
from hidekit.text.detection.recognizers.hits import HitRunner
from hidekit.text.detection.termlists import TermLists
from hidekit.text.detection.tokenize import Token
from hidekit.text.detection.windows import (
    MARGIN_CHARS,
    WINDOW_CHARS,
    Window,
    detect_in_windows,
    merge_windows,
    plan_windows,
)
from hidekit.text.detection.workers import choose_workers, shared_out
from hidekit.text.profiles import apply_profile, get_profile
from hidekit.text.spans import Document, Span, sort_spans

MODEL_FORMAT = "hidekit-crf"
SHIPPED = ("en", "es", "en-lower")
# a shipped model read with a second one for texts judged lower case (issue 14): trained on the
# same documents lower-cased, it reads context where capitals say nothing
LOWER_CASE_MODELS = {"en": "en-lower"}


def spans_from_tags(text: str, tokens: Sequence[Token], tags: Sequence[str]) -> list[Span]:
    """BIO tags -> spans; an I- that does not continue a span of its label starts a new one."""
    spans: list[Span] = []
    start = end = 0  # read only while ``label`` is set
    label = None
    for t, tag in zip(tokens, tags, strict=True):
        kind, _, lab = tag.partition("-")
        if kind == "I" and label == lab:
            end = t.end
            continue
        if label is not None:
            spans.append(Span(start, end, label, text[start:end], "crf"))
            label = None
        if kind in ("B", "I"):
            start, end, label = t.start, t.end, lab
    if label is not None:
        spans.append(Span(start, end, label, text[start:end], "crf"))
    return spans


def resolve_overlaps(groups: Sequence[Sequence[Span]]) -> list[Span]:
    """Keep spans group by group (earlier groups win); inside a group by score, length, start."""
    kept: list[Span] = []  # disjoint, ordered by start
    starts: list[int] = []
    for group in groups:
        for s in sorted(group, key=lambda x: (-x.score, -x.length, x.start)):
            if s.start == s.end:  # an empty span: the plain check
                if not any(s.overlaps(k) for k in kept):
                    i = bisect.bisect_left(starts, s.start)
                    kept.insert(i, s)
                    starts.insert(i, s.start)
                continue
            # kept spans are disjoint: only the neighbours of s's place can overlap it
            i = bisect.bisect_left(starts, s.start)
            if i < len(kept) and kept[i].start < s.end:
                continue
            if i and kept[i - 1].end > s.start:
                continue
            kept.insert(i, s)
            starts.insert(i, s.start)
    return sort_spans(kept)


def widen_to_direct(crf: Sequence[Span], direct: Sequence[Span]) -> list[Span]:
    """CRF spans lying inside a direct recognizer's hit of the same label give way to that hit.

    A direct recognizer matched gold spans exactly in training (its boundaries are its strength:
    "zoe@example.com", "March 8, 2024"); a CRF span of the same label strictly inside one of its
    hits is a boundary error, so it is dropped and the hit (lower precedence) is kept instead.
    The CRF's spans are disjoint and ordered, so the ones touching a hit are found by bisection
    (linear in the text, not crf x direct); any other input takes the plain pairwise check.
    """
    crf = list(crf)
    ordered = all(c.start < c.end for c in crf) and all(
        a.end <= b.start for a, b in zip(crf, crf[1:], strict=False)
    )
    starts = [c.start for c in crf]
    ends = [c.end for c in crf]
    drop = set()
    for d in direct:
        near: Sequence[int]
        if ordered:  # the spans overlapping d: a run of consecutive indices
            near = range(bisect.bisect_right(ends, d.start), bisect.bisect_left(starts, d.end))
        else:
            near = [i for i, c in enumerate(crf) if c.start < d.end and d.start < c.end]
        inside = [
            i
            for i in near
            if crf[i].label == d.label
            and d.start <= crf[i].start
            and crf[i].end <= d.end
            and crf[i].length < d.length
        ]
        if inside and len(inside) == len(near):
            drop.update(inside)
    return [c for i, c in enumerate(crf) if i not in drop]


class Detector:
    """A trained CRF plus its recognizers, allow-list and deny-list."""

    def __init__(
        self,
        crf_model: bytes,
        config: Mapping,
        allow: Iterable[str] | None = None,
        deny: Mapping[str, str] | Iterable[str] | None = None,
        profile: str | None = None,
    ):
        if config.get("format") != MODEL_FORMAT:
            raise InputError(f"not a hidekit model (format {config.get('format')!r})")
        if config.get("feature_version") not in SUPPORTED_VERSIONS:
            raise InputError(
                f"model built with feature version {config.get('feature_version')}, "
                f"this hidekit computes version {FEATURE_VERSION}: retrain it"
            )
        self.crf_model = bytes(crf_model)
        self.config = dict(config)
        self.language = config.get("language")
        self.recognizers = get_recognizers(names=config["recognizers"])
        self.direct: dict[str, str] = dict(config.get("direct", {}))
        self.fill: dict[str, str] = dict(config.get("fill", {}))
        self.feature_options: dict = dict(config.get("features", {}))
        self.terms = TermLists(allow, deny)
        self.allow, self.deny = set(self.terms.allow), self.terms.deny
        self.phi_threshold: float | None = config.get("phi_threshold")
        self.profile = get_profile(profile)  # None: the model's own labels (hidekit.text.profiles)
        # detection decodes with hidekit.text.detection.crf_decode: the same weights, tags and marginals,
        # features looked up as numbers instead of strings (built once per model in a process)
        self._decoder = crf_decode.decoder_for(self.crf_model, self.feature_options)
        # the recognizers run as one HitRunner; per (recognizer, label) pair it met, the CRF's
        # feature ids and whether the model reports the pair's hits directly or as fill
        self._runner = HitRunner(self.recognizers)
        self._pair_lock = threading.Lock()
        self._pairs: tuple[np.ndarray, ...] = (
            *self._decoder.pair_ids([]),
            np.zeros(0, bool),
            np.zeros(0, bool),
        )
        self.window_chars = WINDOW_CHARS
        self.window_margin = MARGIN_CHARS
        # the detector for texts judged lower case (``casing.text_case``); None: this one reads all
        self.lower_case: Detector | None = None

    @cached_property
    def _tagger(self) -> pycrfsuite.Tagger:
        """pycrfsuite's tagger, the reference: cross-validation and tests tag with it; detection
        does not (opened on first use, not in every worker)."""
        tagger = pycrfsuite.Tagger()
        tagger.open_inmemory(self.crf_model)
        return tagger

    # ------------------------------------------------------------------ info and storage
    @property
    def labels(self) -> list[str]:
        return list(self.config.get("labels", []))

    def to_bytes(self) -> bytes:
        """The model file: a zip of ``model.json`` (config) and ``model.crfsuite`` (weights), and
        the lower-case model's as ``lower/model.json`` and ``lower/model.crfsuite`` when set."""
        lower = self.lower_case
        return model_file_bytes(
            (self.crf_model, self.config),
            None if lower is None else (lower.crf_model, lower.config),
        )

    def state(self) -> tuple:
        """What rebuilds this detector in another process (``Detector.from_state``): model bytes,
        configuration, allow and deny lists, profile name, and the lower-case model's state."""
        profile = self.profile.name if self.profile else None
        lower = None if self.lower_case is None else self.lower_case.state()
        return (self.crf_model, self.config, sorted(self.allow), dict(self.deny), profile, lower)

    @classmethod
    def from_state(cls, state: tuple) -> Detector:
        """The detector ``state()`` describes."""
        *args, lower = state
        det = cls(*args)
        det.lower_case = None if lower is None else cls.from_state(lower)
        return det

    # ------------------------------------------------------------------ detection
    def _crf_spans(self, text: str, hits: HitArrays) -> tuple[list[Span], list[Span]]:
        """The CRF's spans (Viterbi path; score = the smallest marginal of the run's tags), and the
        recall spans: runs of tokens the path tags O although their marginal probability of being
        PHI is at least ``phi_threshold`` (label: the most probable one summed over the run)."""
        return self._decoder.spans(text, hits, self.phi_threshold)

    def detect(self, text: str) -> list[Span]:
        """PHI spans of ``text``, sorted and without overlaps (see the module's overlap policy).

        A text longer than ``window_chars`` is read in bounded windows (``hidekit.text.detection.windows``)
        so time grows linearly with its length; a shorter one is read whole."""
        if not isinstance(text, str):
            raise InputError(f"detect() needs a str, got {type(text).__name__}")
        return detect_in_windows(self._detect_whole, text, self.window_chars, self.window_margin)

    def windows(self, text: str) -> list[Window]:
        """The windows ``detect`` reads ``text`` in (one when the text is short)."""
        return plan_windows(text, self.window_chars, self.window_margin)

    def _hits(self, text: str) -> tuple[HitArrays, list[Span], list[Span]]:
        """The recognizers' hits as the CRF reads them, and as spans the hits of the direct and
        the fill recognizers (labelled as the model maps them)."""
        runner = self._runner
        table = runner.run(text)
        pairs = self._pairs
        if len(runner.pairs) > len(pairs[1]):  # new (recognizer, label) pairs: look them up
            with self._pair_lock:
                names = [(self.recognizers[k].name, lab) for k, lab in runner.pairs]
                ids, drl = self._decoder.pair_ids(names)
                self._pairs = pairs = (ids, drl, runner.mask(self.direct), runner.mask(self.fill))
        codes = table.codes
        hits = (table.starts, table.ends, pairs[0][codes], pairs[1][codes])
        direct = runner.spans(text, table, self.direct, pairs[2])
        fill = runner.spans(text, table, self.fill, pairs[3])
        return hits, direct, fill

    def _detect_whole(self, text: str) -> list[Span]:
        """Detection on the whole of ``text`` at once (one window), by the lower-case model when
        there is one and the text (this window of it) is judged lower case."""
        if self.lower_case is not None and text_case(text) == "lower":
            return self.lower_case._detect_one(text)
        return self._detect_one(text)

    def _detect_one(self, text: str) -> list[Span]:
        """Detection on the whole of ``text`` at once by this model."""
        hits, direct, fill = self._hits(text)
        crf, recall = self._crf_spans(text, hits)
        deny = self.terms.denied(text)
        crf = widen_to_direct(crf, direct)
        recall = [r for r in recall if plausible_recall(r)]
        if self.language == "en":
            recall = drop_safe_recall(text, recall) if recall else recall
        if self.allow:
            crf, direct, fill, recall = (
                [s for s in group if not self.terms.is_allowed(text, s)]
                for group in (crf, direct, fill, recall)
            )
        spans = resolve_overlaps([deny, crf, direct, fill, recall])
        if self.language == "en":
            spans = drop_overruled_fill(spans)  # after overlaps: no recall guess takes their place
            spans = drop_lowercase_names(text, drop_shapeless(drop_languages(spans)))
            spans = trim_edges(split_numbers(trim_occupation(trim_age(split_names(spans)))))
        if self.profile is not None:
            spans = apply_profile(
                text, spans, self.profile, self.language, self.config["recognizers"]
            )
        if self.language == "en":  # decision rules that close leaks (consistency module)
            spans = close_leaks(text, close_name_leaks(text, spans))
        # the user's lists have the last word: no repair drops a denied term or revives an allowed one
        return self.terms.apply(text, spans) if self.terms else spans

    def detect_document(self, doc: Document) -> Document:
        return doc.with_spans(self.detect(doc.text))

    def detect_documents(
        self, docs: Sequence[Document], n_jobs: int | None = 2, progress: Callable | None = None
    ) -> list[Document]:
        """Detect in every document, in ``n_jobs`` processes when the work is worth it (None: as
        many as pay off now, ``hidekit.text.detection.workers``); the windows of a long document
        are shared out among the processes like documents."""
        docs = list(docs)
        advance = progress or (lambda n=1, **_: None)
        plans = [self.windows(d.text) for d in docs]
        pieces = sum(len(p) for p in plans)
        total_chars = sum(len(d.text) for d in docs)
        n_jobs = choose_workers(n_jobs, total_chars, pieces)
        if n_jobs <= 1:
            out = []
            for d in docs:
                out.append(self.detect_document(d))
                advance(1)
            return out
        crf_decode.warm_up()  # compile once here: forked workers inherit the compiled code
        literal_index.warm_up()
        state = self.state()
        texts = [
            d.text if len(plan) == 1 else d.text[w.start : w.end]
            for d, plan in zip(docs, plans, strict=True)
            for w in plan
        ]
        results: list[Document] = []
        chunk = max(1, min(16, pieces // (n_jobs * 24)))
        found = shared_out(
            texts, self._detect_whole, _detect_in_worker, n_jobs, _init_worker, (state,), chunk
        )
        _PARENT[:] = [state, self]  # a forked worker takes this detector as it is (warm)
        try:
            for d, plan in zip(docs, plans, strict=True):
                parts = [next(found) for _ in plan]
                spans = parts[0] if len(plan) == 1 else merge_windows(plan, parts)
                results.append(d.with_spans(spans))
                advance(1)
        finally:
            _PARENT.clear()
        return results


_WORKER: Detector | None = None
_PARENT: list = []  # [state, detector] while a pool runs: what a forked worker inherits


def _init_worker(state) -> None:
    global _WORKER
    if _PARENT and _PARENT[0] is state:  # forked (the state is the parent's own object)
        _WORKER = _PARENT[1]
        return
    _WORKER = Detector.from_state(state)


def _detect_in_worker(text: str) -> list[Span]:
    """One document, or one window of a long one, read whole."""
    assert _WORKER is not None  # set by _init_worker
    return _WORKER._detect_whole(text)


def shipped_model_path(name: str) -> Path:
    return Path(str(resources.files("hidekit") / "models" / f"{name}.model"))


def load_model(
    name_or_path,
    allow: Iterable[str] | None = None,
    deny: Mapping[str, str] | Iterable[str] | None = None,
    profile: str | None = None,
) -> Detector:
    """ "en", "es" or "en-lower" (the shipped models) or the path of a model file saved by
    ``Detector.save``; ``profile`` (hipaa, i2b2, strict, general) says which spans count as PHI
    (``hidekit.text.profiles``). The shipped "en" reads texts judged lower case with "en-lower"."""
    if isinstance(name_or_path, Detector):
        return name_or_path
    key = str(name_or_path)
    det, lower = _load_one(key, allow, deny, profile)
    if key in LOWER_CASE_MODELS:
        lower = _load_one(LOWER_CASE_MODELS[key], allow, deny, profile)[0]
    det.lower_case = lower
    return det


def _load_one(key: str, allow, deny, profile) -> tuple[Detector, Detector | None]:
    """The detector of a shipped model or a model file, and of the lower-case model it holds."""
    if key in SHIPPED:
        path = shipped_model_path(key)
        if not path.exists():
            raise InputError(
                f"the shipped {key!r} model is missing from this installation ({path})"
            )
    else:
        path = Path(key)
        if not path.exists():
            raise OptionError(
                f"{key}: no such model (use en, es, en-lower or the path of a model file)"
            )
        if path.is_dir():
            raise OptionError(f"{key}: is a folder, not a model file")
    main, lower = read_model_parts(read_file_bytes(path), str(path))
    try:
        return (
            Detector(*main, allow, deny, profile),
            None if lower is None else Detector(*lower, allow, deny, profile),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(
            f"{path}: not a hidekit model file (its model.json is malformed: "
            f"{type(exc).__name__} {exc})"
        ) from None


def find_phi(
    docs: list[Document],
    model: str | None = None,
    spans: list[Document] | None = None,
    n_jobs: int = 2,
    progress=None,
    allow=None,
    deny=None,
    profile: str | None = None,
) -> list[Document]:
    """PHI spans on each document: detected by ``model``, or taken from ``spans``, an annotated
    corpus the job has read (``hidekit.text.corpus.read_corpus``), matched by id (never both);
    the allow- and deny-lists (``hidekit.text.detection.termlists``) have the last word either way.
    ``profile`` (``hidekit.text.profiles``) keeps what that profile counts as PHI."""
    if (model is None) == (spans is None):
        raise InputError("give exactly one of --model (detect PHI) or --spans (use annotations)")
    if spans is not None:
        found = attach_spans(docs, spans)
        if profile is not None:
            from hidekit.text.profiles import restrict_documents

            found = restrict_documents(found, profile)
        terms = TermLists(allow, deny)
        return [d.with_spans(terms.apply(d.text, d.spans)) for d in found] if terms else found
    det = load_model(model, allow=allow, deny=deny, profile=profile)
    return det.detect_documents(docs, n_jobs=n_jobs, progress=progress)
