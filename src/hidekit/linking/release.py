"""Anonymize the identifier view (HIDE 2.4) and write its generalized values back into the notes,
so that the released table and the released notes tell the same thing about each person.

Modes (HIDE 2.1): ``statistical`` generalizes the keys by Mondrian (k-anonymous, l-diverse on a
sensitive column if asked); ``partial`` keeps indirect identifiers as they are; ``full`` removes
them. Direct identifiers (every span whose label is not an indirect attribute: names, record
numbers, phones, …) go through the text tool's operator (redact, tag, surrogate) in every mode.

A mention of an attribute, in statistical mode: if the attribute is a key and the person's class
covers the mention, it becomes the class value ("77" → "70-79" in "77 year old"; "6/22/01" →
"2001"); otherwise (a relative's age, an earlier date, an attribute that is not a key) it is
generalized on its own to the Safe Harbor level: a ten-year band (90+), the year, or the operator
for places. When age is a key (generalized), such dates become their tag ("[DATE]"), whatever the
operator: a birth year beside a visit year, or a birth and an admission date shifted by one
offset per patient (the surrogate operator), would give back the exact age the table
generalized. Ages are top-coded at 90 before Mondrian (Safe Harbor: ages over 89 are one
category), so no released label names an age over 89 ("85+", "90+", never "70-102"). In full
mode every mention becomes its tag ("[AGE]").

Persons are renamed ``person-00001`` … in a random order drawn from the secret key (else fresh
randomness; ``hidekit.secrets``), in the table and in the note names alike; the crosswalk to the
real keys is private.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hidekit.anonymize import mondrian
from hidekit.anonymize.modes import check_mode
from hidekit.engines import make_engine
from hidekit.errors import InputError, OptionError, require_columns
from hidekit.linking.attributes import (
    BY_LABEL,
    covers,
    fallback,
    normalize,
    qi_value,
    render,
    top_coded_label,
)
from hidekit.linking.link import KEY_COLUMN, Linked
from hidekit.secrets import randomness
from hidekit.text.anonymization.operators import (
    Operator,
    Replacement,
    Tag,
    anonymize_document,
    get_operator,
)
from hidekit.text.spans import Document, Span
from hidekit.transforms.loss import DEFAULT_MAX_LOSS, VariableLoss, information_loss, loss_summary

PERSON = "person"


class ViewOperator(Operator):
    """Replaces attribute mentions by their person's released value; the rest by ``inner``."""

    name = "link"

    def __init__(
        self,
        inner: Operator,
        released: dict[str, dict[str, str]],
        columns: dict[str, str],
        keys: Sequence[str],
        mode: str,
    ) -> None:
        self.inner, self.released, self.columns = inner, released, columns
        self.keys, self.mode = set(keys), mode
        self.tag = Tag()
        self.actions: Counter = Counter()

    def _act(self, action: str, text: str) -> str:
        self.actions[action] += 1
        return text

    def replacement(self, span: Span, patient: str) -> str:
        attr = BY_LABEL.get(span.label.upper())
        if attr is None:
            return self._act("operator", self.inner.replacement(span, patient))
        if self.mode == "partial":
            return self._act("kept", span.text)
        if self.mode == "full":
            return self._act("suppressed", self.tag.replacement(span, patient))
        value = normalize(attr, span.text)
        col = self.columns[attr.name]
        label = self.released[patient].get(col) if col in self.keys else None
        if label is not None and covers(attr, label, value):
            return self._act("generalized", render(label))
        if attr.kind == "date" and self.columns["age"] in self.keys:
            # a birth year beside a visit year, or two dates shifted by one per-patient offset,
            # would give back the exact age the table generalized: the date is withheld
            return self._act("date_withheld", self.tag.replacement(span, patient))
        own = fallback(attr, value)
        if own is not None:
            return self._act("banded", own)
        return self._act("operator", self.inner.replacement(span, patient))

    def mapping_records(self) -> list[dict]:
        return self.inner.mapping_records()


@dataclass
class LinkedRelease:
    """What is released (table, notes) and what is kept private (crosswalk, surrogate mapping)."""

    table: pd.DataFrame
    documents: list[Document]
    replacements: list[Replacement]
    crosswalk: pd.DataFrame  # person -> key: private
    mapping: list[dict]  # surrogate originals -> replacements: private
    stats: dict
    params: dict
    actions: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)  # released note id -> input note id: private
    loss: list[VariableLoss] = field(default_factory=list)  # per key: cells generalized
    max_loss: float = DEFAULT_MAX_LOSS

    def loss_dict(self) -> dict:
        """Information lost per key beside the warning threshold, and what goes over it."""
        return loss_summary(self.loss, self.max_loss)

    def summary(self) -> dict:
        by_label = Counter(r.label for r in self.replacements)
        return {
            "params": self.params,
            "stats": self.stats,
            "persons": len(self.table),
            "documents": len(self.documents),
            "replaced": len(self.replacements),
            "actions": dict(sorted(self.actions.items())),
            "by_label": dict(sorted(by_label.items())),
            "information_loss": self.loss_dict(),
        }


def qi_frame(
    linked: Linked, keys: Sequence[str], extra: Sequence[str] = (), years: bool = True
) -> pd.DataFrame:
    """The view's keys as Mondrian sees them (ages as numbers top-coded at 90, dates as years;
    neither when ``years`` is False, as partial mode keeps them) plus ``extra``."""
    view = linked.view
    require_columns(view.columns, list(keys) + list(extra))
    frame = pd.DataFrame(index=view.index)
    for col in list(keys) + [c for c in extra if c not in keys]:
        attr = linked.attribute_of(col)
        if attr is None or (attr.kind == "date" and not years):
            values = view[col]
        else:
            values = view[col].map(lambda v, a=attr: qi_value(a, v, top=years))
        missing = int(values.isna().sum())
        if col in keys and missing:
            raise InputError(
                f"key {col!r} is unknown for {missing:,} person(s) (no record column and no "
                "mention in their notes): take it from the records (--map) or drop it from --keys"
            )
        if attr is not None and attr.kind == "number":
            values = values.astype("Int64").astype(np.int64) if not missing else values
        frame[col] = values
    return frame


