"""Builders of the physician notes: admission, discharge, progress, referral, radiology,
pathology, ED, telephone and consultation notes."""

from __future__ import annotations

from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.sections import (
    _MEDS,
    _PLAN,
    _SIGN,
    _clinical_body,
    _header,
    _list_section,
    _section,
)
from hidekit.text.synthesis.vocab import FINDINGS, SPECIMENS, STUDIES


def _admission(n: _Note) -> None:
    _header(n, n.pick(templates("admission.1", "l")))
    _clinical_body(n, (3, 6))
    _section(
        n,
        n.pick(templates("admission.2", "l")),
        ["{pt_formal} is a {age_adj} {sexw} admitted with {dx}. "] + _PLAN,
        (3, 6),
    )
    n.render(n.pick(_SIGN))


def _discharge(n: _Note) -> None:
    _header(n, "Discharge Summary")
    _section(n, "Admission Diagnosis", templates("discharge.1", "l"), (1, 1))
    _section(n, "Discharge Diagnosis", templates("discharge.2", "l"), (1, 1))
    _section(
        n,
        "Hospital Course",
        templates("discharge.3", "l"),
        (3, 7),
    )
    _list_section(n, n.pick(templates("discharge.5", "l")), _MEDS, (2, 6))
    _section(
        n,
        n.pick(templates("discharge.6", "l")),
        templates("discharge.4", "l"),
        (1, 3),
    )
    n.render(n.pick(_SIGN))


def _progress(n: _Note) -> None:
    n.w.add(n.pick(templates("progress.5", "l")))
    n.render(  # the chart header names the patient even when the text does not
        n.pick(templates("progress.3", "l"))
    )
    n.render(n.pick(templates("progress.4", "l")))
    _section(
        n,
        n.pick(templates("progress.6", "l")),
        templates("progress.1", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(templates("progress.7", "l")),
        templates("progress.2", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(templates("progress.8", "l")),
        ["{age_adj} {sexw} with {dx}, hospital day {n}. "] + _PLAN,
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _referral(n: _Note) -> None:
    n.render("{hosp}\n")
    n.render("{hosp_address}\n")
    n.render(n.pick(templates("referral.2", "l")))
    n.render(n.pick(templates("referral.6", "l")))
    n.render(n.pick(templates("referral.7", "l")))
    n.render(n.pick(templates("referral.3", "l")))
    n.render(n.pick(templates("referral.4", "l")))
    for t in n.rng.sample(
        templates("referral.1", "l"),
        n.rng.randint(4, 8),
    ):
        n.render(t)
    n.render(n.pick(templates("referral.5", "l")))
    if n.chance(0.4):
        n.render("cc: {pcp}; {pt_full}\n")


def _radiology(n: _Note) -> None:
    study, region = n.pick(STUDIES)
    n.w.add(n.pick(templates("radiology.8", "l")))
    n.render(n.pick(templates("radiology.1", "l")))
    n.render(n.pick(templates("radiology.2", "l")))
    n.render(n.pick(templates("radiology.3", "l")))
    n.render(n.pick(templates("radiology.4", "l")))
    n.w.add(f"\nEXAM: {study}\n")
    n.render(n.pick(templates("radiology.5", "l")))
    n.render(n.pick(templates("radiology.6", "l")))
    n.w.add("\nFINDINGS:\n")
    for f in n.rng.sample(FINDINGS[region], min(len(FINDINGS[region]), n.rng.randint(1, 3))):
        n.w.add(f + "\n")
    n.w.add("\nIMPRESSION:\n")
    n.render(
        n.pick(
            [
                "1. " + FINDINGS[region][0] + "\n",
                "No acute abnormality.\n",
                "Findings discussed with {dr} by telephone at {time} on {admit}.\n",
                "Recommend follow-up imaging in {n} months.\n",
            ]
        )
    )
    n.render(n.pick(templates("radiology.7", "l")))
    if n.chance(0.3):
        n.render("Images available at {url} (workstation {ip}).\n")


def _pathology(n: _Note) -> None:
    spec, dx = n.pick(SPECIMENS)
    n.w.add(n.pick(templates("pathology.3", "l")))
    n.render("{hosp}\n")
    n.render(n.pick(templates("pathology.4", "l")))
    n.render(n.pick(templates("pathology.1", "l")))
    n.render(n.pick(templates("pathology.5", "l")))
    n.render(n.pick(templates("pathology.6", "l")))
    n.render(n.pick(templates("pathology.2", "l")))
    n.w.add(f"\nSPECIMEN: {spec}\n")
    n.render(n.pick(templates("pathology.7", "l")))
    n.w.add(f"\nDIAGNOSIS:\n{dx}\n")
    n.render(n.pick(templates("pathology.8", "l")))
    n.render(n.pick(templates("pathology.9", "l")))


def _ed(n: _Note) -> None:
    _header(n, n.pick(templates("ed.3", "l")))
    n.render(n.pick(templates("ed.2", "l")))
    _clinical_body(n, (2, 4))
    _section(
        n,
        n.pick(templates("ed.4", "l")),
        templates("ed.1", "l"),
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _phone_note(n: _Note) -> None:
    n.render(n.pick(templates("phone_note.4", "l")))
    n.render(n.pick(templates("phone_note.5", "l")))
    n.render(n.pick(templates("phone_note.2", "l")))
    for t in n.rng.sample(
        templates("phone_note.1", "l"),
        n.rng.randint(3, 6),
    ):
        n.render(t)
    n.render(n.pick(templates("phone_note.3", "l")))


def _consult(n: _Note) -> None:
    _header(n, "Consultation")
    n.render(n.pick(templates("consult.2", "l")))
    _clinical_body(n, (2, 5))
    _section(
        n,
        "Impression and Recommendations",
        templates("consult.1", "l"),
        (2, 5),
    )
    n.render(n.pick(_SIGN))
