"""Builders of ward and allied-health notes: nursing, ICU, operative, psychiatry, paediatric,
palliative, therapy, social work and pharmacy notes."""

from __future__ import annotations

from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.sections import (
    _SIGN,
    _header,
    _lines,
    _mini_header,
    _section,
    _sign_any,
)


def _nursing(n: _Note) -> None:
    _mini_header(n, n.pick(templates("nursing.2", "l")))
    _lines(
        n,
        templates("nursing.1", "l"),
        (4, 9),
    )
    _sign_any(n, True)


def _icu(n: _Note) -> None:
    _mini_header(n, n.pick(templates("icu.3", "l")))
    n.render("Day {n} of ICU stay. Admitted {admit} from {hosp2}.\n")
    for title, items in [
        ("Neuro", templates("icu.1", "l")),
        ("CVS", ["{bp} on noradrenaline 0.08 mcg/kg/min. ", "SR 88, lactate 1.9. "]),
        (
            "Resp",
            ["Intubated, PS 10/5, FiO2 0.35. ", "Extubated {when} to HFNC 40L/0.4. "],
        ),
        ("Renal", ["UO 0.6 mL/kg/h. Cr {n}.1. ", "CRRT running, net -100 mL/h. "]),
        (
            "ID",
            [
                "Day {n} {drug}. Cultures from {i_admit} pending. ",
                "Afebrile. WCC falling. ",
            ],
        ),
        (
            "Heme",
            ["{inr}, Hb 8.1. ", "DVT prophylaxis with heparin 5000 units SC BID. "],
        ),
        (
            "Lines",
            [
                "R IJ CVC ({i_past}), art line L radial. {device_name}. ",
                "PICC in situ. ",
            ],
        ),
    ]:
        n.w.add(n.pick([f"{title}: ", f"{title.upper()} - ", f"- {title}: "]))
        n.render(n.pick(items))
        n.w.add("\n")
    n.render(n.pick(templates("icu.2", "l")))
    _sign_any(n, n.chance(0.3))


def _operative(n: _Note) -> None:
    _header(n, n.pick(templates("operative.5", "l")))
    n.render(n.pick(templates("operative.3", "l")))
    n.render("Surgeon: {dr_sig}\nAssistant: {dr}\n")
    n.render(n.pick(templates("operative.6", "l")))
    n.render(n.pick(templates("operative.4", "l")))
    n.render("\nPreoperative diagnosis: {dx}\nProcedure: {proc}\n")
    _section(
        n,
        n.pick(templates("operative.7", "l")),
        templates("operative.1", "l"),
        (3, 6),
    )
    _section(
        n,
        "Post-op plan",
        templates("operative.2", "l"),
        (2, 3),
    )
    n.render(n.pick(_SIGN))


def _psychiatry(n: _Note) -> None:
    _header(
        n,
        n.pick(templates("psychiatry.4", "l")),
    )
    _section(
        n,
        "History",
        templates("psychiatry.1", "l"),
        (4, 7),
    )
    _section(
        n,
        n.pick(templates("psychiatry.5", "l")),
        templates("psychiatry.2", "l"),
        (3, 5),
    )
    _section(
        n,
        "Risk and plan",
        templates("psychiatry.3", "l"),
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _paediatric(n: _Note) -> None:
    _header(
        n,
        n.pick(templates("paediatric.3", "l")),
    )
    _section(
        n,
        "History",
        templates("paediatric.1", "l"),
        (4, 7),
    )
    _section(
        n,
        "Examination",
        [
            "Weight 14.2 kg (50th centile), height 96 cm (25th centile). ",
            "Alert, interactive. Chest clear. ",
            "Gross motor and fine motor appropriate for age. ",
            "Ears: grommet in situ R. ",
        ],
        (2, 4),
    )
    _section(
        n,
        "Plan",
        templates("paediatric.2", "l"),
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _palliative(n: _Note) -> None:
    _mini_header(n, n.pick(templates("palliative.2", "l")))
    _lines(
        n,
        templates("palliative.1", "l"),
        (4, 8),
    )
    _sign_any(n, n.chance(0.5))


def _therapy(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(templates("therapy.2", "l")),
    )
    _lines(
        n,
        templates("therapy.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _social_work(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(templates("social_work.2", "l")),
    )
    _lines(
        n,
        templates("social_work.1", "l"),
        (4, 8),
    )
    _sign_any(n, True)


def _pharmacy(n: _Note) -> None:
    _mini_header(
        n,
        n.pick(templates("pharmacy.4", "l")),
    )
    n.render(n.pick(templates("pharmacy.2", "l")))
    n.w.add(n.pick(templates("pharmacy.5", "l")))
    for _ in range(n.rng.randint(3, 7)):
        n.render(n.pick(templates("pharmacy.3", "l")))
    _lines(
        n,
        templates("pharmacy.1", "l"),
        (1, 3),
    )
    n.render(n.pick(templates("pharmacy.6", "l")))
