"""Risk against the population: hidekit beside sdcMicro (R) in the same run.

1. Individual risk with weights (fk, Fk, Benedetti–Franconi risk, global risk) on 1,000,000
   records × 8 keys: hidekit vs sdcMicro's ``measure_risk`` (target ≥ 20×), same figures.
2. SUDA2 on Adult with 8 keys: hidekit vs sdcMicro's ``suda2`` (target ≥ 10×), same scores.
3. Estimates against the truth: samples drawn from synthetic populations whose true Σ 1/F_k is
   known; sdcMicro's model (Benedetti–Franconi), hidekit's log-linear models (main effects, two-way).

sdcMicro runs through ``Rscript`` (``../shared/tools/sdcmicro/install`` puts it on the machine); where
R or sdcMicro is absent, its columns say SKIP. Run: ``python benchmarks/bench_population_risk.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.engines import DuckDBEngine
from hidekit.io import read_table
from hidekit.risk.individual import individual_risk, summarize
from hidekit.risk.loglinear import loglinear_estimate
from hidekit.risk.suda import suda2
from hidekit.risk.weighted import class_figures

from _common import ADULT_KEYS, best_cpu, best_of, row, shared_data


def have_sdcmicro() -> bool:
    if shutil.which("Rscript") is None:
        print("SKIP sdcMicro: Rscript not found (run ../shared/tools/sdcmicro/install as root)")
        return False
    ok = subprocess.run(
        ["Rscript", "-e", "library(sdcMicro)"], capture_output=True, text=True
    ).returncode
    if ok != 0:
        print("SKIP sdcMicro: R is there but sdcMicro is not installed")
        return False
    return True


def run_r(script: str) -> dict:
    """Run an R script that prints one JSON line last; return it."""
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


R_TIMED = """
suppressMessages(library(sdcMicro)); suppressMessages(library(jsonlite))
d <- read.csv("{path}", check.names = FALSE)
keys <- {keys}
best <- Inf; cpu <- Inf
for (i in 1:{repeat}) {{
  st <- system.time(r <- {call})
  best <- min(best, st[["elapsed"]]); cpu <- min(cpu, st[["user.self"]] + st[["sys.self"]])
}}
{after}
"""
MEASURE_CALL = 'measure_risk(d, keyVars = keys, w = "w")'
MEASURE_AFTER = (
    "cat(toJSON(list(seconds = best, cpu = cpu, er = r$global_risk_ER), digits = NA, "
    "auto_unbox = TRUE))"
)
SUDA_CALL = "suda2(d, variables = keys)"
SUDA_AFTER = (
    'write.csv(data.frame(score = r$score, dis = r$disScore), "{out}", row.names = FALSE); '
    "cat(toJSON(list(seconds = best, cpu = cpu), digits = NA, auto_unbox = TRUE))"
)


def r_vector(keys) -> str:
    return "c(" + ", ".join(f'"{k}"' for k in keys) + ")"


def hidekit_individual(frame, keys):
    fig = class_figures(DuckDBEngine(frame), keys, "w")  # a fresh engine: nothing cached
    risk = individual_risk(fig.fk, fig.Fk)
    return summarize(risk)


def million(n: int = 1_000_000, seed: int = 0) -> pd.DataFrame:
    """8 integer keys with Adult-like cardinalities and expansion weights 1..200."""
    rng = np.random.default_rng(seed)
    cards = [2, 74, 5, 7, 16, 41, 7, 14]
    frame = pd.DataFrame({f"k{i}": rng.integers(1, c + 1, n) for i, c in enumerate(cards)})
    frame["w"] = np.round(rng.uniform(1, 200, n), 2)
    return frame


def bench_individual(r_ok: bool, tmp: Path) -> None:
    frame = million()
    keys = [c for c in frame.columns if c != "w"]
    print(f"1. Individual risk with weights: {len(frame):,} records × {len(keys)} keys")
    t_h, summary = best_of(lambda: hidekit_individual(frame, keys), repeat=3)
    c_h = best_cpu(lambda: hidekit_individual(frame, keys))
    t_r = None
    if r_ok:
        path = tmp / "million.csv"
        frame.to_csv(path, index=False)
        script = R_TIMED.format(
            path=path, keys=r_vector(keys), repeat=2, call=MEASURE_CALL, after=MEASURE_AFTER
        )
        res = run_r(script)
        t_r = res["seconds"]
        same = abs(res["er"] - summary.expected_reidentifications) <= 1e-6 * res["er"]
        print(row("sdcMicro measure_risk (best of 2)", t_r, extra=f"CPU {res['cpu']:.3f} s"))
        print(f"     sdcMicro expected re-identifications {res['er']:.6f}")
    print(row("hidekit fk/Fk + individual risk (best of 3)", t_h, t_r, extra=f"CPU {c_h:.3f} s"))
    print(f"     hidekit  expected re-identifications {summary.expected_reidentifications:.6f}")
    if t_r:
        print(f"     same figure: {same}; speed-up {t_r / t_h:.1f}x (target ≥ 20x)")


def bench_suda(r_ok: bool, tmp: Path) -> None:
    path = shared_data("adult/adult.csv")
    if path is None:
        return
    adult = read_table(path).frame
    codes = pd.DataFrame(
        {k: pd.factorize(adult[k], sort=True)[0] + 1 for k in ADULT_KEYS}
    )  # integer codes: sdcMicro's suda2 turns text keys into NA
    print(f"2. SUDA2 on Adult: {len(codes):,} records × {len(ADULT_KEYS)} keys, all MSU sizes")
    t_h, res = best_of(
        lambda: suda2(DuckDBEngine(codes).record_codes(ADULT_KEYS), ADULT_KEYS), repeat=3
    )
    c_h = best_cpu(lambda: suda2(DuckDBEngine(codes).record_codes(ADULT_KEYS), ADULT_KEYS))
    t_r = None
    if r_ok:
        csv, out = tmp / "adult_codes.csv", tmp / "suda_r.csv"
        codes.to_csv(csv, index=False)
        after = SUDA_AFTER.format(out=out)
        r = run_r(
            R_TIMED.format(
                path=csv, keys=r_vector(ADULT_KEYS), repeat=2, call=SUDA_CALL, after=after
            )
        )
        t_r = r["seconds"]
        theirs = pd.read_csv(out)
        same = bool((theirs["score"].to_numpy() == res.score).all())
        rel = np.abs(theirs["dis"] - res.dis) / np.maximum(theirs["dis"], 1e-300)
        print(row("sdcMicro suda2 (best of 2)", t_r, extra=f"CPU {r['cpu']:.3f} s"))
        print(f"     same SUDA scores: {same}; DIS max relative difference {rel.max():.2e}")
    print(row("hidekit suda2 (best of 3)", t_h, t_r, extra=f"CPU {c_h:.3f} s"))
    if t_r:
        print(f"     speed-up {t_r / t_h:.1f}x (target ≥ 10x)")


def population(n_pop: int, dependent: bool, seed: int) -> np.ndarray:
    """A synthetic population of 5 keys; with ``dependent`` the second key follows the first."""
    rng = np.random.default_rng(seed)
    cards = [6, 10, 4, 12, 3]
    pop = np.column_stack([rng.integers(0, c, n_pop) for c in cards])
    if dependent:
        pop[:, 1] = (pop[:, 0] * 2 + rng.integers(0, 3, n_pop)) % 10
    return pop


def bench_estimates() -> None:
    print("3. Expected re-identifications against the truth (synthetic populations, 5 keys)")
    print(f"  {'population':<34}{'truth':>9}{'sdcMicro BF':>13}{'main':>9}{'two-way':>9}  interval")
    for n_pop, dependent, pi, stratified in [
        (100_000, False, 0.02, False),
        (100_000, True, 0.02, False),
        (100_000, True, 0.05, True),
    ]:
        pop = population(n_pop, dependent, seed=1)
        rng = np.random.default_rng(2)
        # stratified: each stratum (first key) has its own rate, so weights differ by stratum
        rates = np.linspace(pi / 5, pi * 2, 6)[pop[:, 0]] if stratified else np.full(n_pop, pi)
        take = rng.random(n_pop) < rates
        sample = pop[take]
        _, inv, cnt = np.unique(pop, axis=0, return_inverse=True, return_counts=True)
        truth = float((1.0 / cnt[inv.reshape(-1)][take]).sum())
        frame = pd.DataFrame(sample, columns=[f"k{i}" for i in range(5)]).assign(w=1 / rates[take])
        fig = class_figures(DuckDBEngine(frame), list(frame.columns[:5]), "w")
        bf = float(individual_risk(fig.fk, fig.Fk).sum())
        frac = len(sample) / frame["w"].sum()
        main = loglinear_estimate(sample, frac, model="main")
        two = loglinear_estimate(sample, frac, model="two-way")
        label = f"N={n_pop:,} {'dependent' if dependent else 'independent'}" + (
            " stratified" if stratified else f" π={pi}"
        )
        print(
            f"  {label:<34}{truth:9.1f}{bf:13.1f}{main.expected_reidentifications:9.1f}"
            f"{two.expected_reidentifications:9.1f}  {two.ci[0]:.1f}–{two.ci[1]:.1f}"
            f"  (fit: main {'ok' if main.fits else 'poor'}, two-way {'ok' if two.fits else 'poor'})"
        )


def main() -> None:
    """``--only individual,suda,estimates`` runs a part (default: all)."""
    parts = {"individual", "suda", "estimates"}
    if "--only" in sys.argv:
        parts = set(sys.argv[sys.argv.index("--only") + 1].split(","))
    print(f"load average at start: {os.getloadavg()}")
    r_ok = have_sdcmicro()
    with tempfile.TemporaryDirectory() as tmp:
        if "individual" in parts:
            bench_individual(r_ok, Path(tmp))
        if "suda" in parts:
            bench_suda(r_ok, Path(tmp))
    if "estimates" in parts:
        bench_estimates()
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
