"""Swappable operators that replace PHI spans in text: ``redact``, ``tag``, ``surrogate``.

Detection and replacement are separate steps (as Presidio separates its analyzer and
anonymizer): an operator receives spans, from a detector or from gold annotations, and rewrites
the text. Before rewriting, overlapping spans are merged into their union (labelled by the
longest), so no character of any span survives. Every replacement is recorded with its offsets
in the original and in the new text, for audit.

Before an operator sees a span, the anonymize step moves punctuation and white space at its
edges out of it (``hidekit.text.anonymization.edges``) and asks the clinical safe-list
(``hidekit.text.anonymization.safelist``) whether it must stay as written ("AFib", "E. coli", "BP 120/80",
"Parkinson disease"): such spans are kept and counted, not replaced.

Operators are registered by name (``get_operator("tag", numbered=True)``); a new one subclasses
``Operator``, implements ``replacement`` and is decorated with ``@register_operator("name")``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import ClassVar

from hidekit.errors import OptionError
from hidekit.registry import OPERATORS
from hidekit.secrets import randomness
from hidekit.text.anonymization.edges import trim_span
from hidekit.text.anonymization.safelist import SafeList, load_safelist
from hidekit.text.anonymization.surrogates import KINDS, SurrogateGenerator
from hidekit.text.spans import Document, Span

register_operator = OPERATORS.register


def get_operator(name: str, **params) -> Operator:
    """An operator by name, configured with ``params`` (those it does not take are ignored)."""
    import inspect

    cls = OPERATORS.lookup(name)
    accepted = inspect.signature(cls.__init__).parameters
    return cls(**{k: v for k, v in params.items() if k in accepted and v is not None})


class Operator(ABC):
    name: ClassVar[str] = "operator"

    @abstractmethod
    def replacement(self, span: Span, patient: str) -> str:
        """The text that takes the place of ``span`` in a document of ``patient``."""

    def mapping_records(self) -> list[dict]:
        """Original → replacement pairs that must be protected like a crosswalk (default none)."""
        return []

    def pop_mapping(self, patient: str) -> list[dict]:
        """The ``mapping_records`` of ``patient``, forgotten by the operator (default none)."""
        return []


@register_operator("redact")
class Redact(Operator):
    """Blot out the span. ``keep_length`` (default) writes one ``char`` per character and keeps
    spaces and line breaks, so the layout and every offset outside the spans survive; otherwise
    each span becomes ``fixed``."""

    def __init__(self, char: str = "X", keep_length: bool = True, fixed: str = "XXXX") -> None:
        if len(char) != 1:
            raise OptionError(f"redaction character must be one character, got {char!r}")
        self.char, self.keep_length, self.fixed = char, keep_length, fixed

    def replacement(self, span: Span, patient: str) -> str:
        if not self.keep_length:
            return self.fixed
        return "".join(c if c in " \n\r\t" else self.char for c in span.text)


@register_operator("tag")
class Tag(Operator):
    """Replace the span by its type, ``[NAME]``; with ``numbered``, ``[NAME-2]``: the same
    original (within a patient) keeps its number, so a reader can still tell people apart."""

    def __init__(self, template: str = "[{label}]", numbered: bool = False) -> None:
        if "{label}" not in template:
            raise OptionError("the tag template must contain {label}")
        self.template, self.numbered = template, numbered
        self._numbers: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)

    def replacement(self, span: Span, patient: str) -> str:
        if not self.numbered:
            return self.template.format(label=span.label)
        seen = self._numbers[(patient, span.label)]
        n = seen.setdefault(" ".join(span.text.split()).casefold(), len(seen) + 1)
        return self.template.format(label=f"{span.label}-{n}")


@register_operator("surrogate")
class Surrogate(Operator):
    """Realistic replacements, one per entity across the corpus; dates shifted per patient
    (see ``hidekit.text.anonymization.surrogates``).

    Draws come from ``key`` (secret bytes or a ``Randomness``), else fresh randomness; a ``seed``
    needs ``insecure_seed`` (with it anyone can re-run the surrogates and the date shifts)."""

    def __init__(
        self,
        seed: int | None = None,
        locale: str = "en_US",
        max_shift_days: int = 365,
        insecure_seed: bool = False,
        key=None,
    ) -> None:
        if max_shift_days < 1:
            raise OptionError(f"max_shift_days must be at least 1, got {max_shift_days}")
        self._random = randomness(key, seed, insecure_seed, "surrogates")
        self.generator = SurrogateGenerator(self._random, locale, max_shift_days)

    def replacement(self, span: Span, patient: str) -> str:
        return self.generator.replace(span.text, span.label, patient)

    def mapping_records(self) -> list[dict]:
        return self.generator.mapping_records()

    def pop_mapping(self, patient: str) -> list[dict]:
        return self.generator.pop_mapping(patient)


# ---------------------------------------------------------------------------------------------


@dataclass
class Replacement:
    """One replaced span: where it was, what it was, what took its place and where."""

    doc: str
    patient: str
    start: int
    end: int
    label: str
    replacement: str
    new_start: int
    new_end: int
    source: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Kept:
    """A detected span left as written because the safe-list says it is not PHI."""

    doc: str
    start: int
    end: int
    label: str
    reason: str  # abbreviation, organism, drug, term, eponym, measurement, …
    source: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class AnonymizedCorpus:
    documents: list[Document]
    replacements: list[Replacement]
    operator: str
    mapping: list[dict] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)

    def summary(self) -> dict:
        by_label: dict[str, int] = defaultdict(int)
        for r in self.replacements:
            by_label[r.label] += 1
        by_reason: dict[str, int] = defaultdict(int)
        for k in self.kept:
            by_reason[k.reason] += 1
        return {
            "operator": self.operator,
            "documents": len(self.documents),
            "replaced": len(self.replacements),
            "by_label": dict(sorted(by_label.items())),
            "patients": len({d.patient for d in self.documents}),
            "kept_by_safelist": len(self.kept),
            "kept_by_reason": dict(sorted(by_reason.items())),
        }


def merge_overlaps(spans: Iterable[Span], text: str) -> list[Span]:
    """Sorted spans with overlaps merged into their union, labelled by the longest member."""
    merged: list[list] = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        if s.end == s.start:
            continue
        if merged and s.start < merged[-1][1]:
            group = merged[-1]
            group[1] = max(group[1], s.end)
            group[2].append(s)
        else:
            merged.append([s.start, s.end, [s]])
    out = []
    for start, end, members in merged:
        best = max(members, key=lambda s: (s.length, -s.start))
        out.append(Span(start, end, best.label, text[start:end], best.source, best.score))
    return out


def patient_of(doc: Document) -> str:
    """Documents without a patient are each their own patient."""
    return doc.patient if doc.patient not in (None, "") else f"doc:{doc.id}"


CLINICAL = "clinical"  # the shipped safe-list (``safelist=CLINICAL``); None: no safe-list


def _safelist(safelist: SafeList | str | None) -> SafeList | None:
    if isinstance(safelist, str):
        if safelist != CLINICAL:
            raise OptionError(f"unknown safe-list {safelist!r} (clinical, or None for none)")
        return load_safelist()
    return safelist


def spans_to_replace(
    doc: Document, safelist: SafeList | str | None = CLINICAL, kept: list | None = None
) -> list[Span]:
    """The merged spans of ``doc`` with their edges trimmed (``edges.trim_span``), minus those
    the safe-list keeps as written (appended to ``kept`` as ``Kept`` records)."""
    safe = _safelist(safelist)
    out = []
    for s in merge_overlaps(doc.spans, doc.text):
        t = trim_span(doc.text, s, KINDS.get(s.label.upper(), ""))
        if t is None:
            continue
        # a term the user denied is PHI whatever the safe-list says
        keep = safe is not None and t.source != "deny-list"
        reason = (
            safe.reason(doc.text, t.start, t.end, t.label) if safe is not None and keep else None
        )
        if reason is not None:
            if kept is not None:
                kept.append(Kept(doc.id, t.start, t.end, t.label, reason, t.source))
            continue
        out.append(t)
    return out


def anonymize_document(
    doc: Document,
    operator: Operator,
    safelist: SafeList | str | None = CLINICAL,
    kept: list | None = None,
) -> tuple[Document, list[Replacement]]:
    """The rewritten document (its spans moved to the replacements) and the audit records.

    Spans the safe-list keeps are left as written and appended to ``kept``."""
    patient = patient_of(doc)
    parts, new_spans, records = [], [], []
    pos = shift = 0
    for s in spans_to_replace(doc, safelist, kept):
        new = operator.replacement(s, patient)
        parts.append(doc.text[pos : s.start])
        parts.append(new)
        ns = s.start + shift
        records.append(
            Replacement(doc.id, patient, s.start, s.end, s.label, new, ns, ns + len(new), s.source)
        )
        new_spans.append(Span(ns, ns + len(new), s.label, new, operator.name))
        shift += len(new) - s.length
        pos = s.end
    parts.append(doc.text[pos:])
    out = Document(
        doc.id, "".join(parts), new_spans, doc.patient, {**doc.meta, "operator": operator.name}
    )
    return out, records


def anonymize_documents(
    docs: Sequence[Document],
    operator: Operator | str = "tag",
    progress: Callable[..., object] | None = None,
    safelist: SafeList | str | None = CLINICAL,
    **params,
) -> AnonymizedCorpus:
    """Rewrite every document with one operator (its state, e.g. surrogates, shared by all:
    one entity gets one surrogate across the corpus). ``safelist``: the clinical safe-list
    (default), your own ``SafeList``, or None to replace every span."""
    if isinstance(operator, str):
        operator = get_operator(operator, **params)
    safe = _safelist(safelist)
    out_docs, records = [], []
    kept: list[Kept] = []
    for d in docs:
        new, recs = anonymize_document(d, operator, safe, kept)
        out_docs.append(new)
        records.extend(recs)
        if progress:
            progress(1)
    return AnonymizedCorpus(out_docs, records, operator.name, operator.mapping_records(), kept)


# ---------------------------------------------------------------------------------------------
# Propagation: a value found once is removed wherever it occurs in the patient's documents.

_PROPAGATE_KINDS = {"name", "shape", "phone", "email", "url", "ip", "street", "hospital"}
_NAME_PART = re.compile(r"[^\W\d_]{3,}(?:['’-][^\W\d_]+)*")
_NOT_NAMES = {"the", "and", "mrs", "miss", "prof", "jr", "sr"}


def _needles(span: Span) -> list[str]:
    kind = KINDS.get(span.label.upper())
    if kind not in _PROPAGATE_KINDS:
        return []
    text = " ".join(span.text.split())
    found = [text] if len(text) >= 3 else []
    if kind == "name":  # "John Smith" found: a later "Mr. Smith" must go too
        found += [
            m.group()
            for m in _NAME_PART.finditer(text)
            if m.group()[0].isupper() and m.group().casefold() not in _NOT_NAMES
        ]
    return found


def propagate_spans(docs: Sequence[Document]) -> list[Document]:
    """Add a span (source "propagated") for every other whole-word, same-case occurrence of a
    detected value in the same patient's documents: names and their parts, record and phone
    numbers, e-mails, URLs, addresses, hospitals. Dates, ages and places are left to the
    detector: "May" or "12" elsewhere are seldom the same fact."""
    needles: dict[str, dict[str, str]] = defaultdict(dict)
    for d in docs:
        for s in d.spans:
            for n in _needles(s):
                needles[patient_of(d)].setdefault(n, s.label)
    out = []
    for d in docs:
        table = needles.get(patient_of(d))
        if not table:
            out.append(d)
            continue
        pattern = re.compile(
            r"(?<!\w)(?:"
            + "|".join(re.escape(n) for n in sorted(table, key=len, reverse=True))
            + r")(?!\w)"
        )
        taken = sorted((s.start, s.end) for s in d.spans)
        extra = []
        for m in pattern.finditer(d.text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            extra.append(Span(m.start(), m.end(), table[m.group()], m.group(), "propagated"))
        out.append(d.with_spans(list(d.spans) + extra) if extra else d)
    return out


# ---------------------------------------------------------------------------------------------
# A result's mapping (written, encrypted, by ``hidekit.jobs.corpus``).


def mapping_frame(records: list[dict]):
    """The surrogate mapping as a table (patient, label, original, replacement)."""
    import pandas as pd

    return pd.DataFrame(records, columns=["patient", "label", "original", "replacement"])


def assign_patients(docs: Sequence[Document], pattern: str) -> None:
    """Set each document's patient from its id: the first group of ``pattern`` (a regular
    expression searched in the id), else the whole match; ids that do not match keep theirs."""
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise OptionError(f"--patient-pattern is not a regular expression: {exc}") from None
    for d in docs:
        m = rx.search(d.id)
        if m:
            d.patient = m.group(1) if rx.groups else m.group()
