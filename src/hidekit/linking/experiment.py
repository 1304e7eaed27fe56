"""HIDE's de-identification experiment (section 3, Figure 3) on a linked corpus: precision of
random ``age > n and age < m`` queries over the persons of the identifier view, for full, partial
and statistical (Mondrian, k = …) de-identification. Query precision and the curve come from
``hidekit.anonymize.utility``; this module feeds them the view's extracted attribute.
"""

from __future__ import annotations

from collections.abc import Sequence

from hidekit.anonymize.utility import precision_curve
from hidekit.linking.link import Linked
from hidekit.linking.release import qi_frame

DEFAULT_KS = (2, 5, 10, 20, 50)


def hide_figure3(
    linked: Linked,
    attribute: str = "age",
    keys: Sequence[str] | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    n_queries: int = 10_000,
    seed: int = 0,
) -> dict:
    """Rows ``{k, statistical, full, partial}`` of query precision on ``attribute``.

    ``keys`` (default: the attribute alone, as in HIDE) are what Mondrian generalizes; ks larger
    than the number of persons are left out.
    """
    keys = list(keys or [attribute])
    frame = qi_frame(linked, keys, [attribute])
    usable = [int(k) for k in ks if int(k) <= len(frame)]
    rows = precision_curve(
        frame, keys, attribute, usable, n_queries=n_queries, seed=seed, kind="range"
    )
    return {
        "attribute": attribute,
        "keys": keys,
        "persons": len(frame),
        "queries": n_queries,
        "rows": rows,
    }


def figure3_chart(curve: dict) -> str:
    """The curve drawn like HIDE's Figure 3: precision against k, one line per option."""
    from hidekit.report import line_chart

    rows = curve["rows"]
    return line_chart(
        [r["k"] for r in rows],
        {m: [r[m] for r in rows] for m in ("partial", "statistical", "full")},
        title=f"Query precision of '{curve['attribute']} > n and {curve['attribute']} < m'",
        xlabel="k",
        ylabel="precision",
        ymin=0.0,
        ymax=1.0,
    )
