"""Recognizers for what closes a note or a line: sign-off initials, typist references and phone
extensions written with their cue (issue 14).

Notes leak through their margins: "Our ref: RV/sk" (author and typist), "DN / ms" at the foot of
a letter, "co-sign MB", "- jlb rn", "Kaczmarek x4410", "pager 5147". The CRF was trained on
generated notes that rarely write these, so the profiles of ``hidekit.text.profiles`` run these
beside any model (they apply to no language: ``languages`` names the profiles, so training for
``en`` does not pick them up and the shipped model's features stay as they were).

- ``typist_reference``: capitals, a slash, lower case ("RV/sk", "DN / ms") at the start or end
  of a line or after "ref:" — both sides DOCTOR; a clinical abbreviation ("IV/po") is not one;
- ``signoff_initials``: two or three letters after "co-sign", "signed" or a dash that end a line
  (a credential may follow: "- jlb rn", "signed tk pa-c") — DOCTOR; a common English word or a
  clinical abbreviation ("- ok", "- NAD") is not one;
- ``phone_extension``: "ext 338", "x4410", "pager 5147", "bleep 2234" — the cue inside the span,
  as the annotation conventions write it;
- ``chat_speaker``: the name that opens a line of a chat or pager log after its time stamp
  ("22:55 Bex: …", "03/03/2024, 18:02 - nomsa: …", "9 Aug 08:12 - Priya R: …", "fri 5 dec 7:05
  pm - mele k: …") — NAME; a word common in English
  ("Customer", "Agent") or a clinical abbreviation is not one;
- ``speaker_label``: the name that opens a line without a time stamp, with who they are in
  brackets ("Jess (Koala Air): …") or a given name opening two lines or more — NAME;
- ``username_shape``: a handle joined by underscores ("maple_leaf_mom88") or named after
  "posted by", "reply from", "opened by"; a handle with a dot after "@" ("@liam.s"); the
  bold author of a thread's comment ("**lena-k** commented") — USERNAME;
- ``letter_digit_id``: one to four letters then six or more digits, a check letter or digit
  after ("T0418872H", "F318447902", "hn19044718k", "d558214(7)") — ID;
- ``road_number``: a numbered road ("Hwy 52", "Route 9", "Interstate 95") — STREET.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hidekit.text.detection.boundaries import ROLE_WORDS
from hidekit.text.detection.casing import text_case
from hidekit.text.detection.consistency import PEOPLE_WORDS, clinical_words
from hidekit.text.detection.recognizers.base import (
    PatternRecognizer,
    Recognizer,
    register_recognizer,
)
from hidekit.text.spans import Span

PROFILE_ONLY = ("hipaa", "i2b2", "strict", "general")
# the last part of an e-mail domain: "@example.com" after a space is no handle
_DOMAIN_ENDS = frozenset("com org net edu gov io co uk au nz ca ie in za ng ke gh sg my ph".split())  # noqa: SIM905
# the last part of a file name: "notes.txt 09:14" heads no chat line
_FILE_ENDS = frozenset(
    "txt pdf doc docx xls xlsx csv json log jpg jpeg png gif zip xml html md py".split()  # noqa: SIM905
)
_CREDENTIAL_AFTER = r"(?:rn|md|np|pa|pa-c|do|lpn|ma|cna|rph|pharmd|pt|ot|slp)"


def _clinical(word: str) -> bool:
    return word.casefold().removesuffix("'s").removesuffix("’s") in clinical_words()


def _band(word: str) -> int:
    from hidekit.text.detection.recognizers.gazetteers import word_bands

    return word_bands().get(word.casefold(), 0)


@dataclass
class _InitialsRecognizer(Recognizer):
    """A pattern whose kept groups (``groups``) are initials, each its own span."""

    _rx: re.Pattern = re.compile("(?!)")

    def groups(self, m: re.Match) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def find(self, text: str) -> list[Span]:
        out = []
        for m in self._rx.finditer(text):
            for k in self.groups(m):
                s, e = m.span(k)
                out.append(Span(s, e, self.label, text[s:e], self.name, self.score))
        return out


@dataclass
class TypistReferenceRecognizer(_InitialsRecognizer):
    _rx: re.Pattern = re.compile(
        r"^[ \t]*([^\W\d_]{2,4})[ \t]?[/:][ \t]?([^\W\d_]{2,4})[ \t]*$"
        r"|(?:^|(?<=ref:)|(?<=ref\.)|(?<=ref: )|(?<=ref\. ))[ \t]*([A-Z]{2,3})[ \t]?/[ \t]?"
        r"([a-z]{2,3})(?![\w/])|(?<![\w/])([A-Z]{2,3})[ \t]?/[ \t]?([a-z]{2,3})[ \t]*$"
        r"|(?:(?<=[ \t]{2})|(?<=typed:[ \t])|(?<=[ \t]/[ \t]))([^\W\d_]{2,4})[/:]([^\W\d_]{2,3})[ \t]*$",
        re.MULTILINE | re.IGNORECASE,
    )

    def groups(self, m: re.Match) -> tuple[int, ...]:
        if m.group(1) or m.group(7):  # a line of its own ("MD/KL", "AOBL/mt", "kb/ln") or
            # the end of a line after a gap ("     RJ/VK", "/ AVW:TM", "typed: rf/mk")
            g = (1, 2) if m.group(1) else (7, 8)
            author, typist = m.group(g[0]), m.group(g[1])
            if author.isupper() or (g == (7, 8) and author.islower()):
                return () if _clinical(author) and _clinical(typist) else g  # "IV/PO"
            if _clinical(author) or _clinical(typist) or min(_band(author), _band(typist)) >= 5:
                return ()  # "po/iv", "and/or"
            return g if author.islower() else ()
        g = (3, 4) if m.group(3) else (5, 6)
        author, typist = m.group(g[0]), m.group(g[1])
        gap = m.string[max(0, m.start(g[0]) - 2) : m.start(g[0])]
        one_case = (author + typist).isupper() or (author + typist).islower()
        if g == (5, 6) and one_case and gap in ("  ", "/ "):
            return () if _clinical(author) and _clinical(typist) else g  # "     RJ/VK", "slo/mh"
        ok = author.isupper() and typist.islower()
        return g if ok and not _clinical(author) and _band(typist) < 5 else ()


@dataclass
class SignoffInitialsRecognizer(_InitialsRecognizer):
    _rx: re.Pattern = re.compile(
        r"(?:\bco-?sign(?:ed)?(?:[ \t]+by)?|\bsigned(?:[ \t]+by)?|^[ \t]*-|[ \t]-)[ \t]*:?[ \t]*"
        rf"([A-Za-z]{{2,3}})(?=[ \t]*(?:{_CREDENTIAL_AFTER}\b[ \t]*)?$)",
        re.MULTILINE | re.IGNORECASE,
    )

    def groups(self, m: re.Match) -> tuple[int, ...]:
        v = m.group(1)
        ok = (v.islower() or v.isupper()) and not _clinical(v) and _band(v) < 4
        return (1,) if ok else ()


@dataclass
class ChatSpeakerRecognizer(_InitialsRecognizer):
    _rx: re.Pattern = re.compile(
        r"^[ \t]*(?:\[?\d{1,2}[:.]\d{2}(?::\d{2})?\]?|\d{1,2}/\d{1,2}/\d{2,4},?[ \t]+\d{1,2}:\d{2}"
        r"(?:[ \t]*[ap]m)?"
        # an export's date in words before the time: "9 Aug 08:12 -", "Sep 10, 21:06 -",
        # "fri 5 dec 7:05 pm -", "Wed 24 Sep 7:10 pm -"
        r"|(?i:(?:[a-z]{3}[a-z]*,?[ \t]+)?(?:\d{1,2}[ \t]+[a-z]{3}[a-z]*|[a-z]{3}[a-z]*[ \t]+\d{1,2}),?"
        r"[ \t]+\d{1,2}:\d{2}(?:[ \t]*[ap]\.?m\.?)?[ \t]+(?=-)))"
        r"[ \t]*(?:-[ \t]*)?(?i:(?:agent|customer|user|rep|advisor|nurse|dr|rn)\.?[ \t]+)?"
        r"([^\W\d_][\w'’-]{1,20}(?:[ \t][^\W\d_][\w'’.-]{0,20})?)"
        r"[ \t]*(?:\([^)\n]{1,30}\))?:[ \t]",
        re.MULTILINE,
    )

    def groups(self, m: re.Match) -> tuple[int, ...]:
        words = m.group(1).split()
        # a second word of one letter is an initial ("Priya R", "mele k")
        ok = _name_like(words[0]) and all(len(w.rstrip(".")) == 1 or _name_like(w) for w in words)
        return (1,) if ok and not _capitalized_word(words[0]) else ()


def _capitalized_word(word: str) -> bool:
    """A capitalized English word that is no known name ("Bot", "Mailbox", "Support"): a
    chat's service account, not a person."""
    from hidekit.text.detection.recognizers.gazetteers import known_names

    capitalized = word[:1].isupper() and not word.isupper()
    return capitalized and _band(word) > 0 and word.casefold() not in known_names()


