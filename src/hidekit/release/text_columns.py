"""The ``text_columns`` plan step: PHI detection and a text operator on free-text columns.

Surveys carry open-ended answers ("Other, specify", comments) where respondents write names,
phone numbers and places; a release that treats only the coded columns leaks them. This step
runs a detection model with a profile (``hidekit.text.profiles``) over every present cell of the
named columns and rewrites each cell with a text operator (redact, tag or keyed surrogates).

What it records (``decisions_``, in the release audit): per column the cells read, the cells
holding PHI and the spans per label, and the text risk of the result after Scaiano et al.'s
eq. (11) (as ``hidekit.evaluation.text_risk.di_risk``): the probability that a cell still leaks a
direct identifier, from the share of cells holding each direct type (w, as detected) and the
detector's recall r on text nobody here wrote (``recall``: the held-out figure the user trusts
for the model; by default 0.95, the acceptable recall of the paper's benchmark). It is an estimate
from the detector's measured recall, not a count: nothing in a table says what was missed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import ClassVar

import pandas as pd

from hidekit.errors import OptionError, require_columns
from hidekit.transforms.base import Transform, register
from hidekit.transforms.identifiers import _as_list

OPERATORS = ("redact", "tag", "surrogate")


@register("text_columns")
class TextColumns(Transform):
    """Find PHI in free-text columns with a model and a profile; replace it with an operator."""

    param_docs: ClassVar[dict[str, str]] = {
        "columns": "free-text column(s) to de-identify",
        "model": "detection model: en, es or the path of a model file",
        "profile": "what counts as PHI: hipaa, i2b2, strict or general",
        "operator": "redact, tag or surrogate (surrogates keyed by the plan's secret key)",
        "recall": "the detector's recall on unseen text, for the text-risk estimate (0-1)",
        "key": "the plan's secret key (keys the surrogates; never written in a plan)",
    }
    # redact and tag: cell by cell on the executors; surrogates on the driver
    spark_scope: ClassVar[str] = "spark"

    def __init__(
        self,
        columns=(),
        model: str = "en",
        profile: str = "hipaa",
        operator: str = "tag",
        recall: float = 0.95,
        key=None,
    ):
        from hidekit.text.profiles import get_profile

        self.columns = _as_list(columns)
        self.model = model
        self.profile = profile
        self.operator = operator
        self.recall = recall
        self._key = key  # private: never in get_params / audit logs
        if not self.columns:
            raise OptionError("text_columns needs at least one column")
        if operator not in OPERATORS:
            raise OptionError(f"text_columns: operator must be one of {', '.join(OPERATORS)}")
        if not isinstance(recall, (int, float)) or not 0 <= recall <= 1:
            raise OptionError(f"text_columns: recall must be between 0 and 1, got {recall!r}")
        get_profile(profile)

    def get_params(self) -> dict:
        return {k: v for k, v in super().get_params().items() if k != "key"}

    def _operator(self):
        from hidekit.text.anonymization.operators import get_operator

        if self.operator != "surrogate" or self._key is None:
            return get_operator(self.operator)
        from hidekit.secrets import as_randomness

        return get_operator("surrogate", key=as_randomness(bytes(self._key)))

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        from hidekit.text.detection.detector import load_model

        require_columns(frame.columns, self.columns)
        out, found = self.rewrite(frame, load_model(self.model, profile=self.profile))
        self.decisions_ = {col: self._summary(docs) for col, docs in found.items()}
        return out

    def rewrite(self, frame: pd.DataFrame, det) -> tuple[pd.DataFrame, dict[str, list]]:
        """``frame`` with every present cell of the columns rewritten (detector ``det``), and
        per column the cells' documents with the spans found."""
        from hidekit.text.anonymization.operators import anonymize_documents
        from hidekit.text.spans import Document

        op = self._operator()
        out = frame.copy()
        found_by_column = {}
        for col in self.columns:
            cells = [(i, v) for i, v in frame[col].items() if isinstance(v, str) and v.strip()]
            docs = [Document(f"{col}:{n}", text, []) for n, (_, text) in enumerate(cells)]
            found = det.detect_documents(docs, n_jobs=1)
            result = anonymize_documents(found, op)
            column = out[col].astype(object)
            for (i, _), doc in zip(cells, result.documents, strict=True):
                column.at[i] = doc.text
            out[col] = column
            found_by_column[col] = found
        return out, found_by_column

    def _summary(self, found) -> dict:
        from collections import Counter

        labels = Counter(s.label for d in found for s in d.spans)
        holding = Counter(lab for d in found for lab in {s.label for s in d.spans})
        return self.summary(len(found), sum(1 for d in found if d.spans), labels, holding)

    def summary(self, n: int, with_phi: int, labels: Mapping, holding: Mapping) -> dict:
        """A column's decisions from its counts: ``n`` cells read, ``with_phi`` holding PHI,
        spans per label, cells holding each label."""
        from hidekit.text.profiles import DIRECT_LABELS

        direct = sorted(lab for lab in holding if lab in DIRECT_LABELS)
        w = [holding[lab] / n for lab in direct]
        # eq. (11), as hidekit.evaluation.text_risk.di_risk computes it (release may not import
        # evaluation, a package of the same layer; a test checks the two agree)
        risk = 1.0 - math.prod(1.0 - wt * (1.0 - self.recall) for wt in w)
        return {
            "cells": n,
            "cells_with_phi": with_phi,
            "spans": dict(sorted(labels.items())),
            "text_risk": {
                "direct_leak_probability": round(risk, 6),
                "assumed_recall": self.recall,
                "direct_types": {lab: round(holding[lab] / n, 6) for lab in direct},
                "equation": "Scaiano et al. 2016 eq. (11): 1 - prod(1 - w (1 - r))",
            },
        }

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table, with redact or tag: each partition's cells through ``rewrite`` on
        the executors, the model shipped once, the decisions counted by Spark
        (``hidekit.release.spark_text_columns``); keyed surrogates (whose names depend on the
        names met before them) run on the driver."""
        from hidekit.release.spark_text_columns import spark_text_columns

        return spark_text_columns(self, table, fit)
