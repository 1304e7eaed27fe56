"""Section templates and the helpers that lay a note out: headers, titled sections, lists,
signatures."""

from __future__ import annotations

from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note

# ---------------------------------------------------------------------------------------------
# Templates. Sections are lists of alternatives; each note picks a few of each.

_HEADER_FIELDS = templates("_HEADER_FIELDS", "ll")
_OPTIONAL_HEADER = {4: 0.5, 5: 0.2, 6: 0.3, 7: 0.3, 8: 0.35, 9: 0.15, 11: 0.5, 12: 0.5}

_HPI = templates("_HPI", "l")
_PMH = templates("_PMH", "l")
_MEDS = templates("_MEDS", "l")
_SOCIAL = templates("_SOCIAL", "l")
_FAMILY = templates("_FAMILY", "l")
_EXAM = templates("_EXAM", "l")
_PLAN = templates("_PLAN", "l")
_SIGN = templates("_SIGN", "l")


def _section(n: _Note, title: str, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    n.w.add(
        n.pick(
            [
                f"\n{title}:\n",
                f"\n{title.upper()}:\n",
                f"\n{title}: ",
                f"\n\n{title.upper()}\n",
            ]
        )
    )
    chosen = n.rng.sample(items, min(len(items), n.rng.randint(*k)))
    for i, t in enumerate(chosen):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _list_section(n: _Note, title: str, items: list[str], k: tuple[int, int]) -> None:
    n.w.add(n.pick([f"\n{title}:\n", f"\n{title.upper()}:\n"]))
    bullet = n.pick(templates("list_section.1", "l"))
    for i in range(n.rng.randint(*k)):
        n.w.add(bullet if bullet != "1. " else f"{i + 1}. ")
        n.render(n.pick(items))
        n.w.add("\n")


def _header(n: _Note, title: str) -> None:
    n.w.add(n.pick([f"{title.upper()}\n", f"{title}\n", f"*** {title.upper()} ***\n"]))
    if n.chance(0.4):
        n.render("{hosp}\n")
        if n.chance(0.4):
            n.render("{hosp_address}\n")
    order = list(range(len(_HEADER_FIELDS)))
    if n.chance(0.3):
        n.rng.shuffle(order)
    for i in order:
        if i in _OPTIONAL_HEADER and not n.chance(_OPTIONAL_HEADER[i]):
            continue
        if i == 3 and n.chance(0.5):
            continue
        n.render(n.pick(_HEADER_FIELDS[i]))
    if title in ("Discharge Summary", "Admission Note", "Consultation"):
        n.render(n.pick(templates("header.1", "l")))
    if title == "Discharge Summary":
        n.render(n.pick(templates("header.3", "l")))
    elif n.chance(0.7):
        n.render(n.pick(templates("header.2", "l")))


def _clinical_body(n: _Note, hpi: tuple[int, int]) -> None:
    _section(
        n,
        n.pick(templates("clinical_body.3", "l")),
        _HPI,
        hpi,
    )
    if n.chance(0.8):
        _list_section(n, n.pick(templates("clinical_body.4", "l")), _PMH, (2, 5))
    if n.chance(0.7):
        _list_section(n, n.pick(templates("clinical_body.5", "l")), _MEDS, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Allergies",
            templates("clinical_body.1", "l"),
            (1, 1),
        )
    if n.chance(0.7):
        _section(n, n.pick(templates("clinical_body.6", "l")), _SOCIAL, (1, 4))
    if n.chance(0.5):
        _section(n, n.pick(templates("clinical_body.7", "l")), _FAMILY, (1, 3))
    if n.chance(0.7):
        _section(n, n.pick(templates("clinical_body.8", "l")), _EXAM, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Labs",
            templates("clinical_body.2", "l"),
            (1, 2),
        )


def _sign_any(n: _Note, staff: bool) -> None:
    if staff:
        n.render(n.pick(templates("sign_any.1", "l")))
    else:
        n.render(n.pick(_SIGN))


def _lines(n: _Note, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    for i, t in enumerate(n.rng.sample(items, min(len(items), n.rng.randint(*k)))):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _mini_header(n: _Note, title: str) -> None:
    n.w.add(
        n.pick(
            [
                f"{title.upper()}\n",
                f"{title}\n",
                f"== {title} ==\n",
                f"{title.upper()}: ",
            ]
        )
    )
    n.render(n.pick(templates("mini_header.1", "l")))
    n.render(n.pick(templates("mini_header.2", "l")))
