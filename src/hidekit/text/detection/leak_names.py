"""Names the model leaves when nothing but their place says they are names (issue 14): the same
rules for every English text, run before ``consistency.close_leaks`` so what they find is then
widened and repeated like any other name.

- ``cued_names``: the words right after a title or honorific, a relative, a greeting, a few roles
  or a phrase that introduces a name ("mr. pawar", "gogo nosipho", "neighbour rhodri", "CONST
  MENTOOR", "hi dayo", "this is ravinder", "interpreter (bernice)"), a word before "'s" unless
  the noun after it makes an eponym ("arash's dad", not "Morison's pouch"), and a name signing a
  line after a sentence and a dash ("reported it. - chioma") are names when they read as one: no
  English word at all (Zipf band 0 of the word list) or a given name or surname of the
  gazetteers that is rare in English, and no clinical word, role or credential. Words are taken
  while they read as names, up to three. In a text typed in lower case, after a title of address
  ("mrs may", "mr wu") a given name or surname of the gazetteers is a name however common.
- ``listed_names``: a word joined by "and" or "&" to a name of one or two words, or opening with
  a comma a list that "and" closes, is a name when it reads as one ("sons tunde and kazeem",
  "lebo, naledi and tshepo").
- ``written_forms``: a name written again in its own script in brackets ("WONG Siu Fong
  (黃小芳)"), a nickname between a given name and a surname ("Oluwakemi (Kemi) Adebanjo": one
  span), the Akan "Nana" that opens a name.
- ``closing_initials``: initials alone on a note's last line ("mk rn", "RJ/SHO") sign it.
- ``speaker_names``: in a text typed in lower case, a label opening two lines or more
  ("kwabena: …", "10:42 - ama (mum): …") is a speaker's name when its words read as names (the
  recognizers ``chat_speaker`` and ``speaker_label`` want a time stamp or a capital).

A word reads as a name in the case the text is written in: capitalized in a text with both
cases, in lower case in a text typed in lower case, in capitals in one typed in capitals. These
rules add spans where nothing was found (or join names); they never drop one. Each was kept only
if it closed a leaking text on the en-dev validation split (``benchmarks/bench_text_leaks.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from hidekit.text.detection.boundaries import CREDENTIALS, ROLE_WORDS
from hidekit.text.detection.casing import text_case
from hidekit.text.detection.consistency import (
    PEOPLE_WORDS,
    _bands,
    _known_name,
    _word_band,
    clinical_words,
)
from hidekit.text.spans import Span, sort_spans

# words after which a name is written: titles (a full stop may close them), relatives,
# greetings and a few roles (a colon or an opening bracket may follow them); not credentials
# nor specialties ("Consultant Radiologist", "MD (GETA)", "PT eval")
_TITLES = frozenset(
    """
    mr mrs ms miss mdm madam smt shri sri sis bro rev fr sgt const detective inspector mme
    madame mlle herr frau dame cllr councillor mma rra whaea matua puan encik alhaji alhaja hajia
    hajiya mallam khala baji ate kuya tita tito lola lolo aunty auntie gogo mkhulu mama baba mzee
    bibi aling mang tannie oom tante tia tio
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_CUES = _TITLES | frozenset(
    """
    officer wife husband son sons daughter daughters mum mom mother father dad brother
    sister partner friend neighbour neighbor aunt aunty auntie uncle cousin nephew niece grandson
    granddaughter grandma grandpa grandmother grandfather fiance fiancee boyfriend girlfriend
    hi hello hey dear thanks cheers agent engineer driver interpreter carer caregiver helper
    psw superintendent landlord landlady colleague boss
    """.split()  # noqa: SIM905 (a word list reads better as words)
)


