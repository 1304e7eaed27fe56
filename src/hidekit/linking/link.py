"""Data linking (HIDE 2.2): records and notes that share a patient key become one
person-centric identifier view, one row per person.

A note's key comes from its file name (``note_pattern``), from a record number the detector found
in its text (``key_from_text``: an MRN or ID span equal to a value of the key column), or from the
document's own ``patient`` field (JSONL input). Keys are compared as text, with leading zeros of
all-digit keys ignored ("0000017" is record 17).

Several mentions of one attribute: the view keeps the set of distinct values a person's notes
give (``<attribute>_mentions``) and one value per person for the privacy model — the record's
value when the attribute is a record column, else the value the notes give most often (ties: the
smallest). HIDE's paper leaves this choice open; the set stays in the (private) view so a reviewer
can see every value that was written back.

Problems are listed in a ``LinkReport``, never dropped silently: a note whose key cannot be read,
a note whose key has no record (a key present in notes only), two records for one key, a note
naming two records. Their notes and records are withheld from the release; ``strict`` makes any
of them an error, and also notes implausibly concentrated on few persons (``CONCENTRATION_*``).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.linking.attributes import ATTRIBUTES, BY_LABEL, Attribute, normalize, same
from hidekit.text.spans import Document

RECORD_LABELS = ("MRN", "MEDICALRECORD", "ID_SUJETO_ASISTENCIA")  # a record number
KEY_LABELS = (*RECORD_LABELS, "ID", "IDNUM")  # also used when it equals a record's key
KEY_COLUMN = "_key"

# Concentration rule: with at least as many linked notes as persons (n >= r), notes spread at
# random would reach 1 - e^(-n/r) >= 63% of persons; real notes are uneven, but fewer than a
# quarter of persons holding every note is what a key read too short gives (a pattern that keeps
# one digit of the record number puts 60 persons' notes on 10 keys). Checked from 8 persons on.
CONCENTRATION_MIN_COVERAGE = 0.25
CONCENTRATION_MIN_RECORDS = 8


def norm_key(value) -> str:
    """Keys as text; leading zeros of an all-digit key do not count; 17.0 is 17."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = "".join(str(value).split())
    if text.isdigit():
        return text.lstrip("0") or "0"
    return text


@dataclass
class LinkReport:
    """What linking could not do. Keys and note ids are identifiers: keep this report private."""

    notes: int = 0
    records: int = 0
    persons: int = 0
    linked_notes: int = 0
    unlinked_notes: list[str] = field(default_factory=list)
    notes_without_record: dict[str, list[str]] = field(default_factory=dict)
    duplicate_keys: dict[str, int] = field(default_factory=dict)
    ambiguous_notes: dict[str, list[str]] = field(default_factory=dict)
    records_without_notes: int = 0
    differing_mentions: dict[str, int] = field(default_factory=dict)
    noted_persons: int = 0  # records (unique keys) that got at least one linked note

    @property
    def concentrated(self) -> bool:
        """Notes piled on too few persons to be a plausible linkage (``CONCENTRATION`` rule)."""
        r, n, p = self.records - self.withheld_records, self.linked_notes, self.noted_persons
        return (
            r >= CONCENTRATION_MIN_RECORDS
            and n >= r
            and p > 0
            and p < CONCENTRATION_MIN_COVERAGE * r
        )

    @property
    def withheld_notes(self) -> int:
        return self.notes - self.linked_notes

    @property
    def withheld_records(self) -> int:
        return sum(self.duplicate_keys.values())

    def problems(self) -> list[str]:
        """One line per kind of problem, with a few examples."""

        def some(items) -> str:
            items = list(items)
            return ", ".join(map(str, items[:5])) + (" …" if len(items) > 5 else "")

        out = []
        if self.unlinked_notes:
            out.append(
                f"{len(self.unlinked_notes):,} note(s) with no readable patient key: "
                f"{some(self.unlinked_notes)}"
            )
        if self.notes_without_record:
            n = sum(len(v) for v in self.notes_without_record.values())
            out.append(
                f"{n:,} note(s) whose patient has no record (key(s) present in notes only: "
                f"{some(self.notes_without_record)})"
            )
        if self.duplicate_keys:
            out.append(
                f"{len(self.duplicate_keys):,} key(s) with two or more records: "
                f"{some(self.duplicate_keys)}"
            )
        if self.concentrated:
            r = self.records - self.withheld_records
            out.append(
                f"{self.linked_notes:,} notes linked to only {self.noted_persons:,} of {r:,} "
                f"persons ({self.noted_persons / r:.0%}): implausibly concentrated, is the key "
                "read in full (--note-pattern)?"
            )
        if self.ambiguous_notes:
            out.append(
                f"{len(self.ambiguous_notes):,} note(s) naming more than one record: "
                f"{some(self.ambiguous_notes)}"
            )
        return out

    @property
    def ok(self) -> bool:
        return not self.problems()

    def counts(self) -> dict:
        """Figures only, no key or note id: safe for the release's summary and report."""
        return {
            "notes": self.notes,
            "records": self.records,
            "persons": self.persons,
            "linked_notes": self.linked_notes,
            "withheld_notes": self.withheld_notes,
            "withheld_records": self.withheld_records,
            "unlinked_notes": len(self.unlinked_notes),
            "notes_without_record": sum(len(v) for v in self.notes_without_record.values()),
            "keys_only_in_notes": len(self.notes_without_record),
            "duplicate_keys": len(self.duplicate_keys),
            "ambiguous_notes": len(self.ambiguous_notes),
            "noted_persons": self.noted_persons,
            "concentrated": self.concentrated,
            "records_without_notes": self.records_without_notes,
            "differing_mentions": dict(self.differing_mentions),
        }

    def to_dict(self) -> dict:
        return {
            **self.counts(),
            "problems": self.problems(),
            "detail": {
                "unlinked_notes": self.unlinked_notes,
                "notes_without_record": self.notes_without_record,
                "duplicate_keys": self.duplicate_keys,
                "ambiguous_notes": self.ambiguous_notes,
            },
        }


