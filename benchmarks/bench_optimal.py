"""Optimal full-domain generalization: hidekit beside ARX 3.9.2, in the same run.

For Adult (30,162 records) and Adult resampled to 1,000,000 records, with the 8 usual
quasi-identifiers and ARX's hierarchies, both tools search k ∈ {5, 10} × suppression ∈ {0, 5 %}
× metric ∈ {Loss, discernibility, precision}. Like is compared with like:

- ARX (``../shared/tools/arx/arx-optimal``) times ``ARXAnonymizer.anonymize()`` only, on a ``Data``
  whose handle was materialised before (CSV parsed, values dictionary-encoded, hierarchies read);
  one warm-up, best of three.
- hidekit times ``optimal_generalization`` on an engine that holds the key columns' codes (encoded
  once before, timed apart) with hierarchies read before: the timed span counts the cells from the
  codes, encodes the hierarchies, searches and builds the result; one warm-up, best of three
  (wall, and the CPU time of that run).

Then each tool's whole process: ARX's runner (JVM start, 12 settings × 4 runs) and hidekit's
command line for one setting (start-up, count, search, read, release written), wall, CPU and peak
memory from ``/usr/bin/time``.

    python benchmarks/bench_optimal.py            # Adult and 1M
    python benchmarks/bench_optimal.py --quick    # Adult only
    python benchmarks/bench_optimal.py --no-adult            # 1M only
    python benchmarks/bench_optimal.py --quick --no-adult --spark-rows 10000000 --k 1650

With ``--spark-rows N``, Adult is resampled to N records in a Parquet file that Spark (local[2])
reads and counts itself with one groupBy; the search (``--k``, 5 %, Loss) then runs on the class
counts on the driver. DuckDB counts the same file for comparison. Each runs in a child process
under /usr/bin/time; Spark's JVM CPU and peak memory are read from /proc. Resampled records repeat
(every Adult record about N / 30,162 times), so a k of 5 · N / 30,162 asks as much as k = 5 of
Adult itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.anonymize.optimal import optimal_generalization
from hidekit.engines import DuckDBEngine
from hidekit.io.hierarchy import read_hierarchies

from _common import ADULT_KEYS, ROOT, peak_memory_mb, shared_data

ARX = ROOT.parent / "shared" / "tools" / "arx" / "arx-optimal"
METRICS = {"loss_default": "loss", "discernability": "discernibility", "precision": "precision"}


def timed_process(cmd: list[str], env: dict | None = None, stdout=subprocess.DEVNULL):
    """Run ``cmd`` under /usr/bin/time: (exit code, "wall s, CPU s (user + sys), peak RSS");
    the peak is the largest of the process and the children it waited for (a JVM)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        code = subprocess.call(
            ["/usr/bin/time", "-o", tf.name, "-f", "%e %U %S %M", *cmd],
            env=env,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
        )
        wall, user, system, rss = tf.read().split()[-4:]
    return code, (
        f"{float(wall):.2f} s wall, {float(user) + float(system):.2f} s CPU, "
        f"peak RSS {int(rss) / 1024:.0f} MB"
    )


def run_arx(csv: Path, hier_prefix: str, out: Path, heap: str) -> list[dict] | None:
    if not ARX.exists() or shutil.which("java") is None:
        print("SKIP ARX: ../shared/tools/arx or java not found")
        return None
    env = dict(os.environ, JAVA_OPTS=f"-Xmx{heap}")
    cmd = [str(ARX), str(csv), ";", hier_prefix, ",".join(ADULT_KEYS), str(out), csv.name]
    code, figures = timed_process(cmd, env)
    if code:
        print(f"ARX failed (exit {code})")
        return None
    print(
        f"ARX process (JVM start, 12 settings x (1 warm-up + 3 timed), each on a fresh load): {figures}"
    )
    return json.loads(out.read_text())["runs"]


def end_to_end(csv: Path, hier: dict, tmp: Path) -> None:
    """The command line from the CSV to the written release, one search (k 5, 5 %, Loss)."""
    exe = Path(sys.executable).parent / "hidekit"
    pairs = [arg for q in ADULT_KEYS for arg in ("--hierarchy", f"{q}={hier[q]}")]
    cmd = [str(exe), "anonymize", str(csv), "--method", "optimal", "--keys", ",".join(ADULT_KEYS),
           *pairs, "--k", "5", "--suppression", "0.05", "--metric", "loss", "--sep", ";",
           "--out", str(tmp / "released.csv"), "--json"]  # fmt: skip
    code, figures = timed_process(cmd)
    print(f"hidekit CLI process (start-up, count, search, read, release written): {figures}"
          + (f" — FAILED (exit {code})" if code else ""))  # fmt: skip


