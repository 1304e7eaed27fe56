"""``hidekit text detect`` on 20,000 notes through the command line (issue 17), one run.

    .venv/bin/python benchmarks/bench_text_scale.py [--n 20000] [--seed 11] [--jobs 1,2,auto]

The notes are ``generate_notes(N, seed)`` written to JSONL (generated once, untimed, and kept in
``--tmp``, default /tmp/hidekit-bench). Each ``-j`` setting runs as a child process under
``/usr/bin/time``: wall, CPU (user + sys, workers included) and peak memory, the load average
beside it. Baseline in the same run: the library's per-note path, ``Detector.detect`` called note
by note in one process (no CLI, no reading or writing), on the first ``--baseline`` notes and
scaled to N; and the figure recorded before this work (121 s for 20,000 notes,
``docs/benchmarks/scale.md``), as a ratio. The outputs of every setting must be byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import measure  # noqa: E402

RECORDED_SECONDS = 121.0  # `hidekit text detect`, 20,000 notes, two sessions ago (issue 17)


def notes_file(n: int, seed: int, folder: Path) -> Path:
    """The JSONL of ``generate_notes(n, seed)``, written once."""
    from hidekit.jobs.corpus import write_jsonl
    from hidekit.text.synthesis import generate_notes

    path = folder / f"notes-{n}-{seed}.jsonl"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        write_jsonl(generate_notes(n, seed=seed), path)
        print(f"generated {path} in {time.perf_counter() - t0:.0f} s (not timed below)")
    return path


def per_note_seconds(path: Path, count: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``detect`` note by note on the first ``count`` notes."""
    from hidekit.text.corpus import read_jsonl
    from hidekit.text.detection.detector import load_model

    docs = read_jsonl(path)[:count]
    det = load_model("en")
    det.detect(docs[0].text)  # compiled code loaded, lists built
    t0, c0 = time.perf_counter(), time.process_time()
    for d in docs:
        det.detect(d.text)
    return time.perf_counter() - t0, time.process_time() - c0, len(docs)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--jobs", default="1,2,auto", help="-j settings, comma-separated (auto: no -j given)"
    )
    ap.add_argument("--baseline", type=int, default=1000, help="notes for the per-note baseline")
    ap.add_argument("--tmp", type=Path, default=Path("/tmp/hidekit-bench"))
    args = ap.parse_args(argv)

    src = notes_file(args.n, args.seed, args.tmp)
    print(f"{args.n:,} notes (seed {args.seed}), {src.stat().st_size:,} bytes of JSONL")
    wall, cpu, k = per_note_seconds(src, args.baseline)
    scaled, scaled_cpu = wall * args.n / k, cpu * args.n / k
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"per-note baseline (Detector.detect, {k} notes, one process): {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU; scaled to {args.n:,} notes {scaled:.1f} s wall, {scaled_cpu:.1f} s "
        f"CPU (load {load})"
    )
    hidekit = str(Path(sys.executable).with_name("hidekit"))
    print(f"\n| -j | wall s | CPU s | peak MB | vs {RECORDED_SECONDS:.0f} s | vs per-note | load |")
    print("|---|---:|---:|---:|---:|---:|---|")
    digests = set()
    for jobs in args.jobs.split(","):
        out = args.tmp / f"out-j{jobs}"
        argv_ = [hidekit, "text", "detect", str(src), "--out", str(out), "--format", "jsonl"]
        argv_ += (["-j", jobs] if jobs != "auto" else []) + ["--overwrite", "--json"]
        run = measure(f"-j {jobs}", argv_)
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        if not run.ok:
            continue
        digests.add(digest(out / "predictions.jsonl"))
        print(
            f"| {jobs} | {run.wall:.1f} | {run.cpu:.1f} | {run.peak_mb:.0f} | "
            f"{RECORDED_SECONDS / run.wall:.2f}× | {scaled / run.wall:.2f}× | {load} |"
        )
    print(
        f"\noutputs identical across settings: {len(digests) == 1} ({', '.join(sorted(digests))})"
    )


if __name__ == "__main__":
    main()
