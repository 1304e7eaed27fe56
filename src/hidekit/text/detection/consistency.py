"""Decision rules that close leaks after detection (issue 14), the same for every English note.

A note leaks when one character of a direct identifier stays in the text. The CRF decides token by
token and mention by mention, so it can find "Hyun" of "Hyun-woo", a street without its unit
(", Apt 3"), a name in one sentence and not in the next. These rules extend what was found; they
never drop a span:

- ``whole_tokens``: a name found in part covers the whole word run it is part of (letters joined
  by hyphens or apostrophes: "Hyun-woo", "okafor-lindqvist"); an identifier found in part covers
  its whole run of letters and digits.
- ``next_name_words``: a name found in part takes in the name words written right beside it, in
  the same case ("Lim Hui" → "Lim Hui Ling", "ANDREI" → "ANDREI POPESCU"); a word that is common
  in English, a role, a credential or a clinical word is not taken.
- ``name_edges``: names keep their initials, particles and suffixes ("I. Okafor", "de Vries",
  "Piotr K.", "Jr.", "jm reyes" in lower case, "Priya R:"), and a nickname in quotes between two
  names, or closing a name, joins them; so does a suffix found apart ("Villareal" + "Jr").
- ``handle_names`` (last): a name found inside a login written as one token ("kwame" of
  "kwame_dev", "priya" of "priya.s") covers the whole login, as a USERNAME; it runs after
  ``same_everywhere`` so the name is still looked for elsewhere.
- ``street_units``: a street keeps the unit, flat or building written with it ("1187 Calle
  Alondra, Apt 3", "Flat 2, Orchard Court", "1801 Harbor View Pkwy, Bldg C") and a street type
  left after it ("2210 Orchard Crest Dr").
- ``street_parts``: two parts of one address with only a comma between them are one street, and
  so are a street and its unit number ("…Whampoa Drive, #08-447").
- ``code_prefixes``: an identifier keeps the one or two letters written before its digits ("PT
  0118447", "SR 447182") and a system prefix joined by a full stop ("AIMS.0044718227").
- ``org_heads``: an organization or place of care takes in the word that closes its name
  ("Gapuwiyak" + " school", "Cuan Mhuire" + " nursing home", "Mining Corp" + ".").
- ``same_everywhere``: a name word detected once is masked wherever the text writes it again,
  in any case ("Bex" in every line of a pager thread, "Volkov" after "Coach Dmitri Volkov"), when
  it reads as a name: capitalized and not common in English (Zipf band below 4: not "Will",
  "Customer", "Bank"), or a given name or surname of the gazetteers ("carmen" in a lower-case
  note, "OKAFOR" in capitals); a hyphenated compound the word list lacks is as common as its
  rarest part ("de-identification" is no rare word; "Okafor-Lindqvist" is). Spans holding a
  clinical word (a drug, an eponym, an abbreviation) and the guesses of the recall pass and of
  the name rules that read a word from its place alone (``UNSURE_SOURCES``) that do not read as
  a rare capitalized name are not repeated.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from hidekit.text.detection.boundaries import CREDENTIALS, NAME_PARTICLES, ROLE_WORDS
from hidekit.text.detection.consistency_parts import (
    JOINED_CODE_LABELS,
    PERSON_LABELS,
    WORD_RE,
    bracket_handles,
    code_prefixes,
    date_runs,
    fits_at,
    grown,
    handle_names,
    org_heads,
    split_wife_of,
    whole_addresses,
)
from hidekit.text.detection.consistency_streets import place_streets, street_parts, street_units
from hidekit.text.detection.recognizers.gates import fold
from hidekit.text.spans import Span, sort_spans

CODE_LABELS = frozenset({"ID", "MRN", "ACCOUNT", "SSN", "PHONE", "FAX"})
# labels whose strings are masked wherever the note repeats them
REPEATED_LABELS = PERSON_LABELS
# the recall pass's guesses are repeated only when they read as a rare capitalized name
# words that say who a person is (relatives, roles): never part of the name itself
PEOPLE_WORDS = frozenset(
    """
    wife husband son daughter mum mom mother father dad brother sister sibling partner friend
    neighbour neighbor aunt aunty auntie uncle cousin nephew niece grandson granddaughter grandma
    grandmother grandfather grandpa nan fiance fiancee boyfriend girlfriend flatmate roommate
    apprentice carer caregiver sponsor stepson stepdaughter kids children child baby twin twins
    daughters sons hygienist dietitian dietician educator agent lady manager supervisor
    enumerator respondent interviewer officer madam chairman chairperson councillor cllr coach
    teacher technician tech therapist physio pharmacist worker cw phn adon sonographer paramedic
    paramedics kuia colleague boss employer landlady landlord tenant client caller patient
    grand-niece grand-nephew daughter-in-law son-in-law mother-in-law father-in-law user pager
    bleep ext doula midwife nurse teammate classmate housemate coworker co-worker caseworker
    pastor imam deacon deaconess chaplain sn cmhn advisor adviser contractor coordinator
    guard steward receptionist housekeeper maid nanny secretary clerk
    mentor tutor counsellor counselor sw msw dog cat puppy
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
# guesses repeated only when they read as a rare capitalized name: the recall pass's, and those
# of the name rules that read a word from its place alone (after a cue, in a list, as a chat
# speaker or a relative); in a lower-case note their guesses ("bhabhi", "bua", "nanna") were
# repeated wrongly on the training texts (64 false characters) and never rightly on en-dev
UNSURE_SOURCES = frozenset(
    {"crf-recall", "name_cue", "name_list", "relative_name", "chat_speaker", "speaker_label"}
)
COMMON_BAND = 4  # a word this common in English (Zipf band) is not a name on its own
RARE_BAND = 3  # a word rarer than this is repeated in any case
_JOINERS = "-'’"