def _search(engine: DuckDBEngine, hier: dict, k: int, supp: float, metric: str):
    engine._cell_ids.clear()  # count the cells again from the column codes in every run
    return optimal_generalization(engine, ADULT_KEYS, hier, k=k, suppression=supp, metric=metric)


def ours(engine: DuckDBEngine, hier: dict, k: int, supp: float, metric: str):
    """Best of three searches after a warm-up: (wall s, CPU s of that run, result)."""
    _search(engine, hier, k, supp, metric)
    runs = []
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        res = _search(engine, hier, k, supp, metric)
        runs.append((time.perf_counter() - t, time.process_time() - c, res))
    return min(runs, key=lambda r: r[0])


def _arx_run(arx_runs: list[dict] | None, k: int, supp: float, metric: str) -> dict | None:
    return next(
        (
            r
            for r in arx_runs or []
            if r["k"] == k and r["suppression_limit"] == supp and r["metric"] == metric
        ),
        None,
    )


def compare(label: str, frame: pd.DataFrame, hier: dict, arx_runs: list[dict] | None) -> list[dict]:
    """Both tools from data already encoded: ARX's ``Data`` handle materialised before its
    timing, hidekit's engine holding the column codes (encoding timed apart, once)."""
    t, c = time.perf_counter(), time.process_time()
    engine = DuckDBEngine(frame)
    for key in ADULT_KEYS:
        engine.codes(key)
    enc_wall, enc_cpu = time.perf_counter() - t, time.process_time() - c
    rows = []
    print(
        f"\n{label}: {len(frame):,} records; hidekit encodes the 8 key columns once in "
        f"{enc_wall:.3f} s wall / {enc_cpu:.3f} s CPU (outside the timings, as ARX's getHandle)"
    )
    print(
        f"{'k':>3} {'supp':>5} {'metric':>15} {'hk wall':>8} {'hk CPU':>7} {'ARX s':>7} "
        f"{'ARX/hk':>7}  same loss  checked hk/ARX"
    )
    for k in (5, 10):
        for supp in (0.0, 0.05):
            for arx_metric, metric in METRICS.items():
                secs, cpu, res = ours(engine, hier, k, supp, metric)
                arx = _arx_run(arx_runs, k, supp, arx_metric)
                arx_s = arx["anonymize_wall_ms_best_of_3"] / 1000 if arx else float("nan")
                same = arx is not None and arx["information_loss"] == res.information_loss
                print(
                    f"{k:>3} {supp:>5.2f} {metric:>15} {secs:>8.4f} {cpu:>7.4f} {arx_s:>7.3f} "
                    f"{arx_s / secs:>7.2f}  {'yes' if same else 'NO ':>9}  "
                    f"{res.transformations_checked}/{arx['transformations_checked'] if arx else '-'}"
                )
                rows.append(
                    dict(k=k, suppression=supp, metric=metric, hidekit_s=secs, hidekit_cpu=cpu,
                         arx_s=arx_s, same_loss=same, loss=res.information_loss)
                )  # fmt: skip
    ratios = [r["arx_s"] / r["hidekit_s"] for r in rows if r["arx_s"] == r["arx_s"]]
    if ratios:
        print(
            f"ARX/hidekit time: min {min(ratios):.2f}×, median {float(np.median(ratios)):.2f}×, "
            f"max {max(ratios):.2f}×; losses equal in {sum(r['same_loss'] for r in rows)}/{len(rows)}"
        )
    return rows


def _memory_probe(path: str, hier: dict) -> None:
    frame = pd.read_csv(path, sep=";", dtype=str)
    optimal_generalization(frame, ADULT_KEYS, hier, k=5, suppression=0.05, metric="loss")


def _search_file(path: str, hier: dict, engine: str, k: int) -> None:
    """One search (k, 5 %, Loss) counted by ``engine`` from the file: run in a child process
    under /usr/bin/time."""
    t, c = time.perf_counter(), time.process_time()
    res = optimal_generalization(path, ADULT_KEYS, hier, k=k, suppression=0.05, engine=engine)
    assert res.transformation is not None
    print(
        f"{engine}: {time.perf_counter() - t:.1f} s wall in the driver ({time.process_time() - c:.1f} s "
        f"driver CPU): count, then search {res.seconds:.3f} s ({res.transformations_checked} checked); "
        f"loss {res.information_loss!r}, levels {list(res.transformation.values())}, "
        f"suppressed {res.suppressed:,} of {res.records:,}",
        flush=True,
    )
    if engine == "spark":
        cpu, peak = _children_usage()
        print(f"spark: the JVM so far: {cpu:.1f} s CPU, peak RSS {peak:,.0f} MB", flush=True)