def _alternatives(words: frozenset[str]) -> str:
    """The words as one alternation that tries longer words first ("mrs" before "mr"), factored
    as a trie (``re`` tries the alternatives of a group one by one: a flat list of 150 words
    costs 150 tries at each word of a text, the trie a few). Words that differ at a character
    never both match at one place, so the trie tries, at each place, the words that match there
    in the order the longest-first list would: the same matches."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def render(node: dict) -> str:
        alts = [re.escape(ch) + render(node[ch]) for ch in sorted(node) if ch]
        if "" in node:  # ending here is tried after every longer word
            alts.append("")
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return render(trie) if words else ""


# phrases that introduce a name ("my name is gerry", "this is ravinder from sgi", "spoke to
# precious", "typed by swati")
_PHRASES = (
    r"(?:my[ \t]+)?names?[ \t]+(?:is|are|was)|i[ \t]+am|i['’]?m|this[ \t]+is|named|called|"
    r"ask[ \t]+for|spoke[ \t]+(?:to|with)|speak[ \t]+to|talk[ \t]+to|attn|attention|"
    r"(?:typed|signed|written|reported)[ \t]+by|regards|signed"
)


def _cue_pattern(alternatives: Callable[[frozenset[str]], str] = _alternatives) -> str:
    """A title (a full stop may close it), or a cue word or phrase (a colon or an opening
    bracket may follow it), then the gap before the name."""
    return (
        rf"(?<![\w'’.-])(?:(?:{alternatives(_TITLES)})\.?[ \t]+"
        rf"|(?:{alternatives(_CUES - _TITLES)}|{_PHRASES})(?:[ \t]*:)?[ \t]+\(?)"
    )


_CUE = _cue_pattern()
# searched in the text in lower case (three times faster than ignoring case), or ignoring case
# when lower case changes the text's length ("İ")
_CUE_LOWER = re.compile(r"\b(?=[a-z])" + _CUE)
_CUE_RE = re.compile(_CUE, re.IGNORECASE)
# a name before "'s" ("arash's dad", "(olivia's mum)", "tomasz's returns"), unless the noun after
# it makes an eponym ("Morison's pouch", "Calot's triangle", "Shafer's sign")
_EPONYM_HEADS = frozenset(
    """
    sign signs syndrome disease pouch triangle test manoeuvre maneuver law reflex phenomenon palsy
    fracture criteria score classification lymphoma sarcoma ulcer node nodes canal space features
    chorea operation procedure repair incision position solution stain method rule scale grade
    stage tumour tumor cyst diverticulum ligament fascia gland duct angle line point area
    negative positive
    """.split()  # noqa: SIM905
)
_OWNER_RE = re.compile(
    r"(?<![\w'’.-])([^\W\d_]{3,})['’]s[ \t]+(mum|mom|mother|dad|father|wife|husband|son|"
    r"daughter|nan|nana|gran|granny|grandma|grandpa|brother|sister|partner|boyfriend|girlfriend|"
    r"friend|carer|teacher|boss|aunt|aunty|uncle|cousin|kids|children|family|[^\W\d_]+)(?![\w'’-])",
    re.IGNORECASE,
)
_LINE_END = re.compile(r"[ \t]*(?:$|\n|\()")
# a name signing a line after a sentence and a dash ("reported it. - chioma")
_SIGNED_RE = re.compile(r"(?<=[.!?)])[ \t]*[-–—~][ \t]*(?=[^\W\d_])")
_NAME_WORD = re.compile(r"[^\W\d_]{3,}(?:['’-][^\W\d_]+)*")
_GAP = re.compile(r"[ \t]")
_LIST_AFTER = re.compile(r"[ \t]+(?:and|&|AND)[ \t]+")
_COMMA_BEFORE = re.compile(r"[ \t]*,[ \t]*$")
_LIST_BEFORE = re.compile(r"[ \t]+(?:and|&|AND)[ \t]+$")
_WORD_BEFORE = re.compile(r"[^\W\d_]{3,}(?:['’-][^\W\d_]+)*$")
# who a person is, in the words of other languages written in English notes (Māori, Hindi and
# Urdu, Tagalog, Yoruba …) and in the roles of a support ticket: a label, never a name
_KIN_AND_ROLES = frozenset(
    """
    māmā pāpā whānau pēpi koro kui tamaiti nani dadi bhabhi didi bhaiya bhai behen ammi ammu
    abba abbu ayah amma appa chacha chachi mausi mami maa ayi iya bua phupho phuphi
    requester requestor assignee submitter reporter moderator admin sender recipient
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_NOT_PEOPLE = ROLE_WORDS | PEOPLE_WORDS | _KIN_AND_ROLES
_NOT_NAMES = frozenset(
    "mon tue wed thu fri sat sun jan feb mar apr jun jul aug sep oct nov dec".split()  # noqa: SIM905
)


