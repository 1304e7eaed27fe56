"""Release benchmarks: local suppression on Adult beside sdcMicro's published figure, and the
whole demo plan on 1,000,000 records with the time of each step.

    python benchmarks/bench_release.py [--records 1000000]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SDC_SECONDS, SDC_CELLS = 35.6, 7883  # sdcMicro localSuppression, Adult, 5 keys, k=5, 2 cores
KEYS = ["sex", "age", "race", "marital-status", "education"]


def bench_suppression() -> None:
    from hidekit.io import read_table
    from hidekit.transforms.suppression import local_suppression

    adult = SHARED / "adult" / "adult.csv"
    if not adult.exists():
        print(f"skip: {adult} not found (the shared data folder is absent)")
        return
    frame = read_table(adult).frame
    t = time.perf_counter()
    frame.groupby(KEYS).size()  # baseline: one pandas group-by over the keys
    base = time.perf_counter() - t
    print(
        f"Adult {len(frame):,} records, keys {', '.join(KEYS)}, k=5; baseline group-by {base:.3f} s"
    )
    print("| rule | seconds | × faster than sdcMicro | cells suppressed | sdcMicro cells |")
    print("|---|---|---|---|---|")
    for rule in ("wildcard", "category"):
        best = None
        for _ in range(3):
            t = time.perf_counter()
            r = local_suppression(frame, KEYS, 5, missing=rule)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        print(f"| {rule} | {best:.2f} | {SDC_SECONDS / best:.0f}× | {r.total:,} | {SDC_CELLS:,} |")


def bench_plan(records: int) -> None:
    from hidekit.demo.survey import generate_survey
    from hidekit.io import write_table
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    t = time.perf_counter()
    frame = generate_survey(records, 7)
    print(f"\nsurvey of {records:,} records generated in {time.perf_counter() - t:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        src = write_table(frame, Path(tmp) / "survey.parquet")
        plan = load_plan(
            Path(__file__).resolve().parents[1] / "examples" / "demo-plan.toml",
            output=Path(tmp) / "release",
            key=os.urandom(32),  # the demo plan's key file need not exist; never printed
        )
        plan.input = src
        plan.overwrite = True
        t = time.perf_counter()
        res = run_plan(plan, passphrase="bench-only", scan=True)
        total = time.perf_counter() - t
    print("| step | use | seconds |")
    print("|---|---|---|")
    for s in res.steps:
        print(f"| {s.step} | {s.use} | {s.seconds:.2f} |")
    print(f"| all | read, steps, checks, write | {total:.2f} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:,.0f} MB; k {res.before.k} -> {res.after.k}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--skip-plan", action="store_true")
    args = ap.parse_args(argv)
    bench_suppression()
    if not args.skip_plan:
        bench_plan(args.records)


if __name__ == "__main__":
    sys.exit(main())
