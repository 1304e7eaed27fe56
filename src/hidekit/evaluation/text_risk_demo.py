"""Text risk on the demo survey: one short clinical note per respondent, gold spans known by
construction (``hidekit.demo.steps.step_text_risk`` adds a simulated tool that misses a seeded
share of them). Used by ``make demo`` and the benchmark."""

from __future__ import annotations

import pandas as pd

from hidekit.text.spans import Document, Span

TEMPLATE = [
    ("{name}", "NAME"), (", a ", None), ("{age}", "AGE"), ("-year-old seen on ", None),
    ("{visit_date}", "DATE"), (" for {diagnosis}. Lives at ", None), ("{street_address}", "STREET"),
    (", ", None), ("{city}", "CITY"), (", ", None), ("{state}", "STATE"), (" ", None),
    ("{zip}", "ZIP"), (". Phone ", None), ("{phone}", "PHONE"), (", SSN ", None), ("{ssn}", "SSN"),
    (". Born ", None), ("{birth_date}", "DATE"), (". Follow-up with ", None), ("{name}", "NAME"),
    (" on ", None), ("{visit_date}", "DATE"), (".", None),
]  # fmt: skip


def survey_notes(frame: pd.DataFrame) -> list[Document]:
    """One note per record, spans placed while the text is built so offsets are exact."""
    docs = []
    for row in frame.to_dict("records"):
        text, spans = "", []
        for piece, label in TEMPLATE:
            part = piece.format(**row)
            if label:
                spans.append(Span(len(text), len(text) + len(part), label, part))
            text += part
        docs.append(Document(f"note{int(row['record_id']):05d}", text, spans))
    return docs
