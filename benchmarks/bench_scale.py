"""Growth of the table commands with the number of records, from a CSV file, end to end.

Each command runs as its own process on an Adult-like CSV (Adult's rows drawn with replacement,
8 keys) generated on the fly into a temporary folder and deleted after. For each size the script
prints wall time, CPU time (user + system: the machine is shared, so wall time is noisy and CPU
time is the steadier figure) and peak resident memory, and the growth exponent between sizes
(time ∝ records^exponent). Peers run in the same benchmark run on the same file: R with
data.table's ``fread`` + sdcMicro's ``freqCalc`` (when Rscript and sdcMicro are installed) and a
plain pandas script.

    .venv/bin/python benchmarks/bench_scale.py --sizes 1000000,10000000
    .venv/bin/python benchmarks/bench_scale.py --sizes 50000000 --commands risk --no-peers
    .venv/bin/python benchmarks/bench_scale.py --sizes 50000000 --commands risk --no-peers \
        --engines local,spark
    .venv/bin/python benchmarks/bench_scale.py --csv adult_1m.csv --commands anonymize \
        --before /path/to/main/.venv/bin/hidekit
    .venv/bin/python benchmarks/bench_scale.py --csv adult_5m.csv --commands optimal --no-peers \
        --before /path/to/main/.venv/bin/hidekit
    .venv/bin/python benchmarks/bench_scale.py --csv adult_5m.parquet --no-peers \
        --commands anonymize,suppress --out-suffix .parquet --before /path/to/main/.venv/bin/hidekit

``--csv`` takes a Parquet file too (the peers read CSV only: add ``--no-peers``).

Engines: one function per engine gives its command lines (``ENGINES``); add an engine there.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _common import ADULT_KEYS as KEYS
from _common import ROOT

ADULT = ROOT / "tests" / "fixtures" / "adult" / "adult.csv"
HIDEKIT = str(Path(sys.executable).with_name("hidekit"))


@dataclass
class Run:
    label: str
    wall: float
    cpu: float
    peak_mb: float
    ok: bool
    stopped: bool = False  # ran past the time limit and was stopped


def generate(n: int, out: Path) -> None:
    """``n`` rows of Adult drawn by a hash of the row number: the same rows every time (their
    order may differ between runs, which no figure here depends on)."""
    import duckdb

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE a AS SELECT row_number() OVER () - 1 AS i, * FROM "
        f"read_csv('{ADULT}', delim=';', header=true, all_varchar=true)"
    )
    m = con.execute("SELECT count(*) FROM a").fetchall()[0][0]
    con.execute(
        f"COPY (SELECT a.* EXCLUDE (i) FROM range({n}) r JOIN a ON a.i = hash(r.range) % {m}) "
        f"TO '{out}' (HEADER, DELIMITER ',')"
    )


def measure(label: str, argv: list[str], limit: float | None = None) -> Run:
    """Run ``argv`` as a child: wall time, its CPU time and its peak resident memory; a run past
    ``limit`` seconds is stopped (its whole process group) and marked so.

    The command runs under ``/usr/bin/time`` (when present): Linux carries a process's peak memory
    across fork and exec, so a child of this script would report at least this script's own peak.
    """
    timer = shutil.which("time") or "/usr/bin/time"
    wrapped = os.path.exists(timer)
    fd, report = tempfile.mkstemp(suffix=".time")
    os.close(fd)
    if wrapped:
        argv = [timer, "-o", report, "-f", "%e %U %S %M", *argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    watchdog = threading.Timer(limit or 1e9, os.killpg, (proc.pid, signal.SIGKILL))
    watchdog.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stopped = limit is not None and wall >= limit
    watchdog.cancel()
    err = proc.stderr.read().decode() if proc.stderr else ""
    ok = os.waitstatus_to_exitcode(status) == 0
    if not ok and not stopped:
        print(f"    {label} failed: {err.strip()[-300:]}")
    cpu, peak = usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
    fields = Path(report).read_text().split()[-4:] if wrapped else []
    Path(report).unlink(missing_ok=True)
    if len(fields) == 4:
        wall, cpu, peak = (
            float(fields[0]),
            float(fields[1]) + float(fields[2]),
            int(fields[3]) / 1024,
        )
    return Run(label, wall, cpu, peak, ok, stopped)


# Engines: each gives (label, command line) for a CSV, its output folder and the keys ----------
OUT_SUFFIX = [".csv"]  # the releases' format (``--out-suffix``)
CHUNKS: list[str] = []  # ``--chunk-rows N`` for the commands that release records


def local_commands(path: Path, out: Path, commands: list[str]) -> list[tuple[str, list[str]]]:
    """hidekit's default (DuckDB) engine."""
    keys = ",".join(KEYS)
    lines = {
        "risk": [HIDEKIT, "risk", str(path), "--keys", keys, "--json"],
        "select": [HIDEKIT, "select", str(path), "--keys", keys, "--stop", "0.05", "--json"],
        "anonymize": [
            HIDEKIT,
            "anonymize",
            str(path),
            "--keys",
            keys,
            "--k",
            "5",
            "--method",
            "mondrian",
            "--out",
            str(out / f"anon{OUT_SUFFIX[0]}"),
            "--json",
        ],
        "suppress": [
            HIDEKIT,
            "suppress",
            str(path),
            "--keys",
            keys,
            "--k",
            "3",
            "--out",
            str(out / f"suppressed{OUT_SUFFIX[0]}"),
            "--json",
        ],
        "optimal": [
            HIDEKIT,
            "anonymize",
            str(path),
            "--keys",
            ",".join(OPTIMAL_KEYS),
            *[a for q in OPTIMAL_KEYS for a in ("--hierarchy", f"{q}={hierarchy(q)}")],
            "--k",
            "500",
            "--suppression",
            "0.02",
            "--method",
            "optimal",
            "--out",
            str(out / f"optimal{OUT_SUFFIX[0]}"),
            "--json",
        ],
    }
    for c in ("anonymize", "suppress", "optimal"):
        lines[c] += CHUNKS
    return [(f"hidekit {c} (duckdb)", lines[c]) for c in commands if c in lines]


