"""Clinical filler slots (never PHI): lab tables, vitals, medications, diagnoses."""

from __future__ import annotations

from datetime import timedelta

from hidekit.text.synthesis.data_files import words
from hidekit.text.synthesis.note import _Note
from hidekit.text.synthesis.vocab import DIAGNOSES, DOSES, DRUGS, EPONYMS, FREQS
from hidekit.text.synthesis.writer import Segment


def _md_table(n: _Note) -> list[Segment]:
    """A small lab table whose columns are days written without a year ("3/6  3/7  3/8")."""
    days = sorted({n.admit + timedelta(days=k) for k in n.rng.sample(range(-3, 6), 3)})
    out: list[Segment] = [(n.pick(["", "Labs", "Trend", "Date"]).ljust(10), None)]
    for d in days:
        out += n.month_day(d) + [("   ", None)]
    out.append(("\n", None))
    for test in n.rng.sample(words("md_table.1", "l"), 3):
        vals = "   ".join(f"{n.rng.uniform(0.5, 150):.1f}" for _ in days)
        out.append((f"{test.ljust(10)}{vals}\n", None))
    return out


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
