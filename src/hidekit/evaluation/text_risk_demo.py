"""Text risk on the demo survey: one short clinical note per respondent, gold spans known by
construction, and a simulated tool that misses a seeded share of them. Used by ``make demo`` and
the benchmark; the predictions are simulated, not a detector's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hidekit.evaluation.text_risk_corpus import drop_spans
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


def step_text_risk(out: Path, ctx: dict) -> str:
    """Demo step: risk left by a simulated tool that misses 2% of the PHI in survey notes."""
    from hidekit.evaluation.text_risk import assess_text_risk
    from hidekit.evaluation.text_risk_report import text_risk_report

    gold = survey_notes(ctx["frame"])
    pred = drop_spans(gold, 0.02, seed=ctx.get("seed", 7))
    res = assess_text_risk(gold, pred, seed=ctx.get("seed", 7))
    path = Path(out) / "text-risk.html"
    text_risk_report(
        res, "Demo: text risk of survey notes (simulated tool missing 2% of PHI)"
    ).save(path)
    d = res.to_dict()
    di, qi = d["direct"], d["quasi"]
    return (
        f"text risk of {d['n']:,} notes (simulated 2% misses): masking recall DI "
        f"{di['conventional']['masking_recall']:.3f}, P(DI leak) {di['mean']:.3f} "
        f"[{di['ci'][0]:.3f}, {di['ci'][1]:.3f}] {'ok' if di['acceptable'] else 'NOT ok'}; "
        f"P(≥2 QI) {qi['mean']:.3f} [{qi['ci'][0]:.3f}, {qi['ci'][1]:.3f}] "
        f"{'ok' if qi['acceptable'] else 'NOT ok'} -> {path}"
    )
