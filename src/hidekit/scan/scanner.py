"""``scan_table``: which columns hold PII, of what kind (J-PAL Table 3), and what to do about it.

Evidence comes from three places, strongest first: the values (patterns with checksums, Faker's
name lists, dates), the column name and its Stata/SPSS/SAS label (word lists in English, Spanish
and French), and value labels. A large table is scanned on a seeded random sample of rows; the
result says how many rows exist and how many were read, so nobody mistakes a sample for a census.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.errors import OptionError
from hidekit.io import Dataset, read_table
from hidekit.io.files import sample_csv_rows
from hidekit.io.readers import NUMBER, detect_format
from hidekit.scan import patterns as P
from hidekit.scan.keywords import match_keywords
from hidekit.scan.table3 import NONE, SEVERITY, TYPES

DEFAULT_SAMPLE = 10_000
# CSV files above this size are sampled while streaming, never loaded whole.
STREAM_BYTES = 32 * 1024 * 1024
PROBE = 256


@dataclass
class ColumnFinding:
    """What the scan concluded about one column, and why."""

    name: str
    pii: bool
    category: str  # direct / strong indirect / indirect / none
    identifier: str | None  # key of hidekit.scan.table3.TYPES
    methods: tuple[str, ...]
    reason: str
    evidence: dict = field(default_factory=dict)

    @property
    def identifier_label(self) -> str:
        return TYPES[self.identifier].label if self.identifier else ""

    @property
    def method(self) -> str:
        return ", ".join(self.methods)

    def to_dict(self) -> dict:
        t = TYPES.get(self.identifier) if self.identifier else None
        return {
            "name": self.name,
            "pii": self.pii,
            "category": self.category,
            "identifier": self.identifier,
            "identifier_label": self.identifier_label,
            "method": self.method,
            "methods": list(self.methods),
            "hipaa": t.hipaa if t else None,
            "note": t.note if t else "",
            "reason": self.reason,
            "evidence": self.evidence,
        }


@dataclass
class ScanResult:
    source: str
    format: str
    rows_total: int
    rows_scanned: int
    seed: int
    columns: list[ColumnFinding]

    @property
    def sampled(self) -> bool:
        return self.rows_scanned < self.rows_total

    @property
    def flagged(self) -> list[str]:
        return [c.name for c in self.columns if c.pii]

    def names(self, *categories: str) -> list[str]:
        """Flagged columns of the given categories (e.g. ``names("direct")`` for a release plan)."""
        return [c.name for c in self.columns if c.pii and c.category in categories]

    def __getitem__(self, name: str) -> ColumnFinding:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "format": self.format,
            "rows_total": self.rows_total,
            "rows_scanned": self.rows_scanned,
            "sampled": self.sampled,
            "sample_seed": self.seed if self.sampled else None,
            "flagged": self.flagged,
            "columns": [c.to_dict() for c in self.columns],
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [{k: v for k, v in c.to_dict().items() if k != "evidence"} for c in self.columns]
        )


# --- reading -----------------------------------------------------------------------------------


def sample_rows(frame: pd.DataFrame, sample: int | None, seed: int) -> pd.DataFrame:
    """The rows the scan reads: ``sample`` of them at seeded random positions, in order."""
    if sample is None or len(frame) <= sample:
        return frame
    idx = np.sort(np.random.default_rng(seed).choice(len(frame), size=sample, replace=False))
    return frame.iloc[idx]


def _load(data, sample: int | None, seed: int, sep: str | None) -> tuple[Dataset, int, str]:
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if (
            sample
            and path.is_file()
            and detect_format(path) == "csv"
            and path.stat().st_size > STREAM_BYTES
        ):
            frame, total = sample_csv_rows(path, sample, seed, sep)
            return Dataset(frame, "csv", path), total, str(path)
    ds = read_table(data, sep=sep)
    source = str(ds.path) if ds.path else f"<{type(data).__name__}>"
    frame = sample_rows(ds.frame, sample, seed)
    return ds.with_frame(frame) if frame is not ds.frame else ds, len(ds.frame), source


# --- one column --------------------------------------------------------------------------------


def _cell_texts(s: pd.Series) -> tuple[pd.Series, bool, pd.Series | None]:
    """(non-missing cells as text, numeric?, dates if the column is a date type)."""
    s = s.dropna()
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        return s.dt.strftime("%Y-%m-%d"), False, s
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.astype(str), False, None
    if pd.api.types.is_numeric_dtype(s.dtype):
        v = s.to_numpy(dtype=float)
        if (
            len(v)
            and np.all(np.isfinite(v))
            and np.all(v == np.round(v))
            and np.abs(v).max() < 1e15
        ):
            return pd.Series(v.astype(np.int64).astype(str), index=s.index), True, None
        return s.map(repr).astype(str), True, None
    texts = s.map(str).str.strip()
    texts = texts[texts != ""]
    numeric = bool(len(texts)) and bool(texts.str.fullmatch(NUMBER).all())
    return texts, numeric, None


class _Distinct:
    """Distinct cell texts with their counts: patterns run once per distinct value."""

    def __init__(self, texts: pd.Series):
        counts = texts.value_counts(sort=False)
        self.values = pd.Series(counts.index.astype(str), dtype=object)
        self.weights = counts.to_numpy(dtype=float)
        self.total = float(self.weights.sum())

    def without_long(self) -> _Distinct:
        """The same cells minus those longer than ``LONG_CELL_CHARS`` (free text, not one value):
        shares stay shares of every cell, and long cells count as matching no value pattern."""
        keep = (self.values.str.len() <= P.LONG_CELL_CHARS).to_numpy(dtype=bool)
        if keep.all():
            return self
        short = object.__new__(_Distinct)
        short.values = self.values[keep].reset_index(drop=True)
        short.weights = self.weights[keep]
        short.total = self.total
        return short

    def share_of(self, test) -> float:
        """Share of cells passing ``test``; a pattern that matches none of the first 256
        distinct values (in random order when sampled) is not run on the rest."""
        probe = self.values.iloc[:PROBE]
        if len(self.values) > 2 * PROBE and not np.asarray(test(probe), dtype=bool).any():
            return 0.0
        return self.share(test(self.values))

    def share(self, mask) -> float:
        mask = np.asarray(mask, dtype=bool)
        return round(float(self.weights[mask].sum() / self.total), 4) if self.total else 0.0


def _long_cells(texts: pd.Series) -> dict | None:
    """Cells longer than ``LONG_CELL_CHARS``: read in windows, not tried as one value (or None)."""
    lengths = texts.str.len()
    long = lengths > P.LONG_CELL_CHARS
    if not long.any():
        return None
    return {
        "cells": int(long.sum()),
        "longest": int(lengths.max()),
        "window_chars": P.LONG_CELL_CHARS,
    }


def _share(mask: np.ndarray) -> float:
    return round(float(mask.mean()), 4) if len(mask) else 0.0


def _value_evidence(
    texts: pd.Series, numeric: bool, dates: pd.Series | None, min_share: float, today: date | None
) -> tuple[dict, dict | None, list[tuple[float, str, str]]]:
    """Pattern shares, date summary, and (score, type, why) candidates from the values."""
    shares: dict[str, float] = {}
    candidates: list[tuple[float, str, str]] = []
    d = _Distinct(texts).without_long()
    for pat in P.PATTERNS:
        if numeric and pat.text_only:
            continue
        share = d.share_of(pat.test)
        if share > 0:
            shares[pat.key] = share
            if pat.strong and share >= min_share:
                candidates.append(
                    (share, pat.type_key, f"{share:.0%} of values look like {pat.description}")
                )
    if not numeric:
        share = d.share_of(P.FIRST_NAME.test)
        if share >= P.FIRST_NAME_SHARE:
            shares[P.FIRST_NAME.key] = share
            candidates.append(
                (share, P.FIRST_NAME.type_key, f"{share:.0%} of values are known first names")
            )
    if dates is not None:
        parsed, share = dates, _share(dates.notna().to_numpy())
    elif len(d.values) > 2 * PROBE and P.parse_dates(d.values.iloc[:PROBE]).isna().all():
        parsed, share = None, 0.0
    else:
        parsed = P.parse_dates(d.values)
        share = d.share(parsed.notna().to_numpy())
    date_info = None
    if share > 0:
        ok = parsed.dropna()
        birth = P.looks_like_birth_dates(ok, today)
        date_info = {
            "share": share,
            "first": ok.min().date().isoformat(),
            "last": ok.max().date().isoformat(),
            "birth_like": birth,
        }
        if share >= min_share:
            kind = "date_of_birth" if birth else "event_date"
            what = "birth dates (spread over decades, all past)" if birth else "dates"
            candidates.append((share, kind, f"{share:.0%} of values are {what}"))
    return shares, date_info, candidates


def _contained(texts: pd.Series, text_share: float) -> tuple[dict, list[tuple[float, str, str]]]:
    """PII written inside free text: share of cells containing an e-mail, phone, SSN, URL, IP."""
    if texts.empty or texts.str.len().mean() < 12:
        return {}, []
    found, candidates = {}, []
    d = _Distinct(texts)
    for key, type_key, rx in P.CONTAINED:
        share = d.share_of(lambda v, rx=rx: P.contains(v, rx))
        if share > 0:
            found[key] = share
            if share >= text_share:
                candidates.append(
                    (share, type_key, f"free text: {share:.0%} of cells contain {key}")
                )
    return found, candidates


def _label_evidence(labels: dict, min_share: float) -> tuple[dict, list[tuple[float, str, str]]]:
    texts = pd.Series([str(v).strip() for v in labels.values() if str(v).strip()], dtype=object)
    shares: dict = {}
    candidates: list[tuple[float, str, str]] = []
    if texts.empty:
        return shares, candidates
    for pat in P.PATTERNS:
        if not pat.strong:
            continue
        share = _share(pat.test(texts))
        if share > 0:
            shares[pat.key] = share
            if share >= min_share:
                candidates.append(
                    (
                        0.95 * share,
                        pat.type_key,
                        f"value labels look like {pat.description} ({share:.0%})",
                    )
                )
    return shares, candidates


def scan_column(
    name: str,
    series: pd.Series,
    *,
    label: str = "",
    value_labels: dict | None = None,
    min_share: float = 0.5,
    text_share: float = 0.05,
    today: date | None = None,
) -> ColumnFinding:
    """Decide one column: the best-scoring evidence names the identifier type."""
    texts, numeric, dates = _cell_texts(series)
    evidence: dict = {
        "non_missing": int(len(texts)),
        "uniqueness": round(texts.nunique() / len(texts), 4) if len(texts) else 0.0,
    }
    long_cells = _long_cells(texts)
    if long_cells:
        evidence["long_cells"] = long_cells
    # (score, from values?, type, why): values at full share beat names; names beat labels.
    scored: list[tuple[float, int, str, str]] = []
    m = match_keywords(name, "name")
    if m:
        evidence["name_match"] = m.keyword
        scored.append((1.0, 0, m.type_key, f"name matches '{m.keyword}'"))
    if label:
        evidence["label"] = label
        lm = match_keywords(label, "label")
        if lm:
            evidence["label_match"] = lm.keyword
            if not m or lm.strength > m.strength:
                scored.append(
                    (
                        0.99 if not m else 1.0,
                        0,
                        lm.type_key,
                        f"label '{label.strip()}' matches '{lm.keyword}'",
                    )
                )
    shares, date_info, cands = _value_evidence(texts, numeric, dates, min_share, today)
    if shares:
        evidence["patterns"] = shares
    if date_info:
        evidence["dates"] = date_info
    scored += [(s, 1, t, why) for s, t, why in cands]
    free_text = False
    if not numeric and not cands:
        found, cands = _contained(texts, text_share)
        if found:
            evidence["contained"] = found
        if cands and not scored:
            free_text = True
            scored += [(s, 1, t, why) for s, t, why in cands]
    if value_labels:
        lshares, lcands = _label_evidence(value_labels, min_share)
        if lshares:
            evidence["value_labels"] = lshares
        scored += [(s, 1, t, why) for s, t, why in lcands]
    if not scored:
        return ColumnFinding(
            name, False, NONE, None, (), "no name, label or value evidence", evidence
        )
    score, _, type_key, why = max(
        scored, key=lambda c: (c[0], c[1], SEVERITY[TYPES[c[2]].category])
    )
    kind = TYPES[type_key]
    if type_key == "age" and numeric and len(texts):
        over = int((pd.to_numeric(texts, errors="coerce") > 89).sum())
        evidence["over_89"] = over
    methods = ("redact",) if free_text else kind.methods
    return ColumnFinding(name, True, kind.category, type_key, methods, why, evidence)


# --- whole table -------------------------------------------------------------------------------


def scan_table(
    data,
    *,
    sample: int | None = DEFAULT_SAMPLE,
    seed: int = 0,
    min_share: float = 0.5,
    text_share: float = 0.05,
    sep: str | None = None,
    today: date | None = None,
    progress: Callable[..., None] | None = None,
    review: Callable[[ColumnFinding, pd.Series], ColumnFinding] | None = None,
) -> ScanResult:
    """Scan every column of ``data`` (path, DataFrame or Dataset) for PII.

    ``sample`` rows are drawn at random (seeded) when the table is larger; ``None`` reads all.
    ``min_share`` is the share of values a pattern must match to flag a column on its own;
    ``text_share`` the share of free-text cells that must contain PII. ``review``, when given,
    sees each finding with the column's sampled cells and returns the finding to keep (the PII
    detection of free text, ``hidekit.jobs.free_text``, reads open answers this way).
    """
    if sample is not None and sample < 1:
        raise OptionError(f"--sample must be at least 1, got {sample}")
    for label, v in (("min_share", min_share), ("text_share", text_share)):
        if not 0.0 < float(v) <= 1.0:
            raise OptionError(f"{label} must be in (0, 1], got {v}")
    ds, total, source = _load(data, sample, seed, sep)
    findings = []
    for col in ds.frame.columns:
        finding = scan_column(
            str(col),
            ds.frame[col],
            label=ds.variable_labels.get(col, ""),
            value_labels=ds.value_labels.get(col),
            min_share=min_share,
            text_share=text_share,
            today=today,
        )
        findings.append(review(finding, ds.frame[col]) if review else finding)
        if progress:
            progress(1)
    return ScanResult(source, ds.format, total, len(ds.frame), seed, findings)
