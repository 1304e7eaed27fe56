"""Allow- and deny-lists: the user's last word on what is PHI.

- **allow**: terms that are never PHI. A span whose text is an allowed term, or that lies inside
  an occurrence of one in the text ("E." inside an allowed "E. coli"), is dropped. A longer span
  holding an allowed term ("Parkinson Memorial Hospital" with "Parkinson" allowed) stays: the
  term is part of something else.
- **deny**: terms that are always PHI, each of a given type (``TERM<TAB>LABEL``; "PHI" when no
  label is given). Every whole-word occurrence (case-insensitive, any white space) becomes a
  span, and spans overlapping it give way.

Both are enforced after everything else a detector does (its boundary repairs may not drop a
denied term nor bring back an allowed one), and again on annotations given to
``text anonymize --spans``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from hidekit.errors import InputError
from hidekit.text.spans import Span, sort_spans


def norm_term(term: str) -> str:
    return " ".join(term.split()).casefold()


def read_terms(path, labelled: bool = False) -> list[str] | dict[str, str] | None:
    """A term file, one term a line (``labelled``: ``TERM<TAB>LABEL``, label "PHI" if absent);
    blank lines and lines starting with ``#`` are skipped. A missing file is a one-line error."""
    if path is None:
        return None
    from hidekit.io.files import read_text_file

    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such term list")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a term list (one term a line)")
    lines = [
        ln
        for ln in read_text_file(path, keep_bom=False).splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not labelled:
        return [ln.strip() for ln in lines]
    terms = {}
    for ln in lines:
        term, _, label = ln.partition("\t")
        terms[term.strip()] = label.strip() or "PHI"
    return terms


def term_alternation(terms: Iterable[str]) -> str:
    """A regex alternation of ``terms``, longest first, a space matching any white space."""
    return "|".join(
        re.escape(" ".join(t.split())).replace(r"\ ", r"\s+")
        for t in sorted(set(terms), key=len, reverse=True)
    )


def _pattern(terms: Iterable[str]) -> re.Pattern | None:
    alt = term_alternation(terms)
    return re.compile(rf"(?<!\w)(?:{alt})(?!\w)", re.IGNORECASE) if alt else None


class TermLists:
    """An allow-list and a deny-list, applied to the spans of one text at a time."""

    def __init__(
        self,
        allow: Iterable[str] | None = None,
        deny: Mapping[str, str] | Iterable[str] | None = None,
    ) -> None:
        self.allow = sorted({norm_term(a) for a in (allow or []) if a.strip()})
        if deny is None:
            deny = {}
        elif not isinstance(deny, Mapping):
            deny = {d: "PHI" for d in deny}
        self.deny = {k: v for k, v in deny.items() if k.strip()}
        self._deny_label = {norm_term(k): v for k, v in self.deny.items()}
        self._allow_rx = _pattern(self.allow)
        self._deny_rx = _pattern(self.deny)

    def __bool__(self) -> bool:
        return bool(self.allow or self.deny)

    def denied(self, text: str) -> list[Span]:
        """A span for every occurrence of a denied term, labelled by its list entry."""
        if self._deny_rx is None:
            return []
        return [
            Span(
                m.start(),
                m.end(),
                self._deny_label.get(norm_term(m.group()), "PHI"),
                m.group(),
                "deny-list",
                1.0,
            )
            for m in self._deny_rx.finditer(text)
        ]

    def is_allowed(self, text: str, span: Span) -> bool:
        """``span`` is an allowed term or lies inside an occurrence of one."""
        if not self.allow or span.source == "deny-list":
            return False
        if norm_term(span.text) in self.allow:
            return True
        allow_rx = self._allow_rx
        if allow_rx is None:  # pragma: no cover - set whenever ``allow`` is
            return False
        lo, hi = max(0, span.start - 200), min(len(text), span.end + 200)
        return any(
            m.start() <= span.start and span.end <= m.end() for m in allow_rx.finditer(text, lo, hi)
        )

    def apply(self, text: str, spans: Iterable[Span]) -> list[Span]:
        """``spans`` with allowed ones dropped and every denied term covered: by a longer span
        already holding it, else by its own span with the list's type, joined with any span it
        partly overlaps (so no part of either is left out)."""
        out = sort_spans(s for s in spans if not self.is_allowed(text, s))
        for d in self.denied(text):
            if any(s.start <= d.start and d.end <= s.end and s != d for s in out):
                continue  # inside a longer span (or the same span with the list's type)
            out = [s for s in out if (s.start, s.end) != (d.start, d.end)]  # the list's type wins
            start, end = d.start, d.end
            while touching := [s for s in out if s.start < end and start < s.end]:
                out = [s for s in out if s not in touching]
                start = min([start] + [s.start for s in touching])
                end = max([end] + [s.end for s in touching])
            if (start, end) != (d.start, d.end):
                d = Span(start, end, d.label, text[start:end], "deny-list", 1.0)
            out.append(d)
            out.sort()
        return out
