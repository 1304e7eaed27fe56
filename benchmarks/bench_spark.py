"""Spark benchmarks: the demo release plan on both engines (same file, same run, identical
output checked), and the weighted risk figures (f_k, F_k, individual risk) on Spark beside DuckDB.

Wall time, the CPU time of this process and of Spark's JVM (with its Python workers), and peak memory (this process; the
JVM's high-water mark) are printed: on a shared machine wall time alone says little.

    python benchmarks/bench_spark.py --plan-records 1000000 --risk-records 10000000
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
KEY = bytes(range(101, 133))  # benchmark-only key (32 distinct bytes)
RISK_KEYS = ["sex", "age", "state", "race", "marital_status", "education"]


def _jvm_pid() -> int | None:
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None) if gateway else None
    return proc.pid if proc else None


def _tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and every process below it (Spark's Python workers are the JVM's
    grandchildren; finished ones count in their parent's children time)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
    below, todo = set(), [root]
    while todo:
        pid = todo.pop()
        below.add(pid)
        todo += [p for p, f in stats.items() if int(f[1]) == pid and p not in below]
    ticks = sum(sum(int(x) for x in stats[p][11:15]) for p in below if p in stats)
    return ticks / os.sysconf("SC_CLK_TCK")


def jvm_cpu_and_peak() -> tuple[float, float]:
    """CPU seconds of Spark's JVM with its Python workers, and the JVM's peak resident MB (0
    where /proc is not readable)."""
    pid = _jvm_pid()
    if pid is None:
        return 0.0, 0.0
    try:
        cpu = _tree_cpu(pid)
        hwm = next(
            line
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("VmHWM")
        )
        return cpu, int(hwm.split()[1]) / 1024
    except (OSError, StopIteration, IndexError, ValueError):
        return 0.0, 0.0


class Clock:
    """Wall and CPU time of a block: this process, and the JVM when Spark runs."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.jvm = jvm_cpu_and_peak()[0] if _jvm_pid() else 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu
        self.jvm = (jvm_cpu_and_peak()[0] - self.jvm) if _jvm_pid() else 0.0

    def row(self, label: str) -> str:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        jvm_peak = jvm_cpu_and_peak()[1]
        return (
            f"| {label} | {self.wall:.1f} | {self.cpu:.1f} | {self.jvm:.1f} | {peak:,.0f} | "
            f"{jvm_peak:,.0f} |"
        )


def time_actions() -> None:
    """Print every Spark action (``toPandas``, ``collect``, ``count``, ``first``,
    ``toLocalIterator``, a text write) with its seconds and the hidekit line that asked for it,
    and the CPU seconds Spark's JVM and its workers have used when it ends: where a plan's time
    goes, without Spark's UI (CPU differences between actions say it when the load varies)."""
    import traceback

    from pyspark.sql import DataFrame, DataFrameWriter

    start = time.perf_counter()

    def caller() -> str:
        for frame in reversed(traceback.extract_stack()[:-2]):
            if "/hidekit/" in frame.filename:
                return f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
        return "?"

    def timed(cls, name: str) -> None:
        action = getattr(cls, name)

        def run(self, *args, **kwargs):
            t, where = time.perf_counter(), caller()
            try:
                return action(self, *args, **kwargs)
            finally:
                done, cpu = time.perf_counter(), jvm_cpu_and_peak()[0]
                print(
                    f"  [{t - start:7.1f} s, JVM CPU {cpu:7.1f} s] {done - t:7.2f} s {name} "
                    f"({where})",
                    flush=True,
                )

        setattr(cls, name, run)

    for name in ("toPandas", "collect", "count", "first", "toLocalIterator"):
        timed(DataFrame, name)
    timed(DataFrameWriter, "text")


HEADER = (
    "| run | wall s | python CPU s | JVM CPU s | python peak MB | JVM peak MB |\n"
    "|---|---|---|---|---|---|"
)


def _survey(records: int, tmp: Path, keep: Path | None = None) -> Path:
    """The demo survey at ``records`` rows, as a CSV written by chunks (``_survey_csv``, shared
    with the default engine's benchmarks; generated, never stored in the repo). With ``keep``,
    it is made there once (outside the timed lock) and reused."""
    from _survey_csv import write_survey_csv

    path = (keep or tmp) / f"survey-{records}.csv"
    if keep and path.exists():
        return path
    t = time.perf_counter()
    path = write_survey_csv(path, records)
    print(f"survey of {records:,} records generated in {time.perf_counter() - t:.1f} s")
    return path