@dataclass
class SpeakerLabelRecognizer(Recognizer):
    """The name that opens two lines or more of a chat or transcript without a time stamp: with
    who they are in brackets ("Jess (Koala Air): …"), or a given name ("Jess: …" … "Jess: …") —
    a form field ("Plan:", "Neuro:", "Biomarkers (core):") is a common or clinical word, or
    written once."""

    _rx: re.Pattern = re.compile(
        r"^[ \t]*([^\W\d_][\w'’-]{1,20})[ \t]*(\([^\W\d_][^)\n]{0,29}\))?:[ \t]", re.MULTILINE
    )

    def find(self, text: str) -> list[Span]:
        from hidekit.text.detection.recognizers.gazetteers import given_names

        found = [(m, m.group(1)) for m in self._rx.finditer(text)]
        seen = Counter(w for _, w in found)
        out = []
        for m, w in found:
            if not _name_like(w) or seen[w] < 2 or not w[:1].isupper():
                continue
            if m.group(2) or w.casefold() in given_names():
                s, e = m.span(1)
                out.append(Span(s, e, self.label, w, self.name, self.score))
        return out


@dataclass
class BracketInitialsRecognizer(_InitialsRecognizer):
    """Initials with a date in brackets ("Enumerator note (OA, 11/09/2024)"), after
    "initials:" ("interviewer initials: kj / rt"), or in brackets before a colon after a
    respondent's number ("S-0412 (AR): …", "S-0433 (WN, Sarawak): …")."""

    _rx: re.Pattern = re.compile(
        r"\(([A-Z]{2,3}),[ \t]*\d{1,2}[/.-]\d{1,2}|\binitials?:[ \t]*([A-Za-z]{2,3})"
        r"(?:[ \t]*/[ \t]*([A-Za-z]{2,3}))?(?![\w])"
        r"|(?<=[\w)][ \t])\(([A-Z]{2,3})(?:,[^()\n]{1,30})?\):"
    )

    def groups(self, m: re.Match) -> tuple[int, ...]:
        if m.group(4):  # "(AR):" but not "(CT):"
            return () if _clinical(m.group(4)) else (4,)
        return tuple(k for k in (1, 2, 3) if m.group(k))


