"""Seeded synthetic clinical notes with annotated PHI: training and test text with no real patient.

Twenty-five kinds of note (admission, discharge, progress, ED, consult, radiology, pathology, lab,
nursing, ICU, operative, psychiatry, paediatric, palliative, physio/OT, social work, medication
reconciliation, sign-out lists, telephone and home-health visits, registration sheets, letters to
patients, insurers and employers, GP referral and discharge letters) are assembled from section
and sentence templates whose slots are filled by Faker and GeoNames surrogates. Each PHI value is
written into the text and recorded as a span in the same step, so offsets are exact by
construction. A patient lives in a region (US, UK, Ireland, Australia, New Zealand, Canada,
India: ``world``) that sets the layouts of dates, phones, postcodes and national numbers,
and has a name of a separately drawn origin. Each note is written in a style (all capitals,
terse abbreviations, typos, run-on sentences) applied to the text between spans only.
Negative examples stay unlabelled: eponyms and scores (Parkinson disease, Glasgow Coma Scale,
Gleason 3+4), drug and device brands, lab values and ratios that look like dates (BP 132/84,
3/5 power, "for 3/7"), beds and rooms, ICD codes, generic roles ("the on-call registrar"),
relative dates ("yesterday") and years alone ("quit in 2010").

Label set (stable; a HIPAA Safe Harbor reading of the i2b2 2014 categories), see ``LABELS``.
Titles ("Dr.", "Mr.") and credentials ("MD", "RN") are outside name spans; any named clinician
(nurse, therapist, pharmacist, social worker, midwife, dietitian) is ``DOCTOR``; for ages only
the number is annotated ("77" in "77-year-old", "67" in "67M"; a decade as "60s").

``generate_notes(n, seed)`` invents patients; ``generate_patient_notes(rows, k, seed)`` writes
``k`` notes per given table row (name, age, zip, city, record number … kept; the row's exact age
only), so notes can be linked to a table such as ``hidekit.demo.survey.generate_survey``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping

from faker import Faker

from hidekit.errors import OptionError
from hidekit.text.spans import Document
from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.general import (
    GENERAL_BUILDERS,
    GENERAL_SLOTS,
    GENERAL_TYPES,
    GENERAL_WEIGHTS,
)
from hidekit.text.synthesis.note import SlotFn, _Note
from hidekit.text.synthesis.notes_clinical import (
    _admission,
    _consult,
    _discharge,
    _ed,
    _pathology,
    _phone_note,
    _progress,
    _radiology,
    _referral,
)
from hidekit.text.synthesis.notes_letters import (
    _discharge_letter,
    _gp_referral,
    _home_health,
    _lab,
    _letter,
    _registration,
    _signout,
    _thread,
)
from hidekit.text.synthesis.notes_ward import (
    _icu,
    _nursing,
    _operative,
    _paediatric,
    _palliative,
    _pharmacy,
    _psychiatry,
    _social_work,
    _therapy,
)
from hidekit.text.synthesis.patient import Patient, new_patient
from hidekit.text.synthesis.slots import SLOTS
from hidekit.text.synthesis.vocab import NOTE_TYPES
from hidekit.text.synthesis.writer import _draw_style

_CLINICAL_BUILDERS: dict[str, Callable[[_Note], None]] = {
    "admission": _admission,
    "discharge": _discharge,
    "progress": _progress,
    "referral": _referral,
    "radiology": _radiology,
    "pathology": _pathology,
    "ed": _ed,
    "phone": _phone_note,
    "consult": _consult,
    "nursing": _nursing,
    "icu": _icu,
    "operative": _operative,
    "psychiatry": _psychiatry,
    "paediatric": _paediatric,
    "palliative": _palliative,
    "therapy": _therapy,
    "social_work": _social_work,
    "pharmacy": _pharmacy,
    "letter": _letter,
    "gp_referral": _gp_referral,
    "signout": _signout,
    "thread": _thread,
    "home_health": _home_health,
    "registration": _registration,
    "lab": _lab,
    "discharge_letter": _discharge_letter,
}
_BUILDERS = _CLINICAL_BUILDERS | GENERAL_BUILDERS
# every {slot} a template may use: the clinical notes' and the general-PII texts'
ALL_SLOTS: dict[str, SlotFn] = SLOTS | GENERAL_SLOTS
_KIND_WEIGHTS = {
    "admission": 3,
    "discharge": 3,
    "progress": 3,
    "referral": 2,
    "radiology": 2,
    "pathology": 1,
    "ed": 2,
    "phone": 1,
    "consult": 2,
    "nursing": 3,
    "icu": 2,
    "operative": 2,
    "psychiatry": 2,
    "paediatric": 8,  # drawn for children only
    "palliative": 1,
    "therapy": 2,
    "social_work": 2,
    "pharmacy": 2,
    "letter": 2,
    "gp_referral": 3,
    "signout": 2,
    "thread": 2,
    "home_health": 2,
    "registration": 2,
    "lab": 2,
    "discharge_letter": 2,
} | GENERAL_WEIGHTS


def _make_faker(locale: str, seed: int) -> Faker:
    try:
        fake = Faker(locale)
    except AttributeError as exc:
        raise OptionError(f"unknown Faker locale {locale!r}") from exc
    if not hasattr(fake, "state_abbr") or not hasattr(fake, "zipcode"):
        raise OptionError(f"locale {locale!r} has no US-style states and ZIP codes; use en_US")
    fake.seed_instance(seed)
    return fake


def _write_note(
    p: Patient, kind: str, fake: Faker, rng: random.Random, doc_id: str, world: Faker
) -> Document:
    n = _Note(p, kind, fake, rng, world, ALL_SLOTS)
    _BUILDERS[kind](n)
    text, spans = n.w.finish(_draw_style(rng, kind), rng)
    return Document(doc_id, text, spans, p.id, {"type": kind})


def _check_n(n: int, name: str) -> None:
    if not isinstance(n, int) or n < 0:
        raise OptionError(f"{name} must be a whole number ≥ 0, got {n!r}")


def _generate(
    rows: list[Mapping], per: int, seed: int, locale: str, kinds, invented: bool
) -> list[Document]:
    kinds = tuple(kinds or NOTE_TYPES)
    known = (*NOTE_TYPES, *GENERAL_TYPES)
    unknown = [k for k in kinds if k not in _BUILDERS]
    if unknown:
        raise OptionError(f"unknown note type {unknown[0]!r} (known: {', '.join(known)})")
    fake, rng = _make_faker(locale, seed), random.Random(seed)
    world = W.world_faker(seed)
    weights = [_KIND_WEIGHTS[k] for k in kinds]
    docs = []
    for i, row in enumerate(rows):
        pid = f"P{i + 1:05d}" if invented else str(row.get("record_id", i + 1))
        p = new_patient(fake, rng, pid, row, world)
        for j in range(per):
            kind = rng.choices(kinds, weights)[0]
            for _ in range(3):  # a paediatric note is about a child
                if kind != "paediatric" or p.age < 18:
                    break
                kind = rng.choices(kinds, weights)[0]
            doc_id = f"note-{i + 1:05d}" if invented and per == 1 else f"note-{pid}-{j + 1:02d}"
            docs.append(_write_note(p, kind, fake, rng, doc_id, world))
    return docs


def generate_patient_notes(
    rows: Iterable[Mapping],
    notes_per_patient: int = 3,
    seed: int = 0,
    locale: str = "en_US",
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``notes_per_patient`` notes for each row (dicts, or a DataFrame whose records are used).

    Known keys are used as given (``record_id`` → MRN, ``name``, ``sex``, ``age``,
    ``birth_date``, ``visit_date``, ``ssn``, ``phone``, ``email``, ``street_address``, ``city``,
    ``state``, ``zip``, ``diagnosis``); the rest is invented. ``Document.patient`` is the row's
    ``record_id`` (or its position), so notes link back to the table.
    """
    _check_n(notes_per_patient, "notes_per_patient")
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    return _generate(rows, notes_per_patient, seed, locale, kinds, invented=False)


def generate_notes(
    n: int,
    seed: int = 0,
    locale: str = "en_US",
    patients=None,
    notes_per_patient: int = 1,
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``n`` notes; the same seed gives the same corpus (for one Faker version).

    Without ``patients`` each run of ``notes_per_patient`` notes shares one invented patient
    (``Document.patient`` "P00001", …); with ``patients`` (rows as in
    ``generate_patient_notes``) the notes are spread over the rows, in order.
    """
    _check_n(n, "n")
    _check_n(notes_per_patient, "notes_per_patient")
    per = max(1, notes_per_patient)
    if patients is not None:
        rows = patients.to_dict("records") if hasattr(patients, "to_dict") else list(patients)
        if not rows:
            raise OptionError("patients is empty: no row to write notes about")
        per = max(1, -(-n // len(rows)))
        return _generate(rows[: -(-n // per)], per, seed, locale, kinds, invented=False)[:n]
    return _generate([{}] * -(-n // per), per, seed, locale, kinds, invented=True)[:n]
