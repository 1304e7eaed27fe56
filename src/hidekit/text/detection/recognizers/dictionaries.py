"""Dictionary recognizers: first names, last names, places — taken from Faker's locale data.

Faker ships curated lists per locale (en_US, es_ES): person first/last names, states and
provinces, countries, and world place names (its ``geo`` provider). We read them at import time
instead of typing lists. Matching is on capitalized words (or all-caps words), case-insensitive
on the rest, so "GARCÍA" and "García" both hit.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, compress, count
from operator import itemgetter

from faker.providers.address import en_US as addr_en
from faker.providers.address import es_ES as addr_es
from faker.providers.geo import Provider as geo
from faker.providers.person import en_GB as person_gb
from faker.providers.person import en_IE as person_ie
from faker.providers.person import en_IN as person_in
from faker.providers.person import en_NZ as person_nz
from faker.providers.person import en_US as person_en
from faker.providers.person import es_ES as person_es

from hidekit.text.detection.recognizers.base import HitLists, Recognizer, register_recognizer
from hidekit.text.detection.recognizers.patterns.occupations import job_heads
from hidekit.text.detection.recognizers.scans import plain_ascii
from hidekit.text.spans import Span

_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_SPLIT = re.compile(f"({_WORD.pattern})")  # split: text between words, word, text between, …
_SPLIT_ASCII = re.compile(_SPLIT.pattern, re.ASCII)  # the same split of a ``plain_ascii`` text


@lru_cache(maxsize=100_000)
def _key(word: str) -> str:
    return unicodedata.normalize("NFC", word).casefold()


class _Words:
    """The words of a text (as ``_WORD.finditer`` finds them) and the keys of the capitalized
    ones, computed once per text and shared by every dictionary (only a capitalized word can
    start a dictionary hit). Built with C-level passes: ``re.split`` and running lengths."""

    __slots__ = (
        "words", "starts", "ends", "cap_index", "cap_keys", "cap_set", "_lower", "_keys", "_ascii"
    )  # fmt: skip

    def __init__(self, text: str):
        parts = (_SPLIT_ASCII if plain_ascii(text) else _SPLIT).split(text)
        bounds = list(accumulate(map(len, parts)))
        self.words = parts[1::2]
        self.starts = bounds[0:-1:2]  # where each word starts (the end of the text before it)
        self.ends = bounds[1::2]
        self.cap_index = list(compress(count(), map(str.isupper, map(itemgetter(0), self.words))))
        # an ASCII word's key is its lower case (NFC leaves it, casefold is lower)
        self._ascii = text.isascii()
        key = str.lower if self._ascii else _key
        self.cap_keys = list(map(key, map(self.words.__getitem__, self.cap_index)))
        self.cap_set = set(self.cap_keys)
        self._lower: list[str] | None = None
        self._keys: list[str] | None = None

    def capitalized_in(self, keys) -> list[tuple[int, str]]:
        """(index, key) of the capitalized words whose key is in ``keys`` (a dict or set)."""
        hits = keys.keys() & self.cap_set if isinstance(keys, dict) else keys & self.cap_set
        if not hits:
            return []
        return list(
            compress(
                zip(self.cap_index, self.cap_keys, strict=True),
                map(hits.__contains__, self.cap_keys),
            )
        )

    def lower(self) -> list[str]:
        if self._lower is None:
            self._lower = list(map(str.lower, self.words))
        return self._lower

    def select(self, flags) -> tuple[list[int], list[int]]:
        """(starts, ends) of the words whose flag (an iterable, one per word) is true."""
        rows = list(compress(count(), flags))
        return list(map(self.starts.__getitem__, rows)), list(map(self.ends.__getitem__, rows))

    def keys(self) -> list[str]:
        """Every word's key (``_key``), computed once per text for all gazetteers."""
        if self._keys is None:
            self._keys = self.lower() if self._ascii else list(map(_key, self.words))
        return self._keys


@lru_cache(maxsize=4)
def _words(text: str) -> _Words:
    return _Words(text)


def _names(obj) -> list[str]:
    """Faker lists are tuples, or dicts of name -> weight."""
    return list(obj.keys()) if isinstance(obj, dict) else list(obj)


