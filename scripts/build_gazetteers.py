"""Build the shipped gazetteer files ``src/hidekit/data/wordfreq-en.txt`` (from the PyPI package
``wordfreq`` 3.1.1) and ``src/hidekit/data/demonyms-en.txt`` (from ``countryinfo`` 1.0.1).

The detector's common-word feature (``hidekit.text.detection.recognizers.gazetteers``) needs to
know how common an English word is, to tell "Will" the verb from "Will" the name and a rare word
(a surname, a village) from an everyday one. ``wordfreq`` answers that but is a 57 MB wheel, so
the list is derived once here and shipped: alphabetic English words with a Zipf frequency of at
least 3.0 (about once per million words), grouped by band (the Zipf value rounded down, 3 to 7).

wordfreq's data is redistributable under CC BY-SA 4.0 (its README, "License"); the derived file
keeps that license and says so in its header and in ``src/hidekit/data/README.md``.

Nationalities ("Ghanaian", "Irish") for the general-PII profile are the ``demonym`` field of
countryinfo's country files (MIT), split where one field holds two ("Antiguan,Barbudan"). Run:

    pip install wordfreq==3.1.1 countryinfo==1.0.1   # only to rebuild; hidekit needs neither
    python scripts/build_gazetteers.py
"""

from __future__ import annotations

import math
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "src" / "hidekit" / "data"
OUT = DATA / "wordfreq-en.txt"
DEMONYMS = DATA / "demonyms-en.txt"
MIN_ZIPF = 3.0
HEADER = """\
# English word frequency bands, derived from wordfreq 3.1.1 (Robyn Speer; data CC BY-SA 4.0,
# https://creativecommons.org/licenses/by-sa/4.0/) by scripts/build_gazetteers.py: alphabetic
# words with Zipf frequency >= 3.0, one band a line group ("= 5" starts band 5: Zipf 5.0-5.99).
# This file is licensed CC BY-SA 4.0 (share-alike), unlike the rest of hidekit (Apache-2.0).
"""


def bands(freqs: dict[str, float]) -> dict[int, list[str]]:
    """Zipf band (floor of log10 frequency per billion words) -> words, most frequent first."""
    out: dict[int, list[str]] = {}
    for word, f in sorted(freqs.items(), key=lambda kv: (-kv[1], kv[0])):
        zipf = math.log10(f) + 9
        if zipf < MIN_ZIPF or not word.isalpha() or len(word) < 2:
            continue
        out.setdefault(min(int(zipf), 7), []).append(word)
    return out


def demonyms() -> list[str]:
    """Every demonym of countryinfo's country files, one per line, sorted."""
    import json
    from importlib import resources

    out = set()
    for f in (resources.files("countryinfo") / "data").iterdir():
        if f.name.endswith(".json"):
            value = json.loads(f.read_text(encoding="utf-8")).get("demonym") or ""
            out.update(d.strip() for d in value.split(",") if d.strip())
    return sorted(out)


def main() -> None:
    from wordfreq import get_frequency_dict

    header = (
        "# Nationalities (demonyms) from countryinfo 1.0.1 (MIT), scripts/build_gazetteers.py\n"
    )
    DEMONYMS.write_text(header + "\n".join(demonyms()) + "\n", encoding="utf-8")
    print(f"{DEMONYMS}: {DEMONYMS.stat().st_size} bytes")

    groups = bands(get_frequency_dict("en", "large"))
    lines = [HEADER.rstrip("\n")]
    for band in sorted(groups, reverse=True):
        lines.append(f"= {band}")
        lines.extend(groups[band])
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {sum(map(len, groups.values()))} words, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
