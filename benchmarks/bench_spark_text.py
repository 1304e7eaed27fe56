"""``hidekit text anonymize`` on 20,000 notes, local engine against ``--engine spark`` (issue 17).

    .venv/bin/python benchmarks/bench_spark_text.py [--n 20000] [--seed 11] [--operator surrogate]

The notes are ``generate_notes(N, seed, notes_per_patient=5)`` written to JSONL (generated once,
untimed, kept in ``--tmp``, default /tmp/hidekit-bench), anonymized with the shipped English
model, a key file and ``--patient-pattern``. Each engine runs the job (``jobs.anonymize_text``,
what the command runs) in a child process under ``/usr/bin/time`` (``bench_scale.measure``):
wall, CPU (user + sys; for Spark plus its JVM and Python workers, read from /proc by
``bench_spark.jvm_cpu_and_peak``) and peak memory (the largest single process), the load average
beside it. The baseline is the local engine in the same run; the outputs must be identical (the
texts, the audit and the decrypted mapping, compared at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import measure  # noqa: E402
from bench_spark import jvm_cpu_and_peak  # noqa: E402

PATTERN = r"^note-(.+)-\d+$"


def notes_file(n: int, seed: int, folder: Path) -> Path:
    """The JSONL of ``generate_notes(n, seed, notes_per_patient=5)``, written once."""
    from hidekit.jobs.corpus import write_jsonl
    from hidekit.text.synthesis import generate_notes

    path = folder / f"notes-{n}-{seed}-p5.jsonl"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        write_jsonl(generate_notes(n, seed=seed, notes_per_patient=5), path)
        print(f"generated {path} in {time.perf_counter() - t0:.0f} s (not timed below)")
    return path


def outputs(out: Path, key: Path) -> tuple[list, list, list]:
    """(texts, audit, decrypted mapping) of a run's output folder, as plain rows."""
    import pandas as pd

    from hidekit.jobs.files import read_crosswalk
    from hidekit.secrets import load_key

    if (out / "documents.parquet").exists():
        docs = pd.read_parquet(out / "documents.parquet")[["id", "text"]].values.tolist()
        audit = pd.read_parquet(out / "replacements.parquet").to_dict("records")
    else:
        with open(out / "documents.jsonl", encoding="utf-8") as f:
            docs = [[d["id"], d["text"]] for d in map(json.loads, f)]
        with open(out / "replacements.jsonl", encoding="utf-8") as f:
            audit = [json.loads(line) for line in f]
    private = out.with_name(out.name + ".private") / "mapping.hkcw"
    mapping = []
    if private.exists():
        mapping = read_crosswalk(private, key_file=load_key(key)).to_dict("records")
    return docs, audit, mapping


def child(engine: str, src: Path, out: Path, key: Path, operator: str, report: Path) -> None:
    """One run, as the command runs it (``jobs.anonymize_text``); Spark's JVM and Python workers
    are not this process's waited-for children, so their CPU and the JVM's peak go to ``report``."""
    from hidekit import jobs
    from hidekit.jobs import SecretOptions

    jobs.anonymize_text(
        src,
        out,
        operator=operator,
        model="en",
        patient_pattern=PATTERN,
        secrets=SecretOptions(key_file=key),
        overwrite=True,
        engine=engine,
    )
    jvm_cpu, jvm_peak = jvm_cpu_and_peak() if engine == "spark" else (0.0, 0.0)
    report.write_text(json.dumps({"cpu": jvm_cpu, "peak_mb": jvm_peak}))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--operator", default="surrogate")
    ap.add_argument("--engines", default="local,spark")
    ap.add_argument("--tmp", type=Path, default=Path("/tmp/hidekit-bench"))
    ap.add_argument(
        "--compare", action="store_true", help="only compare the outputs of earlier runs"
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    from hidekit.jobs.files import new_key_file

    src = notes_file(args.n, args.seed, args.tmp)
    key = args.tmp / "bench-text-spark.key"
    if not key.exists():
        new_key_file(key)
    report = args.tmp / "bench-text-spark.json"
    if args.child:
        out = args.tmp / f"anon-{args.child}"
        return child(args.child, src, out, key, args.operator, report)
    print(f"{args.n:,} notes (seed {args.seed}), {src.stat().st_size:,} bytes of JSONL")
    print("\n| engine | wall s | CPU s | peak MB | vs local (wall) | load before → after |")
    print("|---|---:|---:|---:|---:|---|")
    base, results = None, {}
    for engine in args.engines.split(",") if not args.compare else []:
        before = " ".join(f"{x:.1f}" for x in os.getloadavg())
        argv_ = [sys.executable, __file__, "--n", str(args.n), "--seed", str(args.seed)]
        argv_ += ["--operator", args.operator, "--tmp", str(args.tmp), "--child", engine]
        report.unlink(missing_ok=True)
        run = measure(engine, argv_)
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        if not run.ok:
            continue
        jvm = json.loads(report.read_text())
        base = base or run.wall
        results[engine] = args.tmp / f"anon-{engine}"
        print(
            f"| {engine} | {run.wall:.1f} | {run.cpu + jvm['cpu']:.1f} | "
            f"{max(run.peak_mb, jvm['peak_mb']):.0f} | {base / run.wall:.2f}× | {before} → {load} |"
        )
    if args.compare:
        results = {e: args.tmp / f"anon-{e}" for e in args.engines.split(",")}
    got = {engine: outputs(out, key) for engine, out in results.items()}
    first = next(iter(got.values()))
    same = all(g == first for g in got.values())
    print(
        f"\noutputs identical across engines: {same} ({len(first[0]):,} notes, "
        f"{len(first[1]):,} replacements, {len(first[2]):,} mapping records)"
    )


if __name__ == "__main__":
    main()