def reads_as_name(word: str, case: str) -> bool:
    """A word written in the text's case that is no English word, or a known name rare in
    English, and no role, relative, credential, clinical word or date word."""
    if case == "lower" and not word.islower():
        return False
    if case == "upper" and not word.isupper():
        return False
    if case == "mixed" and not (word[:1].isupper() and not word.isupper()):
        return False
    fold = word.casefold().removesuffix("'s").removesuffix("’s")
    if fold in _CUES or fold in _NOT_PEOPLE or word in CREDENTIALS or fold in _NOT_NAMES:
        return False
    if fold in clinical_words():
        return False
    band = _bands().get(fold, 0)
    return band == 0 or (band <= 3 and _known_name(fold))


def _name_run(text: str, at: int, case: str) -> tuple[int, int] | None:
    """The run of up to three name words starting at ``at`` (one space between them)."""
    end = at
    for _ in range(3):
        m = _NAME_WORD.match(text, end if end == at else end + 1)
        if not m or (end != at and not _GAP.match(text, end)) or not reads_as_name(m.group(), case):
            break
        end = m.end()
    if end == at:
        return None
    if re.search(r"['’][sS]$", text[at:end]):
        end -= 2
    return at, end


# titles of address that are no English word of their own ("ate", "sis", "fr" are): after one,
# in a text typed in lower case, a given name or surname is a name even when common in English
# ("mrs may", "mr wu", "cllr ward" but not "councillor. ward" nor "19 fr blake")
_ADDRESS_TITLES = frozenset(
    """
    mr mrs ms miss mx mdm madam smt shri sri mme madame mlle herr frau dame cllr councillor sgt
    const detective inspector puan encik
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_SHORT_NAME = re.compile(r"[^\W\d_]{2,}(?:['’-][^\W\d_]+)*(?![\w'’-])")


@lru_cache(maxsize=1)
def _all_person_names() -> frozenset[str]:
    """Given names and surnames of the gazetteers' locales, common English words and two-letter
    names included ("may", "john", "li", "wu"): ``known_names`` leaves those out, and it feeds
    the CRF's features, so it stays as it is."""
    from hidekit.text.detection.recognizers.gazetteers import _key, _person_lists, fold

    groups = (("first_names",), ("first_names_male",), ("first_names_female",), ("last_names",))
    out = set()
    for n in _person_lists(groups):
        for form in {n, fold(n)}:
            if len(k := _key(form)) >= 2:
                out.add(k)
    return frozenset(out)


def _common_name_after_title(text: str, cue: re.Match, case: str) -> tuple[int, int] | None:
    """In a lower-case text, the word after a title of address (``_ADDRESS_TITLES``) when it is
    a given name or surname, however common in English, and no word of another kind."""
    title = cue.group().strip(" \t:(").casefold()
    dotted = title.endswith(".")
    title = title.rstrip(".")
    if case != "lower" or title not in _ADDRESS_TITLES or (dotted and len(title) > 4):
        return None
    if cue.start() and text[cue.start() - 1 : cue.start()].strip() == "":
        before = text[max(0, cue.start() - 4) : cue.start()].strip()
        if before[-1:].isdigit():
            return None  # a size before a unit ("19 fr")
    m = _SHORT_NAME.match(text, cue.end())
    if not m or not m.group().islower():
        return None
    word = m.group().casefold()
    if word in _CUES or word in _NOT_PEOPLE or word in _NOT_NAMES or word in clinical_words():
        return None
    return m.span() if word in _all_person_names() and _bands().get(word, 0) <= 5 else None


def _free(spans: Sequence[Span], a: int, b: int) -> bool:
    return not any(s.start < b and a < s.end for s in spans)


def cued_names(text: str, spans: Sequence[Span], case: str) -> list[Span]:
    """Names written right after a title, role, relative or greeting (see the module)."""
    added: list[Span] = []
    runs = []
    low = text.lower()
    for m in _CUE_LOWER.finditer(low) if len(low) == len(text) else _CUE_RE.finditer(text):
        if case == "mixed" and text[m.start() : m.end()].strip(" \t.:,(").isupper():
            continue  # "MR." in a text with both cases is mitral regurgitation, not a title
        runs.append(_name_run(text, m.end(), case) or _common_name_after_title(text, m, case))
    for m in _SIGNED_RE.finditer(text):
        run = _name_run(text, m.end(), case)
        if run and _LINE_END.match(text, run[1]):  # the name closes the line
            runs.append(run)
    for m in _OWNER_RE.finditer(text):
        noun = m.group(2).casefold()
        eponym = (
            noun in _EPONYM_HEADS
            or noun.removesuffix("s") in _EPONYM_HEADS  # "Patau's syndromes"
            or noun in clinical_words()
        )
        runs.append(m.span(1) if reads_as_name(m.group(1), case) and not eponym else None)
    for run in runs:
        if run and _free(spans, *run) and _free(added, *run):
            added.append(Span(run[0], run[1], "NAME", text[run[0] : run[1]], "name_cue", 0.5))
    return sort_spans([*spans, *added]) if added else list(spans)


def listed_names(text: str, spans: Sequence[Span], case: str) -> list[Span]:
    """Words listed with a name of one or two words are names when they read as one."""
    out = list(spans)
    for _ in range(2):
        added: list[Span] = []
        for s in out:
            if s.label != "NAME" or len(s.text.split()) > 2:
                continue
            m = _LIST_AFTER.match(text, s.end)
            run = _name_run(text, m.end(), case) if m else None
            before = _LIST_BEFORE.search(text, max(0, s.start - 8), s.start)
            if before is None and m:  # "lebo, naledi and tshepo": a comma opens the list
                before = _COMMA_BEFORE.search(text, max(0, s.start - 8), s.start)
            w = (
                _WORD_BEFORE.search(text, max(0, before.start() - 40), before.start())
                if before
                else None
            )
            for r in (run, (w.start(), w.end()) if w and reads_as_name(w.group(), case) else None):
                if r and _free(out, *r) and _free(added, *r):
                    added.append(Span(r[0], r[1], "NAME", text[r[0] : r[1]], "name_list", 0.5))
        if not added:
            break
        out = sort_spans(out + added)
    return out


_SCRIPT_AFTER = re.compile(r"[ \t]*[(（]([^\W\d_]+(?:[ ·・][^\W\d_]+)*)[)）]")
_NICKNAME = re.compile(r"[ \t]+[(\"“']([^\W\d_]{2,}(?:['’-][^\W\d_]+)*)[)\"”'][ \t]+")
_NANA = re.compile(r"(?<![\w'’-])(?:Nana|NANA)[ \t]+$")


def _latin(word: str) -> bool:
    return any(c.isascii() or "LATIN" in unicodedata.name(c, "") for c in word if c.isalpha())


def written_forms(text: str, spans: Sequence[Span]) -> list[Span]:
    """A name written again in its own script in brackets ("WONG Siu Fong (黃小芳)"), a
    nickname in brackets or quotes between a given name and a surname ("Reginald (Reg)
    Whitcombe": one span), and the Akan title "Nana" that opens a name ("Nana Yaa Boateng")."""
    out = sort_spans(spans)
    added: list[Span] = []
    for k, s in enumerate(out):
        if s.label not in ("NAME", "DOCTOR"):
            continue
        m = _SCRIPT_AFTER.match(text, s.end)
        if m and not _latin(m.group(1)) and (k + 1 == len(out) or out[k + 1].start >= m.end()):
            added.append(Span(*m.span(1), s.label, m.group(1), "name_script", s.score))
        m = _NICKNAME.match(text, s.end)
        nxt = next((q for q in out[k + 1 : k + 3] if m and q.start == m.end()), None)
        if m and nxt is not None and nxt.label in ("NAME", "DOCTOR"):
            middle = [q for q in out if s.end <= q.start and q.end <= m.end()]
            if all(q.label in PLACE_OR_PERSON for q in middle):
                out[k] = Span(s.start, nxt.end, s.label, text[s.start : nxt.end], s.source, s.score)
                out[k + 1 :] = [q for q in out[k + 1 :] if q.start >= nxt.end]
                return written_forms(text, [*out, *added])
        n = _NANA.search(text, max(0, s.start - 6), s.start)
        if n and s.text[:1].isupper() and (k == 0 or out[k - 1].end <= n.start()):
            out[k] = Span(n.start(), s.end, s.label, text[n.start() : s.end], s.source, s.score)
    return sort_spans(out + added)


# what a nickname between two names may have been taken for
PLACE_OR_PERSON = frozenset({"NAME", "DOCTOR", "CITY", "ORGANIZATION", "STATE", "COUNTRY"})


# the last line of a note, nothing but initials (and a credential or a role): who wrote it
_LAST_INITIALS = re.compile(
    r"(?:^|\n)[ \t]*(?:[-–—~][ \t]*)?([A-Za-z]{2,3})(?:[ \t]*/[ \t]*[A-Za-z]{2,4}|"
    r"[ \t]+(?:rn|rm|en|rgn|rmn|cnm|cns|np|md|pa|hca|sn|sw|ot|pt|rpn|lpn))?[ \t]*\s*$",
    re.IGNORECASE,
)


def closing_initials(text: str, spans: Sequence[Span]) -> list[Span]:
    """Initials alone on the last line ("mk rn", "AF/SHO", "hp") sign the note: DOCTOR."""
    m = _LAST_INITIALS.search(text[-40:])
    if not m:
        return list(spans)
    v = m.group(1)
    a = len(text) - len(text[-40:]) + m.start(1)
    if not (v.islower() or v.isupper()) or v.casefold() in clinical_words():
        return list(spans)
    if _bands().get(v.casefold(), 0) >= 4 or not _free(spans, a, a + len(v)):
        return list(spans)
    return sort_spans([*spans, Span(a, a + len(v), "DOCTOR", v, "closing_initials", 0.5)])


# a label opening a line of a transcript or chat in lower case, after a time stamp or a dash if
# any ("kwabena: …", "10:42 - ama (mum): …"): one or two words, then who they are in brackets
_SPEAKER = re.compile(
    r"^[ \t]*(?:[\[(]?[\d/:,. ]*\d(?:[ \t]*[ap]\.?m\.?)?[\])]?[ \t]*)?(?:[-–—][ \t]*)?"
    r"([^\W\d_]{3,}(?:['’-][^\W\d_]+)*(?:[ \t][^\W\d_]+(?:['’-][^\W\d_]+)*\.?)?)"
    r"[ \t]*(?:\([^)\n]{1,30}\))?:",
    re.MULTILINE,
)


def _speaker_word(word: str, case: str) -> bool:
    """A word of a speaker's label: one that reads as a name, and no compound of English words
    ("follow-up" is as common as "follow")."""
    return _word_band(word.casefold()) == 0 and reads_as_name(word, case)


def speaker_names(text: str, spans: Sequence[Span], case: str) -> list[Span]:
    """In a text typed in lower case, a label opening two lines or more ("kwabena: …" …
    "kwabena: …", "priya r: …") is a speaker's name when its words read as a name (an initial
    may follow): a form's field ("plan:", "obs:") is an English or clinical word, or written
    once. Words of the label already found stay as they are."""
    if case != "lower":
        return list(spans)
    found = list(_SPEAKER.finditer(text))
    seen = Counter(m.group(1) for m in found)
    added: list[Span] = []
    for m in found:
        words = list(_LABEL_WORD.finditer(m.group(1)))
        first, rest = words[0].group(), [w.group() for w in words[1:]]
        if seen[m.group(1)] < 2 or not _speaker_word(first, case):
            continue
        if not all(len(w) == 1 or _speaker_word(w, case) for w in rest):
            continue
        a, b = m.span(1)
        pieces = [(a, b)] if _free(spans, a, b) else [(a + w.start(), a + w.end()) for w in words]
        for p, q in pieces:
            if _free(spans, p, q) and _free(added, p, q):
                added.append(Span(p, q, "NAME", text[p:q], "name_speaker", 0.5))
    return sort_spans([*spans, *added]) if added else list(spans)


_LABEL_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def close_name_leaks(text: str, spans: Sequence[Span]) -> list[Span]:
    """The names after cue words, the names listed with a name, speakers' names in a
    lower-case transcript, then the forms a name is written in around it."""
    case = text_case(text)
    spans = speaker_names(text, cued_names(text, spans, case), case)
    spans = written_forms(text, listed_names(text, spans, case))
    return closing_initials(text, spans)
