"""The plan steps that used to run on the driver under ``--engine spark`` (partition, optimal,
suppress_risk with weights and ``missing="any"``), on Spark and, as the baseline in the same run,
forced back onto the driver (``spark_scope = "table"``, what main did) and on the default engine.

Each mode runs in a process of its own; printed: wall time of the release, each step's seconds,
the driver's peak memory (this Python process: records brought to the driver show there), and
whether the released file is the default engine's, byte for byte.

    python benchmarks/bench_spark_steps.py --records 200000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from spark_steps_plan import write_steps_folder  # noqa: E402

KEY = bytes(range(61, 93))  # benchmark-only key (32 distinct bytes)
STEPS = ("partition", "optimal", "suppress_risk")


def prepare(folder: Path, records: int) -> None:
    """The survey, hierarchies and plan that ``tests/test_spark_plan_steps.py`` checks."""
    write_steps_folder(folder, records)


def run_mode(folder: Path, mode: str) -> dict:
    """One release in this process: ``duckdb``, ``spark`` or ``driver`` (Spark with the steps
    forced to the table scope)."""
    from hidekit.jobs.release_job import run_plan
    from hidekit.registry import TRANSFORMS
    from hidekit.release import load_plan

    if mode == "driver":
        for name in STEPS:
            TRANSFORMS[name].spark_scope = "table"
            if hasattr(TRANSFORMS[name], "spark_apply"):
                delattr(TRANSFORMS[name], "spark_apply")
    engine = "duckdb" if mode == "duckdb" else "spark"
    plan = load_plan(folder / "plan.toml", output=folder / mode, key=KEY)
    t0 = time.perf_counter()
    result = run_plan(plan, engine=engine, scan=False)
    wall = time.perf_counter() - t0
    data = (folder / mode / "survey.csv").read_bytes()
    return {
        "mode": mode,
        "wall": round(wall, 1),
        "steps": {s.use: round(s.seconds, 1) for s in result.steps},
        "driver_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "sha256": hashlib.sha256(data).hexdigest()[:16],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(run_mode(Path(args.folder), args.mode)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prepare(folder, args.records)
        print(f"{args.records:,} records; load {Path('/proc/loadavg').read_text().split()[:3]}")
        rows = []
        for mode in ("duckdb", "driver", "spark"):
            out = subprocess.run(
                [sys.executable, __file__, "--mode", mode, "--folder", str(folder)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
        same = len({r["sha256"] for r in rows}) == 1
        print(f"released files identical: {same}")
        print(f"load after: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()
