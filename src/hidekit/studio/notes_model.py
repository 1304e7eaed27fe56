"""What the corrected notes are for: a model retrained on them, and the text-risk verdict.

Retraining is ``hidekit.jobs.text.train`` on the saved brat folder (cross-validated when there are
enough notes, then trained on all of them, saved owner-only); the scores are
``evaluate_spans``, per type. The verdict is Scaiano & El Emam's text risk
(``assess_text_risk``) of what the model finds, judged against the corrected notes; its Monte
Carlo draws use fresh randomness and no seed is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from hidekit.errors import InputError
from hidekit.studio.tasks import Task
from hidekit.text.spans import Document, Span

Detect = Callable[[str], Iterable[Span]]

RETRAIN_ITERATIONS = 50  # a quick CRF on a handful of notes (the CLI's default is 100)
RETRAIN_FOLDS = 3  # cross-validation folds when there are at least this many notes
TEXT_RISK_DRAWS = 2000  # Monte Carlo draws for the verdict's intervals


@dataclass
class Retrained:
    """The new model and its scores beside the shipped model's, on the same corrected notes."""

    model: Path
    documents: int
    folds: int
    shipped: dict  # evaluate_spans of the shipped model against the corrected notes
    cross_validated: dict | None  # the new model's pooled k-fold predictions, same gold
    resubstituted: dict  # the new model on the notes it was trained on (optimistic)
    cross_validated_risk: dict | None = None  # text risk of the cross-validated predictions

    def types(self) -> list[str]:
        seen: dict[str, None] = {}
        for scores in (self.shipped, self.cross_validated or {}, self.resubstituted):
            seen.update(dict.fromkeys(scores.get("strict", {}).get("per_type", {})))
        return sorted(seen)


def predict(detect: Detect, gold: list[Document], task: Task) -> list[Document]:
    """A detector's spans on each note's text (one step of ``task`` per note)."""
    out = []
    for d in gold:
        out.append(Document(d.id, d.text, list(detect(d.text))))
        task(1)
    return out


def retrain(reviewed: Path, model_path: Path, shipped_model: str, task: Task) -> Retrained:
    """Train on the corrected notes in ``reviewed`` and score old and new against them."""
    from hidekit.jobs.text import train
    from hidekit.text.corpus import read_corpus
    from hidekit.text.detection.detector import load_model
    from hidekit.text.span_metrics import evaluate_spans

    gold = read_corpus(reviewed, "brat")
    if not any(d.spans for d in gold):
        raise InputError("the corrected notes hold no span: accept or add spans, then save")
    folds = RETRAIN_FOLDS if len(gold) >= RETRAIN_FOLDS else 0
    cv, cv_risk = cross_validated(gold, folds, task) if folds else (None, None)
    train(
        reviewed,
        model_path,
        fmt="brat",
        folds=0,  # cross-validated above, where its predictions are kept for the text risk
        n_jobs=1,
        max_iterations=RETRAIN_ITERATIONS,
        progress=task,
    )
    task(0, total=2 * len(gold), completed=0, description="scoring on the corrected notes")
    scores = [
        evaluate_spans(gold, predict(load_model(m).detect, gold, task))
        for m in (shipped_model, model_path)
    ]
    return Retrained(model_path, len(gold), folds, scores[0], cv, scores[1], cv_risk)


def cross_validated(gold: list[Document], folds: int, task: Task) -> tuple[dict, dict]:
    """k-fold cross-validation of a model trained as ``retrain`` trains it (each note predicted
    by a model that never saw it): its scores, and the text risk those predictions leave."""
    from hidekit.evaluation.text_risk import assess_text_risk
    from hidekit.text.detection.cross_validation import cross_validate

    task(0, total=folds, completed=0, description="cross-validation folds")
    cv = cross_validate(
        gold, None, folds, n_jobs=1, progress=task, max_iterations=RETRAIN_ITERATIONS
    )
    risk = assess_text_risk(gold, cv.predictions, draws=TEXT_RISK_DRAWS)
    return cv.to_dict(), risk.to_dict()


def text_risk(gold: list[Document], detect: Detect, task: Task) -> dict:
    """The text-risk verdict of a detector's output against the corrected spans ``gold``."""
    from hidekit.evaluation.text_risk import assess_text_risk

    task(0, total=len(gold) + 1, completed=0, description="detecting")
    predicted = predict(detect, gold, task)
    task(0, description="Monte Carlo intervals")
    result = assess_text_risk(gold, predicted, draws=TEXT_RISK_DRAWS)
    task(1)
    return result.to_dict()
