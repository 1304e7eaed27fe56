"""HTML report of a text risk assessment: verdicts, the distributions against the benchmark and
τ (the paper's Figures 1–3), and the conventional figures beside the risk-based ones (Tables 1,
3 and 6), so a reader sees why a 97% recall can still mean one patient in four exposed."""

from __future__ import annotations

import numpy as np

from hidekit.evaluation.text_risk import BENCHMARK_N, BENCHMARK_RECALL, TextRiskResult
from hidekit.report import Report, histogram, line_chart


def _density(a: np.ndarray, b: np.ndarray, bins: int = 40) -> tuple[list[str], list, list]:
    lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
    if hi <= lo:
        hi = lo + 1e-9
    edges = np.linspace(lo, hi, bins + 1)
    ha, _ = np.histogram(a, edges)
    hb, _ = np.histogram(b, edges)
    centers = (edges[:-1] + edges[1:]) / 2
    return ([f"{c:.3g}" for c in centers], (ha / len(a)).tolist(), (hb / len(b)).tolist())


def _header(d: dict, s: dict, title: str) -> Report:
    """The report with its subtitle: units, release form, attempt model, draws, the paper."""
    release = "re-synthesized (surrogates)" if s["resynthesized"] else "redacted"
    att = (
        "public release (A = 1)"
        if s["attempt"] is None
        else f"attempt ~ Triang({', '.join(f'{x:g}' for x in s['attempt'])})"
    )
    rep = Report(
        title,
        f"{d['n']} {d['unit']}s"
        + (f" ({d['documents']} documents)" if d["unit"] == "patient" else "")
        + f" · {release} · {att} · "
        f"{s['draws']:,} Monte Carlo draws, {s['randomness']} · "
        "Scaiano, El Emam et al., J Biomed Inform 2016",
    )
    return rep


def _verdicts(rep: Report, d: dict) -> None:
    di, qi = d["direct"], d["quasi"]
    rep.heading("Verdicts")
    rep.verdict(di["acceptable"], f"Direct identifiers: {di['reason']}.")
    rep.verdict(qi["acceptable"], f"Quasi-identifiers: {qi['reason']}.")
    sample = d["sample"]
    if sample["too_small"]:
        rep.verdict(
            False,
            "The sample is too small for these intervals; they understate the uncertainty: "
            + "; ".join(sample["warnings"])
            + ".",
        )
    else:
        rep.paragraph("Every share rests on enough documents for its interval.", "meta")
    rep.paragraph(sample["rule"], "meta")
    rep.table(
        [
            {
                "": "direct identifiers: P(at least one leak)",
                "estimate": di["estimate"],
                "mean": di["mean"],
                "2.5%": di["ci"][0],
                "97.5%": di["ci"][1],
                "limit": f"benchmark 97.5% = {di['benchmark']['ci'][1]:.4f}",
                "acceptable": di["acceptable"],
            },
            {
                "": "quasi-identifiers: P(two or more leaks)",
                "estimate": qi["estimate"],
                "mean": qi["mean"],
                "2.5%": qi["ci"][0],
                "97.5%": qi["ci"][1],
                "limit": f"τ = {qi['tau']:.4f}",
                "acceptable": qi["acceptable"],
            },
        ]
    )


def _conventional(rep: Report, d: dict) -> None:
    """The conventional figures beside the risk-based ones (the paper's Table 6)."""
    di, qi = d["direct"], d["quasi"]
    rep.heading("Conventional figures beside the risk-based ones (paper's Table 6)")
    rows = []
    for name, g, risk in (
        ("direct identifiers", di["conventional"], di),
        ("quasi-identifiers", qi["conventional"], qi),
    ):
        mr = g["masking_recall"]
        rows.append(
            {
                "": name,
                "micro-average recall (entity)": g["strict_recall"],
                "micro-average masking recall": mr,
                "probability of a leak (1 − masking recall)": None if mr is None else 1 - mr,
                "framework mean": risk["mean"],
                "framework 95% interval": f"{risk['ci'][0]:.4f} – {risk['ci'][1]:.4f}",
            }
        )
    rep.table(rows)


def _direct_recalls(rep: Report, d: dict) -> None:
    """Micro-average vs all-or-nothing recall of the direct identifiers (the paper's Table 1)."""
    di = d["direct"]
    rep.heading("Direct identifiers: micro-average vs all-or-nothing recall (paper's Table 1)")
    rows = [
        {
            "type": t["label"],
            "documents (s_i)": t["documents"],
            "w_i": t["w"],
            "instances": t["instances"],
            "micro-average recall (entity)": d["conventional"][t["label"]]["strict_recall"],
            "masking recall": t["masking_recall"],
            "all-or-nothing recall (r_i)": t["all_or_nothing_recall"],
            "h applied": t["hips_applied"],
        }
        for t in di["types"]
    ]
    g = di["conventional"]
    if rows:
        rows.append(
            {
                "type": "all DI",
                "documents (s_i)": None,
                "w_i": None,
                "instances": g["instances"],
                "micro-average recall (entity)": g["strict_recall"],
                "masking recall": g["masking_recall"],
                "all-or-nothing recall (r_i)": g["all_or_nothing_recall"],
                "h applied": None,
            }
        )
    rep.table(rows)