@lru_cache(maxsize=1)
def clinical_words() -> frozenset[str]:
    """Words of the shipped clinical lists (drugs, eponyms, abbreviations, named terms,
    organisms), casefolded: a span holding one is never repeated elsewhere (an eponym or a drug
    the model took for a name stays one false alarm, not one per mention)."""
    from importlib import resources

    words: set[str] = set()
    for name in ("drugs", "eponyms", "eponym-heads", "abbreviations", "terms", "organisms"):
        raw = (resources.files("hidekit") / "data" / f"safelist-{name}.txt").read_text("utf-8")
        for line in raw.splitlines():
            if line.strip() and not line.startswith("#"):
                words.update(w.casefold() for w in WORD_RE.findall(line))
    return frozenset(words)


@lru_cache(maxsize=1)
def _bands() -> dict[str, int]:
    from hidekit.text.detection.recognizers.gazetteers import word_bands

    return word_bands()


_COMPOUND_SPLIT = re.compile(r"[-'’]")


def _word_band(fold: str) -> int:
    """The Zipf band of a casefolded word; a compound the list lacks ("de-identification",
    "follow-up") is as common as its rarest part, and rare (0) when a part is a known name
    ("jean-baptiste", "okafor-lindqvist")."""
    bands = _bands()
    band = bands.get(fold)
    if band is not None:
        return band
    if "-" not in fold and "'" not in fold and "’" not in fold:
        return 0
    parts = [p for p in _COMPOUND_SPLIT.split(fold) if p]
    if len(parts) < 2 or any(_known_name(p) for p in parts if len(p) > 2):
        return 0
    return min(bands.get(p, 0) for p in parts)


def _inside_token(text: str, i: int, person: bool) -> bool:
    c = text[i]
    if not person:
        return c.isalnum()
    return c.isalpha() or (
        c in _JOINERS and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()
    )


def _joined_code(text: str, a: int, b: int) -> tuple[int, int]:
    """A code runs on across "-" and "/" between letters and digits ("SLH/BRM/0012",
    "gsd-114807", "34817-P") and keeps a check character in brackets ("d558214(7)")."""
    n = len(text)
    while a > 1 and text[a - 1] in "-/" and text[a - 2].isalnum():
        a -= 1
        while a > 0 and text[a - 1].isalnum():
            a -= 1
    while b + 1 < n and text[b] in "-/" and text[b + 1].isalnum():
        b += 1
        while b < n and text[b].isalnum():
            b += 1
    m = _CHECK_CHARACTER.match(text, b)
    return a, m.end() if m else b


_CHECK_CHARACTER = re.compile(r"\([0-9A-Za-z]\)(?![\w])")


