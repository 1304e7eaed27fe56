"""The slot table: every ``{slot}`` name a template may use, mapped to the function that writes
it (a string, or labelled segments)."""

from __future__ import annotations

from datetime import timedelta

from hidekit.text.synthesis import world as W
from hidekit.text.synthesis.clinical import _dx, _labs, _md_table, _med, _vitals
from hidekit.text.synthesis.identifiers import (
    _bleep,
    _gov_id,
    _phone_any,
    _phone_format,
    _ssn,
    _url,
)
from hidekit.text.synthesis.note import SlotFn
from hidekit.text.synthesis.patient import _city_state, _profession
from hidekit.text.synthesis.people import (
    _age_adj,
    _age_pred,
    _age_sex,
    _other,
    _sex_word,
    _staff,
    _staff_sig,
)
from hidekit.text.synthesis.places import _address, _hosp_address, _org_of
from hidekit.text.synthesis.vocab import (
    BEDS,
    BRANDS,
    DEPARTMENT_CLINICS,
    DEVICES,
    DIAGNOSES,
    DRUGS,
    DURATIONS,
    EPONYMS,
    GENERIC_ROLES,
    GP_DEGREES,
    ICD_CODES,
    LANGUAGES,
    ORG_FORMS,
    PROCEDURES,
    RELATIVE_TIMES,
    SCALES,
    SERVICES,
    SIGNS,
    STUDIES,
    SYMPTOMS,
    US_DURATIONS,
)

