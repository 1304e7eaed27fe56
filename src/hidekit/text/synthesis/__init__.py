"""Seeded synthetic annotated text: the generator (``generator``: kinds of note and their mix),
the patient (``patient``), one note being written (``note``, ``writer``), the slots a template
fills (``slots``, with ``people``, ``places``, ``identifiers``, ``clinical``), the builders of each
kind of note (``notes_clinical``, ``notes_ward``, ``notes_letters``, ``general``), the world it
draws places, names and numbers from (``world``), and its word lists and templates as data files
(``data/*.json``, read by ``data_files``, named in ``vocab``). The synth job
(``hidekit.jobs.corpus.write_synthetic_corpus``) writes a corpus to disk."""

from hidekit.text.synthesis.generator import generate_notes, generate_patient_notes
from hidekit.text.synthesis.vocab import LABELS, NOTE_TYPES

__all__ = [
    "LABELS",
    "NOTE_TYPES",
    "generate_notes",
    "generate_patient_notes",
]
