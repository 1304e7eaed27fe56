"""HTML report of a risk measurement: the figures and the class-size distribution as a plot."""

from __future__ import annotations

from hidekit.report import Report, bar_chart
from hidekit.risk.metrics import RiskReport, RiskResult

FIGURES = [
    "records",
    "cells",
    "k",
    "uniques",
    "at_risk",
    "rp",
    "cr",
    "prosecutor_highest",
    "prosecutor_average",
    "prosecutor_above_threshold",
]


def size_buckets(r: RiskReport) -> tuple[list[str], list[int]]:
    """Records by class size, grouped 1, 2, …, 9, 10-19, 20-49, 50+ for a readable histogram."""
    edges = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 9), (10, 19), (20, 49), (50, None)]
    labels, counts = [], []
    for lo, hi in edges:
        n = sum(
            x["records"]
            for x in r.class_sizes
            if x["size"] >= lo and (hi is None or x["size"] <= hi)
        )
        labels.append(f"{lo}" if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}"))
        counts.append(n)
    return labels, counts


def risk_report(result: RiskResult, title: str = "Re-identification risk") -> Report:
    r = result.overall
    rep = Report(title, f"keys: {', '.join(r.keys)} · cell-min {r.cell_min} · {r.note}")
    rep.heading("Figures")
    rep.table([{"figure": f, "value": getattr(r, f)} for f in FIGURES])
    labels, counts = size_buckets(r)
    rep.figure(
        bar_chart(
            labels,
            {"records": counts},
            title="Records by class size",
            xlabel="class size",
            ylabel="records",
        )
    )
    if result.by:
        rep.heading(f"By {result.by}")
        rep.table(
            [{result.by: g.group, **{f: getattr(g, f) for f in FIGURES}} for g in result.groups]
        )
    add_population_sections(rep, result)
    return rep


RISK_EDGES = [0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
DIS_EDGES = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]


def bucket_counts(values, edges) -> tuple[list[str], list[int]]:
    """Records per interval: "0" for exactly zero, then (lo, hi] up to the last edge, then "> last"."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    labels, counts = ["0"], [int((values == 0).sum())]
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        labels.append(f"{lo:g}-{hi:g}")
        counts.append(int(((values > lo) & (values <= hi)).sum()))
    if edges[-1] < 1:
        labels.append(f">{edges[-1]:g}")
        counts.append(int((values > edges[-1]).sum()))
    return labels, counts


def add_population_sections(rep: Report, result: RiskResult) -> None:
    """Individual risk, SUDA, the recommended estimate and population uniques, when measured."""
    d = result.to_dict()
    rec = result.records
    if rec is not None:
        w = d["weighted"]
        rep.heading("Risk against the population")
        rep.paragraph(f"{w['model']}; {w['missing_note']}.")
        rows = [
            {"figure": "global risk (mean individual risk)", "value": w["global_risk"]},
            {"figure": "expected re-identifications", "value": w["expected_reidentifications"]},
            {
                "figure": f"records with risk > {w['risk_threshold']:g}",
                "value": w["records_above_threshold"],
            },
        ]
        if "household" in w:
            rows.append({"figure": "household risk (mean)", "value": w["household"]["global_risk"]})
        rep.table(rows)
        labels, counts = bucket_counts(rec.risk, RISK_EDGES)
        rep.figure(
            bar_chart(
                labels,
                {"records": counts},
                title="Individual risk",
                xlabel="risk",
                ylabel="records",
            )
        )
    if rec is not None and rec.suda is not None:
        rep.heading("SUDA2")
        labels, counts = bucket_counts(rec.suda.dis, DIS_EDGES)
        rep.figure(
            bar_chart(
                labels,
                {"records": counts},
                title="DIS-SUDA scores",
                xlabel="DIS score",
                ylabel="records",
            )
        )
        contrib = rec.suda.attribute_contributions()
        rep.figure(
            bar_chart(
                list(contrib),
                {"contribution %": list(contrib.values())},
                title="Variables driving the SUDA scores",
                xlabel="key variable",
                ylabel="% of the total score",
            )
        )
    if "estimate" in d:
        e = d["estimate"]
        rep.heading("Recommended estimate")
        rep.verdict(e["fit"]["fits"], e["fit"]["note"])
        rep.table(
            [
                {"figure": "model", "value": e["model"]},
                {"figure": "expected re-identifications", "value": e["expected_reidentifications"]},
                {"figure": "95% interval", "value": f"{e['ci'][0]:.2f} – {e['ci'][1]:.2f}"},
            ]
        )
        rep.table(e["fit"]["frequencies"])
    if "population" in d:
        p = d["population"]
        rep.heading("Population uniques")
        rep.table(
            [
                {"estimator": m, "uniques": p[m], "note": p["unavailable"].get(m, "")}
                for m in ("pitman", "zayatz", "snb", "dankar")
            ]
        )
        rep.paragraph(f"Dankar's rule chose {d['dankar_model']}.")
    if "journalist" in d:
        add_journalist_section(rep, d)


def add_journalist_section(rep: Report, d: dict) -> None:
    """El Emam's journalist and marketer figures against the population used."""
    j, m = d["journalist"], d["marketer"]
    rep.heading("Journalist and marketer risk")
    rep.paragraph(f"Against the {j['source']} (El Emam's definitions).")
    rep.table(
        [
            {"figure": "journalist risk, highest", "value": j["highest"]},
            {"figure": "journalist risk, average", "value": j["average"]},
            {
                "figure": f"records with 1/F > {j['threshold']:.4g}",
                "value": j["records_above_threshold"],
            },
            {"figure": "marketer risk", "value": m["success_rate"]},
            {"figure": "expected correct matches", "value": m["expected_matches"]},
        ]
    )
