"""General-PII texts (issue 14): survey open-ended answers, e-mails, chat logs and support
tickets, written about the same invented people as the notes, with the identifiers such text
carries (IBANs, payment cards, international phones, usernames, licence numbers, hospital numbers
with letters and slashes, military mail). Templates and word lists are in ``data/*.json``
(keys ``general.*``); ``GENERAL_TYPES`` are asked for by name (``generate_notes(kinds=…)``): the
default mix of clinical notes is unchanged. The generator adds ``GENERAL_SLOTS``, ``GENERAL_BUILDERS``
and ``GENERAL_WEIGHTS`` to its tables.
"""

from __future__ import annotations

from collections.abc import Callable

from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import templates, words
from hidekit.text.synthesis.note import SlotFn, _Note
from hidekit.text.synthesis.writer import Segment

GENERAL_TYPES = ("survey_answer", "email", "chat", "support_log")
COUNTRY_CODES = {
    "US": "1",
    "CA": "1",
    "GB": "44",
    "IE": "353",
    "AU": "61",
    "NZ": "64",
} | {
    "IN": "91",
    "NG": "234",
    "GH": "233",
}


def _mod97_check(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(digits) % 97:02d}"


def iban(n: _Note) -> list[Segment]:
    """A valid IBAN (mod-97 check digits), of the patient's country when it has IBANs."""
    country = n.pick(templates("general.iban.1", "l"))
    letters = "".join(n.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(4))
    digits = {"GB": 14, "IE": 14, "DE": 18, "FR": 23, "NL": 10, "ES": 20}[country]
    body = "".join(str(n.rng.randint(0, 9)) for _ in range(digits))
    bban = body if country in ("DE", "FR", "ES") else letters + body
    value = country + _mod97_check(country, bban) + bban
    if n.chance(0.6):
        value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    return [(value, "ACCOUNT")]


def card(n: _Note) -> list[Segment]:
    """A payment card number with its Luhn check digit."""
    head = n.pick(["4", "5" + str(n.rng.randint(1, 5)), "37", "6011"])
    length = 15 if head == "37" else 16
    digits = head + "".join(str(n.rng.randint(0, 9)) for _ in range(length - len(head) - 1))
    digits += W._luhn_digit(digits)
    sep = n.pick(templates("general.card.1", "l"))
    groups = [4, 6, 5] if length == 15 else [4, 4, 4, 4]
    parts, pos = [], 0
    for g in groups:
        parts.append(digits[pos : pos + g])
        pos += g
    return [(sep.join(parts), "ACCOUNT")]


def intl_phone(n: _Note) -> list[Segment]:
    """A phone number written with its country code (``+44 20 7946 0958``, ``+234 803 …``)."""
    region = n.pick([n.p.region, n.p.region, "NG", "GH", "GB", "IN"])
    code = COUNTRY_CODES.get(region, "1")
    forms = words("general.intl_phone_forms", "dl").get(region) or ["### ### ####"]
    local = n.fake.numerify(n.pick(forms))
    lead = n.pick([f"+{code} ", f"+{code}-", f"00{code} ", f"+{code} (0)"])
    return [(lead + local, "PHONE")]


def username(n: _Note) -> list[Segment]:
    first, last = n.p.first.lower(), n.p.last.lower().replace(" ", "").replace("'", "")
    first = W.ascii_fold(first)
    last = W.ascii_fold(last)
    form = n.pick(words("general.username_forms", "l"))
    value = form.format(
        first=first,
        last=last,
        f=first[:1],
        n=n.rng.randint(1, 99),
        y=n.p.birth_date.year % 100,
    )
    return [(value, "USERNAME")]


def hospital_number(n: _Note) -> list[Segment]:
    form = n.pick(words("general.hospital_number_forms", "l"))
    return [(n.fake.bothify(form).upper(), "MRN")]


def licence(n: _Note) -> list[Segment]:
    form = n.pick(words("general.licence_forms", "l"))
    return [(n.fake.bothify(form).upper(), "ID")]


def military(n: _Note) -> list[Segment]:
    box = n.pick(templates("general.military.1", "l"))
    out: list[Segment] = [
        (f"{box} {n.rng.randint(100, 9999)}, Box {n.rng.randint(1, 9999)}", "STREET")
    ]
    out += [(", ", None), (n.pick(templates("general.military.2", "l")), "CITY"), (" ", None)]
    return out + [
        (n.pick(templates("general.military.3", "l")), "STATE"),
        (" ", None),
        (f"{n.rng.choice(['09', '96', '34'])}{n.rng.randint(100, 999)}", "ZIP"),
    ]


def _anyone(n: _Note) -> tuple[str, str]:
    """(first, last) of someone the writer knows: half from the region's locale, half from the
    world's name origins (a survey in Accra names neighbours as Accra does)."""
    if n.chance(0.5):
        return n.fake.first_name(), n.fake.last_name()
    return W.origin_name(n.world, n.rng, n.pick("FM"))


def _staff_name(n: _Note) -> list[Segment]:
    first, last = _anyone(n)
    return [(first if n.chance(0.4) else f"{first} {last}", "NAME")]


GENERAL_SLOTS: dict[str, SlotFn] = {
    "iban": iban,
    "card": card,
    "intl_phone": intl_phone,
    "username": username,
    "hosp_no": hospital_number,
    "licence": licence,
    "military": military,
    "staff_name": _staff_name,
    "ticket": lambda n: n.fake.bothify(
        n.pick(["#######", "TKT-######", "CS-####-###", "INC#######"])
    ),
    "qno": lambda n: str(n.rng.randint(2, 48)),
    "person": lambda n: [(" ".join(_anyone(n)), "NAME")],
}


def _survey_answer(n: _Note) -> None:
    """Open-ended survey answers ("Other, specify", comments) in a respondent's own words."""
    for _ in range(n.rng.randint(1, 4)):
        n.render(n.pick(templates("general.survey_lead", "l")))
        n.render(n.pick(templates("general.survey", "l")))
        n.w.add("\n")


def _email(n: _Note) -> None:
    n.render(n.pick(templates("general.email_head", "l")))
    n.render(n.pick(templates("general.email_greeting", "l")))
    for t in n.rng.sample(templates("general.email_body", "l"), n.rng.randint(2, 4)):
        n.render(t)
    n.render(n.pick(templates("general.email_sign", "l")))


def _chat(n: _Note) -> None:
    lines = templates("general.chat", "l")
    for _ in range(n.rng.randint(4, 9)):
        n.w.add(f"[{n.rng.randint(0, 23):02d}:{n.rng.randint(0, 59):02d}] ")
        n.render(n.pick(templates("general.chat.1", "l")))
        n.render(n.pick(lines))
        n.w.add("\n")


def _support_log(n: _Note) -> None:
    n.render(n.pick(templates("general.support_head", "l")))
    for t in n.rng.sample(templates("general.support", "l"), n.rng.randint(3, 6)):
        n.render(t)


GENERAL_BUILDERS: dict[str, Callable[[_Note], None]] = {
    "survey_answer": _survey_answer,
    "email": _email,
    "chat": _chat,
    "support_log": _support_log,
}
GENERAL_WEIGHTS = dict.fromkeys(GENERAL_TYPES, 2)
