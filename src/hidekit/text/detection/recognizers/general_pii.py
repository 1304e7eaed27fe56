"""Recognizers of the general-PII profile (issue 14): nationalities and personal titles.

Survey answers, e-mails and chats name a person's nationality ("my husband is Ghanaian") and
address people by title ("Mrs Okafor", "Rev. Boateng"); neither is a clinical identifier, so the
English clinical model is not trained on them and the ``general`` profile of
``hidekit.text.profiles`` runs these beside it. They apply to no language (``languages`` names
the profile), so a model trained for ``en`` does not pick them up.

- ``nationality_en``: the demonyms of ``hidekit/data/demonyms-en.txt`` (derived from the PyPI
  package countryinfo, MIT; ``scripts/build_gazetteers.py``), capitalized, as whole words;
- ``title_en``: an honorific before a capitalized word ("Dr", "Mrs.", "Prof", "Rev", "Sir") —
  the title alone is the span; the name after it is the model's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from hidekit.text.detection.recognizers.base import Recognizer, register_recognizer
from hidekit.text.spans import Span

TITLES = [
    "Mr",
    "Mrs",
    "Ms",
    "Miss",
    "Mx",
    "Mstr",
    "Master",
    "Dr",
    "Doctor",
    "Prof",
    "Professor",
    "Rev",
    "Revd",
    "Reverend",
    "Fr",
    "Father",
    "Sr",
    "Sister",
    "Pastor",
    "Imam",
    "Rabbi",
    "Sir",
    "Dame",
    "Lady",
    "Lord",
    "Hon",
    "Chief",
    "Alhaji",
    "Alhaja",
    "Capt",
    "Captain",
    "Sgt",
    "Col",
    "Lt",
    "Maj",
    "Gen",
    "Cllr",
    "Councillor",
    "Judge",
]


@lru_cache(maxsize=1)
def demonyms() -> tuple[str, ...]:
    raw = (resources.files("hidekit") / "data" / "demonyms-en.txt").read_text(encoding="utf-8")
    return tuple(ln.strip() for ln in raw.splitlines() if ln.strip() and not ln.startswith("#"))


@dataclass
class _LazyRegexRecognizer(Recognizer):
    """A regular expression built on first use; ``group`` is the span."""

    group: int = 0
    _rx: re.Pattern | None = field(default=None, repr=False, compare=False)

    def pattern(self) -> re.Pattern:  # pragma: no cover - abstract
        raise NotImplementedError

    def find(self, text: str) -> list[Span]:
        if self._rx is None:
            self._rx = self.pattern()
        out = []
        for m in self._rx.finditer(text):
            s, e = m.span(self.group)
            out.append(Span(s, e, self.label, text[s:e], self.name, self.score))
        return out


@dataclass
class NationalityRecognizer(_LazyRegexRecognizer):
    def pattern(self) -> re.Pattern:
        words = sorted(demonyms(), key=len, reverse=True)
        return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, words)) + r")s?(?![\w-])")


@dataclass
class TitleRecognizer(_LazyRegexRecognizer):
    def pattern(self) -> re.Pattern:
        titles = "|".join(sorted(TITLES, key=len, reverse=True))
        return re.compile(rf"(?<![\w.])({titles})\.?(?=[ \t]+[A-Z][\w'’-])")


register_recognizer(NationalityRecognizer("nationality_en", "NATIONALITY", ("general",), 0.8))
register_recognizer(TitleRecognizer("title_en", "TITLE", ("general",), 0.8, group=1))
