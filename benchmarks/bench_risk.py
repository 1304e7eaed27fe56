"""Risk metrics: hidekit (DuckDB engine) beside pycanon and a plain pandas group-by.

Issue targets: on Adult with 8 keys, >= 40x faster than pycanon and no slower than pandas;
1,000,000 records with 8 keys under 0.3 s (sdcMicro's freqCalc: 3.0 s on that shape, 2 cores).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hidekit.engines import DuckDBEngine
from hidekit.io import read_table
from hidekit.risk import measure_risk

from _common import ADULT_KEYS as KEYS
from _common import best_of, peak_memory_mb, row, shared_data


def pandas_risk(frame, keys, cell_min=3):
    """The naive baseline: one group-by, then the same figures."""
    sizes = frame.groupby(keys, dropna=False).size().to_numpy()
    return {
        "records": int(sizes.sum()),
        "cells": len(sizes),
        "k": int(sizes.min()),
        "uniques": int((sizes == 1).sum()),
        "rp": sizes[sizes < cell_min].sum() / sizes.sum(),
    }


def hidekit_risk(frame, keys):
    # a fresh engine each time: nothing cached between runs
    return measure_risk(None, keys, engine=DuckDBEngine(frame)).overall


def synthetic(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cards = {
        "sex": 2,
        "age": 90,
        "race": 6,
        "marital": 7,
        "education": 16,
        "zip3": 40,
        "workclass": 9,
        "occupation": 14,
    }
    return pd.DataFrame({k: rng.integers(0, c, n) for k, c in cards.items()})


def main() -> None:
    path = shared_data("adult/adult.csv")
    if path is not None:
        adult = read_table(path).frame
        print(f"Adult: {len(adult):,} records, 8 keys")
        warm = DuckDBEngine(adult)
        measure_risk(None, KEYS, engine=warm)
        t_cold, r = best_of(lambda: hidekit_risk(adult, KEYS), repeat=20)
        t_warm, _ = best_of(lambda: measure_risk(None, KEYS, engine=warm), repeat=20)
        t_pd, p = best_of(lambda: pandas_risk(adult, KEYS), repeat=20)
        assert (r.cells, r.k, r.uniques) == (p["cells"], p["k"], p["uniques"])
        try:
            from pycanon import anonymity

            t_pc, k = best_of(lambda: anonymity.k_anonymity(adult, KEYS), repeat=3)
            assert k == r.k
        except ImportError:
            t_pc = None
            print("  (pycanon not installed: pip install pycanon)")
        print(
            row(
                "hidekit, cold (encode columns + all metrics)",
                t_cold,
                None,
                f"{t_pd / t_cold:.2f}x pandas"
                + (f", {t_pc / t_cold:.0f}x pycanon" if t_pc else ""),
            )
        )
        print(
            row(
                "hidekit, warm (engine already holds codes)",
                t_warm,
                None,
                f"{t_pd / t_warm:.1f}x pandas"
                + (f", {t_pc / t_warm:.0f}x pycanon" if t_pc else ""),
            )
        )
        print(row("pandas group-by (baseline)", t_pd))
        if t_pc:
            print(row("pycanon k_anonymity (baseline)", t_pc))

    big = synthetic(1_000_000)
    keys = list(big.columns)
    print(f"Synthetic: {len(big):,} records, 8 integer keys")
    t_hk, r = best_of(lambda: hidekit_risk(big, keys), repeat=5)
    t_pd, _ = best_of(lambda: pandas_risk(big, keys), repeat=3)
    warm = DuckDBEngine(big)
    measure_risk(None, keys, engine=warm)
    t_w, _ = best_of(lambda: measure_risk(None, keys, engine=warm), repeat=5)
    print(row("hidekit risk, cold", t_hk, None, f"cells {r.cells:,}; target < 300 ms"))
    print(row("hidekit risk, warm", t_w, None, f"{t_pd / t_w:.1f}x pandas"))
    print(row("pandas group-by (baseline)", t_pd, None, f"hidekit is {t_pd / t_hk:.2f}x pandas"))
    strings = big.astype(str)
    t_hs, _ = best_of(lambda: hidekit_risk(strings, keys), repeat=3)
    t_ps, _ = best_of(lambda: pandas_risk(strings, keys), repeat=2)
    print(row("hidekit risk, string keys, cold", t_hs, None, ""))
    print(row("pandas group-by, string keys", t_ps, None, f"hidekit is {t_ps / t_hs:.2f}x pandas"))
    secs, mb = peak_memory_mb(hidekit_risk, big, keys)
    secs_p, mb_p = peak_memory_mb(pandas_risk, big, keys)
    print(f"  peak RSS (fresh process, data included): hidekit {mb:.0f} MB, pandas {mb_p:.0f} MB")


if __name__ == "__main__":
    main()