_RELATIVE_CUES = "|".join(sorted(PEOPLE_WORDS, key=len, reverse=True)) + "|ask for|in-law"
_NAME_WORD = r"([^\W\d_]{2,}(?:['’-][^\W\d_]+)?)"
_AND_NAME = re.compile(rf"(?:[ \t]*\(\d{{1,2}}\))?,?[ \t]+and[ \t]+{_NAME_WORD}", re.IGNORECASE)
# the next of a list of people given with their ages ("children baraka (9), sidi (4)", "CHILDREN
# (MUTALE 6, BWALYA 2)"): an age after the name before, a comma or "and", a name with its age
_AGED_NEXT = re.compile(
    rf"[ \t]*\(?\d{{1,2}}[ \t]*(?:y|yo|yrs?|m|mo)?\)?[ \t]*(?:,|&|and\b)[ \t]*{_NAME_WORD}"
    r"(?=[ \t]*\(?\d{1,2}(?![\w/.:-]))",
    re.IGNORECASE,
)


@dataclass
class RelativeNameRecognizer(Recognizer):
    """A relative, or a person named by their role, right after the word that says who they are,
    in any case and without "my" ("wife faeza", "DAUGHTER CHIOMA", "hygienist Maddie", "kids mia
    and tai"): one or two words that are not common in English (or known names), no clinical
    word, title or contraction (see ``_relative_named``); a second name joined by "and" too."""

    _rx: re.Pattern = re.compile(
        rf"\b(?:{_RELATIVE_CUES})s?(?:[ \t]+(?:{_RELATIVE_CUES})s?)*(?:[ \t]+(?:is|named|called))?"
        rf"[ \t,:(]+(?:\d[ \t]*\([ \t]*)?{_NAME_WORD}"
        rf"(?:[ \t]+{_NAME_WORD})?",
        re.IGNORECASE,
    )

    def find(self, text: str) -> list[Span]:
        out = []
        case = text_case(text)
        for m in self._rx.finditer(text):
            if not _relative_named(m.group(1), case):
                continue
            end = m.end(2) if m.group(2) and _relative_named(m.group(2), case) else m.end(1)
            s = m.start(1)
            out.append(Span(s, end, self.label, text[s:end], self.name, self.score))
            more = _AND_NAME.match(text, end)
            if more and _relative_named(more.group(1), case):
                a, end = more.span(1)
                out.append(Span(a, end, self.label, text[a:end], self.name, self.score))
            while (more := _AGED_NEXT.match(text, end)) and _relative_named(more.group(1), case):
                a, end = more.span(1)
                out.append(Span(a, end, self.label, text[a:end], self.name, self.score))
        return out