@dataclass
class Linked:
    """The identifier view (one row per person, private) and the notes linked to its rows."""

    view: pd.DataFrame
    documents: list[Document]  # linked notes only; ``patient`` = the person's normalized key
    report: LinkReport
    key: str
    columns: dict[str, str]  # attribute name -> its value column in the view

    def attribute_of(self, column: str) -> Attribute | None:
        for name, col in self.columns.items():
            if col == column:
                return ATTRIBUTES[name]
        return None


def _pattern(note_pattern: str) -> re.Pattern:
    try:
        rx = re.compile(note_pattern)
    except re.error as exc:
        raise OptionError(f"--note-pattern is not a regular expression: {exc}") from None
    if rx.groups == 0:
        raise OptionError("--note-pattern needs a group naming the patient, e.g. (?P<patient>\\d+)")
    return rx


def _key_from_name(rx: re.Pattern, doc: Document) -> str | None:
    name = doc.meta.get("file") or f"{doc.id}.txt"
    m = rx.search(name) or rx.search(doc.id)
    if not m:
        return None
    got = m.group("patient") if "patient" in rx.groupindex else m.group(1)
    return norm_key(got) if got else None


def _keys_in_text(doc: Document, labels=KEY_LABELS) -> list[str]:
    return sorted({norm_key(s.text) for s in doc.spans if s.label.upper() in labels})


