"""The demo step of statistical de-identification (hidekit.demo.pipeline adds it to STEPS)."""

from __future__ import annotations

from pathlib import Path

DEMO_KEYS = ["sex", "age", "race", "marital_status", "education", "state"]
# direct identifiers, and indirect ones this release does not generalize (age_group repeats age)
DEMO_DROP = [
    "record_id",
    "name",
    "ssn",
    "phone",
    "email",
    "street_address",
    "city",
    "zip",
    "latitude",
    "longitude",
    "birth_date",
    "visit_date",
    "age_group",
]


def step_anonymize(out: Path, ctx: dict) -> str:
    """Mondrian k = 5, 2-diverse diagnosis; the release and its utility report (HIDE Figure 3)."""
    from hidekit.anonymize import mondrian
    from hidekit.anonymize.utility import precision_curve, utility, utility_report
    from hidekit.io import write_table

    frame = ctx["frame"]
    drop = [c for c in DEMO_DROP if c in frame.columns]
    res = mondrian(frame, DEMO_KEYS, 5, l=2, sensitive="diagnosis", identifiers=drop)
    path = write_table(res.released, Path(out) / "anonymized.csv")
    original = frame.drop(columns=drop)
    u = utility(original, res.released, DEMO_KEYS, k=5, n_queries=2000, seed=7)
    curve = {
        "attribute": "age",
        "rows": precision_curve(
            original,
            DEMO_KEYS,
            "age",
            [2, 5, 10, 25, 50],
            n_queries=2000,
            seed=7,
            l=2,
            sensitive="diagnosis",
        ),
    }
    report = utility_report(u, curve, "Demo: utility of the Mondrian release").save(
        Path(out) / "utility.html"
    )
    s = res.stats
    return (
        f"Mondrian k=5, 2-diverse diagnosis on {', '.join(DEMO_KEYS)}: {s['classes']:,} classes, "
        f"k={s['k']}, NCP {u['ncp']:.3f}, age query precision {u['query_precision']['age']:.3f} "
        f"-> {path}, {report}"
    )
