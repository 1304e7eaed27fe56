"""Release benchmarks: local suppression on Adult beside sdcMicro's published figure, and the
whole demo plan on 1,000,000 records with the time of each step.

    python benchmarks/bench_release.py [--records 1000000]
    python benchmarks/bench_release.py --skip-plan --csv-records 10000000 --tmp /tmp/scale
    python benchmarks/bench_release.py --csv-records 10000000 --tmp /tmp/scale \
        --baseline /tmp/main/src --rounds 2   # main's code (git archive main src) alternating

``--csv-records N`` runs ``hidekit release`` as a child under ``/usr/bin/time`` on the demo plan
over a CSV of N survey records (``_survey_csv``: written by chunks into ``--tmp``, reused when
there, never stored in the repo): wall, CPU, peak memory, load and each step's seconds. A CSV
this large is released by chunks (``hidekit.release.stream``). ``--input parquet`` reads the
Parquet file ``read_table`` would write from that CSV (written once beside it, by chunks), released
by chunks too (a Parquet file of 1,000,000 records or more):

    python benchmarks/bench_release.py --skip-plan --csv-records 10000000 --tmp /tmp/scale \
        --input parquet
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


def _time_report(text: str) -> dict[str, float]:
    """Wall, CPU and peak MB from ``/usr/bin/time -v``'s report."""
    got = {}
    for line in text.splitlines():
        name, _, value = line.strip().rpartition(": ")
        got[name] = value
    h, m, sec = ([0, 0] + got["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"))[-3:]
    return {
        "wall": int(h) * 3600 + int(m) * 60 + float(sec),
        "cpu": float(got["User time (seconds)"]) + float(got["System time (seconds)"]),
        "peak_mb": int(got["Maximum resident set size (kbytes)"]) / 1024,
    }


def bench_plan_csv(
    records: int, tmp: Path, baseline: Path | None = None, rounds: int = 1, fmt: str = "csv"
) -> None:
    """The demo plan through the command line on a CSV (or, ``fmt="parquet"``, the Parquet file
    ``read_table`` would write from it) of ``records`` survey rows; with ``baseline`` (another
    checkout's ``src`` folder), that code's run alternates with this one's, ``rounds`` times each
    (the same input, a fresh key and output folder each run)."""
    from _survey_csv import write_survey_csv

    tmp.mkdir(parents=True, exist_ok=True)
    data = tmp / f"survey_{records}.csv"
    if not data.exists():
        t = time.perf_counter()
        write_survey_csv(data, records)
        print(f"survey CSV of {records:,} records written in {time.perf_counter() - t:.0f} s")
    if fmt == "parquet":
        data = tmp / f"survey_{records}.parquet"
        if not data.exists():
            t = time.perf_counter()
            survey_parquet(tmp / f"survey_{records}.csv", data)
            print(f"survey Parquet written in {time.perf_counter() - t:.0f} s")
    size = data.stat().st_size / 1e9
    print(f"\ndemo plan, {records:,}-record {fmt} ({size:.2f} GB), CLI:")
    print("| run | code | wall | CPU | peak | load | k | steps (s) |")
    print("|---|---|---|---|---|---|---|---|")
    codes = [("this", None)] if baseline is None else [("this", None), ("baseline", baseline)]
    for i in range(rounds):
        for name, src in codes if i % 2 == 0 else codes[::-1]:
            row = _run_plan_csv(records, tmp, src, data.name)
            if row is not None:
                print(f"| {i + 1} | {name} | {row}")


def survey_parquet(csv: Path, out: Path) -> None:
    """``csv`` as Parquet, typed as ``read_table`` types the whole file (a first scan of its
    distinct texts), written by chunks of 250,000 records: the bytes of
    ``read_table(csv).frame.to_parquet(out, index=False)`` without the whole table in memory."""
    from hidekit.io.parquet_chunks import chunked_parquet
    from hidekit.jobs.frame_stream import frame_source

    source = frame_source(csv, out, sep=None, chunk_rows=250_000, columns=[])
    assert source is not None and source.csv is not None
    with chunked_parquet(out, protect=(csv,)) as parquet:
        for frame in source.frames():
            parquet.write(frame)


def _run_plan_csv(records: int, tmp: Path, src: Path | None, data: str) -> str | None:
    """One ``hidekit release`` of the demo plan under ``/usr/bin/time`` (``src``: the code
    imported instead of this checkout's); its table row, None when it failed."""
    import json
    import shutil

    from hidekit.jobs.files import new_key_file

    key = tmp / "bench.key"
    key.unlink(missing_ok=True)  # a fresh key each run (base64 text: never refused)
    new_key_file(key)  # never printed
    plan = (Path(__file__).resolve().parents[1] / "examples" / "demo-plan.toml").read_text()
    plan = plan.replace("../demo-output/survey.csv", data)
    plan = plan.replace("../demo-output/demo.key", key.name)
    plan = plan.replace('"../demo-output/release"', f'"release_{records}"')
    (tmp / "plan.toml").write_text(plan)
    for old in (tmp / f"release_{records}", tmp / f"release_{records}.private"):
        shutil.rmtree(old, ignore_errors=True)  # each run writes a fresh folder
    hidekit = str(Path(sys.executable).with_name("hidekit"))
    report = tmp / "time.txt"
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    load = os.getloadavg()
    run = _run_child(
        ["/usr/bin/time", "-v", "-o", str(report), hidekit, "release", "plan.toml", "--json"],
        tmp,
        env,
    )
    if run.returncode:
        print(run.stderr[-2000:])
        return None
    out = json.loads(run.stdout)
    fig = _time_report(report.read_text())
    after = os.getloadavg()
    steps = ", ".join(f"{s['use']} {s['seconds']:.2f}" for s in out["steps"])
    return (
        f"{fig['wall']:.1f} s | {fig['cpu']:.1f} s | {fig['peak_mb']:,.0f} MB | "
        f"{load[0]:.1f} -> {after[0]:.1f} | {out['risk_before']['k']} -> "
        f"{out['risk_after']['k']} | {steps} |"
    )


def _run_child(cmd: list[str], cwd: Path, env: dict):
    """``cmd`` in a process group of its own, ended with this process: a ``timeout`` around the
    benchmark (SIGTERM) stops the release too (``/usr/bin/time`` does not pass the signal on, and
    the release ran on as an orphan)."""
    import signal
    import subprocess

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    old = signal.signal(signal.SIGTERM, stop)
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate()
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        signal.signal(signal.SIGTERM, old)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--skip-plan", action="store_true")
    ap.add_argument("--csv-records", type=int, default=None)
    ap.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()) / "hidekit-bench")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout's src folder")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--input", choices=("csv", "parquet"), default="csv", help="file format read")
    args = ap.parse_args(argv)
    if args.csv_records:
        bench_plan_csv(args.csv_records, args.tmp, args.baseline, args.rounds, args.input)
        return
    bench_suppression()
    if not args.skip_plan:
        bench_plan(args.records)


if __name__ == "__main__":
    sys.exit(main())
