"""Slots for people: ages in every written form, sex words, named clinicians and staff, other
people the patient knows."""

from __future__ import annotations

from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.vocab import DECADE_WORDS, ROLE_WORDS
from hidekit.text.synthesis.writer import Segment


def _months(n: _Note) -> int:
    return n.p.age * 12 + n.rng.randint(1, 11) if n.p.age < 2 else 0


def _age_adj(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["{}-month-old", "{} month old", "{} mo old", "{}-mo", "{} m/o"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(templates("age_adj.1", "l"))
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_pred(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["aged {} months", "{} mo", "{} months old", "age {}/12"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(templates("age_pred.1", "l"))
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_sex(n: _Note) -> list[Segment]:
    """Sign-out shorthand: "67M", "67 F", "67yo M", "67/F"; a decade: "in her 60s"."""
    a, sx = str(n.p.age), n.p.sex
    if n.p.age < 2:
        return [(str(_months(n)), "AGE"), (n.pick(["mo ", " mo "]) + sx, None)]
    if 20 <= n.p.age < 100 and not n.p.exact_age and n.chance(0.15):
        his = "her" if sx == "F" else "his"
        decade = n.p.age // 10 * 10
        word = f"{decade}s" if n.chance(0.6) else DECADE_WORDS[decade // 10]
        return [(f"{sx} in {his} ", None), (word, "AGE")]
    form = n.pick(
        [
            "{}" + sx,
            "{} " + sx,
            "{}yo " + sx,
            "{}/" + sx,
            "{}" + sx.lower(),
            "{}y " + sx,
        ]
    )
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _sex_word(n: _Note) -> str:
    if n.p.age < 18:
        return n.pick(["girl", "female"]) if n.p.sex == "F" else n.pick(["boy", "male"])
    return n.pick(
        ["woman", "female", "lady", "F"] if n.p.sex == "F" else ["man", "male", "gentleman", "M"]
    )


def _staff(n: _Note, form: int | None = None, role: str | None = None) -> list[Segment]:
    """A named non-physician clinician (DOCTOR = any clinician) in one of many written forms."""
    pool = [s for s in n.p.staff if role is None or s[0] == role] or n.p.staff
    r, first, last = n.pick(pool)
    word = n.pick(ROLE_WORDS[r])
    form = n.rng.randrange(10) if form is None else form
    if form == 0:
        return [(f"{r} ", None), (f"{first[0]}. {last}", "DOCTOR")]
    if form == 1:
        return [(f"{first} {last}", "DOCTOR"), (f", {r}", None)]
    if form == 2:
        return [(f"{first[0]}. {last}", "DOCTOR"), (f" {r}", None)]
    if form == 3:
        return [(first, "DOCTOR"), (f" ({r})", None)]
    if form == 4:
        return [(f"{last.upper()}, {first}", "DOCTOR"), (f" {r}", None)]
    if form == 5:
        return [(f"{first[0]}{last[0]}".upper(), "DOCTOR")]
    if form == 6:
        return [(f"{word} ", None), (first, "DOCTOR")]
    if form == 8:  # a bare first name: "handed over to Priya"
        return [(first, "DOCTOR")]
    return [(f"{word} ", None), (f"{first} {last}", "DOCTOR")]


def _staff_sig(n: _Note) -> list[Segment]:
    r, first, last = n.pick(n.p.staff)
    return n.pick(
        [
            [(f"{first} {last}", "DOCTOR"), (f", {r}", None)],
            [(f"{first[0]}. {last}", "DOCTOR"), (f" {r}", None)],
            [(f"{r} ", None), (f"{first[0]}. {last}", "DOCTOR")],
            [("/", None), (f"{first[0]}{last[0]}".lower(), "DOCTOR")],
            [("-- ", None), (f"{first[0]}{last[0]}", "DOCTOR")],
            [(f"{last}, {first}", "DOCTOR"), (f" ({r})", None)],
        ]
    )


def _other(n: _Note) -> list[Segment]:
    role, first, last = n.pick(n.p.others)
    his = "her" if n.p.sex == "F" else "his"
    return n.pick(
        [
            [(f"{his} {role} ", None), (f"{first} {last}", "NAME")],
            [(f"{his} {role}, ", None), (first, "NAME")],
            [(f"{first} {last}", "NAME"), (f" ({role})", None)],
            [(f"{role} ", None), (f"{last.upper()}, {first}", "NAME")],
            [
                (f"{his} {role} ", None),
                (n.pick(["Mr. ", "Ms. ", "Mrs. ", "Mr ", "Ms "]), None),
            ]
            + [(last, "NAME")],
        ]
    )
