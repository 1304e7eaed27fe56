"""Slots for numbers and contacts: phone and fax layouts, SSNs and national numbers, URLs,
bleeps."""

from __future__ import annotations

import re

from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import templates, words
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.writer import Segment


def _phone_format(n: _Note, digits: str) -> str:
    d = re.sub(r"\D", "", digits)[-10:].rjust(10, "5")
    form = n.pick(templates("phone_format.1", "l"))
    out = form.format(a=d[:3], b=d[3:6], c=d[6:])
    if n.chance(0.08):
        out += n.pick([" x", " ext. ", " ext "]) + n.fake.numerify("###")
    return out


def _ssn(n: _Note) -> str:
    s = re.sub(r"\D", "", n.p.ssn)
    return n.pick([f"{s[:3]}-{s[3:5]}-{s[5:]}"] * 4 + [s, f"{s[:3]} {s[3:5]} {s[5:]}"])


def _url(n: _Note) -> str:
    f = n.fake
    return n.pick(
        [
            f"https://www.{f.domain_name()}",
            f"www.{f.domain_name()}/portal",
            f"http://{f.domain_word()}health.org/patients/{f.user_name()}",
            f.url(),
            f"https://mychart.{f.domain_name()}/visit/{f.numerify('######')}",
        ]
    ).rstrip("/")


def _gov_id(n: _Note) -> list[Segment]:
    if n.p.region == "US":
        return [
            (n.pick(["SSN: ", "Social Security #: ", "SS#: "]), None),
            (_ssn(n), "SSN"),
        ]
    name, value, label = n.pick(n.p.national)
    return [(f"{name}{n.pick([': ', ' '])}", None), (value, label)]


def _bleep(n: _Note) -> list[Segment]:
    d = n.fake.numerify(n.pick(["####", "#####", "#-####", "###"]))
    head = n.pick(words("bleep.1", "l"))
    if head == "x":  # written glued, the x is part of the number: "x4410"
        return [(head + d, "PHONE")]
    return [(head, None), (d, "PHONE")]


def _phone_any(n: _Note) -> list[Segment]:
    local = W.phone(n.world, n.rng, n.p.region) if n.chance(0.8) else None
    return [(local or _phone_format(n, n.fake.numerify("##########")), "PHONE")]
