"""The studio's notes: detected PHI to review, span by span, then saved as a brat corpus.

HIDE's loop: the detector pre-annotates, a person accepts, rejects, relabels or adds spans, and
the corrected notes become training data. Detection is the shipped model's (``load_model``);
reading and writing are the corpus functions the CLI uses (``read_brat_dir``, ``write_ann``,
``brat_names``). A folder that already holds ``.ann`` files opens with those spans, accepted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from hidekit.errors import InputError, OptionError
from hidekit.io import write_text_atomic
from hidekit.jobs.result import progress_or_quiet
from hidekit.text.corpus import brat_names, read_brat_dir, write_ann
from hidekit.text.spans import Document, Span

if TYPE_CHECKING:
    from hidekit.text.detection.detector import Detector

NOTES_LIMIT = 500  # notes opened at once
STATUSES = ("pending", "accepted", "rejected")
PREVIEW_OPERATORS = ("tag", "redact", "surrogate")
# The labels offered for relabelling and adding, beside those the model and the notes use.
BASE_LABELS = ("NAME", "DATE", "AGE", "LOCATION", "ID", "CONTACT", "PROFESSION", "OTHER")


@dataclass
class ReviewSpan:
    id: int
    start: int
    end: int
    label: str
    score: float
    source: str
    status: str = "pending"


@dataclass
class ReviewedNote:
    name: str
    text: str
    spans: list[ReviewSpan] = field(default_factory=list)
    detected: bool = False
    next_id: int = 1

    def add(self, start: int, end: int, label: str, score: float, source: str, status: str):
        if not (0 <= start < end <= len(self.text)):
            raise OptionError(
                f"span {start}-{end} lies outside the note ({len(self.text)} characters)"
            )
        for s in self.spans:
            if s.status != "rejected" and s.start < end and start < s.end:
                raise OptionError(
                    f"span {start}-{end} overlaps {s.label} {s.start}-{s.end}: reject that one first"
                )
        span = ReviewSpan(self.next_id, start, end, label, score, source, status)
        self.next_id += 1
        self.spans.append(span)
        self.spans.sort(key=lambda s: (s.start, s.end))
        return span

    def span(self, span_id: int) -> ReviewSpan:
        for s in self.spans:
            if s.id == span_id:
                return s
        raise OptionError(f"no span {span_id} in {self.name}")

    def kept(self) -> list[Span]:
        """The spans a save writes: every span not rejected."""
        return [
            Span(s.start, s.end, s.label, self.text[s.start : s.end], s.source, s.score)
            for s in self.spans
            if s.status != "rejected"
        ]

    def segments(self) -> list[tuple[str, ReviewSpan | None]]:
        return cast("list[tuple[str, ReviewSpan | None]]", cut_at_spans(self.text, self.spans))


def cut_at_spans(text: str, spans) -> list[tuple[str, object | None]]:
    """The text cut at span edges, for the page: (piece, its span or None); spans sorted and
    not overlapping."""
    out: list[tuple[str, object | None]] = []
    pos = 0
    for s in spans:
        if s.start > pos:
            out.append((text[pos : s.start], None))
        out.append((text[s.start : s.end], s))
        pos = s.end
    if pos < len(text):
        out.append((text[pos:], None))
    return out


def normalized_to_original(text: str, offset: int) -> int:
    """A browser offset (line ends read as one ``\\n``) as an offset into ``text``.

    HTML parsing turns ``\\r\\n`` and a lone ``\\r`` into ``\\n``; the page's script counts code
    points of that text, so offsets past a ``\\r\\n`` shift by one each.
    """
    if offset < 0:
        raise OptionError(f"offset {offset} is negative")
    seen = 0
    i = 0
    while i < len(text) and seen < offset:
        i += 2 if text.startswith("\r\n", i) else 1
        seen += 1
    if seen < offset:
        raise OptionError(f"offset {offset} lies past the end of the note")
    return i


@dataclass
class NotesBench:
    folder: Path
    source: str
    notes: list[ReviewedNote]
    model: str = "en"
    detector: Detector | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, folder: Path, source: str, model: str = "en") -> NotesBench:
        docs = read_brat_dir(folder, require_ann=False)
        if len(docs) > NOTES_LIMIT:
            raise InputError(f"{source}: {len(docs)} notes; the studio opens at most {NOTES_LIMIT}")
        notes = []
        has_ann = {p.stem for p in Path(folder).glob("*.ann")}
        for d in docs:
            note = ReviewedNote(d.id, d.text, detected=d.id in has_ann)
            for s in d.spans:
                note.add(s.start, s.end, s.label, 1.0, "brat", "accepted")
            notes.append(note)
        return cls(Path(folder), source, notes, model)

    def note(self, name: str | None) -> ReviewedNote:
        if not self.notes:
            raise InputError(f"{self.source}: no notes")
        note = self.notes[0] if not name else next((n for n in self.notes if n.name == name), None)
        if note is None:
            raise InputError(f"{name}: no such note in {self.source}")
        if not note.detected:
            self._detect(note)
        return note

    def _detect(self, note: ReviewedNote) -> None:
        for s in self.detect_text(note.text):
            note.add(s.start, s.end, s.label, float(s.score), s.source or "model", "pending")
        note.detected = True

    def detect_text(self, text: str) -> list[Span]:
        """The shipped model's spans, one caller at a time (the page and a task may both ask)."""
        with self._lock:
            if self.detector is None:
                from hidekit.text.detection.detector import load_model

                self.detector = load_model(self.model)
            return list(self.detector.detect(text))

    def documents(self, progress: Callable[..., None] | None = None) -> list[Document]:
        """Every note with the spans kept (notes never opened: detected first); ``progress``
        hears of each note."""
        advance = progress_or_quiet(progress)
        advance(0, total=len(self.notes), completed=0, description="detecting PHI in the notes")
        docs = []
        for n in self.notes:
            if not n.detected:
                self._detect(n)
            docs.append(Document(n.name, n.text, n.kept()))
            advance(1)
        return docs

    def labels(self) -> list[str]:
        seen = dict.fromkeys(BASE_LABELS)
        if self.detector is not None:
            seen.update(dict.fromkeys(self.detector.labels))
        for n in self.notes:
            seen.update(dict.fromkeys(s.label for s in n.spans))
        return list(seen)

    def act(self, note: ReviewedNote, action: str, form: dict) -> None:
        """accept / reject / pending / relabel one span, or add one from the page's offsets."""
        if action == "add":
            start = normalized_to_original(note.text, _int(form, "start"))
            end = normalized_to_original(note.text, _int(form, "end"))
            label = _label(form)
            note.add(start, end, label, 1.0, "studio", "accepted")
            return
        span = note.span(_int(form, "id"))
        if action in ("accept", "reject"):
            span.status = "accepted" if action == "accept" else "rejected"
        elif action == "relabel":
            span.label, span.status, span.source = _label(form), "accepted", "studio"
        else:
            raise OptionError(f"unknown action {action!r} (accept, reject, relabel, add)")

    def preview(self, note: ReviewedNote, operator: str) -> Document:
        """The note as ``text anonymize`` would write it with ``operator`` (redact, tag,
        surrogate), from the spans kept; surrogates are drawn fresh (a preview, never saved)."""
        from hidekit.text.anonymization.operators import anonymize_document, get_operator

        if operator not in PREVIEW_OPERATORS:
            raise OptionError(f"preview with {', '.join(PREVIEW_OPERATORS)}, not {operator!r}")
        doc = Document(note.name, note.text, note.kept())
        out, _ = anonymize_document(doc, get_operator(operator))
        return out

    def save(self, out: Path, progress: Callable[..., None] | None = None) -> tuple[Path, int]:
        """Every note opened so far and its kept spans as brat (``.txt`` + ``.ann``), owner-only.

        Notes never opened are saved with their detected spans too: each is detected first.
        """
        docs = self.documents(progress)
        names, _ = brat_names(docs)
        out.mkdir(parents=True, exist_ok=True)
        for d, name in zip(docs, names, strict=True):
            write_text_atomic(out / f"{name}.txt", d.text, private=True)
            write_text_atomic(out / f"{name}.ann", write_ann(d), private=True)
        return out, sum(len(d.spans) for d in docs)


def _int(form: dict, name: str) -> int:
    try:
        return int(str(form.get(name, "")))
    except ValueError:
        raise OptionError(f"{name} must be a whole number") from None


def _label(form: dict) -> str:
    label = str(form.get("label") or "").strip().upper()
    if not label or not label.replace("_", "").replace("-", "").isalnum() or len(label) > 40:
        raise OptionError("a label is letters, digits, - or _ (e.g. NAME, DATE)")
    return label
