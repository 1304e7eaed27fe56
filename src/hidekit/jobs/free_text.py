"""The scan's second look at free-text columns: PII detection on open-ended answers (issue 14).

``hidekit.scan`` reads values with patterns: an e-mail or a phone number inside a comment is
found, a name or a street is not ("my neighbour Ama Owusu helped me", "we live behind the market
in Kumasi"). A column of free text (its cells average ``MIN_MEAN_CHARS`` characters or more) is
read here with a detection model and a profile (``general`` by default: survey answers, e-mails,
chat), on a seeded sample of at most ``cells`` cells. When PII is found the column's verdict
becomes "free text containing PII: N spans of types …" with the ``text_columns`` plan step as the
method (``hidekit.release.text_columns``: detection and a text operator on every cell).

The scan lives in ``scan`` and the detector in ``text``, two packages of one layer; this job,
above both, joins them through ``scan_table``'s ``review`` hook.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hidekit.scan.scanner import ColumnFinding
from hidekit.scan.table3 import DIRECT, INDIRECT, SEVERITY
from hidekit.text.profiles import DIRECT_LABELS

if TYPE_CHECKING:
    from hidekit.text.detection.detector import Detector

MIN_MEAN_CHARS = 30  # a column whose non-missing cells average this long is read as free text
DEFAULT_CELLS = 200  # cells read per free-text column (seeded sample)


def free_text_cells(series: pd.Series) -> pd.Series | None:
    """The non-missing text cells of a column that holds free text, else None."""
    if not (pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(series)):
        return None
    texts = series.dropna().map(str).str.strip()
    texts = texts[texts != ""]
    if texts.empty or texts.str.len().mean() < MIN_MEAN_CHARS:
        return None
    if not texts.str.contains(r"\s", regex=True).mean() >= 0.5:  # words, not codes
        return None
    return texts


def read_free_text(texts: pd.Series, detector, cells: int = DEFAULT_CELLS, seed: int = 0) -> dict:
    """Detection over a seeded sample of ``cells`` distinct cells: spans per label and how many
    cells hold any."""
    distinct = pd.Series(texts.unique())
    if len(distinct) > cells:
        pick = np.sort(np.random.default_rng(seed).choice(len(distinct), cells, replace=False))
        distinct = distinct.iloc[pick]
    labels: Counter = Counter()
    with_pii = 0
    for text in distinct:
        spans = detector.detect(text)
        with_pii += bool(spans)
        labels.update(s.label for s in spans)
    return {
        "cells_read": int(len(distinct)),
        "cells_with_pii": int(with_pii),
        "spans": int(sum(labels.values())),
        "labels": dict(sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def _verdict(finding: ColumnFinding, found: dict, profile: str) -> ColumnFinding:
    labels = found["labels"]
    direct = any(lab in DIRECT_LABELS for lab in labels)  # a name, contact, street, number
    category = DIRECT if direct else INDIRECT
    if finding.pii and SEVERITY[finding.category] > SEVERITY[category]:
        category = finding.category
    why = (
        f"free text containing PII: {found['spans']} span(s) of types {', '.join(labels)} in "
        f"{found['cells_with_pii']} of {found['cells_read']} cells read (profile {profile}); "
        "de-identify it with the text_columns plan step"
    )
    evidence = dict(finding.evidence, free_text=found)
    return ColumnFinding(
        finding.name, True, category, "free_text", ("text_columns",), why, evidence
    )


class FreeTextReview:
    """The ``review`` of ``hidekit.scan.scan_table`` that reads free-text columns with a detection
    model under a profile: a column in which PII is found gets the free-text verdict; the others
    keep theirs, with what was read in their evidence. The model is loaded on first need."""

    def __init__(
        self,
        model: str = "en",
        profile: str = "general",
        cells: int = DEFAULT_CELLS,
        seed: int = 0,
    ):
        self.model, self.profile, self.cells, self.seed = model, profile, cells, seed
        self._detector: Detector | None = None

    def __call__(self, finding: ColumnFinding, series: pd.Series) -> ColumnFinding:
        texts = free_text_cells(series)
        if texts is None:
            return finding
        if self._detector is None:
            from hidekit.text.detection.detector import load_model

            self._detector = load_model(self.model, profile=self.profile)
        found = read_free_text(texts, self._detector, self.cells, self.seed)
        if found["spans"]:
            return _verdict(finding, found, self.profile)
        return replace(finding, evidence=dict(finding.evidence, free_text=found))
