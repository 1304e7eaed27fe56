"""Seeded synthetic clinical notes with annotated PHI: training and test text with no real patient.

Notes (admission notes, discharge summaries, progress notes, referral letters, radiology and
pathology reports, ED notes, phone encounters, consults) are assembled from many sentence
templates whose slots are filled by Faker surrogates. Each PHI value is written into the text
and recorded as a span in the same step, so offsets are exact by construction. The slots vary
the surface forms a detector must generalize over (date formats, "77 y/o", "SMITH, John",
"Dr. Lee", phone and record-number layouts) and the templates carry negative examples
(eponyms such as "Parkinson disease", drug names, "Dr." without a name, lab values and
fractions that look like dates) so a model learns context rather than capital letters.

Label set (stable; a HIPAA Safe Harbor reading of the i2b2 2014 categories), see ``LABELS``.
Titles ("Dr.", "Mr.") and degrees ("MD") are outside name spans; for ages only the number is
annotated ("77" in "77-year-old"), as in i2b2.

``generate_notes(n, seed)`` invents patients; ``generate_patient_notes(rows, k, seed)`` writes
``k`` notes per given table row (name, age, zip, city, record number … kept), so notes can be
linked to a table such as ``hidekit.demo.survey.generate_survey``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from faker import Faker

from hidekit.errors import OptionError
from hidekit.text.spans import Document, Span
from hidekit.text.surrogates import DATE_FORMATS, HOSPITAL_FORMS, format_date, us_places

LABELS: dict[str, str] = {
    "NAME": "patient or relative name (HIPAA 1; i2b2 PATIENT)",
    "DOCTOR": "clinician name (HIPAA 1; i2b2 DOCTOR)",
    "DATE": "date or part of a date except a year alone in a long history (HIPAA 3)",
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


class _Writer:
    """Appends text and records spans at the exact offsets written."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.pos = 0

    def add(self, text: str, label: str | None = None) -> None:
        if not text:
            return
        if label is not None:
            self.spans.append(Span(self.pos, self.pos + len(text), label, text, "synth"))
        self.parts.append(text)
        self.pos += len(text)

    def text(self) -> str:
        return "".join(self.parts)


_SLOT = re.compile(r"\{(\w+)\}")


def _profession(fake: Faker) -> str:
    """Faker's job titles read "Engineer, civil (contracting)"; notes say "civil engineer"."""
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
    return rng.choice(TRAVEL) if rng.random() < 0.6 else rng.choice(us_places()[1])


def _hospital(fake: Faker, rng: random.Random, city: str) -> str:
    return rng.choice(HOSPITAL_FORMS).format(
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


def new_patient(fake: Faker, rng: random.Random, pid: str, row: Mapping | None = None) -> Patient:
    """A patient from ``row`` (keys as in the demo survey) with the missing parts invented."""
    row = dict(row or {})
    sex = str(row.get("sex") or rng.choice("FM"))[:1].upper()
    if row.get("name"):
        parts = str(row["name"]).split()
        first, last = parts[0], " ".join(parts[1:]) or fake.last_name()
    else:
        first = fake.first_name_female() if sex == "F" else fake.first_name_male()
        last = fake.last_name()
    if row.get("age") is not None:
        age = int(row["age"])
    else:
        age = rng.choice([rng.randint(18, 89)] * 8 + [rng.randint(90, 104), rng.randint(2, 17)])
    if row.get("birth_date"):
        birth = date.fromisoformat(str(row["birth_date"])[:10])
    else:
        birth = date(2024, 6, 30) - timedelta(days=int(age * 365.25) + rng.randint(0, 364))
    visit = date.fromisoformat(str(row["visit_date"])[:10]) if row.get("visit_date") else None
    city, state = _city_state(fake, rng)
    if row.get("city"):
        city, state = str(row["city"]), str(row.get("state") or state)
    rel_pool = RELATIONS_F + RELATIONS_M
    relatives = []
    for _ in range(rng.randint(1, 3)):
        rel = rng.choice(rel_pool)
        rfirst = fake.first_name_female() if rel in RELATIONS_F else fake.first_name_male()
        rlast = last if rng.random() < 0.6 else fake.last_name()
        relatives.append((rel, rfirst, rlast))
    doctors = [
        (fake.first_name(), rng.choice("ABCDEFGHJKLMNPRSTW"), fake.last_name())
        for _ in range(rng.randint(2, 4))
    ]
    record = row.get("record_id")
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
        phone=str(row.get("phone") or fake.numerify("(###) ###-####")),
        email=str(
            row.get("email")
            or f"{first}.{last}{rng.randint(1, 99)}@{fake.free_email_domain()}".lower()
        ),
        street=str(row.get("street_address") or fake.street_address()),
        city=city,
        state=state,
        zip=str(row.get("zip") or _zip_in(fake, state)),
        account=fake.numerify(rng.choice(["#########", "##########", "A########", "####-####-##"])),
        member_id=fake.bothify(
            rng.choice(["???#########", "W########", "#########-01", "XJ#######"])
        ).upper(),
        profession=_profession(fake),
        employer=fake.company(),
        diagnosis=str(row["diagnosis"]).lower() if row.get("diagnosis") else None,
        visit_date=visit,
        relatives=relatives,
        doctors=doctors,
        hospital=_hospital(fake, rng, city),
        hospital2=_hospital(fake, rng, _city_state(fake, rng)[0]),
        country=_country(rng),
    )


# ---------------------------------------------------------------------------------------------
# One note