SLOTS: dict[str, SlotFn] = {
    # patient
    "pt": lambda n: n.patient_name(),
    "pt_full": lambda n: n.patient_name(n.pick(["full", "full", "middle"])),
    "pt_formal": lambda n: n.patient_name(n.pick(["formal", "formal", "full"])),
    "pt_first": lambda n: n.patient_name("first"),
    "pt_last": lambda n: [(n.p.last if n.chance(0.6) else n.p.last.upper(), "NAME")],
    "pt_header": lambda n: n.patient_name(n.pick(["lastfirst", "lastfirst", "full", "middle"])),
    "age_adj": _age_adj,
    "age_pred": _age_pred,
    "age_num": lambda n: [(str(n.p.age), "AGE")],
    "sexw": _sex_word,
    "sex": lambda n: n.pick([n.p.sex, "Female" if n.p.sex == "F" else "Male"]),
    "he": lambda n: "she" if n.p.sex == "F" else "he",
    "He": lambda n: "She" if n.p.sex == "F" else "He",
    "his": lambda n: "her" if n.p.sex == "F" else "his",
    "His": lambda n: "Her" if n.p.sex == "F" else "His",
    "him": lambda n: "her" if n.p.sex == "F" else "him",
    "rel": lambda n: n.relative(),
    "prof": lambda n: [(n.p.profession, "PROFESSION")],
    "employer": lambda n: [
        (
            n.pick(ORG_FORMS).format(
                company=n.p.employer,
                city=n.p.city,
                last=n.fake.last_name(),
                state_name=n.fake.state(),
                place_org=W.rng_place_org(n.rng),
            ),
            "ORGANIZATION",
        )
    ],
    "country": lambda n: [(n.p.country, "COUNTRY")],
    # clinicians and places
    "dr": lambda n: n.doctor(),
    "att": lambda n: n.doctor(n.attending),
    "pcp": lambda n: n.doctor(n.pcp),
    "dr_sig": lambda n: n.doctor(n.attending, sig=True),
    "dr2_sig": lambda n: n.doctor(sig=True),
    "hosp": lambda n: [(n.p.hospital, "HOSPITAL")],
    "hosp2": lambda n: [(n.p.hospital2, "HOSPITAL")],
    "city": lambda n: [(n.p.city, "CITY")],
    "city2": lambda n: [(_city_state(n.fake, n.rng)[0], "CITY")],
    "state": lambda n: [(n.pick([n.p.state, n.fake.state()]), "STATE")],
    "address": _address,
    "hosp_address": _hosp_address,
    # dates
    "admit": lambda n: n.date(n.admit),
    "discharge": lambda n: n.date(n.discharge),
    "followup": lambda n: n.date(n.followup),
    "past": lambda n: n.date(n.past()),
    "year": lambda n: str(n.past().year),  # a year alone is not PHI (Safe Harbor keeps years)
    "dob": lambda n: n.date(n.p.birth_date, header=True),
    "h_admit": lambda n: n.date(n.admit, header=True),
    "h_discharge": lambda n: n.date(n.discharge, header=True),
    # contacts and numbers
    "pt_phone": lambda n: [(_phone_format(n, n.p.phone), "PHONE")],
    "phone": lambda n: [(_phone_format(n, n.fake.numerify("##########")), "PHONE")],
    "pager": lambda n: [
        (n.fake.numerify(n.pick(["#####", "###-####", "(###) ###-####"])), "PHONE")
    ],
    "fax": lambda n: [(_phone_format(n, n.fake.numerify("##########")), "FAX")],
    "email": lambda n: [(n.p.email, "EMAIL")],
    "dr_email": lambda n: [
        (f"{n.attending[0][0]}{n.attending[2]}@{n.fake.domain_name()}".lower(), "EMAIL")
    ],
    "url": lambda n: [(_url(n), "URL")],
    "ip": lambda n: [(n.pick([n.fake.ipv4_public(), n.fake.ipv4_private()]), "IP")],
    "ssn": lambda n: [(_ssn(n), "SSN")],
    "mrn": lambda n: [(n.p.mrn, "MRN")],
    "acct": lambda n: [(n.p.account, "ACCOUNT")],
    "member": lambda n: [(n.p.member_id, "ID")],
    "accession": lambda n: [
        (
            n.fake.bothify(n.pick(["S##-#####", "SP-##-######", "RAD#######", "?##-####"])).upper(),
            "ID",
        )
    ],
    "license": lambda n: [
        (n.fake.bothify(n.pick(["??#######", "#######", "MD######"])).upper(), "ID")
    ],
    "device": lambda n: [
        (
            n.fake.bothify(n.pick(["SN ??#####-##", "#########", "PJN######?"])).upper(),
            "ID",
        )
    ],
    # clinical filler (never PHI)
    "dx": _dx,
    "dx2": lambda n: n.pick(DIAGNOSES),
    "eponym": lambda n: n.pick(EPONYMS),
    "sign": lambda n: n.pick(SIGNS),
    "device_name": lambda n: n.pick(DEVICES),
    "proc": lambda n: n.pick(PROCEDURES),
    "drug": lambda n: n.pick(DRUGS),
    "med": _med,
    "symptom": lambda n: n.pick(SYMPTOMS),
    "service": lambda n: n.pick(SERVICES),
    "dept_clinic": lambda n: n.pick(DEPARTMENT_CLINICS),
    "visiting": lambda n: n.pick(
        ["Visiting Nurse Service", "home health", "Meals on Wheels", "PT/OT"]
    ),
    "labs": _labs,
    "vitals": _vitals,
    "days": lambda n: str(n.rng.randint(2, 14)),
    "time": lambda n: f"{n.rng.randint(0, 23):02d}:{n.pick(['00', '15', '30', '45', '10', '52'])}",
    "n": lambda n: str(n.rng.randint(2, 9)),
    "lang": lambda n: n.pick(LANGUAGES),
    "wkday": lambda n: n.weekday_mention(n.admit - timedelta(days=n.rng.randint(0, 6))),
    "md": lambda n: n.month_day(n.admit + timedelta(days=n.rng.randint(-20, 20))),
    "rel_first": lambda n: [(n.pick(n.p.relatives)[1], "NAME")],
    "kid_age": lambda n: [(str(n.rng.randint(1, 17)), "AGE")],
    "md_table": lambda n: _md_table(n),
    "staff_bare": lambda n: _staff(n, 8),
}


SLOTS.update(
    {
        "rel_bare": lambda n: (lambda r: [(f"{r[0]}, ", None), (r[1], "NAME")])(
            n.pick(n.p.relatives)
        ),
        "rel_age": lambda n: [(str(n.rng.randint(40, 99)), "AGE")],
        "dr_last": lambda n: [(n.pick(n.p.doctors)[2], "DOCTOR")],
        "rn": lambda n: [(n.fake.name(), "NAME")],
        "study": lambda n: n.pick(STUDIES)[0],
    }
)