# ``optimal``: ARX's lattice search on five of the keys (240 nodes), Adult's hierarchies, k = 500
# with up to 2 % of the records suppressed (drawn from Adult's rows, every combination of a 1M-row
# file has 15 records or more: a small k would release the keys as they are)
OPTIMAL_KEYS = ["sex", "age", "race", "marital-status", "education"]


def hierarchy(key: str) -> Path:
    return ADULT.parent / f"adult_hierarchy_{key}.csv"


def spark_commands(path: Path, out: Path, commands: list[str]) -> list[tuple[str, list[str]]]:
    """The Spark engine in local mode (Spark reads the CSV itself); ``risk`` only."""
    keys = ",".join(KEYS)
    lines = {"risk": [HIDEKIT, "risk", str(path), "--keys", keys, "--engine", "spark", "--json"]}
    return [(f"hidekit {c} (spark)", lines[c]) for c in commands if c in lines]


ENGINES: dict[str, Callable[[Path, Path, list[str]], list[tuple[str, list[str]]]]] = {
    "local": local_commands,
    "spark": spark_commands,
}


# Peers -------------------------------------------------------------------------------------
R_RISK = """
suppressMessages({{library(data.table); library(sdcMicro)}})
d <- fread("{path}", colClasses = "character", na.strings = "")
f <- freqCalc(as.data.frame(d), keyVars = c({keys}))
cat(f$n1, f$n2, "\\n")
"""

PANDAS_RISK = """
import sys, pandas as pd
d = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False, na_values=[""])
sizes = d.groupby(sys.argv[2].split(","), dropna=False).size()
print(len(sizes), int((sizes == 1).sum()), int(sizes[sizes < 3].sum()))
"""

