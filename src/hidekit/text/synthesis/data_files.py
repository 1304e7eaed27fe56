"""The generator's word lists and sentence templates, read from the JSON files shipped beside it.

``data/words.json`` holds word lists (diagnoses, drugs, eponyms, roles, holidays …) and
``data/templates.json`` the sentence and section templates whose ``{slot}`` fields the generator
fills (``hidekit.text.synthesis.generator``). Keys name the list: a module-level list keeps its
Python name (``DRUGS``, ``world.REGION_WEIGHTS``), a list written for one kind of note is named
after its builder and its place in it (``discharge.2``). Editing a file changes the generated
text (and so, after retraining, the shipped en model); the generator's code stays the same.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=2)
def _load(group: str) -> dict[str, Any]:
    raw = (resources.files("hidekit.text.synthesis") / "data" / f"{group}.json").read_text(
        encoding="utf-8"
    )
    return json.loads(raw)


def _shaped(value: Any, shape: str) -> Any:
    """JSON lists back to the Python containers the generator expects: ``shape`` gives one
    letter per nesting level (l list, t tuple, d dict)."""
    if not shape:
        return value
    head, rest = shape[0], shape[1:]
    if head == "d":
        return {k: _shaped(v, rest) for k, v in value.items()}
    items = [_shaped(v, rest) for v in value]
    return tuple(items) if head == "t" else items


def words(name: str, shape: str = "l") -> Any:
    """The word list ``name`` of ``data/words.json``."""
    return _shaped(_load("words")[name], shape)


def templates(name: str, shape: str = "l") -> Any:
    """The template list ``name`` of ``data/templates.json``."""
    return _shaped(_load("templates")[name], shape)
