"""HIDE's three de-identification options (Gardner & Xiong, section 2.1).

* ``full``: every identifier goes — direct ones (name, record number) and the quasi-identifiers.
* ``partial``: only direct identifiers go (HIPAA's limited data set); quasi-identifiers stay as is.
* ``statistical``: direct identifiers go and the quasi-identifiers are generalized by Mondrian so
  that every record hides in a class of at least k (and, if asked, an l-diverse class).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from hidekit.errors import OptionError, require_columns

MODES = ("full", "partial", "statistical")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise OptionError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    return mode


def apply_mode(
    frame: pd.DataFrame,
    mode: str,
    keys: Sequence[str],
    identifiers: Sequence[str],
    generalize: Callable[[pd.DataFrame], pd.DataFrame],
) -> pd.DataFrame:
    """The released frame for ``mode``; ``generalize`` replaces the keys (statistical mode)."""
    check_mode(mode)
    require_columns(frame.columns, list(identifiers))
    overlap = sorted(set(identifiers) & set(keys))
    if overlap:
        raise OptionError(
            f"a column cannot be both a direct identifier and a key: {', '.join(overlap)}"
        )
    kept = frame.drop(columns=list(identifiers))
    if mode == "full":
        return kept.drop(columns=list(keys))
    if mode == "partial":
        return kept
    return generalize(kept)
