"""Builders of letters and lists: letters to patients and third parties, GP referrals, sign-out
lists, message threads, home-health visits, registration sheets, lab reports and discharge
letters."""

from __future__ import annotations

from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.people import _staff
from hidekit.text.synthesis.sections import _SIGN, _lines, _mini_header, _sign_any
from hidekit.text.synthesis.writer import Segment


def _letter(n: _Note) -> None:
    """Letters to the patient, an insurer or an employer."""
    n.render("{hosp}\n{hosp_address}\n")
    n.render(n.pick(templates("letter.2", "l")))
    n.render("\n{h_admit}\n\n")
    to = n.pick(templates("letter.5", "l"))
    if to == "patient":
        n.render("{pt_full}\n{address}\n\nOur ref: {mrn}\n\nDear {pt_formal},\n\n")
        body = templates("letter.1", "l")
    elif to == "insurer":
        n.render("{insurer}\nClaims Department\n\nRe: {pt_header}, member ID {member}, DOB {dob}\n")
        n.render("Medical record number: {mrn}\n\n")
        n.w.add("To whom it may concern,\n\n")
        body = templates("letter.3", "l")
    else:
        n.render("HR Department\n{org}\n\nRe: {pt_full} (our ref. {mrn})\n\nDear Sir or Madam,\n\n")
        body = templates("letter.4", "l")
    _lines(n, body, (2, len(body)))
    n.render(n.pick(templates("letter.6", "l")))
    if n.chance(0.4):
        n.render("cc: {pcp}; {practice}\n")


def _gp_referral(n: _Note) -> None:
    """A GP letter in the conventions of the UK, Ireland, Australia, New Zealand and Canada."""
    n.render("{practice}\n{hosp_address}\n")
    n.render(n.pick(templates("gp_referral.2", "l")))
    n.render("\n{h_admit}\n\n")
    n.render(n.pick(templates("gp_referral.3", "l")))
    n.render(n.pick(templates("gp_referral.4", "l")))
    n.render(n.pick(templates("gp_referral.5", "l")))
    _lines(
        n,
        templates("gp_referral.1", "l"),
        (4, 8),
    )
    n.render(n.pick(templates("gp_referral.6", "l")))
    if n.chance(0.5):
        n.render("cc: {pt_full}, {address}\n")


def _signout(n: _Note) -> None:
    n.render(n.pick(templates("signout.1", "l")))
    for _ in range(n.rng.randint(2, 5)):
        n.render(n.pick(templates("signout.4", "l")))
        _lines(
            n,
            templates("signout.2", "l"),
            (1, 3),
        )
        n.w.add("\n")
    n.render(n.pick(templates("signout.3", "l")))


def _thread(n: _Note) -> None:
    """A pager or secure-chat thread: time-stamped lines, speakers named by bare names."""
    n.render(n.pick(templates("thread.1", "l")))
    speakers = [_staff(n, 8), _staff(n, 8), [(n.attending[2], "DOCTOR")]]
    for k in range(n.rng.randint(4, 9)):
        head: list[Segment] = [(f"{n.rng.randint(0, 23):02d}:{n.rng.randint(0, 59):02d} ", None)]
        if k == 0 and n.chance(0.5):
            head = n.month_day(n.admit) + [(" ", None)] + head
        who = n.pick(speakers)
        if n.chance(0.3):
            who = [(n.pick(templates("thread.4", "l")), None)] + who
        for text, label in head + who:
            n.w.add(text, label)
        n.w.add(n.pick(templates("thread.3", "l")))
        n.render(n.pick(templates("thread.2", "l")))


def _home_health(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(templates("home_health.2", "l")),
    )
    _lines(
        n,
        templates("home_health.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _registration(n: _Note) -> None:
    n.w.add(n.pick(templates("registration.3", "l")))
    n.render(n.pick(templates("registration.2", "l")))
    n.render(n.pick(templates("registration.4", "l")))
    fields = templates("registration.1", "l")
    for t in fields:
        if n.chance(0.7):
            n.render(t)


def _lab(n: _Note) -> None:
    n.w.add(n.pick(templates("lab.4", "l")))
    n.render("{hosp}\n")
    n.render(n.pick(templates("lab.1", "l")))
    n.render(n.pick(templates("lab.2", "l")))
    n.render("Collected: {h_admit} {time}   Reported: {h_discharge}\n")
    n.render("Requested by: {dr} ({practice})\n\n")
    n.w.add("Test            Result   Units     Ref range\n")
    r = n.rng
    for name, lo, hi, unit, ref in [
        ("Sodium", 128, 146, "mmol/L", "135-145"),
        ("Potassium", 3, 6, "mmol/L", "3.5-5.3"),
        ("Creatinine", 50, 250, "umol/L", "45-90"),
        ("Haemoglobin", 80, 160, "g/L", "115-165"),
        ("WBC", 3, 18, "x10^9/L", "4.0-11.0"),
        ("Platelets", 90, 450, "x10^9/L", "150-400"),
        ("CRP", 1, 200, "mg/L", "<5"),
        ("INR", 1, 4, "", "0.8-1.2"),
        ("TSH", 0, 9, "mU/L", "0.27-4.2"),
    ]:
        if r.random() < 0.6:
            flag = " H" if r.random() < 0.2 else ""
            n.w.add(f"{name:<16}{r.randint(lo, hi)}{flag:<6} {unit:<9} {ref}\n")
    n.render(n.pick(templates("lab.3", "l")))


def _discharge_letter(n: _Note) -> None:
    n.render("{hosp}\n{service}\n")
    n.render(n.pick(templates("discharge_letter.2", "l")))
    n.render("\nDISCHARGE LETTER\n" if n.chance(0.5) else "\nDischarge Summary to GP\n")
    n.render("To: {pcp}, {practice}\n")
    n.render(n.pick(templates("discharge_letter.3", "l")))
    n.render("Admitted: {h_admit}   Discharged: {h_discharge}\nConsultant: {att}\n\n")
    _lines(
        n,
        templates("discharge_letter.1", "l"),
        (4, 8),
    )
    n.render(n.pick(_SIGN))
