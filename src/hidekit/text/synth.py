"""Seeded synthetic clinical notes with annotated PHI: training and test text with no real patient.

Twenty-five kinds of note (admission, discharge, progress, ED, consult, radiology, pathology, lab,
nursing, ICU, operative, psychiatry, paediatric, palliative, physio/OT, social work, medication
reconciliation, sign-out lists, telephone and home-health visits, registration sheets, letters to
patients, insurers and employers, GP referral and discharge letters) are assembled from section
and sentence templates whose slots are filled by Faker and GeoNames surrogates. Each PHI value is
written into the text and recorded as a span in the same step, so offsets are exact by
construction. A patient lives in a region (US, UK, Ireland, Australia, New Zealand, Canada,
India: ``synth_world``) that sets the layouts of dates, phones, postcodes and national numbers,
and has a name of a separately drawn origin. Each note is written in a style (all capitals,
terse abbreviations, typos, run-on sentences) applied to the text between spans only.
Negative examples stay unlabelled: eponyms and scores (Parkinson disease, Glasgow Coma Scale,
Gleason 3+4), drug and device brands, lab values and ratios that look like dates (BP 132/84,
3/5 power, "for 3/7"), beds and rooms, ICD codes, generic roles ("the on-call registrar"),
relative dates ("yesterday") and years alone ("quit in 2010").

Label set (stable; a HIPAA Safe Harbor reading of the i2b2 2014 categories), see ``LABELS``.
Titles ("Dr.", "Mr.") and credentials ("MD", "RN") are outside name spans; any named clinician
(nurse, therapist, pharmacist, social worker, midwife, dietitian) is ``DOCTOR``; for ages only
the number is annotated ("77" in "77-year-old", "67" in "67M"; a decade as "60s").

``generate_notes(n, seed)`` invents patients; ``generate_patient_notes(rows, k, seed)`` writes
``k`` notes per given table row (name, age, zip, city, record number … kept; the row's exact age
only), so notes can be linked to a table such as ``hidekit.demo.survey.generate_survey``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from faker import Faker

from hidekit.errors import OptionError
from hidekit.text import synth_world as W
from hidekit.text.recognizers.patterns import COMMON_OCCUPATIONS, INFORMAL_OCCUPATIONS
from hidekit.text.spans import Document, Span
from hidekit.text.surrogates import DATE_FORMATS, HOSPITAL_FORMS, format_date, us_places

LABELS: dict[str, str] = {
    "NAME": "patient or relative name (HIPAA 1; i2b2 PATIENT)",
    "DOCTOR": "name of any clinician: physician, nurse, therapist, pharmacist … (i2b2 DOCTOR)",
    "DATE": "date or part of a date (day, month) except a year alone (HIPAA 3)",
    "AGE": "age in years, the number only (HIPAA 3 requires ages over 89)",
    "PHONE": "telephone or pager number (HIPAA 4)",
    "FAX": "fax number (HIPAA 5)",
    "EMAIL": "e-mail address (HIPAA 6)",
    "SSN": "social security number (HIPAA 7)",
    "MRN": "medical record number (HIPAA 8)",
    "ID": "health plan, licence, device, accession or other identifying number (HIPAA 9, 11-13, 18)",
    "ACCOUNT": "account or billing number (HIPAA 10)",
    "URL": "web address (HIPAA 14)",
    "IP": "IP address (HIPAA 15)",
    "STREET": "street address (HIPAA 2)",
    "CITY": "city or town (HIPAA 2)",
    "STATE": "state or province (HIPAA 2 allows it; annotated so a policy can choose)",
    "ZIP": "postal code (HIPAA 2)",
    "COUNTRY": "country (annotated so a policy can choose)",
    "HOSPITAL": "hospital, clinic or care facility name (i2b2 HOSPITAL)",
    "ORGANIZATION": "employer, school or other organization (i2b2 ORGANIZATION)",
    "PROFESSION": "the patient's or a relative's occupation (i2b2 PROFESSION)",
}

NOTE_TYPES = (
    "admission",
    "discharge",
    "progress",
    "referral",
    "radiology",
    "pathology",
    "ed",
    "phone",
    "consult",
    "nursing",
    "icu",
    "operative",
    "psychiatry",
    "paediatric",
    "palliative",
    "therapy",
    "social_work",
    "pharmacy",
    "letter",
    "gp_referral",
    "signout",
    "thread",
    "home_health",
    "registration",
    "lab",
    "discharge_letter",
)

DIAGNOSES = [
    "hypertension",
    "type 2 diabetes mellitus",
    "asthma",
    "major depressive disorder",
    "COPD",
    "coronary artery disease",
    "osteoarthritis",
    "chronic kidney disease stage 3",
    "migraine",
    "hypothyroidism",
    "atrial fibrillation",
    "congestive heart failure",
    "hyperlipidemia",
    "GERD",
    "obstructive sleep apnea",
    "anemia",
    "osteoporosis",
    "gout",
    "BPH",
    "cellulitis",
    "community-acquired pneumonia",
    "urinary tract infection",
    "DVT",
    "pulmonary embolism",
]
EPONYMS = [
    "Parkinson disease",
    "Parkinson's disease",
    "Alzheimer dementia",
    "Crohn's disease",
    "Hodgkin lymphoma",
    "Cushing syndrome",
    "Graves disease",
    "Hashimoto thyroiditis",
    "Bell's palsy",
    "Addison disease",
    "Guillain-Barre syndrome",
    "Wolff-Parkinson-White syndrome",
    "Barrett esophagus",
    "Sjogren syndrome",
    "Raynaud phenomenon",
    "Meniere disease",
    "Huntington disease",
    "Marfan syndrome",
    "Mallory-Weiss tear",
    "Wernicke encephalopathy",
    "Lyme disease",
    "West Nile virus infection",
    "Kaposi sarcoma",
    "Paget disease of bone",
    "Dupuytren contracture",
    "Tourette syndrome",
    "Down syndrome",
    "Horner syndrome",
]
SIGNS = [
    "Murphy's sign is negative",
    "Babinski sign is absent bilaterally",
    "Romberg is negative",
    "Tinel sign is positive at the wrist",
    "Homans sign is negative",
    "Kernig sign is negative",
    "McMurray test is negative",
    "Lachman test is negative",
    "Phalen test is positive",
    "Glasgow Coma Scale is 15",
    "Trendelenburg gait is not present",
    "Rovsing sign is negative",
]
DEVICES = [
    "Foley catheter",
    "Jackson-Pratt drain",
    "Swan-Ganz catheter",
    "Hickman line",
    "Holter monitor",
    "Doppler ultrasound",
    "PICC line",
    "Pleur-x catheter",
]
PROCEDURES = [
    "Whipple procedure",
    "Nissen fundoplication",
    "Roux-en-Y gastric bypass",
    "Hartmann procedure",
    "laparoscopic cholecystectomy",
    "CABG x3",
    "total knee arthroplasty",
    "TURP",
    "cardiac catheterization",
    "EGD",
    "colonoscopy",
]
DRUGS = [
    "Lasix",
    "Coumadin",
    "Tylenol",
    "Zofran",
    "Protonix",
    "Lipitor",
    "Plavix",
    "Eliquis",
    "Xarelto",
    "Keppra",
    "Norvasc",
    "Synthroid",
    "Zoloft",
    "Seroquel",
    "Ativan",
    "Dilaudid",
    "Percocet",
    "Flomax",
    "Toprol XL",
    "Lantus",
    "Januvia",
    "Augmentin",
    "Keflex",
    "Bactrim",
    "metoprolol",
    "lisinopril",
    "atorvastatin",
    "metformin",
    "furosemide",
    "amlodipine",
    "aspirin",
    "heparin",
    "pantoprazole",
    "levothyroxine",
    "gabapentin",
    "sertraline",
    "albuterol",
    "warfarin",
    "apixaban",
    "clopidogrel",
    "ondansetron",
    "acetaminophen",
    "oxycodone",
    "ceftriaxone",
    "azithromycin",
    "doxycycline",
    "hydrochlorothiazide",
    "spironolactone",
    "carvedilol",
    "losartan",
    "tamsulosin",
    "allopurinol",
    "prednisone",
    "montelukast",
]
DOSES = [
    "5 mg",
    "10 mg",
    "20 mg",
    "25 mg",
    "40 mg",
    "50 mg",
    "81 mg",
    "100 mg",
    "500 mg",
    "1000 mg",
    "0.5 mg",
    "2 mg",
    "12.5 mg",
    "10 units",
    "2 puffs",
    "1 g",
]
FREQS = ["daily", "BID", "TID", "q6h PRN", "at bedtime", "PO daily", "IV q8h", "q12h", "weekly"]
SYMPTOMS = [
    "chest pain",
    "shortness of breath",
    "abdominal pain",
    "fever and chills",
    "dizziness",
    "syncope",
    "productive cough",
    "nausea and vomiting",
    "headache",
    "lower extremity swelling",
    "fatigue",
    "palpitations",
    "back pain",
    "dysuria",
    "confusion",
    "weakness on the left side",
    "hematochezia",
    "weight loss",
]
# Clinics named by what they treat: not identifying, and they stay unlabelled
DEPARTMENT_CLINICS = [
    "Heart Failure Clinic",
    "Anticoagulation Clinic",
    "Wound Clinic",
    "Pain Clinic",
    "Diabetes Clinic",
    "Memory Clinic",
    "Fracture Clinic",
    "Rheumatology Clinic",
    "Sleep Clinic",
    "Lipid Clinic",
    "Transplant Clinic",
    "Infusion Center",
    "Coumadin Clinic",
    "Breast Clinic",
    "Cardiology Clinic",
]
SERVICES = [
    "Cardiology",
    "Internal Medicine",
    "General Surgery",
    "Neurology",
    "Oncology",
    "Orthopedics",
    "Pulmonology",
    "Gastroenterology",
    "Nephrology",
    "Physical Therapy",
    "Social Work",
    "the Emergency Department",
    "the Medical ICU",
    "Infectious Disease",
    "Endocrinology",
    "Palliative Care",
]
STUDIES = [
    ("CT of the chest with contrast", "chest"),
    ("MRI of the brain without contrast", "brain"),
    ("CT of the abdomen and pelvis", "abdomen"),
    ("chest radiograph, PA and lateral", "chest"),
    ("ultrasound of the right upper quadrant", "abdomen"),
    ("MRI of the lumbar spine", "spine"),
    ("CT angiogram of the chest", "chest"),
    ("bilateral lower extremity venous duplex", "legs"),
]
FINDINGS = {
    "chest": [
        "No focal consolidation, pleural effusion or pneumothorax.",
        "A 6 mm noncalcified nodule in the right upper lobe (series 3, image 45).",
        "Mild cardiomegaly. Small bilateral pleural effusions.",
        "Filling defects in the segmental arteries of the right lower lobe.",
    ],
    "brain": [
        "No acute intracranial hemorrhage or mass effect.",
        "Chronic small vessel ischemic changes. Ventricles are normal in size.",
        "A 1.2 x 0.9 cm enhancing lesion in the left frontal lobe.",
    ],
    "abdomen": [
        "Cholelithiasis without gallbladder wall thickening.",
        "Hepatic steatosis. The spleen measures 11 cm.",
        "No free air. Diverticulosis of the sigmoid colon without diverticulitis.",
    ],
    "spine": [
        "Disc bulge at L4-L5 with moderate foraminal narrowing.",
        "Mild degenerative changes at L5-S1 without canal stenosis.",
    ],
    "legs": [
        "No deep venous thrombosis in either lower extremity.",
        "Occlusive thrombus in the left popliteal vein.",
    ],
}
SPECIMENS = [
    ("skin, left forearm, shave biopsy", "Basal cell carcinoma, nodular type; margins free."),
    ("colon, sigmoid, polypectomy", "Tubular adenoma; negative for high-grade dysplasia."),
    ("breast, right, core needle biopsy", "Invasive ductal carcinoma, Nottingham grade 2."),
    (
        "prostate, needle biopsies (12 cores)",
        "Prostatic adenocarcinoma, Gleason 3+4=7 in 3/12 cores.",
    ),
    ("lymph node, left axillary, excision", "Reactive follicular hyperplasia; no malignancy."),
    ("thyroid, right lobe, lobectomy", "Papillary thyroid carcinoma, 1.4 cm; margins negative."),
]
TRAVEL = [
    "Mexico",
    "Guatemala",
    "India",
    "Brazil",
    "Kenya",
    "Vietnam",
    "Canada",
    "Ireland",
    "Italy",
    "the Philippines",
    "Haiti",
    "Nigeria",
    "Peru",
    "China",
    "Germany",
    "Ghana",
]
ORG_FORMS = [
    "{company}",
    "{company}",
    "{place_org}",
    "{place_org}",
    "{city} Public Schools",
    "the {city} Fire Department",
    "{last} Elementary School",
    "{company} Inc.",
    "the University of {state_name}",
]
RELATIONS_F = ["wife", "daughter", "sister", "mother", "niece", "granddaughter"]
RELATIONS_M = ["husband", "son", "brother", "father", "nephew", "grandson"]

Segment = tuple[str, str | None]


@dataclass
class Patient:
    """Everything a note may say about one person; fields left None are drawn from Faker."""

    id: str
    first: str
    last: str
    sex: str  # "F" or "M"
    age: int
    birth_date: date
    middle: str = ""
    mrn: str = ""
    ssn: str = ""
    phone: str = ""
    email: str = ""
    street: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    account: str = ""
    member_id: str = ""
    profession: str = ""
    employer: str = ""
    diagnosis: str | None = None
    visit_date: date | None = None
    relatives: list[tuple[str, str, str]] = field(default_factory=list)  # (relation, first, last)
    doctors: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (first, middle initial, last)
    hospital: str = ""
    hospital2: str = ""
    country: str = ""
    region: str = "US"  # where the notes are written: formats of dates, phones, IDs, addresses
    nick: str = ""
    national: list[tuple[str, str, str]] = field(default_factory=list)  # (name, value, label)
    practice: str = ""  # GP practice / family clinic
    org: str = ""  # school, church, club, insurer … the notes may name
    others: list[tuple[str, str, str]] = field(default_factory=list)  # (role, first, last)
    staff: list[tuple[str, str, str]] = field(default_factory=list)  # (role, first, last)
    exact_age: bool = False  # a table row: notes state the row's age, never "in his 70s"


_ABBREVIATIONS = [
    (r"\bshortness of breath\b", "SOB"),
    (r"\bnausea and vomiting\b", "N/V"),
    (r"\bhistory of\b", "h/o"),
    (r"\bcomplain(?:s|ing) of\b", "c/o"),
    (r"\bfollow[- ]up\b", "f/u"),
    (r"\bpatient\b", "pt"),
    (r"\bpatients\b", "pts"),
    (r"\bwithout\b", "w/o"),
    (r"\bwith\b", "w/"),
    (r"\bhistory\b", "hx"),
    (r"\bdiagnosis\b", "dx"),
    (r"\btreatment\b", "tx"),
    (r"\bmedications\b", "meds"),
    (r"\bdaughter\b", "dtr"),
    (r"\bbecause\b", "b/c"),
    (r"\bbilateral(?:ly)?\b", "b/l"),
    (r"\bdischarged?\b", "d/c"),
    (r"\band\b", "&"),
    (r"\byears\b", "yrs"),
    (r"\bplease\b", "pls"),
    (r"\bnormal\b", "nml"),
    (r"\bright\b", "R"),
    (r"\bleft\b", "L"),
    (r"\bappointment\b", "appt"),
    (r"\bregarding\b", "re"),
    (r"\btoday\b", "tdy"),
]
_ABBREV_RE = [(re.compile(a), b) for a, b in _ABBREVIATIONS]
_WORD = re.compile(r"\b[a-z]{5,}\b")
_SENTENCE_END = re.compile(r"(?<=[a-z]{3})\. (?=[A-Z])")


@dataclass
class _Style:
    """How carelessly a note is written; applied to the text between spans only."""

    caps: bool = False  # whole note in capitals (old systems, some sign-out lists)
    terse: bool = False  # abbreviations, lower-case names
    typo_rate: float = 0.0  # per long word
    runon: float = 0.0  # share of sentence ends joined with a comma or a dash


def _draw_style(rng: random.Random, kind: str) -> _Style:
    terse_kinds = ("signout", "nursing", "icu", "phone", "home_health", "progress", "ed")
    return _Style(
        caps=rng.random() < (0.25 if kind == "signout" else 0.05),
        terse=rng.random() < (0.6 if kind in terse_kinds else 0.15),
        typo_rate=rng.choice([0.0, 0.0, 0.01, 0.03]),
        runon=rng.choice([0.0, 0.0, 0.0, 0.3, 0.6]),
    )


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 2)
    r = rng.random()
    if r < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if r < 0.7:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


class _Writer:
    """Collects text segments (labelled or not); ``finish`` applies a style to the unlabelled
    text and records every span at the exact offsets of the final text."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []

    def add(self, text: str, label: str | None = None) -> None:
        if text:
            self.segments.append((text, label))

    def _gap(self, text: str, style: _Style, rng: random.Random) -> str:
        if style.terse:
            for rx, short in _ABBREV_RE:
                text = rx.sub(lambda m, s=short: s if rng.random() < 0.7 else m.group(), text)
        if style.typo_rate:
            text = _WORD.sub(
                lambda m: _typo(m.group(), rng) if rng.random() < style.typo_rate else m.group(),
                text,
            )
        if style.runon:
            text = _SENTENCE_END.sub(
                lambda m: (
                    rng.choice([", ", " - ", "; ", ",  "])
                    if rng.random() < style.runon
                    else m.group()
                ),
                text,
            )
        return text

    def finish(self, style: _Style, rng: random.Random) -> tuple[str, list[Span]]:
        merged: list[list] = []
        for text, label in self.segments:
            if label is None and merged and merged[-1][1] is None:
                merged[-1][0] += text
            else:
                merged.append([text, label])
        parts, spans, pos = [], [], 0
        for text, label in merged:
            if label is None:
                text = self._gap(text, style, rng)
            elif style.terse and label in ("NAME", "DOCTOR", "CITY") and rng.random() < 0.1:
                text = text.lower()
            if style.caps and len(text.upper()) == len(text):
                text = text.upper()
            if label is not None:
                spans.append(Span(pos, pos + len(text), label, text, "synth"))
            parts.append(text)
            pos += len(text)
        return "".join(parts), spans


