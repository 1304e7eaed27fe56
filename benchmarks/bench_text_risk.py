"""Text risk speed: 10,000 Monte Carlo draws on a 1,000-document corpus, vectorized vs a naive
Python loop per draw (the baseline, same process, same inputs). Also the counting step, and
MEDDOCAN dev when ``../shared/data`` is present (skipped otherwise). Run: ``python benchmarks/bench_text_risk.py``."""

from __future__ import annotations

import math
import random
import sys
import tracemalloc

import numpy as np

from hidekit.demo.survey import generate_survey
from hidekit.evaluation.text_risk import simulate_di, simulate_qi
from hidekit.evaluation.text_risk_corpus import corpus_stats, drop_spans, load_documents
from hidekit.evaluation.text_risk_demo import survey_notes
from hidekit.evaluation.type_maps import load_type_map

from _common import best_of, row, shared_data

DRAWS = 10_000


def naive_mc(stats, draws: int, seed: int) -> tuple[list[float], list[float]]:
    """The obvious implementation: one Python iteration per draw, ``random`` per variable."""
    rnd = random.Random(seed)
    q = stats.quasi
    di, qi = [], []
    for _ in range(draws):
        prod = 1.0
        for d in stats.direct:
            w = min(max(rnd.gauss(d.w, math.sqrt(d.w * (1 - d.w) / stats.n)), 0), 1)
            r = min(max(rnd.gauss(d.r, math.sqrt(d.r * (1 - d.r) / d.documents)), 0), 1)
            prod *= 1 - w * (1 - r)
        di.append(1 - prod)
        rq = min(max(rnd.gauss(q.r_q, math.sqrt(q.r_q * (1 - q.r_q) / q.documents)), 0), 1)
        n = _poisson(rnd, q.n_q)
        m = 1 + _poisson(rnd, q.m - 1)
        p = 1 - rq**m
        qi.append(1 - (1 - p) ** n - n * p * (1 - p) ** (n - 1) if n >= 2 else 0.0)
    return di, qi


def _poisson(rnd: random.Random, lam: float) -> int:
    k, p, limit = 0, 1.0, math.exp(-lam)
    while True:
        p *= rnd.random()
        if p <= limit:
            return k
        k += 1


def vectorized_mc(stats, draws: int, seed: int):
    rng = np.random.default_rng(seed)
    q = stats.quasi
    w = [d.w for d in stats.direct]
    r = [d.r for d in stats.direct]
    s = [d.documents for d in stats.direct]
    di = simulate_di(w, r, s, stats.n, draws=draws, rng=rng)
    qi = simulate_qi(q.n_q, q.r_q, q.m, q.documents, draws=draws, rng=rng)
    return di, qi


def main() -> int:
    print("Text risk (2 shared cores: figures are noisy when other engineers load the machine)")
    gold = survey_notes(generate_survey(1000, 7))
    pred = drop_spans(gold, 0.02, seed=1)
    t_count, stats = best_of(lambda: corpus_stats(gold, pred, load_type_map()), repeat=1, warmup=0)
    print(
        f"corpus: {stats.n} documents, {len(stats.instances):,} gold spans, "
        f"{len(stats.direct)} DI types"
    )
    print(row("counting (masking, conventional figures)", t_count))

    tracemalloc.start()
    t_vec, (di, qi) = best_of(lambda: vectorized_mc(stats, DRAWS, 1), repeat=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    t_naive, (ndi, nqi) = best_of(lambda: naive_mc(stats, DRAWS, 1), repeat=1, warmup=0)
    print(f"{DRAWS:,} Monte Carlo draws (DI eq. 20 + QI eq. 21), 1,000 documents")
    print(
        row(
            "vectorized (numpy)",
            t_vec,
            None,
            f"{t_naive / t_vec:.0f}x the naive loop; peak traced memory {peak / 2**20:.1f} MiB",
        )
    )
    print(row("naive Python loop per draw (baseline)", t_naive))
    print(
        f"  agreement: DI mean {np.mean(di):.4f} vs {np.mean(ndi):.4f}; "
        f"QI mean {np.mean(qi):.4f} vs {np.mean(nqi):.4f}"
    )
    status = 0 if t_vec < 2.0 else 1
    print(f"  target < 2 s for {DRAWS:,} draws: {'met' if status == 0 else 'NOT met'}")

    dev = shared_data("meddocan/dev")
    if dev is not None:
        t_load, docs = best_of(lambda: load_documents(dev), repeat=1, warmup=0)
        sim = drop_spans(docs, 0.03, seed=1)
        t_stats, st = best_of(lambda: corpus_stats(docs, sim, load_type_map()), repeat=1, warmup=0)
        print(f"MEDDOCAN dev ({st.n} documents, simulated predictions)")
        print(row("read brat folder", t_load))
        print(row("counting (masking, conventional figures)", t_stats))
    return status


if __name__ == "__main__":
    sys.exit(main())