PANDAS_SELECT = """
import sys, pandas as pd
d = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False, na_values=[""])
keys, chosen = sys.argv[2].split(","), []
while True:  # forward selection on RP (records in cells < 3) with a 5 % limit, as hidekit's
    best = None
    for k in keys:
        if k in chosen:
            continue
        sizes = d.groupby(chosen + [k], dropna=False).size()
        rp = sizes[sizes < 3].sum() / len(d)
        if rp <= 0.05 and (best is None or rp < best[0]):
            best = (rp, k)
    if best is None:
        break
    chosen.append(best[1])
print(chosen)
"""


PANDAS_MONDRIAN = """
import sys, numpy as np, pandas as pd
d = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False, na_values=[""])
keys, k, out = sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4]
cols = []  # strict Mondrian (LeFevre et al. 2006): numbers by value, other keys by sorted value
for c in keys:
    num = pd.to_numeric(d[c], errors="coerce")
    cols.append(num if num.notna().all() else d[c].fillna(""))
X = np.column_stack([pd.factorize(c, sort=True)[0] for c in cols])
width = np.maximum(X.max(axis=0), 1).astype(float)
todo, done = [np.arange(len(d))], []
while todo:  # split the widest key at its median while both halves keep k records
    idx = todo.pop()
    part = X[idx]
    spans = (part.max(axis=0) - part.min(axis=0)) / width
    for j in np.argsort(-spans, kind="stable"):
        v = part[:, j]
        med = np.median(v)
        left = v <= med if (v < med).sum() < (v > med).sum() else v < med
        if spans[j] > 0 and k <= left.sum() <= len(v) - k:
            todo += [idx[left], idx[~left]]
            break
    else:
        done.append(idx)
for c, col in zip(keys, cols):  # a class shows its range of numbers, its set of other values
    vals, label = col.to_numpy(), np.empty(len(d), dtype=object)
    for idx in done:
        u = pd.unique(vals[idx])
        if len(u) == 1:
            label[idx] = str(u[0])
        elif col.dtype.kind in "if":
            label[idx] = f"[{u.min():g}-{u.max():g}]"
        else:
            label[idx] = "{" + ",".join(sorted(map(str, u))) + "}"
    d[c] = label
d.to_csv(out, index=False)
print(len(done))
"""

R_KANON = """
suppressMessages({{library(data.table); library(sdcMicro)}})
d <- as.data.frame(fread("{path}", colClasses = "character", na.strings = ""))
names(d) <- make.names(names(d)); keys <- make.names(c({keys}))
for (v in keys) d[[v]] <- as.factor(d[[v]])
s <- kAnon(createSdcObj(d, keyVars = keys), k = 5)
fwrite(extractManipData(s), "{out}")
"""


def peer_commands(path: Path, out: Path, commands: list[str]) -> list[tuple[str, list[str]]]:
    """Each command's peers: a plain pandas script and R (``fread`` + sdcMicro) when present."""
    keys, r_keys = ",".join(KEYS), ", ".join(f'"{k}"' for k in KEYS)
    has_r = bool({"risk", "anonymize"} & set(commands)) and r_available()
    lines = []
    if "risk" in commands:
        lines.append(
            ("pandas read_csv + groupby", [sys.executable, "-c", PANDAS_RISK, str(path), keys])
        )
        if has_r:
            script = R_RISK.format(path=path, keys=r_keys)
            lines.append(("R fread + sdcMicro freqCalc", ["Rscript", "-e", script]))
    if "select" in commands:
        lines.append(
            ("pandas forward selection", [sys.executable, "-c", PANDAS_SELECT, str(path), keys])
        )
    if "anonymize" in commands:
        argv = [sys.executable, "-c", PANDAS_MONDRIAN, str(path), keys, "5", str(out / "pd.csv")]
        lines.append(("pandas Mondrian k=5", argv))
        if has_r:
            script = R_KANON.format(path=path, keys=r_keys, out=out / "r.csv")
            lines.append(("R fread + sdcMicro kAnon k=5", ["Rscript", "-e", script]))
    return lines


