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

Engines: one function per engine gives its command lines (``ENGINES``); add an engine there.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
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


def measure(label: str, argv: list[str]) -> Run:
    """Run ``argv`` as a child: wall time, its CPU time and its peak resident memory.

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
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    ok = os.waitstatus_to_exitcode(status) == 0
    if not ok:
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
    return Run(label, wall, cpu, peak, ok)


# Engines: each gives (label, command line) for a CSV, its output folder and the keys ----------
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
            str(out / "anon.csv"),
            "--json",
        ],
    }
    return [(f"hidekit {c} (duckdb)", lines[c]) for c in commands if c in lines]


ENGINES: dict[str, Callable[[Path, Path, list[str]], list[tuple[str, list[str]]]]] = {
    "local": local_commands,
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


def peer_commands(path: Path, commands: list[str]) -> list[tuple[str, list[str]]]:
    keys = ",".join(KEYS)
    out = []
    if "risk" in commands:
        out.append(
            ("pandas read_csv + groupby", [sys.executable, "-c", PANDAS_RISK, str(path), keys])
        )
        if r_available():
            script = R_RISK.format(path=path, keys=", ".join(f'"{k}"' for k in KEYS))
            out.append(("R fread + sdcMicro freqCalc", ["Rscript", "-e", script]))
    if "select" in commands:
        out.append(
            ("pandas forward selection", [sys.executable, "-c", PANDAS_SELECT, str(path), keys])
        )
    return out


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--commands", default="risk,select,anonymize")
    ap.add_argument("--engines", default="local")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--tmp", default=None, help="Folder for the generated CSVs (default: /tmp).")
    ap.add_argument("--generate", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.generate:
        generate(int(args.generate[0]), Path(args.generate[1]))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    commands = args.commands.split(",")
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
    table: dict[str, dict[int, Run]] = {}
    for n in sizes:
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            path = Path(tmp) / f"adult_{n}.csv"
            t0 = time.perf_counter()
            # in a child, so this script stays small (see ``measure``)
            subprocess.run([sys.executable, __file__, "--generate", str(n), str(path)], check=True)
            gb = path.stat().st_size / 1e9
            print(
                f"\n{n:,} records, 8 keys: {gb:.2f} GB CSV (generated in "
                f"{time.perf_counter() - t0:.0f} s)"
            )
            lines = [
                line
                for e in args.engines.split(",")
                for line in ENGINES[e](path, Path(tmp), commands)
            ]
            if not args.no_peers:
                lines += peer_commands(path, commands)
            for label, argv in lines:
                run = measure(label, argv)
                table.setdefault(label, {})[n] = run
                print(
                    f"  {label:<34} wall {run.wall:7.1f} s  cpu {run.cpu:7.1f} s  "
                    f"peak {run.peak_mb:7.0f} MB  load {os.getloadavg()[0]:.1f}"
                    + ("" if run.ok else "  FAILED")
                )
    print("\ngrowth exponent of CPU time (time ∝ records^e), smallest to largest size:")
    for label, runs in table.items():
        print(f"  {label:<34} {exponent(runs)}")


if __name__ == "__main__":
    main()