def link(
    records: pd.DataFrame,
    documents: Sequence[Document],
    key: str,
    *,
    note_pattern: str | None = None,
    key_from_text: bool = False,
    columns: Mapping[str, str] | None = None,
    strict: bool = False,
) -> Linked:
    """Link ``documents`` (spans already found) to the rows of ``records`` by ``key``.

    ``columns`` maps an attribute (age, date, zip, city, state, hospital) to the record column
    that holds it; by default an attribute maps to the record column of the same name.
    """
    require_columns(records.columns, [key])
    if note_pattern and key_from_text:
        raise OptionError("give --note-pattern or --key-from-text, not both")
    columns = dict(columns or {})
    unknown = sorted(set(columns) - set(ATTRIBUTES))
    if unknown:
        raise OptionError(
            f"unknown attribute(s) {', '.join(unknown)} (known: {', '.join(ATTRIBUTES)})"
        )
    require_columns(records.columns, list(columns.values()))
    for name in ATTRIBUTES:
        if name not in columns and name in records.columns:
            columns[name] = name
    rep = LinkReport(notes=len(documents), records=len(records))

    keys = records[key].map(norm_key)
    counts = keys.value_counts()
    rep.duplicate_keys = {k: int(n) for k, n in counts[counts > 1].sort_index().items()}
    unique = records.loc[~keys.isin(rep.duplicate_keys)].copy()
    unique.insert(0, KEY_COLUMN, keys[~keys.isin(rep.duplicate_keys)].to_numpy())
    known = set(unique[KEY_COLUMN])
    all_keys = set(keys)

    rx = _pattern(note_pattern) if note_pattern else None
    linked: list[Document] = []
    without: dict[str, list[str]] = defaultdict(list)
    for doc in documents:
        if rx is not None:
            k = _key_from_name(rx, doc)
        elif key_from_text:
            found = _keys_in_text(doc)
            hits = [f for f in found if f in all_keys]
            if len(hits) > 1:
                rep.ambiguous_notes[doc.id] = hits
                continue
            mrn = _keys_in_text(doc, RECORD_LABELS)
            k = hits[0] if hits else (mrn[0] if len(mrn) == 1 else None)
        else:
            k = norm_key(doc.patient) if doc.patient not in (None, "") else None
        if k is None:
            rep.unlinked_notes.append(doc.id)
        elif k in rep.duplicate_keys:
            continue  # withheld with its records (listed under duplicate_keys)
        elif k not in known:
            without[k].append(doc.id)
        else:
            linked.append(Document(doc.id, doc.text, list(doc.spans), k, dict(doc.meta)))
    rep.notes_without_record = dict(sorted(without.items()))
    rep.linked_notes = len(linked)
    rep.noted_persons = len({d.patient for d in linked})
    if strict and not rep.ok:
        raise InputError("linking problems (--strict): " + "; ".join(rep.problems()))

    view = _build_view(unique, linked, columns, rep)
    rep.persons = len(view)
    return Linked(view, linked, rep, key, {a: columns.get(a, a) for a in ATTRIBUTES})


def _build_view(
    unique: pd.DataFrame, docs: list[Document], columns: dict[str, str], rep: LinkReport
) -> pd.DataFrame:
    mentions: dict[str, dict[str | None, list]] = {a: defaultdict(list) for a in ATTRIBUTES}
    for doc in docs:
        for s in doc.spans:
            attr = BY_LABEL.get(s.label.upper())
            if attr is None:
                continue
            v = normalize(attr, s.text)
            if v is not None:
                mentions[attr.name][doc.patient].append(v)
    with_notes = {d.patient for d in docs}
    rep.records_without_notes = int((~unique[KEY_COLUMN].isin(with_notes)).sum())
    view = unique.reset_index(drop=True)
    for name, attr in ATTRIBUTES.items():
        per = mentions[name]
        view[f"{name}_mentions"] = [_distinct(attr, per.get(k, [])) for k in view[KEY_COLUMN]]
        if name in columns:
            col = columns[name]
            view[col] = [normalize(attr, v) for v in view[col]]
            differ = sum(
                1
                for k, rec in zip(view[KEY_COLUMN], view[col], strict=True)
                for v in per.get(k, [])
                if not same(attr, v, rec)
            )
            if differ:
                rep.differing_mentions[name] = differ
        else:
            view[name] = [_most_common(attr, per.get(k, [])) for k in view[KEY_COLUMN]]
    return view


def _distinct(attr: Attribute, values: list) -> list:
    seen: dict = {}
    for v in values:
        seen.setdefault(str(v).casefold() if attr.kind == "text" else v, v)
    return sorted(seen.values(), key=str)


def _most_common(attr: Attribute, values: list):
    """The value the notes give most often (ties: the smallest); None when they give none."""
    if not values:
        return None
    fold = (lambda v: str(v).casefold()) if attr.kind == "text" else (lambda v: v)
    counts = Counter(fold(v) for v in values)
    first: dict = {}
    for v in values:
        first.setdefault(fold(v), v)
    best = min(counts, key=lambda f: (-counts[f], str(f)))
    return first[best]
