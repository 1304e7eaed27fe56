"""Long texts: ``text detect`` and ``scan`` time and peak memory against length, and the growth
exponent, beside the same text split into notes of ordinary length (the baseline, same run).

    .venv/bin/python benchmarks/bench_long_text.py [--sizes 50000,500000,1000000,5000000]
        [--no-scan] [--whole-up-to 1000000] [--cell note|digits] [--src PATH]

The long text is synthetic notes (``hidekit.text.synthesis.generate_notes``, seed 11) joined by blank
lines; past ``--notes`` notes the same notes are used again. Each size is measured in a fresh
Python process: the time of one ``Detector.detect`` call (model loaded and compiled first) and the
process's peak resident memory, as reported by the kernel (VmHWM), with the growth above the
resident size just before the call. The baseline reads the same characters as separate notes
(``detect_documents``, one process). The exponent is the least-squares slope of log time against
log length: 1 is linear, 2 quadratic.

``--whole-up-to N`` also times detection without windows (``Detector._detect_whole``) up to N
characters. ``scan`` reads a table whose one long cell holds the text (``--cell digits``: a run of
digits ending in a letter, the shape that made the number pattern quadratic), beside a table with
one note per row. ``--src PATH`` runs the children on another checkout's ``src`` (for figures of
an older version: only APIs that version had are used).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _vm(field: str) -> float:
    """A /proc/self/status memory field in MB (ru_maxrss where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(mode: str, notes_path: str, size: int, cell: str) -> dict:
    """One measurement in this (fresh) process."""
    notes = json.loads(Path(notes_path).read_text(encoding="utf-8"))
    parts, n = [], 0
    while n < size:
        for t in notes:
            parts.append(t)
            n += len(t) + 2
            if n >= size:
                break
    text = "\n\n".join(parts)[:size]
    split, pos = [], 0  # the same characters as notes of ordinary length
    for t in parts:
        piece = text[pos : pos + len(t)]
        if piece:
            split.append(piece)
        pos += len(t) + 2
    if mode.startswith("detect") or mode == "whole":
        from hidekit.text.detection.detector import load_model
        from hidekit.text.spans import Document

        det = load_model("en")
        det.detect(notes[0])  # compile and warm up
        if mode == "detect-split":
            docs = [Document(str(i), t) for i, t in enumerate(split)]
            run = lambda: sum(len(d.spans) for d in det.detect_documents(docs, n_jobs=1))  # noqa: E731
        elif mode == "whole":
            run = lambda: len(det._detect_whole(text))  # noqa: E731
        else:
            run = lambda: len(det.detect(text))  # noqa: E731
        extra = {"windows": len(det.windows(text))} if hasattr(det, "windows") else {}
    else:
        import pandas as pd

        from hidekit.scan import scan_table

        if cell == "digits":
            text = "1" * (size - 1) + "x"
        if mode == "scan-split":
            frame = pd.DataFrame({"note": split if cell == "note" else [text]})
            if cell == "digits":  # baseline: the same digits cut into notes' lengths
                frame = pd.DataFrame({"note": [text[i : i + 700] for i in range(0, size, 700)]})
        else:
            frame = pd.DataFrame({"note": [text, "seen today", "no change", "call back"]})
        scan_table(frame.iloc[:0])  # load the word lists first
        run = lambda: scan_table(frame)["note"].reason  # noqa: E731
        extra = {}
    rss = _vm("VmRSS")
    t, c = time.perf_counter(), time.process_time()
    out = run()
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    return {
        "seconds": secs,
        "cpu": cpu,
        "peak_mb": _vm("VmHWM"),
        "grew_mb": _vm("VmHWM") - rss,
        "out": out,
        **extra,
    }


def measure(mode: str, notes_path: Path, size: int, cell: str, src: str | None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable, __file__, "--child", mode, str(notes_path), str(size), cell]
    res = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if res.returncode:
        raise SystemExit(f"child {mode} {size} failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def slope(sizes: list[int], secs: list[float]) -> float:
    """Least-squares slope of log(seconds) on log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-6)) for t in secs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return (
        sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else float("nan")
    )


def table(title: str, sizes, long, base, extra_col: str | None = None) -> None:
    print(f"## {title}")
    head = (
        "| characters | long text s (CPU s) | peak MB (grew) | split notes s (CPU s) "
        "| peak MB (grew) | long / split (CPU) |"
    )
    print(head + (f" {extra_col} |" if extra_col else ""))
    print("|---:" * (6 + bool(extra_col)) + "|")
    for s, a, b in zip(sizes, long, base, strict=True):
        row = (
            f"| {s:,} | {a['seconds']:.2f} ({a['cpu']:.2f}) | {a['peak_mb']:.0f} ({a['grew_mb']:+.0f}) "
            f"| {b['seconds']:.2f} ({b['cpu']:.2f}) | {b['peak_mb']:.0f} ({b['grew_mb']:+.0f}) "
            f"| {a['cpu'] / max(b['cpu'], 1e-6):.2f} |"
        )
        if extra_col:
            row += f" {a.get('windows', '—')} |"
        print(row)
    if len(sizes) > 1:
        ex = [
            slope(sizes, [r[k] for r in rows]) for rows in (long, base) for k in ("seconds", "cpu")
        ]
        print(
            f"\ngrowth exponent (log-log slope of time against length): long text {ex[0]:.2f} wall, "
            f"{ex[1]:.2f} CPU; split notes {ex[2]:.2f} wall, {ex[3]:.2f} CPU"
        )
    print()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        mode, path, size, cell = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
        print(json.dumps(_child(mode, path, size, cell)))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="50000,500000,1000000,5000000")
    ap.add_argument("--notes", type=int, default=1500, help="distinct synthetic notes generated")
    ap.add_argument("--no-scan", action="store_true")
    ap.add_argument("--no-detect", action="store_true")
    ap.add_argument("--whole-up-to", type=int, default=0)
    ap.add_argument("--cell", choices=("note", "digits"), default="note")
    ap.add_argument("--src", default=None, help="run the measurements on this src folder")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    from hidekit.text.synthesis import generate_notes

    t = time.perf_counter()
    notes = [d.text for d in generate_notes(a.notes, seed=11)]
    print(
        f"{len(notes):,} synthetic notes, {sum(map(len, notes)):,} characters, generated in "
        f"{time.perf_counter() - t:.1f} s; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs; src {a.src or 'this checkout'}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "notes.json"
        path.write_text(json.dumps(notes), encoding="utf-8")
        if not a.no_detect:
            long = [measure("detect", path, s, a.cell, a.src) for s in sizes]
            base = [measure("detect-split", path, s, a.cell, a.src) for s in sizes]
            table(
                "text detect: one long note vs the same text as notes", sizes, long, base, "windows"
            )
            whole_sizes = [s for s in sizes if s <= a.whole_up_to]
            if whole_sizes:
                whole = [measure("whole", path, s, a.cell, a.src) for s in whole_sizes]
                table(
                    "text detect without windows (whole text at once) vs split notes",
                    whole_sizes,
                    whole,
                    base[: len(whole_sizes)],
                )
        if not a.no_scan:
            long = [measure("scan", path, s, a.cell, a.src) for s in sizes]
            base = [measure("scan-split", path, s, a.cell, a.src) for s in sizes]
            table(f"scan: one long cell ({a.cell}) vs the same text as cells", sizes, long, base)


if __name__ == "__main__":
    main()
