"""Read what a coded column means from its value labels (Stata/SPSS), not from the codes.

A labelled ``0 = Urban, 1 = Rural`` must not be taken as "1 is urban"; a Spanish ``Urbano`` is
urban, not "anything but 'urban'". A transform that needs a category (urban or rural) asks
``classify_codes``: each distinct value is read through its label when the file has one, else as
its own text, and matched against words in several languages (en, es, fr, pt, it, de). A value
that cannot be told (a bare code, "peri-urban", "semi-rural") is an error asking for an explicit
mapping; the result says which code was taken as which, so the audit can show it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import pandas as pd

from hidekit.errors import OptionError
from hidekit.transforms.generalize import value_key

# Words (accents removed, lower case) that name each category, in en, es, fr, pt, it, de.
URBAN_WORDS = frozenset(
    {
        "urban", "urbano", "urbana", "urbanos", "urbanas", "urbain", "urbaine", "urbains",
        "urbaines", "urbani", "urbane", "stadtisch",
    }
)  # fmt: skip
RURAL_WORDS = frozenset(
    {
        "rural", "rurales", "rurais", "rurale", "rurali", "rureaux", "landlich", "countryside",
        "campo", "campagne", "campagna",
    }
)  # fmt: skip
# A word that makes a label ambiguous: "non-urban", "peri-urban", "semi-rural", "no urbano".
HEDGES = frozenset({"non", "no", "not", "peri", "semi", "sub", "mixed", "mixto", "mixte", "misto"})
CATEGORIES = {"urban": URBAN_WORDS, "rural": RURAL_WORDS}


def _words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()
    return re.findall(r"[a-z]+", plain)


def category_of(text: str) -> str | None:
    """``urban``, ``rural`` or None (cannot tell) for one label or value."""
    words = _words(text)
    if not words or HEDGES.intersection(words):
        return None
    hits = {name for name, vocab in CATEGORIES.items() if vocab.intersection(words)}
    return hits.pop() if len(hits) == 1 else None


def _label_of(value, labels: Mapping) -> str | None:
    key = value_key(value)
    for code, label in labels.items():
        if value_key(code) == key:
            return str(label)
    return None


def classify_codes(
    values: pd.Series,
    column: str,
    *,
    labels: Mapping | None = None,
    mapping: Mapping | None = None,
    step: str = "jitter",
) -> tuple[dict[str, str], dict]:
    """Each distinct value of ``values`` as ``urban`` or ``rural``.

    ``mapping`` (value -> "urban"/"rural") is explicit and wins; else a value is read through its
    label in ``labels`` (code -> label) or as its own text; booleans read True as urban. Returns
    the map (value text -> category) and a JSON-ready account of it for the audit. Raises
    OptionError naming the values it cannot tell, and how to tell them.
    """
    present = [v for v in pd.unique(values.dropna())]
    out: dict[str, str] = {}
    shown: dict[str, str] = {}
    unknown: list[str] = []
    if mapping is not None:
        given = {value_key(k): str(v).strip().casefold() for k, v in mapping.items()}
        bad = sorted({v for v in given.values() if v not in CATEGORIES})
        if bad:
            raise OptionError(f"{step}: urban_codes values must be urban or rural, got {bad[0]!r}")
        source = "urban_codes"
    else:
        source = "value labels" if labels else "values"
    for v in present:
        key = value_key(v)
        assert key is not None  # ``present`` holds no missing value
        label = _label_of(v, labels or {})
        if mapping is not None:
            cat = given.get(key)
        elif isinstance(v, bool):
            cat = "urban" if v else "rural"
        else:
            cat = category_of(label if label is not None else str(v))
        name = f"{key} ({label})" if label is not None and label != key else str(key)
        if cat is None:
            unknown.append(name)
            continue
        out[key] = cat
        shown[name] = cat
    if unknown:
        how = (
            "add them to urban_codes"
            if mapping is not None
            else "give urban_codes, e.g. urban_codes = {"
            + ", ".join(f'"{value_key(v)}" = "urban"' for v in present[:2])
            + "} (CLI: --urban-codes)"
        )
        raise OptionError(
            f"{step}: cannot tell whether {', '.join(repr(u) for u in unknown[:5])} in column "
            f"{column!r} is urban or rural: {how}"
        )
    return out, {"column": column, "read_from": source, "codes": dict(sorted(shown.items()))}
