"""Snapshot what hidekit writes, to show a refactoring changed no behaviour.

    .venv/bin/python scripts/snapshot_outputs.py SNAPSHOT_DIR          # write a snapshot
    .venv/bin/python scripts/snapshot_outputs.py --compare BEFORE AFTER  # compare two snapshots

Writes into SNAPSHOT_DIR:

- ``demo/``: the whole ``make demo`` output folder, made reproducible: the operating system's
  randomness (``os.urandom``: the demo key, salts, nonces) is replaced by a fixed stream for this
  process only, so two runs of the same code give byte-identical files;
- ``spans-*.jsonl``: the spans the shipped models find (``en`` on the demo's synthetic notes and on
  the English fixtures; ``es`` on MEDDOCAN dev from ``../shared/data/meddocan/dev`` when present,
  else on the small fixture in ``tests/fixtures/meddocan``), one JSON line per document.

The comparison is byte for byte, except that measured run times (``"seconds"`` in JSON
files, the last column of the audit table in the release's ``report.html``) are masked: they are
measured, so they differ between any two runs; and encrypted files (``.hkcw``) are compared by
what they hold, decrypted with the demo key (their salts and nonces are drawn in whatever order
modules are first imported).

A snapshot holds a fixed, publicly known demo key: never use it for real data.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEDDOCAN_DEV = ROOT.parent / "shared" / "data" / "meddocan" / "dev"


def _fixed_urandom() -> None:
    """Replace ``os.urandom`` by a fixed SHA-256 counter stream (this process only)."""
    state = {"n": 0}

    def urandom(size: int) -> bytes:
        out = b""
        while len(out) < size:
            state["n"] += 1
            out += hashlib.sha256(f"snapshot-{state['n']}".encode()).digest()
        return out[:size]

    os.urandom = urandom


def _write_spans(path: Path, docs) -> None:
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            spans = [[s.start, s.end, s.label, s.text, s.source] for s in d.spans]
            f.write(json.dumps({"id": d.id, "spans": spans}, ensure_ascii=False) + "\n")


def main(target: Path) -> None:
    target = target.resolve()
    _fixed_urandom()
    from hidekit.demo.pipeline import run_demo
    from hidekit.text.corpus import read_documents
    from hidekit.text.detection.detector import load_model
    from hidekit.text.synthesis import generate_notes

    target.mkdir(parents=True, exist_ok=False)
    os.chdir(target)  # the demo names its folder in its outputs: the same relative name each time
    run_demo(Path("demo"), echo=lambda s: print("•", s))
    en, es = load_model("en"), load_model("es")
    _write_spans(
        target / "spans-en-demo-notes.jsonl", en.detect_documents(generate_notes(40, 7), n_jobs=1)
    )
    for name in ("en-notes", "en-dev", "en-test2"):
        folder = ROOT / "tests" / "fixtures" / name
        if folder.is_dir():
            docs, _ = read_documents(folder)
            _write_spans(target / f"spans-en-{name}.jsonl", en.detect_documents(docs, n_jobs=1))
    dev = MEDDOCAN_DEV if MEDDOCAN_DEV.is_dir() else ROOT / "tests" / "fixtures" / "meddocan"
    print(f"MEDDOCAN dev from {dev}")
    docs, _ = read_documents(dev)
    _write_spans(target / "spans-es-meddocan-dev.jsonl", es.detect_documents(docs, n_jobs=1))


_TIMINGS = [
    (re.compile(rb'"seconds": [0-9.e-]+'), b'"seconds": _'),
    (re.compile(rb"<td>[0-9.]+</td></tr>"), b"<td>_</td></tr>"),
]


def _masked(path: Path, root: Path) -> bytes:
    if path.suffix == ".hkcw":  # encrypted: salts and nonces differ, compare what they hold
        from hidekit.jobs.files import read_crosswalk

        frame = read_crosswalk(path, key_file=root / "demo" / "demo.key")
        return frame.to_csv(index=False).encode("utf-8")
    data = path.read_bytes()
    if path.suffix in (".json", ".jsonl"):
        data = _TIMINGS[0][0].sub(_TIMINGS[0][1], data)
    if path.name == "report.html":
        data = _TIMINGS[1][0].sub(_TIMINGS[1][1], data)
    return data


def compare(before: Path, after: Path) -> int:
    """Print every file that differs or exists on one side only; 0 when none does."""
    files = {
        p.relative_to(root) for root in (before, after) for p in root.rglob("*") if p.is_file()
    }
    bad = 0
    for rel in sorted(files):
        a, b = before / rel, after / rel
        if not (a.exists() and b.exists()):
            print(f"only in {'after' if b.exists() else 'before'}: {rel}")
            bad += 1
        elif _masked(a, before) != _masked(b, after):
            print(f"differs: {rel}")
            bad += 1
    print(f"{len(files)} files compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    main(Path(sys.argv[1]))