def _whole_handle(text: str, out: list[Span], k: int) -> None:
    """A handle found in part covers its whole run of letters, digits, "._-" and a leading
    "@" ("sneha.p_kyc", "@markus.dev"); a full stop that ends it ends the sentence."""
    s = out[k]
    a, b = s.start, s.end
    while a > 0 and (text[a - 1].isalnum() or text[a - 1] in "._-@"):
        a -= 1
    while b < len(text) and (text[b].isalnum() or text[b] in "._-@"):
        b += 1
    while b > s.end and text[b - 1] in ".-":
        b -= 1
    while a < s.start and text[a] in ".-":
        a += 1
    if (a, b) != (s.start, s.end) and fits_at(out, k, a, b):
        out[k] = grown(text, s, a, b)


def whole_tokens(text: str, spans: Sequence[Span]) -> list[Span]:
    """Names and codes found in part cover their whole word (see the module); a possessive "'s"
    stays outside."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label == "USERNAME":
            _whole_handle(text, out, k)
            continue
        person = s.label in PERSON_LABELS
        a, b = s.start, s.end
        if s.label in JOINED_CODE_LABELS and s.text[:1] in "/-" and s.text[1:2].isalnum():
            a += 1  # "/25/447182" of "kem/opd/25/447182": the code runs on before the slash
        elif not (person or s.label in CODE_LABELS) or not s.text[:1].isalnum():
            continue
        while a > 0 and _inside_token(text, a - 1, person):
            a -= 1
        while b < len(text) and _inside_token(text, b, person):
            b += 1
        if person and b > s.end and re.fullmatch(r"['’][sS]", text[b - 2 : b]):
            b = max(s.end, b - 2)
        if s.label in JOINED_CODE_LABELS:
            a, b = _joined_code(text, a, b)
        if s.label in ("PHONE", "FAX") and a > 0 and text[a - 1] == "+":
            a -= 1  # "+2348164471830": the plus is written with the number
        elif a > 0 and text[a - 1] == "#" and (a < 2 or not text[a - 2].isalnum()):
            a -= 1  # "#1184720093", "#KYC-2025-0881742": the sign is written with the code
        a, b = min(a, s.start), max(b, s.end)  # "-1" alone keeps its sign (see ``grown``)
        if (a, b) != (s.start, s.end) and fits_at(out, k, a, b):
            out[k] = grown(text, s, a, b)
    return out


_INITIALS_BEFORE = re.compile(
    r"(?:(?<=[ \t])(?:[A-Z]\.[ \t]?)+|(?<![\w'’])(?:(?:de|del|van|von|der|den|da|di|du|le|la|al|el|"
    r"bin|binti|binte|ibn|ní|nic|ó|ua|mac|mc|ten|ter|ma\.)[ \t]+)+)$",
    re.IGNORECASE,
)
# initials without full stops between a title and a name ("Mr M A Hussain", "Dr K Asante")
_TITLE_INITIALS = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|MR|MRS|MS|DR)\.?[ \t]+((?:[A-Z][ \t]+)+)$"
)
_INITIAL_AFTER = re.compile(r"[ \t]+(?:[A-Z]\.(?![\w])|(?:Jr|Sr|Jnr|Snr)\.?(?![\w]))")
_LOWER_INITIALS_BEFORE = re.compile(r"(?:^|(?<=[^\w.'’-]))([a-z]{1,2})[ ]$")
_LONE_INITIAL_AFTER = re.compile(r"[ ]([A-Za-z])(?=[:,;)]|[ \t]*$)", re.MULTILINE)
# words of one or two letters: never initials
_SHORT = (
    "a i am an as at be by do go he hi if in is it me my no of oh ok on or so to up us we ye yo"
    " mr ms dr st rn np pa md pt cc re fu hx dx rx tx sx bp hr ed er gp ref"
)
_SHORT_WORDS = frozenset(_SHORT.split())
_ENDS_INITIAL = re.compile(r"(?:(?<=[ \t])[A-Z]|\b(?:Jr|Sr|Jnr|Snr|JR|SR))$")
_SUFFIX = re.compile(r"(?:Jr|Sr|Jnr|Snr|JR|SR|III|II|IV)\.?")
# a particle between a given name and a father's or family name ("RAVICHANDRAN A/L MUNUSAMY",
# "Kavitha a/p Subramaniam", "d. ap Gwynfor", "Rosnah binti Osman")
_PARTICLE_AFTER = re.compile(
    r"[ \t]+(?:a/l|a/p|s/o|d/o|w/o|bin|binti|binte|bte|bt|ap|ferch)[ \t]+([^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)


_OPEN = re.compile(r"[ \t]+[\"“'‘(]")
_CLOSE = re.compile(r"[\"”'’)][ \t]+")
# a nickname in quotes that closes a name ('THIBODEAUX, JEAN-BAPTISTE "JB"'): then no word
_QUOTE_OPEN = re.compile(r"[ \t]+[\"“]")
_CLOSE_END = re.compile(r"[\"”](?=[ \t]*(?:$|[\n,;:.)]|[ \t]{2}))", re.MULTILINE)


def name_edges(text: str, spans: Sequence[Span]) -> list[Span]:
    """Names keep their initials and particles ("I. Okafor", "Piotr K.", "de Vries-Okafor",
    "Bautista Jr."), and a nickname in quotes or brackets joins the names around it into one
    span ('Rodelio "Jun" Bautista': the quotes are part of the name as written)."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in PERSON_LABELS:
            continue
        a, b = s.start, s.end
        m = _INITIALS_BEFORE.search(text, max(0, a - 24), a)
        if m and m.group().strip():
            a = m.start()
        m = _TITLE_INITIALS.search(text, max(0, a - 24), a)
        if m:
            a = m.start(1)
        m = _LOWER_INITIALS_BEFORE.search(text[max(0, a - 4) : a])
        if (
            m
            and m.group(1) not in _SHORT_WORDS
            and m.group(1) not in clinical_words()
            and s.text[:1].islower()
        ):
            a -= len(m.group(1)) + 1  # "jm reyes", "t whitford" in a note typed in lower case
        m = _INITIAL_AFTER.match(text, b)
        if m:
            b = m.end()
        elif (m := _LONE_INITIAL_AFTER.match(text, b)) and m.group(1).casefold() not in ("a", "i"):
            b = m.end(1)  # "Priya R:", "fatima b," — an initial that ends the name
        elif text[b : b + 1] == "." and _ENDS_INITIAL.search(text, a, b):
            b += 1  # "Tendai M" + ".", "Earl Jr" + "."
        m = _PARTICLE_AFTER.match(text, b)
        if m and _name_word(m.group(1), s.text):
            b = m.end()
        if (a, b) != (s.start, s.end) and fits_at(out, k, a, b):
            out[k] = grown(text, s, a, b)
    return _join_nicknames(text, out)


