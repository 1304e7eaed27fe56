"""Checks a job runs on what it is about to release, so a verdict never hides a plain leak.

``anonymize`` makes the keys k-anonymous; a column such as ``name`` or ``ssn`` that the user did
not list passes through untouched, and "k-anonymous: yes" beside it would mislead. The release
plan refuses in that case; the one-step commands say so in a warning (they are often one link
of a chain whose earlier step removes the identifiers, so they do not refuse).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd


def identifiers_left(released: pd.DataFrame, handled: Iterable[str]) -> list[str]:
    """A warning naming the released columns the PII scan flags as direct identifiers (the scan
    reads a seeded sample of rows), other than ``handled`` ones; none when there are none."""
    from hidekit.scan import scan_table

    skip = set(handled)
    flagged = [c for c in scan_table(released).names("direct") if c not in skip]
    if not flagged:
        return []
    return [
        "the released file still holds column(s) the PII scan flags as direct identifiers: "
        f"{', '.join(flagged)} (remove, encode or hash them first, or list them as identifiers)"
    ]
