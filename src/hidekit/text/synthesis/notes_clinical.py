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
    _header(n, n.pick(["Admission Note", "History and Physical", "Admission H&P"]))
    _clinical_body(n, (3, 6))
    _section(
        n,
        n.pick(["Assessment and Plan", "A/P", "Assessment/Plan"]),
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
    _list_section(n, n.pick(["Discharge Medications", "Medications on Discharge"]), _MEDS, (2, 6))
    _section(
        n,
        n.pick(["Follow-up", "Disposition", "Follow Up Appointments"]),
        templates("discharge.4", "l"),
        (1, 3),
    )
    n.render(n.pick(_SIGN))


def _progress(n: _Note) -> None:
    n.w.add(
        n.pick(
            [
                "PROGRESS NOTE\n",
                "Progress Note - ",
                "Daily Progress Note\n",
                "SOAP NOTE\n",
            ]
        )
    )
    n.render(  # the chart header names the patient even when the text does not
        n.pick(templates("progress.3", "l"))
    )
    n.render(n.pick(templates("progress.4", "l")))
    _section(
        n,
        n.pick(["Subjective", "S"]),
        templates("progress.1", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(["Objective", "O"]),
        templates("progress.2", "l"),
        (1, 3),
    )
    _section(
        n,
        n.pick(["Assessment/Plan", "A/P", "A&P"]),
        ["{age_adj} {sexw} with {dx}, hospital day {n}. "] + _PLAN,
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _referral(n: _Note) -> None:
    n.render("{hosp}\n")
    n.render("{hosp_address}\n")
    n.render(n.pick(templates("referral.2", "l")))
    n.render(n.pick(["\n{admit}\n\n", "\nDate: {admit}\n\n"]))
    n.render(n.pick(["{dr2_sig}\n{hosp2}\n\n", ""]))
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
    n.w.add(n.pick(["RADIOLOGY REPORT\n", "Imaging Report\n", "DIAGNOSTIC IMAGING\n"]))
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
    n.w.add(n.pick(["SURGICAL PATHOLOGY REPORT\n", "Pathology Report\n"]))
    n.render("{hosp}\n")
    n.render(
        n.pick(
            [
                "Patient: {pt_header}   Med Rec: {mrn}   Acct: {acct}\n",
                "Name: {pt_header}\nMRN: {mrn}\nAccount #: {acct}\n",
            ]
        )
    )
    n.render(n.pick(templates("pathology.1", "l")))
    n.render(n.pick(["Accession: {accession}\n", "Case #: {accession}\n"]))
    n.render(
        n.pick(
            [
                "Collected: {h_admit}   Received: {h_admit}   Reported: {h_discharge}\n",
                "Date of procedure: {admit}\nDate reported: {discharge}\n",
            ]
        )
    )
    n.render(n.pick(templates("pathology.2", "l")))
    n.w.add(f"\nSPECIMEN: {spec}\n")
    n.render(
        n.pick(
            [
                "\nCLINICAL INFORMATION: {age_adj} {sexw} with {dx2}.\n",
                "\nCLINICAL HISTORY: {eponym}; rule out malignancy.\n",
            ]
        )
    )
    n.w.add(f"\nDIAGNOSIS:\n{dx}\n")
    n.render(
        n.pick(
            [
                "\nGROSS: Received in formalin labeled with the patient's name and medical record number, "
                "a tan-pink tissue measuring 1.1 x 0.6 x 0.3 cm. Submitted in toto in cassette A1.\n",
                '\nGROSS DESCRIPTION: Labeled "{pt_header}", the specimen consists of {n} cores.\n',
            ]
        )
    )
    n.render(
        n.pick(
            [
                "\nPathologist: {dr2_sig}\n",
                "\nElectronically signed out by {dr2_sig} on {h_discharge}\n",
            ]
        )
    )


def _ed(n: _Note) -> None:
    _header(n, n.pick(["Emergency Department Note", "ED Provider Note", "ED Triage Note"]))
    n.render(n.pick(templates("ed.2", "l")))
    _clinical_body(n, (2, 4))
    _section(
        n,
        n.pick(["ED Course", "MDM"]),
        templates("ed.1", "l"),
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _phone_note(n: _Note) -> None:
    n.render(n.pick(["TELEPHONE ENCOUNTER\n", "Phone Note\n", "Nurse Triage Call\n"]))
    n.render(n.pick(["{pt_header}  MRN {mrn}  DOB {dob}\n", "Patient: {pt_header}\n"]))
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
