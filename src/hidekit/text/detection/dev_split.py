"""Which en-dev texts train the CRF and which measure it: the split by id that the training recipe
(``scripts/train_models.py``) and ``benchmarks/bench_text_leaks.py`` both read (moved out of
``training.py``, which was within 40 lines of the module limit)."""

from __future__ import annotations

import hashlib


def held_for_validation(doc_id: str, share: float = 0.2) -> bool:
    """True for a fixed ``share`` of document ids (by their SHA-256), kept out of training to tune
    on: the split of a growing folder stays the same for the documents already in it."""
    return hashlib.sha256(doc_id.encode("utf-8")).digest()[0] < share * 256


# en-dev texts from dev{EN_DEV_UPTO} on are never trained on (scripts/train_models.py pins training
# to the ones before): they are fresh validation text whatever held_for_validation says of their id
EN_DEV_UPTO = 1133
# en-dev texts from dev{EN_DEV_PENDING} on (issue 14, tenth round) wait for the next retrain: no
# training run reads them and they are not validation either, so the shipped models stay
# reproducible and the validation split stays the one they were tuned on (dev1133-dev1282 fresh)
EN_DEV_PENDING = 1283


def _dev_number(doc_id: str) -> int | None:
    number = doc_id.removeprefix("dev")
    return int(number) if doc_id.startswith("dev") and number.isdigit() else None


def pending_retrain(doc_id: str) -> bool:
    """True for an en-dev text from ``EN_DEV_PENDING`` on: in neither split until the next retrain."""
    number = _dev_number(doc_id)
    return number is not None and number >= EN_DEV_PENDING


def in_validation(doc_id: str) -> bool:
    """True for an en-dev text of the validation split: one ``held_for_validation`` keeps out of
    training, or one from ``EN_DEV_UPTO`` up to ``EN_DEV_PENDING`` (never trained on); never a
    text ``pending_retrain``. The one definition for every reader of the split (training recipe,
    ``benchmarks/bench_text_leaks.py``), both of which also leave ``pending_retrain`` texts out."""
    number = _dev_number(doc_id)
    if number is not None and number >= EN_DEV_PENDING:
        return False
    if number is not None and number >= EN_DEV_UPTO:
        return True
    return held_for_validation(doc_id)