SLOTS.update(
    {
        "rn": lambda n: _staff(n, n.pick([1, 2, 7])),
        "staff": lambda n: _staff(n),
        "staff_sig": _staff_sig,
        "staff_init": lambda n: _staff(n, 5),
        "nurse": lambda n: _staff(n, role="RN"),
        "physio": lambda n: _staff(n, n.pick([1, 3, 6, 7]), role=n.pick(["PT", "OT"])),
        "sw": lambda n: _staff(n, n.pick([1, 6, 7]), role=n.pick(["LCSW", "MSW"])),
        "pharmacist": lambda n: _staff(n, n.pick([1, 6, 7]), role="PharmD"),
        "dietitian": lambda n: _staff(n, n.pick([1, 6, 7]), role="RD"),
        "midwife": lambda n: _staff(n, n.pick([1, 3, 7]), role="RM"),
        "other": _other,
        "nick": lambda n: n.patient_name("nick"),
        "gp_degree": lambda n: n.pick(GP_DEGREES[n.p.region]),
        "dr_plain": lambda n: [(f"{n.attending[0]} {n.attending[2]}", "DOCTOR")],
        "pt_initials": lambda n: n.patient_name("initials"),
        "pt_any": lambda n: n.patient_name(
            n.pick(["full", "formal", "first", "initial", "lastfirst", "caps_last", "nick"])
        ),
        "gov_id": _gov_id,
        "nat_id": lambda n: (lambda t: [(f"{t[0]} ", None), (t[1], t[2])])(n.pick(n.p.national)),
        "practice": lambda n: [(n.p.practice, "HOSPITAL")],
        "org": lambda n: [(n.p.org, "ORGANIZATION")],
        "insurer": lambda n: _org_of(n, "insurer"),
        "pharmacy": lambda n: _org_of(n, "pharmacy"),
        "school": lambda n: _org_of(n, "school"),
        "church": lambda n: _org_of(n, "church"),
        "org2": lambda n: _org_of(n, "any"),
        "rel_prof": lambda n: [(_profession(n.fake), "PROFESSION")],
        "i_past": lambda n: n.informal_date(n.past()),
        "i_admit": lambda n: n.informal_date(n.admit),
        "i_follow": lambda n: n.informal_date(n.followup),
        "bleep": _bleep,
        "phone_l": _phone_any,
        "npi": lambda n: [(W.npi(n.rng), "ID")],
        "group": lambda n: [(n.fake.bothify(n.pick(["GRP-#####", "######", "G#######"])), "ID")],
        "claim": lambda n: [(n.fake.bothify(n.pick(["CLM########", "##-#######-##"])), "ID")],
        "rx": lambda n: [(n.fake.numerify(n.pick(["#######", "RX######", "##-#####"])), "ID")],
        "age_sex": _age_sex,
        "score": lambda n: n.pick(SCALES),
        "bed": lambda n: n.pick(BEDS),
        "duration": lambda n: n.pick(DURATIONS if n.p.region != "US" else US_DURATIONS),
        "icd": lambda n: n.pick(ICD_CODES),
        "role": lambda n: n.pick(GENERIC_ROLES),
        "when": lambda n: n.pick(RELATIVE_TIMES),
        "brand": lambda n: n.pick(BRANDS),
        "dressing": lambda n: n.pick(["Mepilex Border", "Tegaderm dressing", "Allevyn foam"]),
        "supplement": lambda n: n.pick(["Ensure Plus", "Fortisip", "Fortijuce", "Boost"]),
        "inr": lambda n: f"INR {n.rng.uniform(0.9, 4.5):.1f}",
        "bp": lambda n: f"BP {n.rng.randint(90, 185)}/{n.rng.randint(50, 105)}",
        "power": lambda n: f"{n.rng.randint(2, 5)}/5",
        "cm_country": lambda n: [(W.COUNTRY_NAMES[n.p.region], "COUNTRY")],
    }
)