def r_available() -> bool:
    if shutil.which("Rscript") is None:
        print("SKIP R: Rscript not found (bash ../shared/tools/sdcmicro/install)")
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(sdcMicro); library(data.table)"], capture_output=True
    )
    if done.returncode != 0:
        print("SKIP R: sdcMicro or data.table missing (bash ../shared/tools/sdcmicro/install)")
    return done.returncode == 0


def exponent(runs: dict[int, Run]) -> str:
    sizes = sorted(n for n, r in runs.items() if r.ok)
    if len(sizes) < 2:
        return "-"
    a, b = sizes[0], sizes[-1]
    if runs[a].cpu <= 0 or runs[b].cpu <= 0:
        return "-"
    return f"{math.log(runs[b].cpu / runs[a].cpu) / math.log(b / a):.2f}"


def run_commands(path: Path, out: Path, args: argparse.Namespace) -> list[tuple[str, Run]]:
    """Every command of every engine, then the peers, ``args.repeat`` times in turn."""
    commands = args.commands.split(",")
    lines = [line for e in args.engines.split(",") for line in ENGINES[e](path, out, commands)]
    if args.before:  # the same commands by another hidekit (e.g. main's, before a change)
        lines += [
            (label.replace("hidekit", "before:", 1), [args.before, *argv[1:]])
            for label, argv in local_commands(path, out, commands)
        ]
    ours = len(lines)
    if not args.no_peers:
        lines += peer_commands(path, out, commands)
    runs = []
    for _ in range(args.repeat):
        for i, (label, argv) in enumerate(lines):
            run = measure(label, argv, None if i < ours else args.peer_limit)
            runs.append((label, run))
            print(
                f"  {label:<34} wall {run.wall:7.1f} s  cpu {run.cpu:7.1f} s  "
                f"peak {run.peak_mb:7.0f} MB  load {os.getloadavg()[0]:.1f}"
                + ("  STOPPED" if run.stopped else "" if run.ok else "  FAILED"),
                flush=True,
            )
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--commands", default="risk,select,anonymize")
    ap.add_argument("--engines", default="local")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument(
        "--before", default=None, help="Another hidekit executable run beside (the code before)."
    )
    ap.add_argument(
        "--peer-limit", type=float, default=300.0, help="Seconds before a peer is stopped."
    )
    ap.add_argument("--tmp", default=None, help="Folder for the generated CSVs (default: /tmp).")
    ap.add_argument("--csv", default=None, help="Measure on this Adult-like CSV (no generation).")
    ap.add_argument("--repeat", type=int, default=1, help="Runs of every command, interleaved.")
    ap.add_argument("--chunk-rows", default=None, help="Passed to anonymize, suppress and optimal.")
    ap.add_argument(
        "--out-suffix", default=".csv", help="Releases written as .csv or .parquet files."
    )
    ap.add_argument("--generate", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    OUT_SUFFIX[0] = args.out_suffix
    CHUNKS[:] = ["--chunk-rows", args.chunk_rows] if args.chunk_rows else []
    if args.generate:
        generate(int(args.generate[0]), Path(args.generate[1]))
        return
    sizes = [int(s) for s in args.sizes.split(",")] if not args.csv else [0]
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
    table: dict[str, dict[int, Run]] = {}
    Path(args.tmp).mkdir(parents=True, exist_ok=True)  # a --tmp that does not exist yet
    for n in sizes:
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            path = Path(args.csv) if args.csv else Path(tmp) / f"adult_{n}.csv"
            t0 = time.perf_counter()
            if not args.csv:  # in a child, so this script stays small (see ``measure``)
                cmd = [sys.executable, __file__, "--generate", str(n), str(path)]
                subprocess.run(cmd, check=True)
            gb = path.stat().st_size / 1e9
            print(f"\n{path.name}, 8 keys: {gb:.2f} GB CSV ({time.perf_counter() - t0:.0f} s)")
            for label, run in run_commands(path, Path(tmp), args):
                table.setdefault(label, {})[n] = run
    print("\ngrowth exponent of CPU time (time ∝ records^e), smallest to largest size:")
    for label, runs in table.items():
        print(f"  {label:<34} {exponent(runs)}")


if __name__ == "__main__":
    main()