def bench_plan(
    records: int,
    engines: tuple[str, ...] = ("duckdb", "spark"),
    keep: Path | None = None,
    given: Path | None = None,
) -> None:
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        src = given or _survey(records, tmp, keep)
        print(f"\ndemo release plan, {records:,} records (read, 8 steps, checks, write)")
        print(f"input: {src} ({src.stat().st_size / 1e6:,.0f} MB)")
        print(HEADER)
        steps = {}
        for engine in engines:
            plan = load_plan(ROOT / "examples" / "demo-plan.toml", output=tmp / engine, key=KEY)
            plan.input = src
            plan.overwrite = True
            t0, done = time.perf_counter(), []

            def step_done(*_, engine=engine, t0=t0, done=done) -> None:
                done.append(1)
                cpu, load = jvm_cpu_and_peak()[0], os.getloadavg()[0]
                print(
                    f"  {engine}: step {len(done)} done at {time.perf_counter() - t0:.0f} s "
                    f"(JVM + workers CPU {cpu:.1f} s so far, load {load:.1f})"
                )

            with Clock() as c:
                res = run_plan(plan, engine=engine, scan=True, progress=step_done)
            print(c.row(engine))
            steps[engine] = res.steps
        if len(engines) < 2:
            for s in steps[engines[0]]:
                print(f"| {s.step} | {s.use} | {s.seconds:.2f} |")
            return
        same = _same_file(tmp / "duckdb" / src.name, tmp / "spark" / src.name)
        print(f"\nreleased files identical: {same}")
        print("| step | use | duckdb s | spark s |\n|---|---|---|---|")
        for a, b in zip(steps["duckdb"], steps["spark"], strict=True):
            print(f"| {a.step} | {a.use} | {a.seconds:.2f} | {b.seconds:.2f} |")


def _same_file(a: Path, b: Path) -> bool:
    """Byte-equal files, compared by chunks (a 10M-record release is about 1 GB)."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 24), fb.read(1 << 24)
            if x != y:
                return False
            if not x:
                return True


def bench_weighted_risk(records: int) -> None:
    """f_k, F_k and the individual risk per record (issue 11's Spark item) on both engines."""
    from hidekit.engines import make_engine
    from hidekit.engines.spark_engine import SparkEngine
    from hidekit.risk import measure_risk

    rng = np.random.default_rng(11)
    cards = {"sex": 2, "age": 80, "state": 50, "race": 6, "marital_status": 5, "education": 5}
    frame = pd.DataFrame({k: rng.integers(0, c, records, dtype=np.int64) for k, c in cards.items()})
    frame["w"] = rng.uniform(50, 150, records)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "risk.parquet"
        frame.to_parquet(path)
        del frame
        print(f"\nweighted risk, {records:,} records, keys {', '.join(RISK_KEYS)}, weights w")
        print(HEADER)
        figures = {}
        for engine in ("duckdb", "spark"):
            with Clock() as c:
                eng = SparkEngine.from_path(path) if engine == "spark" else make_engine(path)
                # the weighted figures only: the log-linear estimate reads every record's codes
                r = measure_risk(eng, RISK_KEYS, weights="w", engine=eng, loglinear=None).records
            print(c.row(engine))
            figures[engine] = r
        a, b = figures["duckdb"], figures["spark"]
        same = np.array_equal(a.figures.fk, b.figures.fk) and np.allclose(
            a.figures.Fk, b.figures.Fk, rtol=1e-12
        )
        print(f"same f_k and F_k per record on both engines: {same}")
        print(
            f"expected re-identifications: duckdb {a.summary.expected_reidentifications:.4f}, "
            f"spark {b.summary.expected_reidentifications:.4f}"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan-records", type=int, nargs="*", default=[1_000_000])
    ap.add_argument("--risk-records", type=int, nargs="*", default=[1_000_000])
    ap.add_argument("--plan-engines", default="duckdb,spark", help="engines the plan runs on")
    ap.add_argument("--tmp", help="folder for the generated survey and the releases")
    ap.add_argument("--keep-survey", type=Path, help="folder where the survey is made once, kept")
    ap.add_argument("--only-survey", action="store_true", help="make the survey (--keep-survey)")
    ap.add_argument("--actions", action="store_true", help="print every Spark action's seconds")
    ap.add_argument(
        "--input", type=Path, help="the survey file the plan reads (CSV or Parquet; one size)"
    )
    args = ap.parse_args(argv)
    if args.tmp:
        Path(args.tmp).mkdir(parents=True, exist_ok=True)
        tempfile.tempdir = args.tmp
    os.environ.setdefault("HIDEKIT_SPARK_MEMORY", "5g")
    if args.only_survey:
        for n in args.plan_records:
            _survey(n, Path(tempfile.gettempdir()), args.keep_survey)
        return
    try:
        import pyspark  # noqa: F401

        from hidekit.engines.spark_engine import get_spark, java_command
    except ImportError:
        print("SKIP: PySpark is not installed (pip install 'hidekit[spark]')")
        return
    if java_command() is None:
        print("SKIP: no Java for Spark")
        return
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    get_spark()
    if args.actions:
        time_actions()
    for n in args.plan_records:
        bench_plan(n, tuple(args.plan_engines.split(",")), args.keep_survey, args.input)
    for n in args.risk_records:
        bench_weighted_risk(n)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
