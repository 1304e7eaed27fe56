"""The recognizers' hits in one text as arrays: how detection runs its recognizers.

A ``HitRunner`` runs a fixed list of recognizers over a text through their ``find_arrays``
and keeps the hits as three arrays (start, end, code) in ``run_recognizers``' order: by start,
end and label, recognizer order on ties. A code stands for one (recognizer, label) pair, so the
CRF looks its features up once per pair (``crf_decode``) and only the hits a model reports on
their own become ``Span`` objects. It is an execution strategy: each recognizer stays the small
registered piece it is, and ``run_recognizers`` gives the same hits as spans through this runner.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from hidekit.text.detection.recognizers.base import Recognizer
from hidekit.text.spans import Span


class HitTable:
    """One text's hits, sorted: ``starts``, ``ends`` and ``codes`` (see ``HitRunner.pairs``)."""

    __slots__ = ("codes", "ends", "starts")

    def __init__(self, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray):
        self.starts, self.ends, self.codes = starts, ends, codes

    def __len__(self) -> int:
        return int(self.starts.shape[0])


class HitRunner:
    """Runs ``recognizers`` and codes their hits; code k is the pair ``pairs[k]`` (recognizer
    index, label). Codes are given as pairs are first met, so they differ between runners."""

    def __init__(self, recognizers: Sequence[Recognizer]):
        self.recognizers = list(recognizers)
        self.pairs: list[tuple[int, str]] = []
        self._codes: list[dict[str, int]] = [{} for _ in self.recognizers]
        self._rank = np.zeros(0, np.int64)  # code -> its label's place among the known labels
        self._lock = threading.Lock()

    def code(self, k: int, label: str) -> int:
        """The code of recognizer ``k``'s hits labelled ``label``."""
        with self._lock:
            got = self._codes[k].get(label)
            if got is None:
                self.pairs.append((k, label))
                got = self._codes[k][label] = len(self.pairs) - 1
                order = {lab: r for r, lab in enumerate(sorted({lab for _, lab in self.pairs}))}
                self._rank = np.array([order[lab] for _, lab in self.pairs], np.int64)
        return got

    def run(self, text: str) -> HitTable:
        starts: list[int] = []
        ends: list[int] = []
        codes: list[int] = []
        for k, rec in enumerate(self.recognizers):
            s, e, labels = rec.find_arrays(text)
            if not s:
                continue
            starts += s
            ends += e
            if isinstance(labels, str):
                code = self._codes[k].get(labels)
                codes += [self.code(k, labels) if code is None else code] * len(s)
            else:
                known = self._codes[k]
                codes += [known[lab] if lab in known else self.code(k, lab) for lab in labels]
        s_ = np.array(starts, np.int64)
        e_ = np.array(ends, np.int64)
        c_ = np.array(codes, np.int64)
        order = np.lexsort((self._rank[c_], e_, s_))  # stable: recognizer order on ties
        return HitTable(s_[order], e_[order], c_[order])

    def spans(
        self,
        text: str,
        table: HitTable,
        relabel: Mapping[str, str] | None = None,
        keep: np.ndarray | None = None,
    ) -> list[Span]:
        """The hits as spans, in table order; with ``relabel`` (recognizer name -> label) only
        the hits of the recognizers it names, labelled as it says (``keep``: its ``mask``, when
        the caller has it)."""
        starts, ends, codes = table.starts, table.ends, table.codes
        if relabel is not None:
            keep = self.mask(relabel) if keep is None or len(keep) < len(self.pairs) else keep
            rows = np.flatnonzero(keep[codes])
            starts, ends, codes = starts[rows], ends[rows], codes[rows]
        recs, pairs = self.recognizers, self.pairs
        out = []
        for s, e, c in zip(starts.tolist(), ends.tolist(), codes.tolist(), strict=True):
            k, label = pairs[c]
            rec = recs[k]
            if relabel is not None:
                label = relabel[rec.name]
            out.append(Span(s, e, label, text[s:e], rec.name, rec.score))
        return out

    def mask(self, names: Mapping[str, str] | set[str]) -> np.ndarray:
        """Per code: is its recognizer one of ``names``."""
        recs = self.recognizers
        return np.array([recs[k].name in names for k, _ in self.pairs], bool)


def run_recognizers(text: str, recognizers: Iterable[Recognizer]) -> list[Span]:
    """All hits of all recognizers, sorted by (start, end, label), recognizer order on ties;
    overlaps are kept (the caller decides). Detection reads the same hits as arrays."""
    runner = HitRunner(list(recognizers))
    return runner.spans(text, runner.run(text))