@dataclass
class DictionaryRecognizer(Recognizer):
    """Finds capitalized word sequences (up to ``max_words``) that are in ``terms``."""

    terms: frozenset[str] = frozenset()
    min_length: int = 2
    _first: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self.terms = frozenset(_key(t) for t in self.terms if len(t) >= self.min_length)
        first: dict[str, int] = {}
        for t in self.terms:
            words = t.split()
            first[words[0]] = max(first.get(words[0], 0), len(words))
        self._first = first

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        w = _words(text)
        words, starts, ends = w.words, w.starts, w.ends
        hs: list[int] = []
        he: list[int] = []
        nxt = 0  # after a hit, the words it covers are not tried again
        for i, key in w.capitalized_in(self._first):  # the others start no hit
            if i < nxt:
                continue
            n = self._first[key]
            for size in range(min(n, len(words) - i), 0, -1):
                s, e = starts[i], ends[i + size - 1]
                joined = " ".join(words[i : i + size])
                if _key(joined) in self.terms and " ".join(text[s:e].split()) == joined:
                    hs.append(s)
                    he.append(e)
                    nxt = i + size
                    break
        return hs, he, self.label


_EN_PERSON = (person_en, person_gb, person_ie, person_nz, person_in)  # English-speaking locales


@dataclass
class WordListRecognizer(Recognizer):
    """Single words of any case that are in ``words`` (or are their plural with -s)."""

    words: frozenset[str] = frozenset()

    def find(self, text: str) -> list[Span]:
        return self.spans_of(text, self.find_arrays(text))

    def find_arrays(self, text: str) -> HitLists:
        w = _words(text)
        lower = w.lower()
        known = self.words
        hits = {k for k in set(lower) if k in known or (k[-1:] == "s" and k[:-1] in known)}
        if not hits:
            return [], [], self.label
        return w.select(map(hits.__contains__, lower)) + (self.label,)


FIRST_NAMES = {
    "en": sorted({n for m in _EN_PERSON for n in _names(m.Provider.first_names)}),
    "es": _names(person_es.Provider.first_names),
}
LAST_NAMES = {
    "en": sorted({n for m in _EN_PERSON for n in _names(m.Provider.last_names)}),
    "es": _names(person_es.Provider.last_names),
}
PLACES = {
    "en": list(addr_en.Provider.states) + [c[2] for c in geo.land_coords],
    "es": list(addr_es.Provider.states)
    + list(addr_es.Provider.regions)
    + [c[2] for c in geo.land_coords],
}
COUNTRIES = {"en": list(addr_en.Provider.countries), "es": list(addr_es.Provider.countries)}

# Words that are names in Faker's lists but mostly ordinary words in clinical text.
_COMMON = {
    "en": {
        "Will",
        "May",
        "June",
        "Grace",
        "Hope",
        "Faith",
        "Mark",
        "Bill",
        "Rose",
        "Art",
        "Dale",
        "Page",
        "Long",
        "Young",
        "Brown",
        "White",
        "Green",
        "Black",
        "Gray",
        "Day",
        "Rich",
        "Doctor",
        "Street",
        "Case",
        "Field",
    },
    "es": {
        "Sala",
        "Soler",
        "Rey",
        "Mesa",
        "Casas",
        "Blanco",
        "Moreno",
        "Rubio",
        "Bravo",
        "Campo",
        "Mar",
        "Pastor",
        "Leal",
        "Rico",
        "Santos",
        "Cruz",
        "Luz",
        "Paz",
    },
}

for _lang in ("en", "es"):
    register_recognizer(
        DictionaryRecognizer(
            f"first_name_{_lang}",
            "FIRST_NAME",
            (_lang,),
            0.5,
            terms=frozenset(FIRST_NAMES[_lang]) - _COMMON[_lang],
            min_length=3,
        )
    )
    register_recognizer(
        DictionaryRecognizer(
            f"last_name_{_lang}",
            "LAST_NAME",
            (_lang,),
            0.5,
            terms=frozenset(LAST_NAMES[_lang]) - _COMMON[_lang],
            min_length=3,
        )
    )
    register_recognizer(
        DictionaryRecognizer(
            f"place_{_lang}", "PLACE", (_lang,), 0.6, terms=frozenset(PLACES[_lang]), min_length=3
        )
    )
    register_recognizer(
        DictionaryRecognizer(
            f"country_{_lang}",
            "COUNTRY",
            (_lang,),
            0.6,
            terms=frozenset(COUNTRIES[_lang]),
            min_length=4,
        )
    )


def _us_cities() -> list[str]:
    """Real US cities (population >= 15,000) from GeoNames, as hidekit's surrogates use."""
    from hidekit.text.anonymization.surrogates import us_places

    return sorted({city for city, _ in us_places()[0]})


register_recognizer(
    DictionaryRecognizer(
        "city_us", "CITY", ("en",), 0.6, terms=frozenset(_us_cities()), min_length=3
    )
)
register_recognizer(
    WordListRecognizer("profession_en", "PROFESSION", ("en",), 0.5, words=frozenset(job_heads()))
)