_NEXT_WORD = re.compile(r"[ \t]([^\W\d_]{2,}(?:['’-][^\W\d_]+)*)")
_PREV_WORD = re.compile(r"([^\W\d_]{2,}(?:['’-][^\W\d_]+)*)[ \t]$")
_WORD_PART = re.compile(r"[^\W\d_]|['’-]")
_WORD_PART_CHARS: dict[str, bool] = {}


def _prev_word(text: str, a: int) -> re.Match | None:
    """``_PREV_WORD.search(text, max(0, a - 40), a)``, searched only from where it can start.

    With ``endpos`` a, ``$`` matches at a, or at a - 1 before a newline there: a match ends with
    a space or tab at one of those, and consumes nothing but word parts (letters, ' ’ -) before
    it, so it starts no earlier than the run of word parts that ends there; the search from the
    run's start finds the leftmost match, as the search over the whole window does."""
    lo = max(0, a - 40)
    end = a - 1 if a > lo and text[a - 1] == "\n" else a
    if end <= lo or text[end - 1] not in " \t":
        return None
    j = end - 1
    parts = _WORD_PART_CHARS
    while j > lo:
        ch = text[j - 1]
        inside = parts.get(ch)
        if inside is None:
            inside = parts[ch] = _WORD_PART.fullmatch(ch) is not None
        if not inside:
            break
        j -= 1
    return _PREV_WORD.search(text, j, a)


def _same_case(word: str, span_text: str) -> bool:
    if span_text.isupper():
        return word.isupper()
    if span_text.islower():
        return word.islower()
    return word[:1].isupper() and not word.isupper()


def _name_word(word: str, span_text: str) -> bool:
    """A word next to a name that is part of it: written in the name's case, a known name or
    (capitalized) no English word at all, and no role, relative, credential or clinical word."""
    fold = word.casefold()
    if not _same_case(word, span_text) or fold in ROLE_WORDS | PEOPLE_WORDS or word in CREDENTIALS:
        return False
    band = _bands().get(fold, 0)
    rare = (band == 0 and not word.islower()) or (band < COMMON_BAND + 1 and _known_name(word))
    return rare and fold.removesuffix("'s") not in clinical_words()