_CONTRACTION = re.compile(r"['’](?:t|s|re|ll|ve|m|d)$", re.IGNORECASE)


def _relative_named(word: str, case: str) -> bool:
    """A word after a relative is their name when it reads as a name in the note's case (see
    ``_name_in_case``), is no title ("Smt.", "SGT", "engr": the name follows it) nor a
    contraction ("won't"), and in a note typed in one case is rare in English or a known name
    ("tearful", "REFERRAL", "extubated" are words) and, if of three letters or fewer, a known
    name ("pph", "mts", "SVD" are abbreviations)."""
    if not _name_in_case(word, case):
        return False
    fold = word.casefold()
    if fold in ROLE_WORDS or _CONTRACTION.search(word):
        return False
    if case == "mixed" and word[:1].isupper() and not word.isupper():
        return True
    from hidekit.text.detection.recognizers.gazetteers import known_names

    known = fold in known_names()
    return known or (_band(word) == 0 and len(word) > 3)


def _name_in_case(word: str, case: str) -> bool:
    """A name as the note writes names: in a mixed-case note capitalized, or in lower case only
    when no English word ("patient tolerated" is no name)."""
    if case == "mixed" and not word[:1].isupper():
        # in lower case in a mixed-case note: no English word at all, or a known given name
        from hidekit.text.detection.recognizers.gazetteers import known_names

        band = _band(word)
        return (band == 0 or (band < 4 and word.casefold() in known_names())) and _name_like(word)
    return _name_like(word)


def _handle_like(word: str) -> bool:
    """A login as people pick them: with a digit, "_", "." or "-", or a lower-case word rare in
    English ("fishfingerfriday"); a capitalized word is a name, left to the model."""
    if any(c.isdigit() or c in "_.-" for c in word):
        return True
    return word.islower() and _band(word) < 3


def _people_part(word: str) -> bool:
    """A relative's word joined by a hyphen ("son-in" of "son-in-law", "step-dad"): no name."""
    return any(part in PEOPLE_WORDS for part in re.split(r"['’-]", word.casefold())[:2])


def _name_like(word: str) -> bool:
    from hidekit.text.detection.recognizers.gazetteers import known_names

    band = _band(word)
    known = word.casefold() in known_names()
    if word.casefold() in PEOPLE_WORDS or _people_part(word):
        return False
    return (band < 4 or (known and band < 5)) and not _clinical(word)