class _Note:
    """Fills template slots for one note of one patient; dates and formats stay coherent."""

    def __init__(self, p: Patient, kind: str, fake: Faker, rng: random.Random) -> None:
        self.p, self.kind, self.fake, self.rng = p, kind, fake, rng
        base = p.visit_date or date(2023, 1, 1) + timedelta(days=rng.randint(0, 730))
        self.admit = base
        self.discharge = base + timedelta(days=rng.randint(1, 12))
        self.followup = self.discharge + timedelta(days=rng.choice([7, 10, 14, 21, 30, 42, 90]))
        fmts, weights = zip(
            *[(f, w) for f, w in DATE_FORMATS if "YY" in f and f != "YYYY"], strict=True
        )
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
            fmt = self.rng.choices(*zip(*DATE_FORMATS, strict=True))[0]
        else:
            fmt = self.header_fmt if header else self.date_fmt
        text = format_date(d, fmt)
        if "MMM" in fmt and self.chance(0.1):
            text = text.upper()
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
        if style == "lastfirst":
            form = self.pick(
                [
                    f"{p.last.upper()}, {p.first.upper()}",
                    f"{p.last}, {p.first}{mid}",
                    f"{p.last.upper()}, {p.first}",
                    f"{p.last}, {p.first}",
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


def _age_adj(n: _Note) -> list[Segment]:
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
        ]
    )
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _age_pred(n: _Note) -> list[Segment]:
    a = str(n.p.age)
    form = n.pick(["aged {}", "age {}", "{} years old", "{} years of age", "{} y.o.", "{} yrs"])
    head, tail = form.split("{}")
    return [(head, None), (a, "AGE"), (tail, None)]


def _sex_word(n: _Note) -> str:
    if n.p.age < 18:
        return n.pick(["girl", "female"]) if n.p.sex == "F" else n.pick(["boy", "male"])
    return n.pick(
        ["woman", "female", "lady", "F"] if n.p.sex == "F" else ["man", "male", "gentleman", "M"]
    )


def _address(n: _Note) -> list[Segment]:
    p = n.p
    sep = n.pick([", ", "\n"])
    return [
        (p.street, "STREET"),
        (sep, None),
        (p.city, "CITY"),
        (", ", None),
        (p.state, "STATE"),
        (n.pick([" ", "  "]), None),
        (p.zip, "ZIP"),
    ]


def _hosp_address(n: _Note) -> list[Segment]:
    f = n.fake
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
    "year": lambda n: [(str(n.past().year), "DATE")],
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
    "labs": _labs,
    "vitals": _vitals,
    "days": lambda n: str(n.rng.randint(2, 14)),
    "time": lambda n: f"{n.rng.randint(0, 23):02d}:{n.pick(['00', '15', '30', '45', '10', '52'])}",
    "n": lambda n: str(n.rng.randint(2, 9)),
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
    ["SSN: {ssn}\n", "Social Security #: {ssn}\n"],
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
    "Denies tobacco, alcohol or drug use. ",
    "Lives alone in an apartment in {city2}, {state}. ",
]
_FAMILY = [
    "Mother with {dx2}, died at age {rel_age}. ",
    "Father had {eponym}. ",
    "Brother with {dx2} diagnosed at {rel_age}. ",
    "No family history of {eponym}. ",
    "Sister, {rel_age}, with {dx2}. ",
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
    "Call {hosp} at {phone} with any questions. ",
    "Records faxed to {dr} at {fax}. ",
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
            ["{labs} ", "Labs from {past}: {labs} ", "Troponin negative x2. {labs} "],
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
    if n.chance(0.6):
        n.render(
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
        n, n.pick(["Objective", "O"]), ["{vitals} ", "{labs} ", "Exam unchanged. {sign}. "], (1, 3)
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


def _write_note(p: Patient, kind: str, fake: Faker, rng: random.Random, doc_id: str) -> Document:
    n = _Note(p, kind, fake, rng)
    _BUILDERS[kind](n)
    text = n.w.text()
    spans = sorted(n.w.spans)
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
    weights = [_KIND_WEIGHTS[k] for k in kinds]
    docs = []
    for i, row in enumerate(rows):
        pid = f"P{i + 1:05d}" if invented else str(row.get("record_id", i + 1))
        p = new_patient(fake, rng, pid, row)
        for j in range(per):
            kind = rng.choices(kinds, weights)[0]
            doc_id = f"note-{i + 1:05d}" if invented and per == 1 else f"note-{pid}-{j + 1:02d}"
            docs.append(_write_note(p, kind, fake, rng, doc_id))
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
    from hidekit.io.atomic import atomic_dir
    from hidekit.text.corpus import write_brat_dir, write_jsonl
    from hidekit.text.synth import generate_notes

    out_path = Path(out_path)
    if fmt not in ("brat", "jsonl"):
        raise OptionError(f"unknown format {fmt!r} (brat or jsonl)")
    if n < 1:
        raise OptionError(f"--n must be at least 1, got {n}")
    rows = None
    if patients is not None:
        from hidekit.io import read_table

        rows = read_table(patients).frame
        if len(rows) == 0:
            raise InputError(f"{patients}: the table has no rows")
    docs = generate_notes(n, seed, locale, patients=rows, notes_per_patient=notes_per_patient)
    if fmt == "jsonl" and out_path.suffix == ".jsonl":
        if out_path.exists() and not overwrite:
            raise OptionError(f"{out_path} exists (use --overwrite)")
        target = write_jsonl(docs, out_path)
    else:
        with atomic_dir(out_path, overwrite=overwrite) as tmp:
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