def next_name_words(text: str, spans: Sequence[Span]) -> list[Span]:
    """A name found in part takes in the name words written right beside it ("Lim Hui" of
    "Lim Hui Ling", "ANDREI" of "ANDREI POPESCU", "Akhtar Jafri" of "Syed Akhtar Jafri")."""
    out = sort_spans(spans)
    for k, s in enumerate(out):
        if s.label not in PERSON_LABELS:
            continue
        a, b = s.start, s.end
        for _ in range(2):
            m = _NEXT_WORD.match(text, b)
            if not (m and _name_word(m.group(1), s.text)):
                break
            b = m.end()
        for _ in range(2):
            m = _prev_word(text, a)
            if not (m and _name_word(m.group(1), s.text)):
                break
            a = m.start()
        if (a, b) != (s.start, s.end) and fits_at(out, k, a, b):
            out[k] = grown(text, s, a, b)
    return out


def _join_nicknames(text: str, spans: list[Span]) -> list[Span]:
    """Three names in a row, the middle one in quotes or brackets, become one span; so do two
    names with a particle between them ("Kavitha a/p Subramaniam")."""
    out: list[Span] = []
    i = 0
    while i < len(spans):
        p = spans[i]
        if (
            i + 1 < len(spans)
            and {p.label, spans[i + 1].label} <= PERSON_LABELS
            and (m := _PARTICLE_AFTER.match(text, p.end))
            and m.start(1) == spans[i + 1].start
        ):
            out.append(grown(text, p, p.start, spans[i + 1].end))
            i += 2
        elif (
            i + 1 < len(spans)
            and {p.label, spans[i + 1].label} <= PERSON_LABELS
            and (
                _SUFFIX.fullmatch(spans[i + 1].text)
                and text[p.end : spans[i + 1].start] in (" ", ", ")
                or _QUOTE_OPEN.fullmatch(text, p.end, spans[i + 1].start)
                and len(p.text.split()) > 1
                and len(spans[i + 1].text.split()) == 1
                and (m := _CLOSE_END.match(text, spans[i + 1].end))
                and not (i + 2 < len(spans) and spans[i + 2].start < m.end() + 2)
            )
        ):
            q = spans[i + 1]
            end = q.end if _SUFFIX.fullmatch(q.text) else q.end + 1
            if _SUFFIX.fullmatch(q.text) and text[end : end + 1] == ".":
                end += 1
            out.append(grown(text, p, p.start, end))
            i += 2
        elif (
            i + 2 < len(spans)
            and (q := spans[i + 1]) is not None
            and (r := spans[i + 2]) is not None
            and {p.label, q.label, r.label} <= PERSON_LABELS
            and _OPEN.fullmatch(text, p.end, q.start)
            and _CLOSE.fullmatch(text, q.end, r.start)
        ):
            out.append(grown(text, p, p.start, r.end))
            i += 3
        else:
            out.append(p)
            i += 1
    return out


def _keys(text: str, s: Span) -> list[str]:
    """The words of a detected name that are looked for elsewhere: those that read as a name —
    capitalized and not common in English, in lower case and not an English word at all, or (in
    a note written all in one case) a given name or surname of the gazetteers."""
    out = []
    for m in WORD_RE.finditer(text[s.start : s.end]):
        w = m.group()
        fold = w.casefold()
        if len(w) < 3 or fold in ROLE_WORDS or w in CREDENTIALS or fold in NAME_PARTICLES:
            continue
        title = w[:1].isupper() and not w.isupper()
        band = _word_band(fold)
        if (title and band < COMMON_BAND) or (band == 0 and not w.isupper()) or _known_name(w):
            out.append(w)
    return out


def _known_name(word: str) -> bool:
    from hidekit.text.detection.recognizers.gazetteers import known_names

    return unicodedata.normalize("NFC", word).casefold() in known_names()


def _possessive_free(word: str) -> str:
    return word.casefold().removesuffix("'s").removesuffix("’s")


def _rare_name(key: str) -> bool:
    return key[:1].isupper() and not key.isupper() and _word_band(key.casefold()) == 0