_SLOT = re.compile(r"\{(\w+)\}")


def _profession(fake: Faker) -> str:
    """Faker's job titles read "Engineer, civil (contracting)"; notes say "civil engineer".
    Four times in ten an everyday occupation instead ("roofer", "bus driver"): Faker's titles are
    mostly white-collar, and notes written by people mention trades and services as often."""
    r = fake.random.random()
    if r < 0.15:
        return fake.random.choice(INFORMAL_OCCUPATIONS)
    if r < 0.45:
        return fake.random.choice(COMMON_OCCUPATIONS)
    job = re.sub(r"\s*\(.*?\)", "", fake.job()).strip()
    if ", " in job:
        head, tail = job.split(", ", 1)
        job = f"{tail} {head}"
    return job.lower() if not job.isupper() else job


def _city_state(fake: Faker, rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.7:
        return rng.choice(us_places()[0])
    return fake.city(), fake.state_abbr(include_territories=False)


def _country(rng: random.Random) -> str:
    return rng.choice(TRAVEL) if rng.random() < 0.6 else rng.choice(us_places()[1]).strip()


def _hospital(fake: Faker, rng: random.Random, city: str) -> str:
    r = rng.random()
    if r < 0.15:
        return rng.choice(W.PLACE_CARE_FORMS).format(place=W.place_name(rng))
    forms = W.BARE_CARE_FORMS if r < 0.4 else HOSPITAL_FORMS
    return rng.choice(forms).format(
        city=city or fake.city(),
        last=fake.last_name(),
        last2=fake.last_name(),
        first=fake.first_name(),
    )


def _mrn(fake: Faker, rng: random.Random) -> str:
    return fake.numerify(
        rng.choice(
            ["#######", "########", "##-##-###", "00######", "E#######", "###-###-###", "#########"]
        )
    )


def _zip_in(fake: Faker, state: str) -> str:
    try:
        return fake.zipcode_in_state(state)
    except Exception:  # a state Faker has no ZIP range for
        return fake.zipcode()


CLINICIAN_ROLES = [
    "RN",
    "RN",
    "RN",
    "LPN",
    "NP",
    "PA-C",
    "PT",
    "OT",
    "SLP",
    "RD",
    "PharmD",
    "LCSW",
    "MSW",
    "RM",
    "CNS",
    "RT",
]
# Roles as a note spells them in prose (key → words); the person's name is DOCTOR (any clinician).
ROLE_WORDS = {
    "RN": ["nurse", "RN", "staff nurse", "charge nurse", "the nurse,"],
    "LPN": ["LPN", "nurse"],
    "NP": ["nurse practitioner", "NP"],
    "PA-C": ["PA", "physician assistant"],
    "PT": ["physiotherapist", "physical therapist", "PT", "physio"],
    "OT": ["occupational therapist", "OT"],
    "SLP": ["speech therapist", "SLP", "SALT"],
    "RD": ["dietitian", "dietician", "RD"],
    "PharmD": ["pharmacist", "ward pharmacist", "clinical pharmacist"],
    "LCSW": ["social worker", "SW"],
    "MSW": ["social worker", "case manager"],
    "RM": ["midwife", "community midwife"],
    "CNS": ["clinical nurse specialist", "specialist nurse", "CNS"],
    "RT": ["respiratory therapist", "RT"],
}
OTHER_ROLES = [
    "friend",
    "neighbour",
    "neighbor",
    "teacher",
    "caseworker",
    "landlord",
    "partner",
    "fiancé",
    "carer",
    "guardian",
    "foster mother",
    "pastor",
    "boss",
    "roommate",
    "home help",
    "interpreter",
]


def new_patient(
    fake: Faker,
    rng: random.Random,
    pid: str,
    row: Mapping | None = None,
    world: Faker | None = None,
) -> Patient:
    """A patient from ``row`` (keys as in the demo survey) with the missing parts invented.

    A row is a US record; an invented patient lives in a region drawn from
    ``synth_world.REGIONS`` and has a name of a drawn origin."""
    row = dict(row or {})
    world = world or W.world_faker(rng.randrange(2**31))
    region = "US" if row else W.pick_region(rng)
    g = world[W.REGIONS[region][0]] if region != "US" else fake
    sex = str(row.get("sex") or rng.choice("FM"))[:1].upper()
    if row.get("name"):
        parts = str(row["name"]).split()
        first, last = parts[0], " ".join(parts[1:]) or fake.last_name()
    elif rng.random() < 0.35:
        first = g.first_name_female() if sex == "F" else g.first_name_male()
        last = g.last_name()
    else:
        first, last = W.origin_name(world, rng, sex)
    if row.get("age") is not None:
        age = int(row["age"])
    else:
        age = rng.choice(
            [rng.randint(18, 89)] * 10
            + [rng.randint(90, 104), rng.randint(0, 17), rng.randint(2, 17), rng.randint(0, 1)]
        )
    if row.get("birth_date"):
        birth = date.fromisoformat(str(row["birth_date"])[:10])
    else:
        birth = date(2024, 6, 30) - timedelta(days=int(age * 365.25) + rng.randint(0, 364))
    visit = date.fromisoformat(str(row["visit_date"])[:10]) if row.get("visit_date") else None
    if region == "US":
        city, state = _city_state(fake, rng)
    else:
        city, state = W.region_city(world, rng, region)
    if row.get("city"):
        city, state = str(row["city"]), str(row.get("state") or state)
    rel_pool = RELATIONS_F + RELATIONS_M
    relatives = []
    for _ in range(rng.randint(1, 3)):
        rel = rng.choice(rel_pool)
        rfirst = g.first_name_female() if rel in RELATIONS_F else g.first_name_male()
        rlast = last if rng.random() < 0.6 else g.last_name()
        relatives.append((rel, rfirst, rlast))
    others = []
    for _ in range(rng.randint(1, 3)):
        o_first, o_last = W.origin_name(world, rng, rng.choice("FM"))
        others.append((rng.choice(OTHER_ROLES), o_first, o_last))
    doctors = []
    for _ in range(rng.randint(2, 4)):
        d_first, d_last = W.origin_name(world, rng, rng.choice("FM"))
        doctors.append((d_first, rng.choice("ABCDEFGHJKLMNPRSTW"), d_last))
    staff = []
    for _ in range(rng.randint(2, 5)):
        s_first, s_last = W.origin_name(world, rng, rng.choice("FFFM"))
        staff.append((rng.choice(CLINICIAN_ROLES), s_first, s_last))
    record = row.get("record_id")
    if region == "US":
        street = str(row.get("street_address") or fake.street_address())
        if not row.get("street_address") and rng.random() < 0.3:
            street = W.street(world, rng, "US")
        phone = str(row.get("phone") or fake.numerify("(###) ###-####"))
        zip_code = str(row.get("zip") or _zip_in(fake, state))
        hospital = _hospital(fake, rng, city)
    else:
        street = W.street(world, rng, region)
        phone = W.phone(world, rng, region) or g.numerify("(###) ###-####")
        zip_code = W.postcode(world, region)
        hospital = W.care_place(world, rng, region, city, [])
    domain = rng.choice([fake.free_email_domain(), g.free_email_domain()])
    email_user = rng.choice(
        [
            f"{first}.{last}{rng.randint(1, 99)}",
            f"{first[0]}{last}",
            f"{first}{rng.randint(1, 9999)}",
        ]
    )
    return Patient(
        id=pid,
        first=first,
        last=last,
        sex=sex,
        age=age,
        birth_date=birth,
        middle=rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.5 else "",
        mrn=f"{int(record):07d}" if record is not None else _mrn(fake, rng),
        ssn=str(row.get("ssn") or fake.ssn()),
        phone=phone,
        email=str(
            row.get("email") or W.ascii_fold(f"{email_user}@{domain}").lower().replace(" ", "")
        ),
        street=street,
        city=city,
        state=state,
        zip=zip_code,
        account=fake.numerify(rng.choice(["#########", "##########", "A########", "####-####-##"])),
        member_id=fake.bothify(
            rng.choice(["???#########", "W########", "#########-01", "XJ#######"])
        ).upper(),
        profession=_profession(g),
        employer=g.company(),
        diagnosis=str(row["diagnosis"]).lower() if row.get("diagnosis") else None,
        visit_date=visit,
        relatives=relatives,
        doctors=doctors,
        hospital=hospital,
        hospital2=_hospital(fake, rng, _city_state(fake, rng)[0])
        if region == "US"
        else W.care_place(world, rng, region, W.region_city(world, rng, region)[0], HOSPITAL_FORMS),
        country=_country(rng),
        region=region,
        nick=W.nickname(first, rng),
        national=W.national_ids(world, rng, region),
        practice=W.care_place(world, rng, region, city, []),
        org=W.organization(world, rng, region, city),
        others=others,
        staff=staff,
        exact_age=row.get("age") is not None,
    )


# ---------------------------------------------------------------------------------------------
# One note


# Day-first layouts of the UK, Ireland, Australia, New Zealand, Canada and India (weights).
DAY_FIRST_FORMATS: list[tuple[str, float]] = [
    ("DD/MM/YYYY", 14),
    ("D/M/YYYY", 6),
    ("DD/MM/YY", 6),
    ("D MMM YYYY", 10),
    ("D MMMM YYYY", 8),
    ("Do MMMM YYYY", 3),
    ("DD-MMM-YYYY", 3),
    ("DD.MM.YY", 2),
    ("DD.MM.YYYY", 3),
    ("YYYY-MM-DD", 5),
    ("D MMM", 3),
    ("D/M", 3),
    ("MMMM YYYY", 2),
    ("Do MMMM", 2),
    ("D MMMM", 2),
    ("DD-MM-YYYY", 2),
    ("D-MMM-YY", 1),
]
# Informal forms written in running text only: "the 4th", "Mar-04", "in March", "March 4th".
INFORMAL_FORMATS = ["Do", "MMM-DD", "MMMM", "MMMM Do", "MMM D", "M/D"]
US_FORMATS: list[tuple[str, float]] = [(f, w) for f, w in DATE_FORMATS if f != "YYYY"]
WRITTEN_DATE_FORMATS = tuple(
    dict.fromkeys([f for f, _ in US_FORMATS + DAY_FIRST_FORMATS] + INFORMAL_FORMATS)
)
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTH_ABBR = [
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"],
    ["Jan", "Feb", "Mar", "Apr", "May", "June", "July", "Aug", "Sep", "Oct", "Nov", "Dec"],
]
# holidays name a day: DATE under the annotation conventions
HOLIDAYS = [
    "Christmas",
    "Christmas Day",
    "Christmas Eve",
    "Xmas",
    "Xmas day",
    "Boxing Day",
    "Easter",
    "Easter Sunday",
    "Good Friday",
    "Thanksgiving",
    "New Year's Day",
    "New Year's Eve",
    "Hogmanay",
    "Labor Day",
    "Memorial Day",
    "4th of July",
    "Halloween",
    "St Patrick's Day",
    "Anzac Day",
    "Canada Day",
    "Waitangi Day",
    "Diwali",
    "Eid",
]
DECADE_WORDS = [
    "",
    "",
    "twenties",
    "thirties",
    "forties",
    "fifties",
    "sixties",
    "seventies",
    "eighties",
    "nineties",
]
WEEKDAY_SHORT = ["Mon", "Tues", "Wed", "Thurs", "Fri", "Sat", "Sun"]
# languages and nationalities: capitalized, never PHI under the annotation conventions
LANGUAGES = [
    "Spanish",
    "Mandarin",
    "Cantonese",
    "Vietnamese",
    "Arabic",
    "Portuguese",
    "Haitian Creole",
    "Russian",
    "Polish",
    "Somali",
    "Tagalog",
    "Punjabi",
    "French",
    "Korean",
    "Farsi",
    "Urdu",
    "Amharic",
    "Nepali",
    "Swahili",
    "Hindi",
    "Italian",
    "Greek",
    "Turkish",
    "Te Reo Maori",
]


class _Note:
    """Fills template slots for one note of one patient; dates and formats stay coherent."""

    def __init__(self, p: Patient, kind: str, fake: Faker, rng: random.Random, world=None) -> None:
        self.p, self.kind, self.fake, self.rng = p, kind, fake, rng
        self.world = world or W.world_faker(0)
        base = p.visit_date or date(2023, 1, 1) + timedelta(days=rng.randint(0, 730))
        self.admit = base
        self.discharge = base + timedelta(days=rng.randint(1, 12))
        self.followup = self.discharge + timedelta(days=rng.choice([7, 10, 14, 21, 30, 42, 90]))
        us = p.region == "US" or (p.region == "CA" and rng.random() < 0.5) or rng.random() < 0.05
        self.formats = US_FORMATS if us else DAY_FIRST_FORMATS
        fmts, weights = zip(*[(f, w) for f, w in self.formats if "YY" in f], strict=True)
        self.date_fmt = rng.choices(fmts, weights)[0]
        self.header_fmt = rng.choices(fmts, weights)[0]
        self.doctor_style = rng.randrange(4)
        self.attending, self.pcp = p.doctors[0], p.doctors[-1]
        self.w = _Writer()

    # -- helpers -------------------------------------------------------------------------
    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def date(self, d: date, header: bool = False) -> list[Segment]:
        if self.chance(0.2):
            fmt = self.rng.choices(*zip(*self.formats, strict=True))[0]
        else:
            fmt = self.header_fmt if header else self.date_fmt
        text = format_date(d, fmt)
        if "MMM" in fmt and self.chance(0.1):
            text = text.upper()
        if not header and self.chance(0.1):
            # a weekday written with its date is one DATE span: "Mon 18 March 2024"
            text = self.weekday(d) + self.pick([" ", ", "]) + text
        return [(text, "DATE")]

    def weekday(self, d: date) -> str:
        day = WEEKDAYS[d.weekday()]
        form = self.pick([day, day, day[:3], WEEKDAY_SHORT[d.weekday()], day.upper(), day.lower()])
        return form

    def weekday_mention(self, d: date) -> list[Segment]:
        """A weekday that points to one day ("on Tuesday", "since Fri", "Sun 17/11")."""
        day = self.weekday(d)
        if self.chance(0.3):
            fmt = "M/D" if self.p.region == "US" else "D/M"
            return [(f"{day} {format_date(d, fmt)}", "DATE")]
        lead = self.pick(["on ", "since ", "last ", "by ", "until ", "", "this past ", "from "])
        return [(lead, None), (day, "DATE")]

    def month_day(self, d: date) -> list[Segment]:
        """A numeric day and month without a year, in the note's order ("3/6" or "6/3")."""
        us = self.formats is US_FORMATS
        fmt = ("M/D" if us else "D/M") if self.chance(0.7) else ("MM/DD" if us else "DD/MM")
        return [(format_date(d, fmt), "DATE")]

    def informal_date(self, d: date) -> list[Segment]:
        """Running-text forms: "the 4th", "Mar-04", "in March", "mid-May", "March 4th"."""
        fmt = self.pick(INFORMAL_FORMATS)
        if fmt == "M/D" and self.p.region != "US":
            fmt = "MMM-DD"
        text = format_date(d, fmt)
        if fmt == "Do":
            return [("the ", None), (text, "DATE")]
        if fmt == "MMMM":
            if self.chance(0.3):  # "in Sept", "since jan"
                text = self.pick(MONTH_ABBR)[d.month - 1]
                text = text.lower() if self.chance(0.2) else text
            if self.chance(0.2):  # "mid-May" is one DATE span
                return [(self.pick(["in ", "since ", "by ", ""]), None), ("mid-" + text, "DATE")]
            return [(self.pick(["in ", "early ", "late ", "since "]), None), (text, "DATE")]
        if self.chance(0.08):
            day = self.pick(HOLIDAYS)
            return [
                (self.pick(["over ", "at ", "since ", "on ", "before "]), None),
                (day.lower() if self.chance(0.15) else day, "DATE"),
            ]
        return [(text, "DATE")]

    def past(self) -> date:
        return self.admit - timedelta(days=self.rng.randint(30, 3650))

    # -- names ---------------------------------------------------------------------------
    def patient_name(self, style: str | None = None) -> list[Segment]:
        p = self.p
        style = style or self.pick(
            ["full", "full", "middle", "formal", "formal", "first", "initial"]
        )
        mid = f" {p.middle}." if p.middle else ""
        if style == "full":
            return [(f"{p.first} {p.last}", "NAME")]
        if style == "middle":
            return [(f"{p.first}{mid} {p.last}", "NAME")]
        if style == "formal":
            title = "Ms." if p.sex == "F" else "Mr."
            title = self.pick([title, title, "Mrs."]) if p.sex == "F" else title
            return [(f"{title} ", None), (p.last, "NAME")]
        if style == "first":
            return [(p.first, "NAME")]
        if style == "initial":
            return [(f"{p.first[0]}. {p.last}", "NAME")]
        if style == "initials":
            return [(self.pick([f"{p.first[0]}{p.last[0]}", f"{p.first[0]}.{p.last[0]}."]), "NAME")]
        if style == "nick":
            return [(p.nick, "NAME")]
        if style == "caps_last":
            return [(f"{p.first} {p.last.upper()}", "NAME")]
        if style == "lastfirst":
            form = self.pick(
                [
                    f"{p.last.upper()}, {p.first.upper()}",
                    f"{p.last}, {p.first}{mid}",
                    f"{p.last.upper()}, {p.first}",
                    f"{p.last}, {p.first}",
                    f"{p.last.upper()}, {p.first.upper()} {(p.middle or 'J')[0]}",
                ]
            )
            return [(form, "NAME")]
        raise ValueError(style)

    def doctor(self, who=None, sig: bool = False) -> list[Segment]:
        first, mid, last = who or self.pick(self.p.doctors)
        if sig:
            form = self.pick(
                [
                    [(f"{first} {last}", "DOCTOR"), (", MD", None)],
                    [(f"{first} {mid}. {last}", "DOCTOR"), (", M.D.", None)],
                    [(f"{last}, {first}", "DOCTOR"), (" MD", None)],
                    [(f"{first[0]}. {last}", "DOCTOR"), (" MD", None)],
                    [(f"{first.upper()} {last.upper()}", "DOCTOR"), (", MD", None)],
                ]
            )
            return form
        style = self.pick([0, 0, 1, 2, self.doctor_style])
        if style == 0:
            return [("Dr. ", None), (last, "DOCTOR")]
        if style == 1:
            return [("Dr. ", None), (f"{first} {last}", "DOCTOR")]
        if style == 2:
            return [("Dr ", None), (last, "DOCTOR")]
        return [(f"{first} {last}", "DOCTOR"), (self.pick([", MD", " MD", ""]), None)]

    def relative(self) -> list[Segment]:
        rel, first, last = self.pick(self.p.relatives)
        his = "her" if self.p.sex == "F" else "his"
        if self.chance(0.5):
            return [
                (f"{his} {rel}, ", None),
                (f"{first} {last}" if self.chance(0.5) else first, "NAME"),
            ]
        return [(f"{his} {rel} ", None), (first if self.chance(0.6) else f"{first} {last}", "NAME")]

    # -- slots -------------------------------------------------------------------------------
    def slot(self, name: str) -> list[Segment]:
        fn = _SLOTS.get(name)
        if fn is None:
            raise KeyError(f"unknown template slot {name!r}")
        out = fn(self)
        return [(out, None)] if isinstance(out, str) else out

    def render(self, template: str) -> None:
        pos = 0
        for m in _SLOT.finditer(template):
            self.w.add(template[pos : m.start()])
            for text, label in self.slot(m.group(1)):
                self.w.add(text, label)
            pos = m.end()
        self.w.add(template[pos:])

    def lines(self, templates: Iterable[str]) -> None:
        for t in templates:
            self.render(t)


def _phone_format(n: _Note, digits: str) -> str:
    d = re.sub(r"\D", "", digits)[-10:].rjust(10, "5")
    form = n.pick(
        [
            "({a}) {b}-{c}",
            "{a}-{b}-{c}",
            "{a}.{b}.{c}",
            "{a} {b} {c}",
            "+1 {a} {b} {c}",
            "{a}{b}{c}",
            "1-{a}-{b}-{c}",
            "({a}){b}-{c}",
        ]
    )
    out = form.format(a=d[:3], b=d[3:6], c=d[6:])
    if n.chance(0.08):
        out += n.pick([" x", " ext. ", " ext "]) + n.fake.numerify("###")
    return out


def _months(n: _Note) -> int:
    return n.p.age * 12 + n.rng.randint(1, 11) if n.p.age < 2 else 0


def _age_adj(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["{}-month-old", "{} month old", "{} mo old", "{}-mo", "{} m/o"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(
        [
            "{}-year-old",
            "{} year old",
            "{} y/o",
            "{}yo",
            "{} yo",
            "{}-yr-old",
            "{} yr old",
            "{}-year-old",
            "{}-year-old",
            "{} year-old",
            "{}YO",
            "{}-yo",
            "{} y.o.",
            "{} yr",
        ]
    )
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_pred(n: _Note) -> list[Segment]:
    if n.p.age < 2:
        form = n.pick(["aged {} months", "{} mo", "{} months old", "age {}/12"])
        head, tail = form.split("{}")
        return [(head, None), (str(_months(n)), "AGE"), (tail, None)]
    a = str(n.p.age)
    form = n.pick(
        ["aged {}", "age {}", "{} years old", "{} years of age", "{} y.o.", "{} yrs", "{} y/o"]
    )
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
    form = n.pick(["{}" + sx, "{} " + sx, "{}yo " + sx, "{}/" + sx, "{}" + sx.lower(), "{}y " + sx])
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _md_table(n: _Note) -> list[Segment]:
    """A small lab table whose columns are days written without a year ("3/6  3/7  3/8")."""
    days = sorted({n.admit + timedelta(days=k) for k in n.rng.sample(range(-3, 6), 3)})
    out: list[Segment] = [(n.pick(["", "Labs", "Trend", "Date"]).ljust(10), None)]
    for d in days:
        out += n.month_day(d) + [("   ", None)]
    out.append(("\n", None))
    for test in n.rng.sample(["Na", "K", "Cr", "Hb", "WBC", "Plt", "Glucose", "INR", "Lactate"], 3):
        vals = "   ".join(f"{n.rng.uniform(0.5, 150):.1f}" for _ in days)
        out.append((f"{test.ljust(10)}{vals}\n", None))
    return out


def _sex_word(n: _Note) -> str:
    if n.p.age < 18:
        return n.pick(["girl", "female"]) if n.p.sex == "F" else n.pick(["boy", "male"])
    return n.pick(
        ["woman", "female", "lady", "F"] if n.p.sex == "F" else ["man", "male", "gentleman", "M"]
    )


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


def _labs(n: _Note) -> str:
    r = n.rng
    return (
        f"Na {r.randint(128, 146)}, K {r.uniform(3.1, 5.6):.1f}, Cl {r.randint(95, 110)}, "
        f"HCO3 {r.randint(18, 30)}, BUN {r.randint(8, 60)}, Cr {r.uniform(0.6, 3.2):.1f}, "
        f"glucose {r.randint(70, 320)}. WBC {r.uniform(3.5, 18):.1f}, Hgb {r.uniform(7, 16):.1f}, "
        f"Plt {r.randint(90, 450)}."
    )


def _vitals(n: _Note) -> str:
    r = n.rng
    return (
        f"T {r.uniform(97, 102.5):.1f} F, BP {r.randint(90, 185)}/{r.randint(50, 105)}, "
        f"HR {r.randint(52, 128)}, RR {r.randint(12, 28)}, SpO2 {r.randint(86, 100)}% on "
        f"{n.pick(['RA', 'room air', '2L NC', '4 L nasal cannula'])}."
    )


def _med(n: _Note) -> str:
    return f"{n.pick(DRUGS)} {n.pick(DOSES)} {n.pick(FREQS)}"


def _dx(n: _Note) -> str:
    if n.p.diagnosis and n.chance(0.5):
        return n.p.diagnosis
    return n.pick(DIAGNOSES + EPONYMS[:8])


_SLOTS: dict[str, Callable[[_Note], str | list[Segment]]] = {
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
        (n.fake.bothify(n.pick(["SN ??#####-##", "#########", "PJN######?"])).upper(), "ID")
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


# ---------------------------------------------------------------------------------------------
# Templates. Sections are lists of alternatives; each note picks a few of each.

_HEADER_FIELDS = [
    [
        "Patient: {pt_header}\n",
        "PATIENT NAME: {pt_header}\n",
        "Name: {pt_header}\n",
        "Pt: {pt_header}\n",
    ],
    [
        "MRN: {mrn}\n",
        "MR#: {mrn}\n",
        "Medical Record Number: {mrn}\n",
        "Med Rec #: {mrn}\n",
        "Unit No: {mrn}\n",
    ],
    ["DOB: {dob}\n", "Date of Birth: {dob}\n", "D.O.B.: {dob}\n", "DOB: {dob} (Age: {age_num})\n"],
    [
        "Age: {age_num}   Sex: {sex}\n",
        "Age/Sex: {age_num}/{sex}\n",
        "Age: {age_num} y\n",
        "{age_num} y.o. {sex}\n",
    ],
    ["Acct #: {acct}\n", "Account No.: {acct}\n", "Billing Account: {acct}\n", "FIN: {acct}\n"],
    ["{gov_id}\n"],
    ["Insurance ID: {member}\n", "Member ID: {member}\n", "Policy #: {member}\n"],
    ["Address: {address}\n", "Home address: {address}\n"],
    ["Phone: {pt_phone}\n", "Home phone: {pt_phone}\n", "Tel: {pt_phone}\n", "Cell: {pt_phone}\n"],
    ["Email: {email}\n", "E-mail: {email}\n"],
    ["Attending: {dr_sig}\n", "Attending Physician: {dr_sig}\n", "Provider: {dr_sig}\n"],
    ["PCP: {pcp}\n", "Primary Care Physician: {pcp}\n", "Referring: {pcp}\n"],
    ["Facility: {hosp}\n", "Location: {hosp}\n", "{hosp}\n"],
]
_OPTIONAL_HEADER = {4: 0.5, 5: 0.2, 6: 0.3, 7: 0.3, 8: 0.35, 9: 0.15, 11: 0.5, 12: 0.5}

_HPI = [
    "{pt_full} is a {age_adj} {sexw} with a history of {dx} and {dx2} who presents with {symptom} for {days} days. ",
    "{pt_formal} is a {age_adj} {sexw} with {dx} who was in {his} usual state of health until {past}, when {he} developed {symptom}. ",
    "This is a {age_adj} {sexw} with {dx} and {eponym}, admitted on {admit} with {symptom}. ",
    "{pt_formal}, {age_pred}, was referred by {pcp} for evaluation of {symptom}. ",
    "The patient is a {age_adj} {prof} with {dx} presenting with {symptom} since {past}. ",
    "Patient is {age_pred} and reports {symptom} that started {n} days prior to admission. ",
    "{pt} presented to the {hosp} emergency department on {admit} complaining of {symptom}. ",
    "{He} was seen at {hosp2} on {past} for similar symptoms and was discharged on {drug}. ",
    "{He} denies {symptom}. Of note, {he} was recently diagnosed with {eponym} by {dr}. ",
    "Symptoms began {wkday} and worsened over the weekend. ",
    "{He} speaks {lang}; a {lang} interpreter was used for the history. ",
    "{rel_first} reports that {he} has not been eating well since {wkday}. ",
    "Seen in clinic on {md}; labs on {md} showed {symptom}. ",
    "{He} returned from {country} {n} weeks ago. ",
    "Per {rel}, {he} has been more confused over the last {n} days. ",
    "{He} was started on {med} by {his} cardiologist, {dr}, on {past}. ",
    "History was obtained from the patient and {rel}, who accompanies {him} today. ",
    "{He} was last seen in clinic by {pcp} on {past}. ",
    "In the ED, vitals were {vitals} ",
    "{He} was given {drug} and {drug} with some relief. ",
    "No sick contacts. No recent travel outside {state}. ",
    "The on-call Dr. was paged at {time} and agreed with the plan. ",
]
_PMH = [
    "{dx2}",
    "{dx2}",
    "{eponym}",
    "{proc} ({year})",
    "{proc} on {past} at {hosp2}",
    "{dx2}, diagnosed {year}",
    "{dx2}, followed by {dr}",
    "history of {eponym}",
]
_MEDS = ["{med}", "{med}", "{med}", "{drug} {n} mg"]
_SOCIAL = [
    "Lives with {rel} in {city}. ",
    "Works as a {prof} at {employer}. ",
    "Retired {prof}. ",
    "{He} is a {prof}. ",
    "Former smoker, quit in {year}. ",
    "Drinks {n} beers per week. ",
    "Originally from {country}; moved to {city} in {year}. ",
    "Emergency contact: {rel}, {phone}. ",
    "Employed by {employer} as a {prof}. ",
    "Works as a {prof} for {employer}. ",
    "Working part time from home for {employer}. ",
    "Im a {prof} at {employer} so I missed a few doses. ",
    "{rel_first} is a {prof} and away most weeks. ",
    "Denies tobacco, alcohol or drug use. ",
    "Primary language {lang}, also speaks English. ",
    "{rel_first} visits most days and helps with meals. ",
    "Spoke with {rel_first} by phone; {he} is aware of the plan. ",
    "Lives alone in an apartment in {city2}, {state}. ",
]
_FAMILY = [
    "Mother with {dx2}, died at age {rel_age}. ",
    "Father had {eponym}. ",
    "Brother with {dx2} diagnosed at {rel_age}. ",
    "No family history of {eponym}. ",
    "Sister, {rel_age}, with {dx2}. ",
    "{His} children ({kid_age} and {kid_age}) are well. ",
    "Lives with {his} partner and two sons, {kid_age} and {kid_age}. ",
    "Daughter {rel_first} ({kid_age}) has asthma. ",
    "Family history of {dx2} in {his} father. ",
]
_EXAM = [
    "Vitals: {vitals}\n",
    "General: alert, oriented x3, in no acute distress.\n",
    "HEENT: PERRL, EOMI, oropharynx clear.\n",
    "Neck: supple, no JVD.\n",
    "CV: regular rate and rhythm, 2/6 systolic murmur at the left sternal border.\n",
    "Lungs: crackles at the bases bilaterally.\n",
    "Abdomen: soft, nontender. {sign}.\n",
    "Extremities: 1+ pitting edema to the mid shin. {device_name} in place.\n",
    "Neuro: strength 5/5 throughout, sensation intact. {sign}.\n",
]
_PLAN = [
    "Continue {med}. ",
    "Start {med}. ",
    "Hold {drug} for now. ",
    "Consult {service}. ",
    "Discussed with {att}, who agrees with the plan. ",
    "Will obtain {study} in the morning. ",
    "Follow up with {pcp} on {followup}. ",
    "{service} following; appreciate recommendations. ",
    "Code status: full code, confirmed with {rel}. ",
    "Monitor on telemetry. Repeat labs in AM. ",
    "Case discussed with {dr}, {service}, pager {pager}. ",
    "Return precautions reviewed. ",
    "Repeat BMP on {md}. Discussed with {rel_first} at the bedside. ",
    "Will review {wkday} with the results. ",
    "Handed over to {staff_bare} at {time}. ",
    "{staff_bare} to recheck glucose at {time}. ",
    "{md}: {study} done, no change. ",
    "Call {hosp} at {phone} with any questions. ",
    "Records faxed to {dr} at {fax}. ",
    "Follow up in the {dept_clinic} in {n} weeks. ",
    "Referred to the {dept_clinic}; home with {visiting}. ",
]
_SIGN = [
    "\n\n{dr_sig}\n",
    "\n\nElectronically signed by {dr_sig} on {h_discharge} {time}\n",
    "\n\nDictated by: {dr_sig}\nD: {h_admit}  T: {h_discharge}\n",
    "\n\n-- {dr_sig}, pager {pager}\n",
    "\n\nAttending: {dr_sig}\ncc: {dr2_sig}\n",
    "\n\nSigned: {dr_sig}\nLicense #: {license}\n",
]


def _section(n: _Note, title: str, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    n.w.add(
        n.pick([f"\n{title}:\n", f"\n{title.upper()}:\n", f"\n{title}: ", f"\n\n{title.upper()}\n"])
    )
    chosen = n.rng.sample(items, min(len(items), n.rng.randint(*k)))
    for i, t in enumerate(chosen):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _list_section(n: _Note, title: str, items: list[str], k: tuple[int, int]) -> None:
    n.w.add(n.pick([f"\n{title}:\n", f"\n{title.upper()}:\n"]))
    bullet = n.pick(["- ", "1. ", "* ", ""])
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
        n.render(
            n.pick(
                [
                    "Admission Date: {h_admit}\n",
                    "Date of Admission: {h_admit}\n",
                    "Admitted: {h_admit}\n",
                ]
            )
        )
    if title == "Discharge Summary":
        n.render(n.pick(["Discharge Date: {h_discharge}\n", "Date of Discharge: {h_discharge}\n"]))
    elif n.chance(0.7):
        n.render(
            n.pick(
                [
                    "Date of Service: {h_admit}\n",
                    "Visit date: {h_admit}\n",
                    "Date: {h_admit}\n",
                    "Encounter: {h_admit} {time}\n",
                ]
            )
        )


def _clinical_body(n: _Note, hpi: tuple[int, int]) -> None:
    _section(n, n.pick(["History of Present Illness", "HPI", "Chief Complaint / HPI"]), _HPI, hpi)
    if n.chance(0.8):
        _list_section(n, n.pick(["Past Medical History", "PMH"]), _PMH, (2, 5))
    if n.chance(0.7):
        _list_section(n, n.pick(["Medications", "Home Medications", "Meds"]), _MEDS, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Allergies",
            ["NKDA.", "Penicillin (rash).", "Sulfa drugs, {drug}.", "No known drug allergies."],
            (1, 1),
        )
    if n.chance(0.7):
        _section(n, n.pick(["Social History", "SH"]), _SOCIAL, (1, 4))
    if n.chance(0.5):
        _section(n, n.pick(["Family History", "FH"]), _FAMILY, (1, 3))
    if n.chance(0.7):
        _section(n, n.pick(["Physical Exam", "Exam", "PE"]), _EXAM, (2, 6))
    if n.chance(0.6):
        _section(
            n,
            "Labs",
            [
                "{labs} ",
                "Labs from {past}: {labs} ",
                "Troponin negative x2. {labs} ",
                "\n{md_table}",
            ],
            (1, 2),
        )


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
    _section(
        n, "Admission Diagnosis", ["{dx}", "{dx2}; {eponym}", "{symptom}, likely {dx2}"], (1, 1)
    )
    _section(n, "Discharge Diagnosis", ["{dx}", "{dx2}, resolved", "{eponym}"], (1, 1))
    _section(
        n,
        "Hospital Course",
        [
            "{pt_formal} was admitted on {admit} with {symptom}. ",
            "{He} was treated with {drug} and improved. ",
            "On hospital day {n}, {he} developed {symptom}; {service} was consulted. ",
            "A {proc} was performed on {past} by {dr} without complication. ",
            "{He} was seen by {dr} of {service}, who recommended {med}. ",
            "Imaging on {admit} showed no acute process. ",
            "By {discharge} {he} was tolerating a regular diet and ambulating independently. ",
            "{His} {rel_bare} was updated by phone at {pt_phone}. ",
            "{He} is discharged home with {his} {rel_bare} on {discharge}. ",
            "The {device_name} was removed on {discharge}. ",
        ],
        (3, 7),
    )
    _list_section(n, n.pick(["Discharge Medications", "Medications on Discharge"]), _MEDS, (2, 6))
    _section(
        n,
        n.pick(["Follow-up", "Disposition", "Follow Up Appointments"]),
        [
            "Follow up with {pcp} on {followup}. ",
            "Appointment with {dr} in {service} on {followup} at {time}. ",
            "Clinic phone {phone}, fax {fax}. ",
            "Discharged to {hosp2} for rehabilitation. ",
            "Home with services. ",
            "Results will be posted to the patient portal at {url}. ",
        ],
        (1, 3),
    )
    n.render(n.pick(_SIGN))


def _progress(n: _Note) -> None:
    n.w.add(n.pick(["PROGRESS NOTE\n", "Progress Note - ", "Daily Progress Note\n", "SOAP NOTE\n"]))
    n.render(  # the chart header names the patient even when the text does not
        n.pick(["{pt_header}  MRN {mrn}\n", "Patient: {pt_header}\n", "{pt_header} ({mrn})\n"])
    )
    n.render(n.pick(["Date: {admit}\n", "{h_admit} {time}\n", "Hospital day {n}, {admit}\n"]))
    _section(
        n,
        n.pick(["Subjective", "S"]),
        [
            "{pt_first} reports feeling better today. ",
            "Overnight, {he} had {symptom}. ",
            "{He} slept well. Pain controlled with {drug}. ",
            "No new complaints. ",
            "Per nursing, {he} was agitated at {time}; given {drug}. ",
            "{His} {rel_bare} visited and has questions about discharge. ",
        ],
        (1, 3),
    )
    _section(
        n,
        n.pick(["Objective", "O"]),
        ["{vitals} ", "{labs} ", "Exam unchanged. {sign}. ", "\n{md_table}"],
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
    n.render(n.pick(["Tel {phone}  Fax {fax}\n", "Phone: {phone} | Fax: {fax}\n", "T: {phone}\n"]))
    n.render(n.pick(["\n{admit}\n\n", "\nDate: {admit}\n\n"]))
    n.render(n.pick(["{dr2_sig}\n{hosp2}\n\n", ""]))
    n.render(
        n.pick(
            [
                "RE: {pt_header}, DOB {dob}, MRN {mrn}\n\n",
                "Re: {pt_full} (DOB: {dob})\n\n",
                "Patient: {pt_header}\nDate of birth: {dob}\n\n",
            ]
        )
    )
    n.render(n.pick(["Dear {dr},\n\n", "Dear Colleague,\n\n", "Dear Dr. {dr_last},\n\n"]))
    for t in n.rng.sample(
        [
            "Thank you for referring {pt_formal}, a {age_adj} {prof} with {dx}, whom I saw in {service} clinic on {admit}. ",
            "I had the pleasure of seeing {pt_full} today for {symptom}. ",
            "As you know, {he} has a long history of {dx2} and {eponym}. ",
            "{He} was admitted to {hosp2} in {year} with {dx2}. ",
            "{His} current medications include {med} and {med}. ",
            "On examination, {vitals} {sign}. ",
            "I have recommended {med} and a {proc}. ",
            "I would be grateful if you could see {him} at your earliest convenience. ",
            "{He} can be reached at {pt_phone} or by e-mail at {email}. ",
            "{He} lives with {rel} at {address}. ",
            "I will see {him} again on {followup}. ",
            "{He} works for {employer} and is worried about missing work. ",
        ],
        n.rng.randint(4, 8),
    ):
        n.render(t)
    n.render(
        n.pick(
            [
                "\n\nYours sincerely,\n\n{dr_sig}\n",
                "\n\nSincerely,\n{dr_sig}\n{service}\n",
                "\n\nKind regards,\n{dr_sig}\nEmail: {dr_email}\n",
            ]
        )
    )
    if n.chance(0.4):
        n.render("cc: {pcp}; {pt_full}\n")


def _radiology(n: _Note) -> None:
    study, region = n.pick(STUDIES)
    n.w.add(n.pick(["RADIOLOGY REPORT\n", "Imaging Report\n", "DIAGNOSTIC IMAGING\n"]))
    n.render(
        n.pick(
            [
                "Patient: {pt_header}   MRN: {mrn}   DOB: {dob}\n",
                "Name: {pt_header}\nMR#: {mrn}\n",
                "{pt_header} | {mrn} | {age_num}{sex}\n",
            ]
        )
    )
    n.render(n.pick(["Accession #: {accession}\n", "Acc: {accession}\n", ""]))
    n.render(
        n.pick(
            ["Exam date: {h_admit} {time}\n", "Date of exam: {admit}\n", "Performed: {h_admit}\n"]
        )
    )
    n.render(n.pick(["Ordering physician: {pcp}\n", "Referring: {dr}\n", ""]))
    n.w.add(f"\nEXAM: {study}\n")
    n.render(
        n.pick(
            [
                "\nINDICATION: {age_adj} {sexw} with {symptom}.\n",
                "\nCLINICAL HISTORY: {dx}; {symptom}.\n",
                "\nHISTORY: {symptom}. {eponym}.\n",
            ]
        )
    )
    n.render(
        n.pick(
            [
                "\nCOMPARISON: {past}.\n",
                "\nCOMPARISON: None.\n",
                "\nCOMPARISON: Outside study from {hosp2} dated {past}.\n",
            ]
        )
    )
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
    n.render(
        n.pick(
            [
                "\nRead by: {dr_sig}\n",
                "\nRadiologist: {dr2_sig}\nSigned {h_admit} {time}\n",
                "\n{dr2_sig}\n{hosp}\n",
            ]
        )
    )
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
    n.render(
        n.pick(["DOB: {dob}   Age: {age_num}   Sex: {sex}\n", "Age: {age_num}\n", "DOB: {dob}\n"])
    )
    n.render(n.pick(["Accession: {accession}\n", "Case #: {accession}\n"]))
    n.render(
        n.pick(
            [
                "Collected: {h_admit}   Received: {h_admit}   Reported: {h_discharge}\n",
                "Date of procedure: {admit}\nDate reported: {discharge}\n",
            ]
        )
    )
    n.render(n.pick(["Submitting physician: {dr_sig}\n", "Surgeon: {dr}\n", "Physician: {pcp}\n"]))
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
    n.render(
        n.pick(
            [
                "Arrival: {h_admit} {time} by ambulance.\n",
                "Time seen: {time}\n",
                "Arrived {time} via private vehicle.\n",
            ]
        )
    )
    _clinical_body(n, (2, 4))
    _section(
        n,
        n.pick(["ED Course", "MDM"]),
        [
            "Given {drug} with improvement. ",
            "{labs} ",
            "Discussed with {dr} of {service}. ",
            "Poison control called at {phone}. ",
            "{He} will be admitted to {service} under {att}. ",
            "Discharged home with {rel}; return precautions given. ",
        ],
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _phone_note(n: _Note) -> None:
    n.render(n.pick(["TELEPHONE ENCOUNTER\n", "Phone Note\n", "Nurse Triage Call\n"]))
    n.render(n.pick(["{pt_header}  MRN {mrn}  DOB {dob}\n", "Patient: {pt_header}\n"]))
    n.render(
        n.pick(
            [
                "Call received {admit} at {time} from {rel}.\n",
                "Date: {admit}  Time: {time}\n",
                "Caller: patient, callback number {pt_phone}\n",
            ]
        )
    )
    for t in n.rng.sample(
        [
            "{pt_first} called to report {symptom} since yesterday. ",
            "{He} asks whether {he} can take {drug} with {drug}. ",
            "Advised to go to the nearest emergency department if symptoms worsen. ",
            "Prescription for {med} sent to the pharmacy (fax {fax}). ",
            "Spoke with {rel}, who confirms {he} missed the appointment on {past}. ",
            "Appointment made with {pcp} on {followup}. ",
            "Portal message sent to {email}. ",
            "Patient portal login from {ip} flagged; identity confirmed by phone. ",
            "Patient verified identity with date of birth {dob}. ",
            "Left voicemail at {pt_phone}. ",
            "{He} reports that {his} {prof} job at {employer} involves heavy lifting. ",
        ],
        n.rng.randint(3, 6),
    ):
        n.render(t)
    n.render(n.pick(["\n{dr_sig}\n", "\n-- {rn}, RN\n", "\nRouted to {pcp}.\n"]))


def _consult(n: _Note) -> None:
    _header(n, "Consultation")
    n.render(
        n.pick(
            [
                "Requesting physician: {att}\n",
                "Consult requested by {att} for {symptom}.\n",
                "Reason for consult: {dx}\n",
            ]
        )
    )
    _clinical_body(n, (2, 5))
    _section(
        n,
        "Impression and Recommendations",
        [
            "{age_adj} {sexw} with {dx} and {eponym}. ",
            "Recommend {med}. ",
            "Would avoid {drug}. ",
            "Check {proc} results from {hosp2}. ",
            "We will follow along; please page {pager} with questions. ",
            "Thank you for this consult. Discussed with {att}. ",
            "Outpatient follow-up with {dr} on {followup}. ",
        ],
        (2, 5),
    )
    n.render(n.pick(_SIGN))


_SLOTS.update(
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

# ---------------------------------------------------------------------------------------------
# More people, places, numbers and look-alikes (issue 5 follow-up: variety for generalization)

GP_DEGREES = {
    "US": ["MD", "DO", "MD FAAFP"],
    "GB": ["MBBS MRCGP", "MBChB MRCGP", "BM BCh DRCOG"],
    "IE": ["MB BCh BAO MICGP", "MICGP"],
    "AU": ["MBBS FRACGP", "FRACGP"],
    "NZ": ["MBChB FRNZCGP", "FRNZCGP"],
    "CA": ["MD CCFP", "CCFP"],
    "IN": ["MBBS MD", "MBBS"],
}
GENERIC_ROLES = [
    "the on-call registrar",
    "the night SHO",
    "the covering resident",
    "the charge nurse",
    "the duty consultant",
    "the weekend team",
    "the surgical SpR",
    "nursing staff",
    "the GP",
    "the attending",
    "the on-call physician",
    "the night float intern",
    "the rapid response team",
    "the FY1",
    "the ward sister",
    "pharmacy",
    "the interpreter",
]
RELATIVE_TIMES = [
    "yesterday",
    "this morning",
    "last week",
    "3 days ago",
    "overnight",
    "2/7 ago",
    "earlier today",
    "last night",
    "two weeks ago",
    "at the weekend",
    "POD 2",
    "since last visit",
]
BRANDS = [
    "Dexcom G6",
    "FreeStyle Libre",
    "Medtronic pacemaker",
    "Omnipod pump",
    "Mirena IUD",
    "Philips DreamStation CPAP",
    "Baxter infusion pump",
    "Zimmer knee prosthesis",
    "Boston Scientific ICD",
    "Venturi mask",
    "Bair Hugger",
    "Hudson mask",
    "Ensure Plus",
    "Fortisip",
    "EpiPen",
    "Ventolin inhaler",
    "Symbicort",
    "Panadol",
    "Nurofen",
    "Tegaderm dressing",
    "Norco",
    "Humira",
    "Synthroid",
    "Entresto",
    "Jardiance",
    "Lantus",
    "Humalog",
    "Flomax",
    "Miralax",
    "Ozempic",
    "Trulicity",
    "Januvia",
    "Farxiga",
    "Brilinta",
    "Seroquel",
    "Ambien",
    "Xanax",
    "Klonopin",
    "Zoloft",
    "Lexapro",
    "Wellbutrin",
    "Neurontin",
    "Lyrica",
    "Dilaudid",
    "Augmentin",
    "Keflex",
    "Bactrim",
    "Cipro",
    "Zithromax",
    "Prednisone",
    "Medrol Dosepak",
    "Advair",
    "Spiriva",
    "Singulair",
    "Coreg",
    "Toprol XL",
    "Aldactone",
    "Imdur",
    "Crestor",
    "Zetia",
    "Nexium",
    "Pepcid",
    "Colace",
    "Senokot",
    "Dulcolax",
    "Narcan",
    "Suboxone",
]
SCALES = [
    "GCS 14/15",
    "Glasgow Coma Scale 15",
    "Apgar scores 8 and 9",
    "Gleason 4+3=7",
    "Barthel index 45/100",
    "Waterlow score 18",
    "Braden score 14",
    "Wells score 2",
    "Child-Pugh B",
    "MMSE 24/30",
    "MoCA 22/30",
    "PHQ-9 of 16",
    "GAD-7 of 12",
    "Edinburgh Postnatal Depression Scale 14",
    "Bristol stool type 6",
    "Rockwood frailty score 5",
    "Karnofsky 60%",
    "ECOG 2",
    "NEWS2 5",
    "Mallampati II",
    "CURB-65 of 2",
    "Ann Arbor stage IIB Hodgkin lymphoma",
    "NYHA class III",
    "Killip class I",
    "Ramsay sedation score 3",
    "RASS -2",
    "Norton score 12",
    "FLACC 4/10",
    "pain 6/10",
    "Fontaine stage II",
    # numeric shorthand that is not PHI: obstetric counts, clock times, frequencies, percentiles,
    # ranges of motion, vaccine and scan names
    "G2P1 at 39+2 weeks",
    "G3P2012",
    "oxycodone 5 mg given at 2200",
    "voided 350 mL at 0500",
    "night shift 1900-0700",
    "PT 2x/wk for 6 wks",
    "weight at the 60th percentile",
    "DTaP, IPV and MMR given",
    "knee flexion 0-112 degrees",
    "DaTscan ordered",
    "BiPAP 12/5",
    "Q4h prn",
    "I/O 1200/850",
    "SpO2 94% on 2L",
    "EF 35-40%",
    "A1c 7.8",
    "LDL 132",
    "CD4 410",
    # recurring weekdays point to no particular day: not PHI
    "HD Mon/Wed/Fri",
    "dialysis on Tuesdays and Saturdays",
    "clinic every Thursday",
    "M/W/F physio",
    "Tues/Thurs groups",
    "weekly on Sundays",
    "works weekends",
    # disease codes, risk scores, stagings and stains written like codes or names
    "T2DM on metformin",
    "T1DM on basal-bolus insulin",
    "CHA2DS2-VASc 4",
    "HAS-BLED 2",
    "4AT 0",
    "Tanner stage 3",
    "Braxton Hicks tightenings",
    "Doppler normal",
    "Alvarado score 7",
    "House-Brackmann grade III",
    "ISUP Grade Group 2",
    "pT3a pN0 (AJCC 8th ed.)",
    "p63/AMACR stains",
    "C-SSRS screen negative",
    "Tokyo Guidelines grade II",
    "Nordic curls and Bulgarian split squats",
    "DuoNebs Q4H",
    "Sinemet CR",
    "Neulasta Onpro on day 2",
    "Aquacel Ag dressing",
    "HbA1c 58 mmol/mol",
    "B12 148",
    "BP 148/90, 161/98",
    "Mini-Cog 3/5",
    "Epworth 14",
    "Rumack-Matthew nomogram",
    "Wells criteria",
    "Ottawa ankle rules",
    "Canadian C-spine rule",
]
ICD_CODES = ["I10", "E11.9", "J44.1", "F32.1", "N18.3", "Z79.01", "I48.91", "K21.9", "M17.11"]
BEDS = ["Bed 12", "Rm 4102", "Ward 7B", "bay 3 bed 2", "Room 12-B", "side room 4", "Pod C", "ICU 6"]
# "3/7" = three days, "2/52" = two weeks, "6/12" = six months: British and Australian shorthand
DURATIONS = ["3/7", "2/52", "6/12", "x3 days", "for 2 weeks", "4/7", "1/52", "for 10 days", "x5d"]
US_DURATIONS = ["x3 days", "for 2 weeks", "for 10 days", "x5d", "2 wks", "for 6 months"]


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
            [(f"{his} {role} ", None), (n.pick(["Mr. ", "Ms. ", "Mrs. ", "Mr ", "Ms "]), None)]
            + [(last, "NAME")],
        ]
    )


def _gov_id(n: _Note) -> list[Segment]:
    if n.p.region == "US":
        return [(n.pick(["SSN: ", "Social Security #: ", "SS#: "]), None), (_ssn(n), "SSN")]
    name, value, label = n.pick(n.p.national)
    return [(f"{name}{n.pick([': ', ' '])}", None), (value, label)]


def _bleep(n: _Note) -> list[Segment]:
    d = n.fake.numerify(n.pick(["####", "#####", "#-####", "###"]))
    head = n.pick(["bleep ", "pager ", "pager #", "x", "ext. ", "#", "b. ", "pgr ", "ext "])
    if head == "x":  # written glued, the x is part of the number: "x4410"
        return [(head + d, "PHONE")]
    return [(head, None), (d, "PHONE")]


def _phone_any(n: _Note) -> list[Segment]:
    local = W.phone(n.world, n.rng, n.p.region) if n.chance(0.8) else None
    return [(local or _phone_format(n, n.fake.numerify("##########")), "PHONE")]


def _org_of(n: _Note, kind: str) -> list[Segment]:
    region, city = n.p.region, n.p.city
    if kind == "insurer":
        return [(n.pick(W.INSURERS[region]), "ORGANIZATION")]
    if kind == "pharmacy":
        if n.chance(0.5):
            return [(n.pick(W.PHARMACIES[region]), "ORGANIZATION")]
        name = n.pick(["{last}'s Pharmacy", "{city} Pharmacy", "{last} Chemist"])
        return [(name.format(last=n.fake.last_name(), city=city), "ORGANIZATION")]
    if kind == "church":
        form = n.pick(
            ["St. {first}'s Church", "{city} Baptist Church", "{city} Mosque", "Temple {last}"]
        )
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


_SLOTS.update(
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


def _sign_any(n: _Note, staff: bool) -> None:
    if staff:
        n.render(
            n.pick(
                [
                    "\n{staff_sig}\n",
                    "\nSigned: {staff_sig} {time}\n",
                    "\n{staff_sig}, {h_admit}\n",
                    "\nEntered by {staff_sig}\ncc: {pcp}\n",
                ]
            )
        )
    else:
        n.render(n.pick(_SIGN))


def _lines(n: _Note, items: list[str], k: tuple[int, int], sep: str = "") -> None:
    for i, t in enumerate(n.rng.sample(items, min(len(items), n.rng.randint(*k)))):
        if sep and i:
            n.w.add(sep)
        n.render(t)


def _mini_header(n: _Note, title: str) -> None:
    n.w.add(n.pick([f"{title.upper()}\n", f"{title}\n", f"== {title} ==\n", f"{title.upper()}: "]))
    n.render(
        n.pick(
            [
                "{pt_header}  {mrn}  DOB {dob}\n",
                "Patient: {pt_header} | MRN: {mrn} | {age_num}{sex}\n",
                "Name: {pt_header}\nHosp No: {mrn}\n",
                "{pt_header} ({age_sex}) MRN {mrn}\n",
                "Pt: {pt_header}, {gov_id}, MRN {mrn}\n",
                "{bed} - {pt_header} - UR {mrn}\n",
            ]
        )
    )
    n.render(n.pick(["Date: {h_admit} {time}\n", "{h_admit}\n", "{h_admit} @ {time}\n", ""]))


def _nursing(n: _Note) -> None:
    _mini_header(n, n.pick(["Nursing Note", "Nursing Progress Note", "Shift Report", "RN Note"]))
    _lines(
        n,
        [
            "{time}: pt resting in bed, {vitals} ",
            "Pt A&Ox3, pleasant & cooperative. {score}. ",
            "{pt_formal}, {age_pred}, admitted {i_admit} with {dx}. ",
            "{He} c/o {symptom} {when}, {drug} given with good effect. ",
            "{His} {rel_bare} at bedside, updated on plan. ",
            "Visitor {other} stayed until {time}. ",
            "Turned q2h, {score}. Skin intact, {dressing} to sacrum. ",
            "Voiding via {device_name}. Output 450 mL this shift. ",
            "Dr. {dr_last} notified of {bp} at {time}; no new orders. ",
            "{role} aware. ",
            "Handover given to {nurse} at {time}. ",
            "Falls risk: high. Bed alarm on, {bed}. ",
            "{pt_first} asked for {his} phone; {rel} called on {phone_l}. ",
            "Ambulated to bathroom w/ walker & 1 assist, {power} strength L leg. ",
            "Tolerating diet. {supplement} x2. ",
            "Night uneventful, slept well. ",
            "IV site clean, dry and intact. Due for {drug} at {time}. ",
        ],
        (4, 9),
    )
    _sign_any(n, True)


def _icu(n: _Note) -> None:
    _mini_header(n, n.pick(["ICU Progress Note", "MICU Daily Note", "Critical Care Ward Round"]))
    n.render("Day {n} of ICU stay. Admitted {admit} from {hosp2}.\n")
    for title, items in [
        ("Neuro", ["{score}, off sedation {when}. ", "RASS 0, CAM-ICU negative. ", "{score}. "]),
        ("CVS", ["{bp} on noradrenaline 0.08 mcg/kg/min. ", "SR 88, lactate 1.9. "]),
        ("Resp", ["Intubated, PS 10/5, FiO2 0.35. ", "Extubated {when} to HFNC 40L/0.4. "]),
        ("Renal", ["UO 0.6 mL/kg/h. Cr {n}.1. ", "CRRT running, net -100 mL/h. "]),
        ("ID", ["Day {n} {drug}. Cultures from {i_admit} pending. ", "Afebrile. WCC falling. "]),
        ("Heme", ["{inr}, Hb 8.1. ", "DVT prophylaxis with heparin 5000 units SC BID. "]),
        ("Lines", ["R IJ CVC ({i_past}), art line L radial. {device_name}. ", "PICC in situ. "]),
    ]:
        n.w.add(n.pick([f"{title}: ", f"{title.upper()} - ", f"- {title}: "]))
        n.render(n.pick(items))
        n.w.add("\n")
    n.render(
        n.pick(
            [
                "Family meeting with {rel} and {other} at {time}; {sw} present.\n",
                "Discussed with {att} (ICU consultant) on ward round.\n",
                "Plan d/w {role}; update {rel} on {phone_l}.\n",
            ]
        )
    )
    _sign_any(n, n.chance(0.3))


def _operative(n: _Note) -> None:
    _header(n, n.pick(["Operative Report", "Operation Note", "Brief Op Note"]))
    n.render(
        n.pick(["Date of operation: {h_admit}\n", "DOS: {h_admit}\n", "Procedure date: {admit}\n"])
    )
    n.render("Surgeon: {dr_sig}\nAssistant: {dr}\n")
    n.render(n.pick(["Anaesthetist: {dr}\n", "Anesthesia: {dr}, general endotracheal\n"]))
    n.render(n.pick(["Scrub nurse: {nurse}\n", "Circulating RN: {nurse}\n", ""]))
    n.render("\nPreoperative diagnosis: {dx}\nProcedure: {proc}\n")
    _section(
        n,
        n.pick(["Findings", "Operative Findings"]),
        [
            "Dense adhesions in the RUQ. ",
            "Estimated blood loss 150 mL. ",
            "Specimen sent to pathology ({accession}). ",
            "Implant: {brand}, lot {device}. ",
            "Drain: {device_name} left in situ. ",
            "Counts correct x2. ",
            "Patient identified by name and DOB ({dob}) at time out, WHO checklist completed. ",
        ],
        (3, 6),
    )
    _section(
        n,
        "Post-op plan",
        [
            "{med}. ",
            "Routine obs. ",
            "Review in clinic on {followup} with {dr}. ",
            "{role} to review. ",
        ],
        (2, 3),
    )
    n.render(n.pick(_SIGN))


def _psychiatry(n: _Note) -> None:
    _header(n, n.pick(["Psychiatric Assessment", "Psychiatry Consult", "Mental Health Review"]))
    _section(
        n,
        "History",
        [
            "{pt_formal} is a {age_adj} {prof} referred by {pcp} after an overdose of {drug} {when}. ",
            "{He} lives with {his} {other} in a flat in {city}. ",
            "{He} was sacked from {employer} in {i_past}. ",
            "Previous admission to {hosp2} under section in {year}. ",
            "Collateral from {rel}, who says {he} has not slept for days. ",
            "{His} care coordinator, {other}, reports missed depot injections. ",
            "Long history of {dx2}; {score}. ",
            "{He} has been going to {church} on Sundays and finds it helpful. ",
            "Substance use: cannabis daily since age {rel_age}. ",
            "Forensic history: caution in {year}. ",
            "{His} children attend {school}. ",
        ],
        (4, 7),
    )
    _section(
        n,
        n.pick(["Mental State Examination", "MSE"]),
        [
            "Appearance: unkempt, poor eye contact. ",
            "Speech: pressured. Mood: 'low'. Affect: blunted. ",
            "Thought: no formal thought disorder. Denies SI/HI. ",
            "Perception: hears voices commenting. ",
            "Cognition: {score}. Insight: partial. ",
        ],
        (3, 5),
    )
    _section(
        n,
        "Risk and plan",
        [
            "Risk to self moderate. ",
            "Crisis team number given: {phone_l}. ",
            "Start {med}. ",
            "Follow up with {dr} on {followup}. ",
            "Safety plan shared with {rel}. ",
            "Referral to {practice} for talking therapy. ",
        ],
        (2, 5),
    )
    n.render(n.pick(_SIGN))


def _paediatric(n: _Note) -> None:
    _header(n, n.pick(["Paediatric Clinic Letter", "Pediatric Well Child Visit", "Paeds Review"]))
    _section(
        n,
        "History",
        [
            "{pt_first} is a {age_adj} {sexw} seen with {his} mother {rel_bare} and grandmother. ",
            "Born at {hosp2} at 38 weeks, birth weight 3.2 kg, {score}. ",
            "{He} attends {school}; {his} teacher, {other}, reports poor concentration. ",
            "Immunisations up to date per {practice}. ",
            "{His} father works as a {rel_prof} and is often away. ",
            "Siblings aged {n} and {n}, both well. ",
            "Parents separated {when}; {he} stays with dad at weekends. ",
            "Health visitor {staff} last saw the family on {past}. ",
            "Mother's mobile: {phone_l}. ",
        ],
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
        [
            "Paracetamol 15 mg/kg PRN. ",
            "Review in {duration}. ",
            "Letter to school nurse at {school}. ",
            "Safeguarding discussed with {sw}. ",
            "Next appointment {followup}. ",
        ],
        (2, 4),
    )
    n.render(n.pick(_SIGN))


def _palliative(n: _Note) -> None:
    _mini_header(n, n.pick(["Palliative Care Review", "Hospice Visit", "Supportive Care Note"]))
    _lines(
        n,
        [
            "{pt_formal} ({age_sex}) with metastatic {dx2}, known to {practice}. ",
            "Seen at home in {city} with {his} {rel_bare} and {other}. ",
            "Pain 7/10 despite {med}; syringe driver started {when}. ",
            "{He} wishes to die at home; DNACPR form completed and signed by {att}. ",
            "{His} priest, Father {dr_last}, visited {when}. ",
            "Preferred place of death: {hosp2}. ",
            "Ongoing support from community nurse {nurse}. ",
            "{His} {rel_bare} is finding it hard to cope; carers' line {phone_l} given. ",
            "Karnofsky 40%. ECOG 3. ",
            "Plan to review {i_follow}. ",
            "Lasting power of attorney held by {rel}. ",
        ],
        (4, 8),
    )
    _sign_any(n, n.chance(0.5))


def _therapy(n: _Note) -> None:
    _mini_header(
        n, n.pick(["Physiotherapy Note", "Occupational Therapy Assessment", "PT Treatment Note"])
    )
    _lines(
        n,
        [
            "Pt seen on ward for mobility assessment. ",
            "{pt_first} mobilised 20 m with Zimmer frame and supervision of 1. ",
            "Lives in a two-storey house in {city} with {rel}; 12 steps with rail. ",
            "Pre-morbid: independent, drives, works part time as a {prof} at {org}. ",
            "Transfers: sit to stand with {power} quads, min assist. ",
            "Barthel index 60/100. Berg balance 38/56. ",
            "Home visit arranged for {i_follow} with {physio}. ",
            "Equipment ordered: commode, perching stool. ",
            "Goals discussed with pt & {his} {rel_bare}. ",
            "Chest physio: ACBT taught, SpO2 94% RA. ",
            "Tinel sign positive, splint provided. ",
            "Continue exercises {duration}. Discharge summary to {practice}. ",
        ],
        (4, 8),
    )
    _sign_any(n, True)


def _social_work(n: _Note) -> None:
    _mini_header(
        n, n.pick(["Social Work Assessment", "Social Work Progress Note", "Case Management"])
    )
    _lines(
        n,
        [
            "Referral received from {role} re: discharge planning. ",
            "Met with {pt_formal} and {his} {rel_bare} on the ward. ",
            "{pt_formal} is {age_pred} and was widowed in {year}. ",
            "{He} lives alone at {address} since {his} wife died in {year}. ",
            "Income: state pension; previously a {prof} with {employer}. ",
            "Insurance: {insurer}, member ID {member}, group {group}. ",
            "Caseworker {other} from {org2} contacted at {phone_l}. ",
            "Home care package requested from {org2}. ",
            "Safeguarding concern raised {when}; discussed with {sw}. ",
            "{His} landlord has given notice. ",
            "Transport booked for {followup}. ",
            "Food bank voucher provided. ",
            "Emergency contact: {other}, {phone_l}. ",
        ],
        (4, 8),
    )
    _sign_any(n, True)


def _pharmacy(n: _Note) -> None:
    _mini_header(
        n, n.pick(["Medication Reconciliation", "Pharmacy Note", "Medicines Reconciliation"])
    )
    n.render(
        n.pick(
            [
                "Sources: patient, {rel}, GP record ({practice}), community pharmacy ({pharmacy}).\n",
                "Meds confirmed with {pharmacy} on {phone_l}.\n",
                "Source: pt's own drugs & repeat prescription list dated {past}.\n",
            ]
        )
    )
    n.w.add(n.pick(["\nDrug | Dose | Freq | Comment\n", "\nMEDICATION LIST\n", "\nMeds:\n"]))
    for _ in range(n.rng.randint(3, 7)):
        n.render(
            n.pick(
                [
                    "{drug} | {n} mg | BD | since {i_past}\n",
                    "{med}\n",
                    "- {med} (started by {dr})\n",
                    "{drug} {n} mg OD - withheld, {inr}\n",
                    "{brand}\n",
                ]
            )
        )
    _lines(
        n,
        [
            "Allergy: penicillin (rash). ",
            "Discrepancy: {drug} not prescribed on admission, d/w {att}. ",
            "Compliance aid (dosette) filled weekly by {pharmacy}. ",
            "Rx # {rx}. ",
            "Prescriber NPI {npi}. ",
            "Insurer {insurer} requires prior authorisation, claim {claim}. ",
        ],
        (1, 3),
    )
    n.render(n.pick(["\n{pharmacist}\n", "\nReconciled by {pharmacist} {h_admit}\n"]))


def _letter(n: _Note) -> None:
    """Letters to the patient, an insurer or an employer."""
    n.render("{hosp}\n{hosp_address}\n")
    n.render(n.pick(["Tel: {phone_l}\n", "Phone {phone_l}  Fax {fax}\n", "{url}\n"]))
    n.render("\n{h_admit}\n\n")
    to = n.pick(["patient", "insurer", "employer"])
    if to == "patient":
        n.render("{pt_full}\n{address}\n\nOur ref: {mrn}\n\nDear {pt_formal},\n\n")
        body = [
            "I am writing to confirm your appointment on {followup} at {time} with {dr}. ",
            "Your recent blood tests, taken on {i_past}, were normal. ",
            "Please bring this letter and a list of your medicines (ref. {nat_id}). ",
            "If you cannot attend, call {phone_l} or email {dr_email}. ",
            "Your results can be viewed at {url}. ",
            "Your portal account was last accessed from {ip}. ",
        ]
    elif to == "insurer":
        n.render("{insurer}\nClaims Department\n\nRe: {pt_header}, member ID {member}, DOB {dob}\n")
        n.render("Medical record number: {mrn}\n\n")
        n.w.add("To whom it may concern,\n\n")
        body = [
            "{pt_formal} has been under my care since {past} for {dx}. ",
            "I request authorisation for {proc}, CPT 47562, ICD-10 {icd}. ",
            "Policy number {member}, group {group}, claim {claim}. ",
            "{He} has failed {drug} and {drug}. ",
            "Please contact my office at {phone} (fax {fax}). ",
        ]
    else:
        n.render("HR Department\n{org}\n\nRe: {pt_full} (our ref. {mrn})\n\nDear Sir or Madam,\n\n")
        body = [
            "{pt_formal} attended {hosp} on {admit}. ",
            "{He} is unfit for work as a {prof} from {admit} to {followup}. ",
            "{He} may return on light duties {i_follow}. ",
            "This letter was requested by the patient. ",
        ]
    _lines(n, body, (2, len(body)))
    n.render(n.pick(["\n\nYours sincerely,\n\n{dr_sig}\n", "\n\nKind regards,\n{dr_sig}\n"]))
    if n.chance(0.4):
        n.render("cc: {pcp}; {practice}\n")


def _gp_referral(n: _Note) -> None:
    """A GP letter in the conventions of the UK, Ireland, Australia, New Zealand and Canada."""
    n.render("{practice}\n{hosp_address}\n")
    n.render(
        n.pick(["Tel {phone_l}  Fax {fax}\n", "Ph: {phone_l}\n", "T {phone_l} | E {dr_email}\n"])
    )
    n.render("\n{h_admit}\n\n")
    n.render(n.pick(["Dr {dr_last}\n{hosp2}\n\n", "The Consultant\n{service}\n{hosp}\n\n", ""]))
    n.render(
        n.pick(
            [
                "Re: {pt_header}, DOB {dob}, {nat_id}, Hosp. No. {mrn}\n{address}\n\n",
                "RE: {pt_full} ({age_sex}) D.O.B. {dob}\nHospital No: {mrn}  {nat_id}\n\n",
                "Patient: {pt_header}\nDOB: {dob}\n{gov_id}\nMRN: {mrn}\nAddress: {address}\n\n",
            ]
        )
    )
    n.render(n.pick(["Dear Dr {dr_last},\n\n", "Dear Colleague,\n\n", "Dear {dr},\n\n"]))
    _lines(
        n,
        [
            "Thank you for seeing this {age_adj} {prof} with {symptom} for {duration}. ",
            "{He} is usually well and lives with {rel}. ",
            "{pt_formal}, {age_pred}, has had {symptom} since {i_past}. ",
            "{His} {score}, {bp}, HbA1c 58. ",
            "I'd be grateful for your opinion regarding ?{dx}. ",
            "{He} is a carer for {his} {rel_bare}. ",
            "{He} has private cover with {insurer}. ",
            "Current meds: {med}; {med}. ",
            "PMH: {dx2} ({year}), {eponym}. ",
            "{He} prefers to be called {nick}. ",
            "{He} is best contacted on {phone_l}. ",
            "{He} was seen by the practice nurse, {nurse}, on {i_past}. ",
            "Interpreter required ({country}). ",
        ],
        (4, 8),
    )
    n.render(
        n.pick(
            [
                "\n\nYours sincerely,\n\n{dr_sig}\nGeneral Practitioner\n",
                "\n\nKind regards\n\nDr {dr_last}\n{gp_degree}\n",
                "\n\nYours faithfully,\n{dr_plain} {gp_degree}\nProvider No. {license}\n",
            ]
        )
    )
    if n.chance(0.5):
        n.render("cc: {pt_full}, {address}\n")


def _signout(n: _Note) -> None:
    n.render(n.pick(["SIGN-OUT {h_admit}\n", "Handoff list - {h_admit} - {service}\n", "I-PASS\n"]))
    for _ in range(n.rng.randint(2, 5)):
        n.render(
            n.pick(
                [
                    "{bed} {pt_header} {age_sex} w/ {dx}. ",
                    "{bed} - {pt_any}, {age_sex}, {dx2}. ",
                    "{pt_header} ({mrn}) {age_sex} ",
                ]
            )
        )
        _lines(
            n,
            [
                "{inr}, recheck AM. ",
                "f/u {study}. ",
                "If {symptom} -> page {dr} {bleep}. ",
                "Full code. ",
                "DNR/DNI per {rel}. ",
                "Dispo: {hosp2} {i_follow}. ",
                "K 3.1 repleted. ",
                "{role} aware. ",
                "Family: {rel} {phone_l}. ",
                "NPO p MN for {proc}. ",
            ],
            (1, 3),
        )
        n.w.add("\n")
    n.render(n.pick(["-- {staff_init}\n", "\nFrom {dr} to {dr}, {time}\n", "\n{dr_sig} {bleep}\n"]))


def _thread(n: _Note) -> None:
    """A pager or secure-chat thread: time-stamped lines, speakers named by bare names."""
    n.render(
        n.pick(
            ["Secure chat - {service}\n", "Pager log {h_admit}\n", "", "Messages re: {pt_last}\n"]
        )
    )
    speakers = [_staff(n, 8), _staff(n, 8), [(n.attending[2], "DOCTOR")]]
    for k in range(n.rng.randint(4, 9)):
        head = [(f"{n.rng.randint(0, 23):02d}:{n.rng.randint(0, 59):02d} ", None)]
        if k == 0 and n.chance(0.5):
            head = n.month_day(n.admit) + [(" ", None)] + head
        who = n.pick(speakers)
        if n.chance(0.3):
            who = [(n.pick(["Dr ", "RN ", "Dr. ", ""]), None)] + who
        for text, label in head + who:
            n.w.add(text, label)
        n.w.add(n.pick([": ", " - ", " > "]))
        n.render(
            n.pick(
                [
                    "pt {pt_last} {bed} BP {n}0/50 HR 1{n}8, looks grey. pls come\n",
                    "on my way. 500 LR bolus, repeat lactate.\n",
                    "{rel} at home in {city} {phone_l}\n",
                    "handed over to {staff_bare}\n",
                    "{pt_last} to ICU, family aware\n",
                    "ok, will see after rounds. {score}\n",
                    "spoke w/ {rel_first}, full code for now\n",
                    "DNI per MOLST signed {md}\n",
                    "K 3.1, repleted. f/u {wkday}\n",
                    "ty!!\n",
                    "{staff_bare} covering, call {bleep}\n",
                ]
            )
        )


def _home_health(n: _Note) -> None:
    _mini_header(n, n.pick(["Home Health Visit", "District Nurse Visit", "Community Nursing Note"]))
    _lines(
        n,
        [
            "Visit to pt's home at {address}. ",
            "Key safe code held by {other}. ",
            "{pt_first} sitting in chair, {vitals} ",
            "Wound to L shin dressed with {dressing}. ",
            "Meds in blister pack from {pharmacy}; all taken. ",
            "{His} {rel_bare} present and helpful. ",
            "Dog in house - secured before visit. ",
            "Next visit {i_follow}, {nurse}. ",
            "Concerns re self-neglect reported to {sw}. ",
            "Call placed to {practice} ({phone_l}) re: {drug}. ",
            "Pt attends {org2} twice weekly. ",
            "{score}. ",
        ],
        (4, 8),
    )
    _sign_any(n, True)


def _registration(n: _Note) -> None:
    n.w.add(n.pick(["PATIENT REGISTRATION\n", "Demographics\n", "NEW PATIENT REGISTRATION FORM\n"]))
    n.render(n.pick(["MRN: {mrn}\n", "Chart #: {mrn}\n", "Hospital number: {mrn}\n"]))
    n.render(n.pick(["Surname: {pt_last}\nForename(s): {pt_first}\n", "Name: {pt_header}\n"]))
    fields = [
        "Preferred name: {nick}\n",
        "Date of birth: {dob}\nAge: {age_num}\nSex: {sex}\n",
        "Address: {address}\n",
        "Home: {phone_l}\nMobile: {phone_l}\n",
        "Email: {email}\n",
        "{gov_id}\n",
        "Occupation: {prof}\nEmployer: {employer}\n",
        "Insurance: {insurer}  Member ID: {member}  Group: {group}\n",
        "Next of kin: {rel}\nNOK phone: {phone_l}\n",
        "Registered GP: {pcp}, {practice}\n",
        "Preferred pharmacy: {pharmacy}\n",
        "Country of birth: {country}\n",
        "Interpreter needed: no\n",
        "Account #: {acct}\n",
        "Registered: {h_admit} by {staff_init}\n",
        "Online pre-registration from IP {ip}\n",
    ]
    for t in fields:
        if n.chance(0.7):
            n.render(t)


def _lab(n: _Note) -> None:
    n.w.add(n.pick(["LABORATORY REPORT\n", "Clinical Chemistry\n", "Haematology Report\n"]))
    n.render("{hosp}\n")
    n.render(
        n.pick(
            [
                "Patient: {pt_header}  DOB: {dob}  MRN: {mrn}\n",
                "{pt_header} | {age_sex} | Hosp no {mrn}\n",
                "Name: {pt_header}\n{nat_id}\n",
            ]
        )
    )
    n.render(
        n.pick(["Lab No: {accession}\n", "Specimen ID: {accession}\n", "Accession: {accession}\n"])
    )
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
    n.render(
        n.pick(
            [
                "\nComment: Result phoned to {staff} on {bleep} at {time}.\n",
                "\nComment: haemolysed sample, please repeat.\n",
                "\nAuthorised by {dr2_sig}\n",
                "\nReported by {staff_sig}, Biomedical Scientist\n",
            ]
        )
    )


def _discharge_letter(n: _Note) -> None:
    n.render("{hosp}\n{service}\n")
    n.render(n.pick(["Ward {n}B, {hosp}\n", "Ext {bleep}\n", ""]))
    n.render("\nDISCHARGE LETTER\n" if n.chance(0.5) else "\nDischarge Summary to GP\n")
    n.render("To: {pcp}, {practice}\n")
    n.render(
        n.pick(
            [
                "Patient: {pt_header}  DOB {dob}  {nat_id}  MRN {mrn}\n",
                "{pt_header}, {address}\nHosp No {mrn}\n",
            ]
        )
    )
    n.render("Admitted: {h_admit}   Discharged: {h_discharge}\nConsultant: {att}\n\n")
    _lines(
        n,
        [
            "Diagnosis: {dx} ({icd}). ",
            "{pt_formal} presented with {symptom} {duration}. ",
            "Treated with IV {drug}, switched to oral on day {n}. ",
            "Seen by {physio} and {dietitian} before discharge. ",
            "{He} is going home to {city} with {his} {rel_bare}. ",
            "Actions for GP: check U&E in {duration}; {inr} on discharge. ",
            "Outpatient review in {service} clinic {i_follow}. ",
            "Information given to {rel} by {nurse}. ",
            "District nurses ({practice}) to visit {i_follow}. ",
        ],
        (4, 8),
    )
    n.render(n.pick(_SIGN))


_BUILDERS: dict[str, Callable[[_Note], None]] = {
    "admission": _admission,
    "discharge": _discharge,
    "progress": _progress,
    "referral": _referral,
    "radiology": _radiology,
    "pathology": _pathology,
    "ed": _ed,
    "phone": _phone_note,
    "consult": _consult,
    "nursing": _nursing,
    "icu": _icu,
    "operative": _operative,
    "psychiatry": _psychiatry,
    "paediatric": _paediatric,
    "palliative": _palliative,
    "therapy": _therapy,
    "social_work": _social_work,
    "pharmacy": _pharmacy,
    "letter": _letter,
    "gp_referral": _gp_referral,
    "signout": _signout,
    "thread": _thread,
    "home_health": _home_health,
    "registration": _registration,
    "lab": _lab,
    "discharge_letter": _discharge_letter,
}
_KIND_WEIGHTS = {
    "admission": 3,
    "discharge": 3,
    "progress": 3,
    "referral": 2,
    "radiology": 2,
    "pathology": 1,
    "ed": 2,
    "phone": 1,
    "consult": 2,
    "nursing": 3,
    "icu": 2,
    "operative": 2,
    "psychiatry": 2,
    "paediatric": 8,  # drawn for children only
    "palliative": 1,
    "therapy": 2,
    "social_work": 2,
    "pharmacy": 2,
    "letter": 2,
    "gp_referral": 3,
    "signout": 2,
    "thread": 2,
    "home_health": 2,
    "registration": 2,
    "lab": 2,
    "discharge_letter": 2,
}


def _make_faker(locale: str, seed: int) -> Faker:
    try:
        fake = Faker(locale)
    except AttributeError as exc:
        raise OptionError(f"unknown Faker locale {locale!r}") from exc
    if not hasattr(fake, "state_abbr") or not hasattr(fake, "zipcode"):
        raise OptionError(f"locale {locale!r} has no US-style states and ZIP codes; use en_US")
    fake.seed_instance(seed)
    return fake


def _write_note(
    p: Patient, kind: str, fake: Faker, rng: random.Random, doc_id: str, world: Faker
) -> Document:
    n = _Note(p, kind, fake, rng, world)
    _BUILDERS[kind](n)
    text, spans = n.w.finish(_draw_style(rng, kind), rng)
    return Document(doc_id, text, spans, p.id, {"type": kind})


def _check_n(n: int, name: str) -> None:
    if not isinstance(n, int) or n < 0:
        raise OptionError(f"{name} must be a whole number ≥ 0, got {n!r}")


def _generate(
    rows: list[Mapping], per: int, seed: int, locale: str, kinds, invented: bool
) -> list[Document]:
    kinds = tuple(kinds or NOTE_TYPES)
    unknown = [k for k in kinds if k not in _BUILDERS]
    if unknown:
        raise OptionError(f"unknown note type {unknown[0]!r} (known: {', '.join(NOTE_TYPES)})")
    fake, rng = _make_faker(locale, seed), random.Random(seed)
    world = W.world_faker(seed)
    weights = [_KIND_WEIGHTS[k] for k in kinds]
    docs = []
    for i, row in enumerate(rows):
        pid = f"P{i + 1:05d}" if invented else str(row.get("record_id", i + 1))
        p = new_patient(fake, rng, pid, row, world)
        for j in range(per):
            kind = rng.choices(kinds, weights)[0]
            for _ in range(3):  # a paediatric note is about a child
                if kind != "paediatric" or p.age < 18:
                    break
                kind = rng.choices(kinds, weights)[0]
            doc_id = f"note-{i + 1:05d}" if invented and per == 1 else f"note-{pid}-{j + 1:02d}"
            docs.append(_write_note(p, kind, fake, rng, doc_id, world))
    return docs


def generate_patient_notes(
    rows: Iterable[Mapping],
    notes_per_patient: int = 3,
    seed: int = 0,
    locale: str = "en_US",
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``notes_per_patient`` notes for each row (dicts, or a DataFrame whose records are used).

    Known keys are used as given (``record_id`` → MRN, ``name``, ``sex``, ``age``,
    ``birth_date``, ``visit_date``, ``ssn``, ``phone``, ``email``, ``street_address``, ``city``,
    ``state``, ``zip``, ``diagnosis``); the rest is invented. ``Document.patient`` is the row's
    ``record_id`` (or its position), so notes link back to the table.
    """
    _check_n(notes_per_patient, "notes_per_patient")
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    return _generate(rows, notes_per_patient, seed, locale, kinds, invented=False)


def generate_notes(
    n: int,
    seed: int = 0,
    locale: str = "en_US",
    patients=None,
    notes_per_patient: int = 1,
    kinds: Iterable[str] | None = None,
) -> list[Document]:
    """``n`` notes; the same seed gives the same corpus (for one Faker version).

    Without ``patients`` each run of ``notes_per_patient`` notes shares one invented patient
    (``Document.patient`` "P00001", …); with ``patients`` (rows as in
    ``generate_patient_notes``) the notes are spread over the rows, in order.
    """
    _check_n(n, "n")
    _check_n(notes_per_patient, "notes_per_patient")
    per = max(1, notes_per_patient)
    if patients is not None:
        rows = patients.to_dict("records") if hasattr(patients, "to_dict") else list(patients)
        if not rows:
            raise OptionError("patients is empty: no row to write notes about")
        per = max(1, -(-n // len(rows)))
        return _generate(rows[: -(-n // per)], per, seed, locale, kinds, invented=False)[:n]
    return _generate([{}] * -(-n // per), per, seed, locale, kinds, invented=True)[:n]


def write_synthetic_corpus(
    n: int,
    seed: int,
    out_path,
    fmt: str = "brat",
    notes_per_patient: int = 1,
    patients=None,
    locale: str = "en_US",
    overwrite: bool = False,
) -> dict:
    """Generate and write a corpus (brat folder, or JSONL); a JSON-ready summary.

    ``patients``: a table file (CSV, Parquet, …) whose rows the notes are about."""
    from collections import Counter
    from pathlib import Path

    from hidekit.errors import InputError
    from hidekit.io.atomic import atomic_dir, check_output_dir, check_output_file
    from hidekit.text.corpus import write_brat_dir, write_jsonl
    from hidekit.text.synth import generate_notes

    out_path = Path(out_path)
    if fmt not in ("brat", "jsonl"):
        raise OptionError(f"unknown format {fmt!r} (brat or jsonl)")
    protect = (patients,)
    one_file = fmt == "jsonl" and out_path.suffix == ".jsonl"
    if one_file:
        check_output_file(out_path, protect)
    else:
        check_output_dir(out_path, overwrite=overwrite, protect=protect)
    if n < 1:
        raise OptionError(f"--n must be at least 1, got {n}")
    rows = None
    if patients is not None:
        from hidekit.io import read_table

        rows = read_table(patients).frame
        if len(rows) == 0:
            raise InputError(f"{patients}: the table has no rows")
    docs = generate_notes(n, seed, locale, patients=rows, notes_per_patient=notes_per_patient)
    if one_file:
        if out_path.exists() and not overwrite:
            raise OptionError(f"{out_path} exists (use --overwrite)")
        target = write_jsonl(docs, out_path)
    else:
        with atomic_dir(out_path, overwrite=overwrite, protect=protect) as tmp:
            if fmt == "brat":
                write_brat_dir(docs, tmp)
            else:
                write_jsonl(docs, tmp / "notes.jsonl")
        target = out_path if fmt == "brat" else out_path / "notes.jsonl"
    labels = Counter(s.label for d in docs for s in d.spans)
    return {
        "documents": len(docs),
        "patients": len({d.patient for d in docs}),
        "characters": sum(len(d.text) for d in docs),
        "spans": sum(labels.values()),
        "by_label": dict(sorted(labels.items())),
        "seed": seed,
        "format": fmt,
        "out": str(target),
    }
