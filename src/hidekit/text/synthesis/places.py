"""Slots for places and organizations: patient and hospital addresses, insurers, pharmacies,
churches, schools."""

from __future__ import annotations

from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.data_files import templates
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.patient import _city_state, _zip_in
from hidekit.text.synthesis.writer import Segment


def _address(n: _Note) -> list[Segment]:
    p = n.p
    sep = n.pick([", ", "\n"])
    if p.region == "US":
        return [
            (p.street, "STREET"),
            (sep, None),
            (p.city, "CITY"),
            (", ", None),
            (p.state, "STATE"),
            (n.pick([" ", "  "]), None),
            (p.zip, "ZIP"),
        ]
    out: list[Segment] = [(p.street, "STREET"), (sep, None), (p.city, "CITY")]
    if p.state:
        out += [(sep if p.region in ("GB", "IE") else ", ", None), (p.state, "STATE")]
    out += [(sep if p.region == "GB" else n.pick([" ", ", "]), None), (p.zip, "ZIP")]
    if n.chance(0.15):
        out += [(sep, None), (W.COUNTRY_NAMES[p.region], "COUNTRY")]
    return out


def _hosp_address(n: _Note) -> list[Segment]:
    f, region = n.fake, n.p.region
    if region != "US":
        city, state = W.region_city(n.world, n.rng, region)
        sep = n.pick([", ", "\n"])
        out: list[Segment] = [(W.street(n.world, n.rng, region), "STREET"), (sep, None)]
        out.append((city, "CITY"))
        if state and region not in ("GB", "NZ"):
            out += [(", " if region != "IE" else sep, None), (state, "STATE")]
        return out + [(n.pick([" ", sep]), None), (W.postcode(n.world, region), "ZIP")]
    city, state = _city_state(f, n.rng)
    zip_code = _zip_in(f, state) + (f.numerify("-####") if n.chance(0.2) else "")
    return [
        (f.street_address(), "STREET"),
        (n.pick([", ", "\n"]), None),
        (city, "CITY"),
        (", ", None),
        (state, "STATE"),
        (" ", None),
        (zip_code, "ZIP"),
    ]


def _org_of(n: _Note, kind: str) -> list[Segment]:
    region, city = n.p.region, n.p.city
    if kind == "insurer":
        return [(n.pick(W.INSURERS[region]), "ORGANIZATION")]
    if kind == "pharmacy":
        if n.chance(0.5):
            return [(n.pick(W.PHARMACIES[region]), "ORGANIZATION")]
        name = n.pick(templates("org_of.1", "l"))
        return [(name.format(last=n.fake.last_name(), city=city), "ORGANIZATION")]
    if kind == "church":
        form = n.pick(templates("org_of.2", "l"))
        return [
            (
                form.format(first=n.fake.first_name(), city=city, last=n.fake.last_name()),
                "ORGANIZATION",
            )
        ]
    if kind == "school":
        form = n.pick(W.ORGANIZATION_FORMS[3:9])
        return [
            (
                form.format(last=n.fake.last_name(), city=city, first=n.fake.first_name()),
                "ORGANIZATION",
            )
        ]
    return [(W.organization(n.world, n.rng, region, city), "ORGANIZATION")]