def _acceptable(found: str, forms: set[str]) -> bool:
    """A repeat is masked when written as detected; in another case when the word is rare in
    English or a known name ("rose" is not "Rose") and does not read as an acronym ("ICU")."""
    if found in forms:
        return True
    band = _word_band(found.casefold())
    rare = band < RARE_BAND or (band < COMMON_BAND and _known_name(found))
    return rare and not (found.isupper() and len(found) <= 4)


def same_everywhere(text: str, spans: Sequence[Span]) -> list[Span]:
    """Mask every other mention of a detected name, place or organization (see the module)."""
    seeds: dict[str, tuple[Span, set[str]]] = {}
    clinical = clinical_words()
    for s in spans:
        if s.label in REPEATED_LABELS:
            words = WORD_RE.findall(s.text)
            if any(len(w) > 2 and _possessive_free(w) in clinical for w in words):
                continue
            for key in _keys(text, s):
                if s.source in UNSURE_SOURCES and not _rare_name(key):
                    continue
                seeds.setdefault(key.casefold(), (s, set()))[1].add(key)
    if not seeds:
        return list(spans)
    out = sort_spans(spans)
    starts = [s.start for s in out]
    added: list[Span] = []
    for a, b in mentions(text, sorted(seeds, key=len, reverse=True)):
        # re's IGNORECASE equates more than casefold does ("KISAKÜREK" matches "Kısakürek",
        # whose dotless ı casefolds to itself): such a match has no seed and is not added
        found = text[a:b]
        got = seeds.get(found.casefold())
        if got is None:
            continue
        seed, forms = got
        if not _acceptable(found, forms):
            continue
        i = bisect.bisect_left(starts, a)
        if (i < len(out) and out[i].start < b) or (i and out[i - 1].end > a):
            continue
        added.append(Span(a, b, seed.label, found, "same_everywhere", seed.score))
    return sort_spans(out + added) if added else out


_MENTION_BEFORE = re.compile(r"[\w@./-]", re.IGNORECASE)
_MENTION_AFTER = re.compile(r"[\w@]|[-'’.][\w]", re.IGNORECASE)


def mentions(text: str, keys: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of ``rx.finditer(text)`` for ``rx`` = the keys as alternatives, in order,
    ignoring case, not after a word character, "@", ".", "/" or "-" and not before a word
    character or "@" (nor "-", "'", "’" or "." then a word character).

    Keys in ASCII are found without compiling that expression (compiling it costs about 1 ms
    per text): their occurrences in the text folded as ``re.IGNORECASE`` reads it
    (``gates.fold``), then at each place the first key whose surroundings fit, left to right
    without overlaps, as ``finditer`` goes. Other keys take the expression."""
    if not all(k.isascii() and k == k.lower() for k in keys):
        alternatives = "|".join(re.escape(k) for k in keys)
        rx = re.compile(rf"(?<![\w@./-])(?:{alternatives})(?![\w@]|[-'’.][\w])", re.IGNORECASE)
        return [m.span() for m in rx.finditer(text)]
    hay = fold(text)
    places: set[int] = set()
    for k in keys:
        at = hay.find(k)
        while at >= 0:
            places.add(at)
            at = hay.find(k, at + 1)
    out: list[tuple[int, int]] = []
    pos = 0
    for p in sorted(places):
        if p < pos or (p and _MENTION_BEFORE.match(text, p - 1)):
            continue
        for k in keys:
            end = p + len(k)
            if hay.startswith(k, p) and not _MENTION_AFTER.match(text, end):
                out.append((p, end))
                pos = end
                break
    return out


def close_leaks(text: str, spans: Sequence[Span]) -> list[Span]:
    """The rules in order: IP addresses and dates written in digits found in part, whole tokens, name words beside a name, name edges (then name words
    again, and two names joined by "w/o" split), logins in brackets after a name ("RAMON V." +
    "AQUINO"), street units and parts, code prefixes, the heads of
    organizations, the same name everywhere, then names inside logins (last, so the name a login
    holds is still looked for elsewhere)."""
    spans = name_edges(
        text,
        next_name_words(text, whole_tokens(text, date_runs(text, whole_addresses(text, spans)))),
    )
    spans = bracket_handles(text, split_wife_of(text, next_name_words(text, spans)))
    spans = street_parts(text, street_units(text, place_streets(text, spans)))
    spans = code_prefixes(text, spans)
    return handle_names(text, same_everywhere(text, org_heads(text, spans)))
