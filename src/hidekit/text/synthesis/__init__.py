"""Seeded synthetic annotated text: the generator (``generator``), the world it draws places,
names and numbers from (``world``), and its word lists and templates as data files
(``data/*.json``, read by ``data_files``)."""

from hidekit.text.synthesis.generator import (
    LABELS,
    NOTE_TYPES,
    generate_notes,
    generate_patient_notes,
    write_synthetic_corpus,
)

__all__ = [
    "LABELS",
    "NOTE_TYPES",
    "generate_notes",
    "generate_patient_notes",
    "write_synthetic_corpus",
]
