"""Mondrian benchmarks: hidekit against anonypy (Mondrian in pandas) on Adult with k = 5, in the
same run, with the utility of both releases beside the time; then 1,000,000 synthetic records.

    python benchmarks/bench_mondrian.py [--records 1000000] [--skip-anonypy]

Targets (issue 4): ≥ 100× faster than anonypy on Adult, 1,000,000 records in under 10 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ADULT_KEYS as KEYS  # noqa: E402
from _common import best_of, peak_memory_mb, shared_data  # noqa: E402

SENSITIVE = "salary-class"


def _utility(original, released, keys, k, hierarchies=None):
    from hidekit.anonymize.utility import utility

    u = utility(
        original,
        released,
        keys,
        k=k,
        hierarchies=hierarchies,
        n_queries=2000,
        query_attributes=["age"],
    )
    return (
        f"classes {u['classes']:,}, discernibility {u['discernibility']:,}, "
        f"C_avg {u['average_class_size']:.3f}, NCP {u['ncp']:.4f}, "
        f"age query precision {u['query_precision']['age']:.3f}"
    )


def _anonypy_release(frame, keys, partitions):
    """anonypy's classes written the way hidekit writes them, so one utility code scores both."""
    from hidekit.anonymize.mondrian_cuts import format_value

    pid = np.empty(len(frame), dtype=np.int64)
    for i, idx in enumerate(partitions):
        pid[frame.index.get_indexer(idx)] = i
    out = frame.copy()
    for key in keys:
        groups = frame[key].groupby(pid)
        if isinstance(frame[key].dtype, pd.CategoricalDtype) or frame[key].dtype == object:
            text = groups.agg(lambda v: sorted(map(str, v.unique())))
            text = text.map(lambda u: u[0] if len(u) == 1 else "{" + ",".join(u) + "}")
        else:
            lo, hi = groups.min(), groups.max()
            text = pd.Series(
                [
                    format_value(a) if a == b else f"[{format_value(a)}-{format_value(b)}]"
                    for a, b in zip(lo, hi, strict=True)
                ],
                index=lo.index,
            )
        out[key] = text.reindex(pid).to_numpy()
    return out


def bench_adult(skip_anonypy: bool) -> None:
    from hidekit.anonymize import Mondrian, mondrian
    from hidekit.io import read_table

    path = shared_data("adult/adult.csv")
    if path is None:
        return
    frame = read_table(path).frame
    t = time.perf_counter()
    frame.groupby(KEYS).size()
    base = time.perf_counter() - t
    print(
        f"Adult: {len(frame):,} records, {len(KEYS)} keys, k = 5 (baseline pandas group-by "
        f"over the keys: {base * 1000:.1f} ms)"
    )
    core, m = best_of(lambda: Mondrian(KEYS, 5, shuffle=False).fit(frame), repeat=5)
    full, res = best_of(lambda: mondrian(frame, KEYS, 5), repeat=5)
    full_l, res_l = best_of(lambda: mondrian(frame, KEYS, 5, l=2, sensitive=SENSITIVE), repeat=3)
    hier = {c: path.parent / f"adult_hierarchy_{c}.csv" for c in KEYS if c != "age"}
    full_h, res_h = best_of(lambda: mondrian(frame, KEYS, 5, hierarchies=hier), repeat=3)
    anon = None
    if not skip_anonypy:
        from anonypy import mondrian as amondrian

        df = frame.copy()
        for key in KEYS + [SENSITIVE]:
            if df[key].dtype == object:
                df[key] = df[key].astype("category")
        t = time.perf_counter()
        parts = amondrian.Mondrian(df, KEYS, SENSITIVE).partition(k=5)
        anon = time.perf_counter() - t
        anon_rel = _anonypy_release(frame, KEYS, parts)
        print(
            f"  anonypy partition(k=5)          {anon:8.3f} s   1.0×   {_utility(frame, anon_rel, KEYS, 5)}"
        )
    for label, secs, r in (
        ("hidekit cuts only (fit)", core, None),
        ("hidekit mondrian() k=5", full, res),
        ("hidekit mondrian() k=5, l=2", full_l, res_l),
        ("hidekit k=5 with ARX hierarchies", full_h, res_h),
    ):
        ratio = f"{anon / secs:6.0f}×" if anon else "   n/a"
        h = hier if r is res_h else None
        util = _utility(frame, r.released, KEYS, 5, h) if r is not None else ""
        print(f"  {label:<32} {secs:8.3f} s {ratio}   {util}")


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    """Survey-like records: skewed ages and incomes, a few hundred zip areas, a diagnosis."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": np.clip(rng.gamma(6.0, 7.0, n).astype(int) + 18, 18, 100),
            "sex": rng.choice(["female", "male"], n),
            "race": rng.choice(
                ["white", "black", "asian", "native", "other"], n, p=[0.6, 0.15, 0.12, 0.03, 0.1]
            ),
            "zip3": rng.zipf(1.3, n) % 900 + 100,
            "education": rng.integers(1, 17, n),
            "income": np.round(rng.lognormal(10.5, 0.7, n), -2),
            "diagnosis": rng.choice([f"dx{i}" for i in range(12)], n),
        }
    )


def _run_million(n: int, l: int | None) -> None:  # noqa: E741
    from hidekit.anonymize import mondrian

    mondrian(
        synthetic(n),
        ["age", "sex", "race", "zip3", "education", "income"],
        5,
        l=l,
        sensitive="diagnosis" if l else None,
    )


def bench_million(n: int) -> None:
    from hidekit.anonymize import mondrian

    keys = ["age", "sex", "race", "zip3", "education", "income"]
    frame = synthetic(n)
    t = time.perf_counter()
    frame.groupby(keys).size()
    base = time.perf_counter() - t
    print(
        f"\nSynthetic: {n:,} records, keys {', '.join(keys)}, k = 5 "
        f"(baseline pandas group-by: {base:.2f} s)"
    )
    for l in (None, 2):  # noqa: E741
        t = time.perf_counter()
        res = mondrian(frame, keys, 5, l=l, sensitive="diagnosis" if l else None)
        secs = time.perf_counter() - t
        _, mb = peak_memory_mb(_run_million, n, l)
        u = _utility(frame, res.released, keys, 5)
        print(
            f"  mondrian() k=5{', l=2' if l else ''}: {secs:6.2f} s ({secs / base:.1f}× the group-by), "
            f"peak {mb:,.0f} MB (fresh process, incl. data), k={res.stats['k']}; {u}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--skip-anonypy", action="store_true")
    args = ap.parse_args()
    bench_adult(args.skip_anonypy)
    bench_million(args.records)


if __name__ == "__main__":
    main()
