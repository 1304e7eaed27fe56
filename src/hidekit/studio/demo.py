"""``hidekit studio --demo``: the demo survey and a few synthetic notes, written once into a folder.

Synthetic data only (seeded, like ``make demo``): nothing about a real person.
"""

from __future__ import annotations

from pathlib import Path

from hidekit.io import write_table, write_text_atomic

DEMO_RECORDS = 5000
DEMO_SEED = 7
DEMO_NOTES = 6
SURVEY = "survey.csv"
NOTES = "notes"


def prepare_demo(folder: Path) -> str:
    """Write ``survey.csv`` and ``notes/*.txt`` into ``folder`` where absent; the table's name."""
    from hidekit.demo.survey import generate_survey

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / SURVEY).exists():
        write_table(generate_survey(DEMO_RECORDS, seed=DEMO_SEED), folder / SURVEY)
    notes = folder / NOTES
    if not notes.exists():
        from hidekit.text.synthesis import generate_notes

        notes.mkdir()
        for doc in generate_notes(DEMO_NOTES, seed=DEMO_SEED):
            write_text_atomic(notes / f"{doc.id}.txt", doc.text)
    return SURVEY
