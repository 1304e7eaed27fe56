"""The HTML report of ``hidekit anonymize`` (Mondrian): the privacy model met or not, and the
information lost per variable beside it, so a release that reaches k by generalizing most of a
variable does not read as a plain success."""

from __future__ import annotations

from hidekit.anonymize.mondrian import AnonymizationResult
from hidekit.report import Report
from hidekit.transforms.loss import loss_section, loss_verdict


def mondrian_report(result: AnonymizationResult, title: str) -> Report:
    p, s = result.params, result.stats
    rep = Report(title, f"mode {p['mode']} · keys: {', '.join(p['keys'])} · k ≥ {p['k']}")
    if p["mode"] == "statistical":
        ok = bool(s.get("k_anonymous")) and (not p.get("l") or bool(s.get("l_diverse")))
        met = f"every record sits in a class of at least {p['k']} records" + (
            f" and each class is {p['l']}-diverse in {p['sensitive']}" if p.get("l") else ""
        )
        text, warn = (
            loss_verdict(
                result.loss, result.max_loss, "The release meets its privacy model: " + met
            )
            if ok
            else ("The release does NOT meet its privacy model", False)
        )
    else:
        ok = True
        text, warn = loss_verdict(
            result.loss, result.max_loss, f"{p['mode'].capitalize()} de-identification done"
        )
    rep.verdict(ok, text, warn=warn)
    if result.loss:
        loss_section(rep, result.loss, result.max_loss)
    rep.heading("Figures")
    rep.table([{"figure": name.replace("_", " "), "value": v} for name, v in s.items()])
    rep.paragraph(f"Row order: {p.get('randomness', 'fresh')} randomness (never recorded).")
    return rep
