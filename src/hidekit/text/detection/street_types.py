"""The street types English detection knows, in one place (issue 14): the rules that grow a
street (``consistency_streets``) and the recognizer of streets in any case
(``recognizers.shapes``) build their expressions from these lists.

A short type that is also clinical or everyday shorthand ("dr" doctor, "ct" a scan, "pl"
platelets, "cl" chloride, "sq" subcutaneous, "av" atrioventricular, "crt" a pacing device,
"terr" territory) is ambiguous: it counts only where a street already found or the case of a
name vouches for it, never in a note's running text alone."""

from __future__ import annotations

from collections.abc import Iterable

LONG_TYPES = tuple(
    """
    street road avenue lane drive court place crescent terrace boulevard parkway highway close
    walk way parade grove mews gardens row circuit square expressway
    """.split()  # noqa: SIM905
)
SHORT_TYPES = tuple(
    "st rd ave av blvd ln ct pkwy hwy pl cres tce terr cl sq crt pde cct dr".split()  # noqa: SIM905
)
AMBIGUOUS = frozenset("dr ct pl cl sq av crt terr".split())  # noqa: SIM905


def alternatives(words: Iterable[str]) -> str:
    """``words`` as a regular-expression alternation, longest first."""
    return "|".join(sorted(set(words), key=lambda w: (-len(w), w)))
