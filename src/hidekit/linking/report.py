"""The offline HTML report of a linked release: figures only, never a key or a note id."""

from __future__ import annotations

from hidekit.linking.link import LinkReport
from hidekit.linking.release import LinkedRelease
from hidekit.report import Report
from hidekit.transforms.loss import loss_section, loss_verdict

ACTIONS = {
    "generalized": "attribute mention written as its person's class value",
    "banded": "mention outside the person's class: ten-year band or year",
    "kept": "indirect identifier kept (partial mode)",
    "suppressed": "indirect identifier removed (full mode)",
    "date_withheld": "date outside the person's class while age is generalized: its tag "
    "(a date shifted per patient would give the exact age back)",
    "operator": "direct identifier replaced by the operator",
}


def link_report(
    link: LinkReport,
    rel: LinkedRelease,
    curve: dict | None = None,
    title: str = "Records and notes de-identified together",
) -> Report:
    """The report's page: linking, release, write-back, and HIDE's Figure 3 when ``curve``."""
    rep = Report(
        title,
        "HIDE's person-centric identifier view: one row per person, built from "
        "the records and the attributes found in the notes",
    )
    _linking_section(rep, link)
    _release_section(rep, rel)
    rep.heading("Write-back into the notes")
    rep.table(
        [
            {"action": a, "meaning": ACTIONS.get(a, ""), "mentions": n}
            for a, n in sorted(rel.actions.items())
        ]
    )
    rep.table(
        [{"label": lab, "replaced": n} for lab, n in rel.summary()["by_label"].items()],
        caption="replaced spans by label",
    )
    if curve and curve["rows"]:
        from hidekit.linking.experiment import figure3_chart

        rep.heading(f"HIDE Figure 3: query precision on {curve['attribute']}")
        rep.figure(
            figure3_chart(curve),
            caption=f"{curve['queries']:,} random '{curve['attribute']} > n and < m' "
            f"queries over {curve['persons']:,} persons; partial keeps the "
            "attribute, full removes it, statistical generalizes it by Mondrian",
        )
        rep.table(curve["rows"])
    return rep


def _linking_section(rep: Report, link: LinkReport) -> None:
    rep.heading("Linking")
    c = link.counts()
    rep.table(
        [
            {"what": k.replace("_", " "), "count": v}
            for k, v in c.items()
            if k != "differing_mentions"
        ]
    )
    if link.ok:
        rep.verdict(True, "every note was linked to exactly one record")
    else:
        rep.verdict(
            False,
            f"{c['withheld_notes']:,} note(s) and {c['withheld_records']:,} "
            "record(s) withheld; details in private/link-report.json",
        )
    if c["differing_mentions"]:
        rep.paragraph(
            "Mentions that differ from the record's value (relatives' ages, other "
            "dates and places): "
            + ", ".join(f"{a} {n:,}" for a, n in c["differing_mentions"].items()),
            "meta",
        )


def _release_section(rep: Report, rel: LinkedRelease) -> None:
    p = rel.params
    rep.heading(f"Release: {p['mode']} de-identification")
    s = rel.stats
    rows: list[dict] = [
        {"measure": "persons", "value": len(rel.table)},
        {"measure": "notes", "value": len(rel.documents)},
        {"measure": "keys", "value": ", ".join(p["keys"])},
        {"measure": "k asked", "value": p["k"]},
        {"measure": "equivalence classes", "value": s.get("classes")},
        {"measure": "smallest class", "value": s.get("k")},
    ]
    if p.get("l"):
        rows.append({"measure": f"distinct l on {p['sensitive']}", "value": s.get("distinct_l")})
    rep.table(rows)
    if p["mode"] == "statistical":
        ok = bool(s.get("k_anonymous")) and (not p.get("l") or bool(s.get("l_diverse")))
        text, warn = "the release does NOT meet the privacy model", False
        if ok:
            met = f"the released identifier view is {p['k']}-anonymous" + (
                f" and {p['l']}-diverse" if p.get("l") else ""
            )
            text, warn = loss_verdict(rel.loss, rel.max_loss, met)
        rep.verdict(ok, text, warn=warn)
    if rel.loss:
        loss_section(rep, rel.loss, rel.max_loss)