SIGNATURE_RECOGNIZERS: list[Recognizer] = [
    TypistReferenceRecognizer("typist_reference", "DOCTOR", PROFILE_ONLY, 0.75),
    SignoffInitialsRecognizer("signoff_initials", "DOCTOR", PROFILE_ONLY, 0.7),
    PatternRecognizer(
        "phone_extension",
        "PHONE",
        PROFILE_ONLY,
        0.8,
        pattern=r"(?<![\w])(?:ext\.?|extn\.?|extension|x(?=\d)|pager|pgr|bleep|beep)"
        r"[ \t]*(?:no\.?|#)?[ \t]*:?[ \t]*\d{3,6}(?![\w/:-]|\.\d)",
    ),
    ChatSpeakerRecognizer("chat_speaker", "NAME", PROFILE_ONLY, 0.7),
    SpeakerLabelRecognizer("speaker_label", "NAME", PROFILE_ONLY, 0.7),
    BracketInitialsRecognizer("bracket_initials", "NAME", PROFILE_ONLY, 0.7),
    RelativeNameRecognizer("relative_name", "NAME", PROFILE_ONLY, 0.7),
    PatternRecognizer(
        "card_ending",
        "ACCOUNT",
        PROFILE_ONLY,
        0.75,
        pattern=r"\b(?:ending|ends)(?:[ \t]+(?:in|with))?[ \t]+(\d{4,5})(?![\w/-]|\.\d)",
        group=1,
    ),
    PatternRecognizer(
        "username_shape",
        "USERNAME",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w@./-])(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
        r"|(?<=posted by )[A-Za-z][\w.-]{2,30}\d|(?<=reply from )[A-Za-z][\w.-]{2,30}\d)"
        r"(?![\w@]|\.\w)",
    ),
    PatternRecognizer(
        "username_cued",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"\b(?:(?:posted|opened|submitted|started|asked|replied|commented)[ \t]+by"
        r"|reply[ \t]+from)[ \t]+@?([A-Za-z0-9][\w.-]{1,30}[A-Za-z0-9_])(?![\w@]|\.\w)",
        group=1,
        validate=lambda h: _handle_like(h),
    ),
    PatternRecognizer(
        "username_keyvalue",
        "USERNAME",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w.-])(?:user|usr|uid|login|username|user_name|acct|account)=[\"']?"
        r"([A-Za-z0-9][\w.@-]{0,30}[A-Za-z0-9_])(?![\w@])",
        group=1,
    ),
    PatternRecognizer(
        "username_spaced",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"\b(?:user[ \t]?name|login(?:[ \t]+id)?|user[ \t]?id|handle|gamertag|"
        r"screen[ \t]?name|account)[ \t]+@?([A-Za-z0-9][\w.-]{1,30}[A-Za-z0-9_])(?![\w@]|\.\w)",
        group=1,
        validate=lambda h: _handle_like(h) and any(c.isalpha() for c in h),
    ),
    PatternRecognizer(
        "chat_handle_line",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"(?:^|(?<=\n))[ \t]*@?([a-z][a-z0-9]*(?:[._][a-z0-9]+)+)[ \t]+\[?\d{1,2}:\d{2}",
        group=1,
        validate=lambda h: h.rsplit(".", 1)[-1].casefold() not in _DOMAIN_ENDS | _FILE_ENDS,
    ),
    PatternRecognizer(
        "username_app",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"\b(?:(?:fb|facebook)[ \t]+messenger|messenger|whatsapp|skype|slack|snapchat|tiktok|instagram|insta|facebook|"
        r"fb|google[ \t]+chat|hangouts|wechat|viber|discord|telegram|reddit|steam|xbox|psn|"
        r"roblox|twitch)[ \t]*[(:]?[ \t]*@?([A-Za-z0-9][\w.-]{1,30}[A-Za-z0-9_])(?![\w@]|\.\w)",
        group=1,
        validate=lambda h: any(c.isdigit() or c in "_." for c in h),
    ),
    PatternRecognizer(
        "username_dotted",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"(?<![\w.@/])@([A-Za-z][A-Za-z0-9_]*(?:[.-][A-Za-z0-9_]+)+)(?![\w@]|[.-]\w)",
        group=1,
        validate=lambda h: h.rsplit(".", 1)[-1].casefold() not in _DOMAIN_ENDS,
    ),
    PatternRecognizer(
        "username_bold",
        "USERNAME",
        PROFILE_ONLY,
        0.7,
        pattern=r"\*\*@?([A-Za-z0-9][\w.-]{1,30})\*\*[ \t]+(?:commented|closed|opened|reopened|"
        r"approved|merged|reviewed|replied|wrote|posted|edited)\b",
        group=1,
    ),
    PatternRecognizer(
        "letter_digit_id",
        "ID",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w/.-])[A-Za-z]{1,4}\d{6,12}(?:[A-Za-z]|\(\d\))?(?![\w/-])",
    ),
    PatternRecognizer(
        "road_number",
        "STREET",
        PROFILE_ONLY,
        0.75,
        pattern=r"(?<![\w-])(?:hwy|highway|route|rte|interstate|state road)[ \t]?-?\d{1,4}"
        r"(?![\w/-]|\.\d)",
    ),
]
for _rec in SIGNATURE_RECOGNIZERS:
    register_recognizer(_rec)
