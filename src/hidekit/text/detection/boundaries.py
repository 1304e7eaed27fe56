"""Boundary repairs after detection, from the English annotation conventions.

The CRF tags tokens; the conventions say what belongs to a span: titles, roles and credentials stay
outside names ("Dr." / "daughter" / "LADC"), an age is the number only ("72" of "72M"), a stray
lower-case word is not part of a place or a name. An English model's detector runs them after
overlaps are resolved (see ``hidekit.text.detection.detector``); each only shrinks, splits or drops spans,
and labels other than the English ones pass through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from hidekit.text.spans import Span

_AGE_GLUED = re.compile(r"(\d{1,3})(?:[MFmfYy]|yo|YO|y/o)")
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    "|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    "|hundred|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties"
)
# what an age reads as: a number, a decade ("70s", "70's"), or a number or decade in words
_AGE_FORM = re.compile(
    rf"\d{{1,3}}|\d0'?[sS]|(?:(?:{_NUMBER_WORDS})(?:[\s-]+(?:and[\s-]+)?)?)+", re.IGNORECASE
)


def trim_age(spans: Sequence[Span]) -> list[Span]:
    """AGE spans such as "72M" or "72yo" (one token for the CRF) keep only the number; an AGE
    span that does not read as an age at all ("10x", "4AT", "E4V4M6") is dropped."""
    out = []
    for s in spans:
        if s.label == "AGE":
            m = _AGE_GLUED.fullmatch(s.text)
            if m:
                s = Span(s.start, s.start + m.end(1), s.label, m.group(1), s.source, s.score)
            elif not _AGE_FORM.fullmatch(s.text):
                continue
        out.append(s)
    return out


# Words that stand next to a name without being part of it (annotation conventions: titles, roles
# and credentials are outside NAME/DOCTOR spans). Compared case-insensitively, final "." ignored.
# Honorifics and ranks of many settings too ("Mzee", "Khun", "CONST", "SSG", "Mallama"), but not
# those that are also given names or surnames ("Begum", "Bibi", "Anh", "Zia", "Don", "Dona").
ROLE_WORDS = frozenset(
    """
    mr mrs ms miss mx dr doctor prof professor rev sr sra nurse sister matron midwife doula
    fellow resident intern registrar consultant attending physician surgeon pharmacist
    therapist physio dietitian dietician coach counsellor counselor chaplain pastor
    interpreter caseworker worker manager coordinator secretary clerk tech technician
    assistant aide carer caregiver ma rn lpn np pa cna slp rd rt ot pt sw dsn cns hca sho spr
    fy1 gp pcp md do mom mum mother dad father daughter son wife husband partner brother aunt
    uncle niece nephew cousin grandson granddaughter grandmother grandfather grandma grandpa
    nan nana friend neighbour neighbor teacher landlord boss roommate fiance fiancé fiancée
    guardian patient client peer recovery charge staff cc
    mdm madam mme madame mlle herr frau sir dame hon cllr councillor chief engr sgt ssgt cpl spc
    lt capt maj col cmdr fr bro sis nee née shri smt mma rra whaea matua puan encik alhaji
    alhaja hajia hajiya mallam khala baji ate kuya tita tito lola lolo aunty auntie psw rpn ssw
    mzee adik khun kap const pc garda ssg pssg lcdr haji hajjah malam mallama master parent
    cpn cw sn cn zio apai ngah sister-in-law brother-in-law cardholder
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
CREDENTIALS = frozenset(
    """
    MD DO RN NP PA PA-C BSN MSN DNP LPN LVN CNA CNM CRNA APRN FNP LCSW LICSW MSW LMSW LADC LPC
    LMFT PhD PharmD RPh RD RDN OT OTR PT DPT SLP CCC-SLP RT RRT MBBS MBChB FRCP FRCPC FRCS
    FRACP FACS FACP MRCP MRCGP CCFP DDS DMD MPH MSc BSc DSN CNS RM RGN RMN HCA
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
NAME_PARTICLES = frozenset(
    [
        "de",
        "del",
        "della",
        "van",
        "von",
        "der",
        "den",
        "da",
        "di",
        "du",
        "le",
        "la",
        "bin",
        "ibn",
        "al",
        "el",
        "ter",
        "ten",
        "dos",
        "das",
    ]
)
_EDGE_LABELS = frozenset({"NAME", "DOCTOR", "HOSPITAL", "ORGANIZATION", "CITY", "STATE", "COUNTRY"})
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*\.?")


def _outside(word: str, first: bool, person: bool) -> bool:
    """Is ``word``, at the start (``first``) or end of a span, outside the PHI?"""
    bare = word.rstrip(".")
    if person and (bare in CREDENTIALS if not first else bare.casefold() in ROLE_WORDS):
        return True
    if word.islower():
        return not (person and first and bare in NAME_PARTICLES)
    return False


def trim_edges(spans: Sequence[Span]) -> list[Span]:
    """Drop words at the edges of name-like spans that the conventions leave outside.

    A NAME or DOCTOR span does not start with a role or title ("daughter", "Doula", "MA",
    "Mdm", "Whaea", "Alhaji"; in lower case too: "psw grace osei") nor end with a credential ("LADC", "BSN"); a name-like span that has a capitalized word does
    not start or end with a lower-case word ("Bashir here", "the YMCA", "at Hargrove") — name
    particles such as "van" or "de" excepted at the start. Punctuation left at the edges goes too.
    """
    out = []
    for s in spans:
        if s.label not in _EDGE_LABELS:
            out.append(s)
            continue
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(s.text)]
        person = s.label in ("NAME", "DOCTOR")
        if words and person and not any(w[2][:1].isupper() for w in words):
            s = _lower_title_trimmed(s, words)  # "psw grace osei", "khala shireen"
            out.append(s)
            continue
        if not words or not any(w[2][:1].isupper() for w in words):
            out.append(s)
            continue
        i, j = 0, len(words)
        while i < j - 1 and _outside(words[i][2], True, person):
            i += 1
        while j - 1 > i and _outside(words[j - 1][2], False, person):
            j -= 1
        if (i, j) == (0, len(words)):
            out.append(s)
            continue
        a, b = words[i][0], words[j - 1][1]
        if s.text[b - 1 : b] == "." and len(words[j - 1][2]) > 2:
            b -= 1  # a sentence stop, not an initial's
        out.append(Span(s.start + a, s.start + b, s.label, s.text[a:b], s.source, s.score))
    return out


def _lower_title_trimmed(s: Span, words: list[tuple[int, int, str]]) -> Span:
    """A name in lower case without the titles and roles it starts with (only those: any
    other lower-case word may be part of it)."""
    i = 0
    while i < len(words) - 1 and words[i][2].rstrip(".").casefold() in ROLE_WORDS:
        i += 1
    if i == 0:
        return s
    a = words[i][0]
    return Span(s.start + a, s.end, s.label, s.text[a:], s.source, s.score)


_JOB_MODIFIERS = frozenset(
    ("retired", "former", "ex", "ex-", "part-time", "full-time", "semi-retired")
    + ("self-employed", "unemployed", "trainee", "student")
)


def trim_occupation(spans: Sequence[Span]) -> list[Span]:
    """An occupation is annotated without "retired", "former", "part-time" ("retired machinist"
    -> "machinist"); a PROFESSION span made only of such words is dropped."""
    out = []
    for s in spans:
        if s.label != "PROFESSION":
            out.append(s)
            continue
        words = [(m.start(), m.group()) for m in re.finditer(r"\S+", s.text)]
        i = 0
        while i < len(words) and words[i][1].casefold() in _JOB_MODIFIERS:
            i += 1
        if i == len(words):
            continue
        a = words[i][0]
        out.append(Span(s.start + a, s.end, s.label, s.text[a:], s.source, s.score))
    return out


def plausible_recall(span: Span) -> bool:
    """A recall span (a run the CRF tagged O) is kept only if it could be PHI on its face.

    It needs a letter or digit, and a capital or a digit unless it is an occupation (written in
    lower case); a lone acronym of three or more capitals ("LBBB", "HTN", "DKA") is clinical
    shorthand far more often than an identifier. Unsure lower-case words are mostly ordinary
    words ("overnite", "mate"). An occupation of several words holds an occupation word.
    """
    text = span.text
    if not any(c.isalnum() for c in text):
        return False
    if len(text) >= 3 and text.isalpha() and text.isupper():
        return False
    if span.label == "PROFESSION":
        return _names_an_occupation(text)
    return any(c.isupper() or c.isdigit() for c in text)


def _names_an_occupation(text: str) -> bool:
    """One word, or a phrase holding an occupation word ("night shift nurse", "retired
    fitter") or a word made like one ("dock labourer", "tea estate supervisor": -er, -or, -ist,
    -ian, -man, -ant): a phrase of several words none of which is one ("random assortment",
    "prototype system") is no occupation."""
    words = re.findall(r"[^\W\d_]+", text.casefold())
    if len(words) < 2:
        return True
    known = occupation_words()
    return any(
        w in known or w.removesuffix("s") in known or w.removesuffix("s").endswith(_AGENT_ENDS)
        for w in words
    )


_AGENT_ENDS = ("er", "or", "ist", "ian", "man", "woman", "ant")


@lru_cache(maxsize=1)
def occupation_words() -> frozenset[str]:
    """Words of four letters or more that name occupations: the heads of Faker's job titles and
    the words of the common and informal occupation lists ("porter", "fitter", "hawker")."""
    from hidekit.text.detection.recognizers.patterns.occupations import (
        COMMON_OCCUPATIONS,
        INFORMAL_OCCUPATIONS,
        job_heads,
    )

    words = set(job_heads())
    for job in (*COMMON_OCCUPATIONS, *INFORMAL_OCCUPATIONS):
        words.update(w for w in re.findall(r"[^\W\d_]+", job.casefold()) if len(w) >= 4)
    return frozenset(words)


# Fill recognizers (the model reports their hits where the CRF tagged nothing) whose hits the CRF
# reads as features and, where it left them untagged, was right to: what these added after the
# CRF held 10 PHI characters of about 570 on the en-dev training texts and none of about 230 on
# the validation split (names of units and clinics, "Triage RN", a word before a credential, a
# title alone, a code after "licence"). Their hits still count as the CRF's evidence; they are
# no longer spans of their own.
OVERRULED_FILL = frozenset(
    """
    hospital_en hospital_en_wide named_ward name_degree titled_name_wide street_en_wide
    licence_number_cue city_before_state hospital_number_cue organization_en name_relative
    """.split()  # noqa: SIM905 (a word list reads better as words)
)


def drop_overruled_fill(spans: Sequence[Span]) -> list[Span]:
    """The spans without the fill spans of ``OVERRULED_FILL``: where the CRF read such a hit and
    tagged it O, the hit was a false alarm (English models). The detector drops them after
    overlaps are resolved, so the recall pass's guesses inside such a hit stay out too."""
    return [s for s in spans if s.source not in OVERRULED_FILL]


def drop_safe_recall(text: str, recall: Sequence[Span]) -> list[Span]:
    """Recall spans (runs the CRF tagged O) without those the clinical safe-list would leave as
    written (``hidekit.text.anonymization.safelist``: drug names, organisms, named terms,
    eponyms before their head word, measurements): an unsure run that is "Seretide",
    "Klebsiella" or "Brudzinski's sign" is not PHI. Spans the CRF itself tagged stay."""
    from hidekit.text.anonymization.safelist import load_safelist

    safe = load_safelist()
    return [r for r in recall if safe.reason(text, r.start, r.end, r.label) is None]


@lru_cache(maxsize=1)
def language_names() -> frozenset[str]:
    """Language names (Faker's ISO 639 list) that are not also country names ("Tonga")."""
    from faker.providers.person.en import Provider

    from hidekit.text.anonymization.surrogates import us_places

    countries = {c.casefold() for c in us_places()[1]}
    return frozenset(n.casefold() for n in Provider.language_names) - countries


# the English models' labels (the Spanish corpus labels, e.g. NOMBRE_SUJETO_ASISTENCIA, pass)
_EN_LABELS = frozenset(
    "NAME DOCTOR DATE AGE CITY STATE COUNTRY HOSPITAL ORGANIZATION PROFESSION STREET".split()  # noqa: SIM905
)
_LANGUAGE_SPLIT = re.compile(r"[\s/,&+-]+")


_COLUMNS = re.compile(r"\t|[ ]{2,}")
_DATE_PIECE = re.compile(
    r"(?<![\d.])(?:\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}([.-])\d{1,2}\1\d{2,4})(?![\d.])"
)


def drop_shapeless(spans: Sequence[Span]) -> list[Span]:
    """Spans whose text cannot be what their label says. An IP address or ZIP code without a
    digit (dot leaders) goes. A "street" without a letter is a number: a row of a lab table
    ("19/08    13.8   3400", columns) keeps only its dates; one run of digits is an ID."""
    out = []
    for s in spans:
        if s.label in ("IP", "ZIP") and not any(c.isdigit() for c in s.text):
            continue
        if s.label != "STREET" or any(c.isalpha() for c in s.text):
            out.append(s)
        elif _COLUMNS.search(s.text):
            out.extend(
                Span(s.start + m.start(), s.start + m.end(), "DATE", m.group(), s.source, s.score)
                for m in _DATE_PIECE.finditer(s.text)
            )
        elif any(c.isdigit() for c in s.text):
            out.append(Span(s.start, s.end, "ID", s.text, s.source, s.score))
    return out


def drop_languages(spans: Sequence[Span]) -> list[Span]:
    """Languages are not PHI under the conventions ("speaks Swedish", "Bengali/English")."""
    names = language_names()
    out = []
    for s in spans:
        if s.label not in _EN_LABELS:
            out.append(s)
            continue
        parts = [p.casefold() for p in _LANGUAGE_SPLIT.split(s.text) if p]
        if (
            parts
            and all(p in names or p == "speaking" for p in parts)
            and any(p in names for p in parts)
        ):
            continue
        out.append(s)
    return out


_NAME_LIKE = frozenset({"NAME", "DOCTOR", "HOSPITAL", "ORGANIZATION", "CITY", "STATE", "COUNTRY"})
# where one name ends and the next begins inside a run of tagged tokens: quotes and brackets
# (a nickname: Winifred "Winnie" Achterberg), "+" and "/" between names, a " - " separator, and
# two or more spaces or a tab (table columns)
_SPLIT = re.compile(r"""\s+[wW]/[oO]\s+|\s*["“”()\[\]+/]\s*|\s+[-–—]\s+|\s*\t\s*|\s{2,}""")


def _pieces(span: Span, separator: re.Pattern) -> list[tuple[int, int, str]]:
    """The parts of a span between the separator's matches: (start, end, text) in the document."""
    out, pos = [], 0
    for m in [*separator.finditer(span.text), None]:
        end = m.start() if m else len(span.text)
        out.append((span.start + pos, span.start + end, span.text[pos:end]))
        pos = m.end() if m else end
    return out


def split_names(spans: Sequence[Span]) -> list[Span]:
    """Split name-like spans where the text shows that two things were run together."""
    out = []
    for s in spans:
        if s.label not in _NAME_LIKE or not _SPLIT.search(s.text):
            out.append(s)
            continue
        for a, b, piece in _pieces(s, _SPLIT):
            if any(c.isalnum() for c in piece):
                out.append(Span(a, b, s.label, piece, s.source, s.score))
    return out


_NUMBER_LABELS = frozenset({"ID", "MRN", "ACCOUNT", "SSN", "PHONE", "FAX", "ZIP"})
_NUMBER_SPLIT = re.compile(r"\s*\t\s*|\s{2,}|\s+[-–—]\s+")
# US ZIP(+4), UK (full or outward code), Canadian, Irish Eircode, 4-digit (AU, NZ and others)
_POSTCODE = re.compile(
    r"\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?(?:\s*\d[A-Z]{2})?|[A-Z]\d[A-Z]\s?\d[A-Z]\d"
    r"|[AC-FHKNPRTV-Y](?:\d{2}|6W)\s?[AC-FHKNPRTV-Y\d]{4}|\d{4}",
    re.IGNORECASE,
)


def split_numbers(spans: Sequence[Span]) -> list[Span]:
    """Identifiers, phone numbers and postcodes: a span running across a table gap or " - " is
    split there, and a piece without a digit ("Grp", "Enc", "tabs") is not an identifier. A ZIP
    must read as a postcode (US, UK, Canadian, Irish, four-digit): "T2DM", "A2 L3 B1" do not, and
    are dropped; a longer number taken for one ("558120") is kept as an ID."""
    out = []
    for s in spans:
        if s.label not in _NUMBER_LABELS:
            out.append(s)
            continue
        for a, b, piece in _pieces(s, _NUMBER_SPLIT):
            label = s.label if any(c.isdigit() for c in piece) else None
            if label == "ZIP" and not _POSTCODE.fullmatch(piece):
                # not a postcode: another number (4+ digits: "558120", "x6120") or nothing
                label = "ID" if sum(c.isdigit() for c in piece) >= 4 else None
            if label:
                out.append(Span(a, b, label, piece, s.source, s.score))
    return out


_CAP_WORD = re.compile(r"\b[A-ZÀ-Þ]")
_ANY_WORD = re.compile(r"\b[^\W\d_]")


def drop_lowercase_names(text: str, spans: Sequence[Span]) -> list[Span]:
    """In a normally capitalized text, a name-like span written all in lower case is an ordinary
    phrase ("will decide", "fluoride varnish"); in a note typed all in lower case it is kept."""
    lower = [s for s in spans if s.label in _NAME_LIKE and not any(c.isupper() for c in s.text)]
    if not lower:
        return list(spans)
    words = len(_ANY_WORD.findall(text))
    if not words or len(_CAP_WORD.findall(text)) < 0.05 * words:
        return list(spans)
    return [s for s in spans if s.label not in _NAME_LIKE or any(c.isupper() for c in s.text)]