def _children_usage(pid: int | None = None) -> tuple[float, float]:
    """CPU seconds and the largest peak RSS (MB) of this process's living descendants (Spark's
    JVM), read from /proc before they exit: /usr/bin/time does not see a JVM it never waits for."""
    pid = pid or os.getpid()
    cpu, peak = 0.0, 0.0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return cpu, peak
    tick = os.sysconf("SC_CLK_TCK")
    for child in map(int, children):
        try:
            stat = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            status = Path(f"/proc/{child}/status").read_text()
        except OSError:
            continue
        cpu += (int(stat[11]) + int(stat[12])) / tick  # utime, stime
        hwm = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")]
        peak = max(peak, int(hwm[0]) / 1024 if hwm else 0.0)
        sub_cpu, sub_peak = _children_usage(child)
        cpu, peak = cpu + sub_cpu, max(peak, sub_peak)
    return cpu, peak


def spark_scale(frame: pd.DataFrame, hier: dict, rows: int, tmp: Path, k: int) -> None:
    """Adult resampled to ``rows`` records in Parquet; Spark (local[2]) counts it with one
    groupBy and the search runs on the counts; DuckDB reading the same file, for comparison."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp / "adult_big.parquet"
    rng = np.random.default_rng(7)
    writer = None
    for start in range(0, rows, 1_000_000):
        part = frame.iloc[rng.integers(0, len(frame), min(1_000_000, rows - start))]
        table = pa.Table.from_pandas(part.reset_index(drop=True), preserve_index=False)
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()
    print(f"\nAdult resampled to {rows:,} records ({path.stat().st_size / 1e6:.0f} MB Parquet)")
    for engine in ("spark", "duckdb"):
        if engine == "spark" and (shutil.which("java") is None or not _has_pyspark()):
            print("SKIP Spark: pyspark or java not found")
            continue
        cmd = [sys.executable, __file__, "--search-file", str(path), "--engine", engine]
        cmd += ["--k", str(k)]
        code, figures = timed_process(cmd, stdout=None)
        print(f"{engine} process (start-up, count, search): {figures}"
              + (f" — FAILED (exit {code})" if code else ""))  # fmt: skip


def _has_pyspark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="Adult only (skip 1,000,000 records)")
    ap.add_argument("--no-adult", action="store_true", help="skip the 30,162-record runs")
    ap.add_argument("--spark-rows", type=int, default=0, help="also count N records on Spark")
    ap.add_argument("--search-file", help=argparse.SUPPRESS)  # the child of spark_scale
    ap.add_argument("--engine", default="spark", help=argparse.SUPPRESS)
    ap.add_argument("--k", type=int, default=5, help="k of the --spark-rows search")
    args = ap.parse_args()
    adult = shared_data("adult/adult.csv")
    if adult is None:
        return 0
    prefix = str(adult.parent / "adult_hierarchy_")
    hier = {q: f"{prefix}{q}.csv" for q in ADULT_KEYS}
    if args.search_file:
        _search_file(args.search_file, hier, args.engine, args.k)
        return 0
    loaded = read_hierarchies(hier)  # read once, as ARX's Hierarchy.create before its timing
    frame = pd.read_csv(adult, sep=";", dtype=str)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if not args.no_adult:
            end_to_end(adult, hier, tmp)
            arx = run_arx(adult, prefix, tmp / "arx_adult.json", "4g")
            compare("Adult", frame, loaded, arx)
            secs, mb = peak_memory_mb(_memory_probe, str(adult), hier)
            print(f"hidekit peak RSS (read + one search, k=5, 5 %, loss): {mb:.0f} MB")
        if args.spark_rows:
            spark_scale(frame, hier, args.spark_rows, tmp, args.k)
        if not args.quick:
            million(frame, hier, loaded, prefix, tmp)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


def million(frame: pd.DataFrame, hier: dict, loaded: dict, prefix: str, tmp: Path) -> None:
    big = frame.sample(n=1_000_000, replace=True, random_state=1).reset_index(drop=True)
    big_csv = tmp / "adult_1m.csv"
    big.to_csv(big_csv, sep=";", index=False)
    end_to_end(big_csv, hier, tmp)
    arx = run_arx(big_csv, prefix, tmp / "arx_1m.json", "8g")
    compare("Adult resampled", big, loaded, arx)
    secs, mb = peak_memory_mb(_memory_probe, str(big_csv), hier)
    print(f"hidekit peak RSS at 1M (read + one search, k=5, 5 %, loss): {mb:.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