def _per_type(rep: Report, d: dict) -> None:
    """Masking recall vs conventional recall per type (the paper's Table 3)."""
    di, qi = d["direct"], d["quasi"]
    rep.heading("Masking recall vs conventional recall per type (paper's Table 3)")
    rows = [
        {
            "type": lab,
            "class": c["kind"],
            "instances": c["instances"],
            "masking recall": c["masking_recall"],
            "entity recall (strict)": c["strict_recall"],
            "entity precision (strict)": c["strict_precision"],
            "token recall": c["token_recall"],
            "token precision": c["token_precision"],
        }
        for lab, c in d["conventional"].items()
    ]
    for name, g in (("all DI", di["conventional"]), ("all QI", qi["conventional"])):
        if g["instances"]:
            rows.append(
                {
                    "type": name,
                    "class": "",
                    "instances": g["instances"],
                    "masking recall": g["masking_recall"],
                    "entity recall (strict)": g["strict_recall"],
                    "entity precision (strict)": g["strict_precision"],
                    "token recall": g["token_recall"],
                    "token precision": g["token_precision"],
                }
            )
    rep.table(rows)
    if d["ignored_types"]:
        rep.paragraph(
            f"Types outside the type map (ignored): {', '.join(d['ignored_types'])}.", "meta"
        )


def _direct_figures(rep: Report, result: TextRiskResult, d: dict) -> None:
    """The direct identifiers' risk against the benchmark (the paper's Figures 1, 2)."""
    di = d["direct"]
    rep.heading("Direct identifiers: distribution against the benchmark (paper's Figures 1, 2)")
    rep.paragraph(
        f"Benchmark: the same equation with w = 1, n = {BENCHMARK_N} and all-or-nothing "
        f"recall {BENCHMARK_RECALL} for each of the {di['benchmark']['types']} DI types "
        "present. The risk is acceptable when the data's upper 95% limit does not exceed "
        "the benchmark's."
    )
    marks = {"data 97.5%": di["ci"][1], "benchmark 97.5%": di["benchmark"]["ci"][1]}
    labels, a, b = _density(result.direct.draws, result.benchmark.draws)
    rep.figure(
        line_chart(
            labels,
            {"data": a, "benchmark": b},
            title="DI risk: data vs benchmark",
            xlabel="probability of re-identification",
            ylabel="share of draws",
        )
    )
    rep.figure(
        histogram(
            result.direct.draws,
            bins=40,
            title="DI risk, data",
            marks=marks,
            xlabel="probability of re-identification",
        )
    )
    rep.figure(
        histogram(
            result.benchmark.draws,
            bins=40,
            title="DI risk, benchmark",
            marks=marks,
            xlabel="probability of re-identification",
        )
    )


def _quasi_figure(rep: Report, result: TextRiskResult, d: dict) -> None:
    """The quasi-identifiers' risk against τ (the paper's Figure 3)."""
    qi = d["quasi"]
    rep.heading("Quasi-identifiers: distribution against τ (paper's Figure 3)")
    rep.paragraph(
        f"r_q = {qi['r_q']:.4f} over {qi['instances']:,} instances in {qi['s_q']} "
        f"{d['unit']}s; n_q = {qi['n_q']:.3f} distinct values per {d['unit']}; "
        f"m = {qi['m']:.3f} instances per value. Observed share of {d['unit']}s with two "
        f"or more leaked values: {qi['observed_share_2plus_leaked']:.4f}; equation (12) "
        f"and its variants give {qi['estimate']:.4f}; expectation over the Poisson laws "
        f"of N_q and M: {qi['expected']:.4f}."
    )
    rep.figure(
        histogram(
            result.quasi.draws,
            bins=40,
            title="QI risk",
            marks={"97.5%": qi["ci"][1], "τ": qi["tau"]},
            xlabel="probability of re-identification",
        )
    )


def text_risk_report(
    result: TextRiskResult, title: str = "Re-identification risk of text"
) -> Report:
    """The HTML report of ``result``: verdicts, conventional figures, distributions, settings."""
    d = result.to_dict()
    rep = _header(d, result.settings, title)
    _verdicts(rep, d)
    _conventional(rep, d)
    _direct_recalls(rep, d)
    _per_type(rep, d)
    _direct_figures(rep, result, d)
    _quasi_figure(rep, result, d)
    rep.heading("Settings")
    rep.table([{"setting": k, "value": v} for k, v in result.settings.items()])
    return rep