def release(
    linked: Linked,
    keys: Sequence[str],
    k: int,
    *,
    l: int | None = None,  # noqa: E741
    sensitive: str | None = None,
    mode: str = "statistical",
    operator: str | Operator = "tag",
    keep: Sequence[str] = (),
    seed: int | None = None,
    insecure_seed: bool = False,
    key=None,
) -> LinkedRelease:
    """Anonymize the view and rewrite the notes; table and notes agree person by person.

    The released table holds the person pseudonym, the keys, ``sensitive`` and ``keep`` columns;
    every other record column (names, record numbers, addresses…) stays out. The pseudonym order
    and surrogates come from ``key`` (secret bytes or a ``Randomness``), else fresh randomness;
    ``seed`` needs ``insecure_seed``.
    """
    check_mode(mode)
    rand = randomness(key, seed, insecure_seed, "link")
    keys = list(keys)
    extra = _released_columns(linked, keys, l is not None, sensitive, keep)
    frame = qi_frame(linked, keys, extra, years=mode != "partial")
    if len(frame) == 0:
        raise InputError("no person could be linked: nothing to release")
    result = mondrian(frame, keys, int(k), l=l, sensitive=sensitive, mode=mode, shuffle=False)
    released = result.released  # row i is view row i (shuffle=False)
    age = linked.columns["age"]
    if mode == "statistical" and age in keys and age in released.columns:
        released[age] = released[age].map(lambda v: top_coded_label(str(v)))

    person = _pseudonyms(len(released), rand)
    released.insert(0, PERSON, person)
    keys_of = dict(zip(linked.view[KEY_COLUMN], person, strict=True))
    crosswalk = pd.DataFrame({PERSON: person, linked.key: linked.view[linked.key].to_numpy()})

    present = [c for c in keys if c in released.columns]
    per_person: dict[str, dict[str, str]] = {p: {} for p in person}
    for c in present:
        for p, v in zip(person, released[c], strict=True):
            per_person[p][c] = str(v)
    inner = get_operator(operator, key=rand) if isinstance(operator, str) else operator
    op = ViewOperator(inner, per_person, linked.columns, present, mode)
    docs, records, sources = _rewrite_notes(linked, keys_of, op)

    table = released.sort_values(PERSON, kind="stable").reset_index(drop=True)
    stats = dict(result.stats)
    if present:
        stats["k_anonymous"] = bool(make_engine(table[present]).is_k_anonymous(present, int(k)))
    exact = qi_frame(linked, keys, years=False)  # the persons' values, before generalizing
    mine = released.reindex(columns=keys)  # row i is view row i; a removed key is all blank
    loss = information_loss(exact, mine, keys)
    params = {
        "keys": keys,
        "k": int(k),
        "l": l,
        "sensitive": sensitive,
        "mode": mode,
        "operator": inner.name,
        "keep": list(keep),
        "randomness": rand.describe(),
    }
    return LinkedRelease(
        table,
        docs,
        records,
        crosswalk,
        op.mapping_records(),
        stats,
        params,
        dict(op.actions),
        sources,
        loss,
    )


def _released_columns(
    linked: Linked, keys: list[str], diverse: bool, sensitive: str | None, keep: Sequence[str]
) -> list[str]:
    """The columns released beside the keys (``sensitive``, then ``keep``); refuses no keys,
    the patient key, or l-diversity without a sensitive column."""
    if not keys:
        raise OptionError("give at least one key (--keys)")
    reserved = {KEY_COLUMN, linked.key}
    bad = sorted(reserved & (set(keys) | set(keep) | {sensitive}))
    if bad:
        raise OptionError(f"the patient key cannot be released: {', '.join(bad)}")
    extra = ([sensitive] if sensitive else []) + [c for c in keep if c != sensitive]
    if diverse and not sensitive:
        raise OptionError("l-diversity needs a sensitive column (--sensitive)")
    return extra


def _pseudonyms(n: int, rand) -> np.ndarray:
    """``person-00001`` … for the ``n`` view rows, in an order drawn from ``rand``."""
    order = rand.rng("person-order").permutation(n)
    person = np.empty(n, dtype=object)
    person[order] = [f"{PERSON}-{i + 1:05d}" for i in range(n)]
    return person


def _rewrite_notes(
    linked: Linked, keys_of: dict, op: ViewOperator
) -> tuple[list[Document], list, dict[str, str]]:
    """Each note renamed after its person (``person-00001-note-01``) and anonymized by ``op``;
    with the replacement records and each new note's source id."""
    docs: list[Document] = []
    records: list = []
    counter: Counter[str] = Counter()
    sources: dict[str, str] = {}
    for doc in sorted(linked.documents, key=lambda d: (keys_of[d.patient], d.id)):
        pid = keys_of[doc.patient]
        counter[pid] += 1
        renamed = Document(f"{pid}-note-{counter[pid]:02d}", doc.text, doc.spans, pid)
        new, recs = anonymize_document(renamed, op)
        docs.append(Document(new.id, new.text, new.spans, pid))
        sources[new.id] = doc.id
        records.extend(recs)
    return docs, records, sources
