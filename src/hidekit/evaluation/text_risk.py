"""Re-identification risk of de-identified text (Scaiano, El Emam et al., J Biomed Inform 2016).

Micro-averaged recall hides what matters: one leaked name re-identifies a patient. This module
turns gold-vs-prediction counts (``text_risk_corpus``) into the paper's probabilities:

- direct identifiers (DI): at least one leak per document, eq. (11); with re-synthesis ("hiding in
  plain sight", factor ``h``) only for types whose all-or-nothing recall reaches the strict
  cut-off, eqs. (14, 16); times the attempt probability, eq. (18);
- quasi-identifiers (QI): two or more leaked values, a binomial tail, eqs. (12, 15, 17, 19);
- Monte Carlo distributions, eqs. (20, 21), vectorized over draws, and the decisions of 2.3.9: DI
  against a benchmark distribution, QI against ``τ = 1 / cell size``, eq. (22).

Exact semantics and the choices the paper leaves open: ``specs/text-risk.md`` and
``docs/text-risk.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from hidekit.errors import OptionError, require_fraction
from hidekit.evaluation.text_risk_corpus import CorpusStats, DirectType, QuasiStats, corpus_stats
from hidekit.evaluation.text_risk_sample import SAMPLE_RULE, SampleCheck, sample_checks
from hidekit.evaluation.type_maps import load_type_map

BENCHMARK_N = 220  # smallest test corpus in the paper's review (2.3.9.1)
BENCHMARK_RECALL = 0.95  # acceptable recall for DIs, after Ferrández et al. (2.3.9.1)
M_DRAWS = ("shifted", "poisson")


# ---------------------------------------------------------------- point equations


def all_or_nothing_recall(leaked_documents: int, documents: int) -> float:
    """Share of documents holding a type in which every instance of it is caught (2.3.1)."""
    if documents <= 0:
        raise OptionError("all-or-nothing recall needs at least one document holding the type")
    return 1 - leaked_documents / documents


def di_risk(
    w: Sequence[float],
    r: Sequence[float],
    h: float | None = None,
    strict: float = 0.9,
    attempt: float = 1.0,
) -> float:
    """Probability a document leaks at least one DI.

    ``h=None`` (redacted): eq. (11). With re-synthesis ``h``: eq. (16) — types with ``r >= strict``
    get the factor ``h``, the others none; ``strict=0`` gives eq. (14). Times ``attempt``: (18).
    """
    wa, ra = np.asarray(w, float), np.asarray(r, float)
    factor = np.where(ra >= strict, h, 1.0) if h is not None else np.ones_like(ra)
    return float((1 - np.prod(1 - factor * wa * (1 - ra))) * attempt)


def binomial_tail2(n, p):
    """``P(X >= 2)`` for ``X ~ Binomial(n, p)``, vectorized over integer ``n`` and ``p``.

    Written as ``1 - (1-p)^(n-1) (1 + (n-1)p)`` through log1p/expm1, so tiny probabilities
    keep their precision instead of vanishing in ``1 - (almost 1)``.
    """
    n = np.asarray(n, float)
    p = np.clip(np.asarray(p, float), 0.0, 1.0)
    t = np.maximum(n - 1, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = t * np.log1p(-p) + np.log1p(t * p)
        tail = -np.expm1(inner)
    tail = np.where(p >= 1.0, 1.0, tail)
    out = np.where(n >= 2, np.clip(tail, 0.0, 1.0), 0.0)
    return out if out.ndim else float(out)


def binomial_tail2_mean_n(n_mean: float, p: float) -> float:
    """Eq. (12) when ``n_q`` is a mean, not a whole number: the tail of a mixture of the two
    nearest whole numbers of trials with mean ``n_q`` (exact at whole numbers, monotone between).
    """
    lo = math.floor(n_mean)
    frac = n_mean - lo
    return float((1 - frac) * binomial_tail2(lo, p) + frac * binomial_tail2(lo + 1, p))


def qi_leak_probability(r_q: float, m: float, h: float | None = None) -> float:
    """Chance one QI value leaks in at least one of its ``m`` instances, ``1 - r_q^m``, times ``h``
    under re-synthesis (eq. 15)."""
    p = 1 - r_q**m
    return p * h if h is not None else p


def qi_risk(
    n_q: float,
    r_q: float,
    m: float,
    h: float | None = None,
    strict: float = 0.7,
    attempt: float = 1.0,
) -> float:
    """Probability of two or more leaked QI values in a document.

    ``h=None``: eq. (12); re-synthesis: (17) — ``h`` only when ``r_q >= strict`` (``strict=0``
    gives (15)); times ``attempt``: (19).
    """
    use_h = h if (h is not None and r_q >= strict) else None
    return binomial_tail2_mean_n(n_q, qi_leak_probability(r_q, m, use_h)) * attempt


def threshold_from_cell_size(cell_size: float) -> float:
    """τ = 1 / cell size: 5 → 0.2, 3 → 0.33, 11 → 0.09, 20 → 0.05 (2.3.9.2)."""
    if cell_size < 1:
        raise OptionError(f"--cell-size must be at least 1, got {cell_size}")
    return 1.0 / cell_size


def check_attempt(attempt: Sequence[float] | None) -> tuple[float, float, float] | None:
    """``(a, b, c)`` of Triang(a, b, c): minimum, most likely, maximum, all probabilities."""
    if attempt is None:
        return None
    if len(attempt) != 3:
        raise OptionError(
            f"--attempt needs three values a,b,c (min, mode, max), got {len(attempt)}"
        )
    a, b, c = (float(x) for x in attempt)
    for name, v in zip("abc", (a, b, c), strict=True):
        require_fraction(f"attempt {name}", v)
    if not a <= b <= c:
        raise OptionError(f"--attempt needs a <= b <= c, got {a}, {b}, {c}")
    return a, b, c


def attempt_mean(attempt: tuple[float, float, float] | None) -> float:
    """E[A] of Triang(a, b, c) = (a + b + c) / 3; a public release has A = 1."""
    return 1.0 if attempt is None else sum(attempt) / 3


# ---------------------------------------------------------------- Monte Carlo (20, 21)


def _attempt_draws(attempt, draws: int, rng: np.random.Generator) -> np.ndarray | float:
    if attempt is None:
        return 1.0
    a, b, c = attempt
    if a == c:
        return np.full(draws, a)
    return rng.triangular(a, b, c, size=draws)


def _normal_share(
    mean: np.ndarray, count: np.ndarray, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """N(p, sqrt(p(1-p)/count)) per column, clipped to [0, 1] (spec choice)."""
    mean = np.asarray(mean, float)
    sd = np.sqrt(mean * (1 - mean) / np.maximum(np.asarray(count, float), 1.0))
    return np.clip(rng.normal(mean, sd, size=(draws, mean.size)), 0.0, 1.0)


def simulate_di(
    w,
    r,
    s,
    n: int,
    h: float | None = None,
    strict: float = 0.9,
    attempt=None,
    draws: int = 10_000,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Eq. (20): ``draws`` values of the DI risk, one row of (W_i, R_i, A) per draw.

    Which types get ``h`` is fixed by the observed ``r_i`` (the paper's ``{i | r_i >= 0.9}``).
    """
    rng = rng or np.random.default_rng()
    w, r = np.asarray(w, float), np.asarray(r, float)
    if w.size == 0:
        return np.zeros(draws)
    W = _normal_share(w, np.full(w.size, n), draws, rng)
    R = _normal_share(r, np.asarray(s, float), draws, rng)
    factor = np.where(r >= strict, h, 1.0) if h is not None else np.ones_like(r)
    p = 1 - np.prod(1 - factor * W * (1 - R), axis=1)
    return p * _attempt_draws(attempt, draws, rng)


def _m_draws(m: float, draws: int, rng: np.random.Generator, m_draw: str) -> np.ndarray:
    if m_draw == "poisson":
        return rng.poisson(m, size=draws)
    return 1 + rng.poisson(max(m - 1, 0.0), size=draws)


def simulate_qi(
    n_q: float,
    r_q: float,
    m: float,
    s_q: int,
    h: float | None = None,
    strict: float = 0.7,
    attempt=None,
    draws: int = 10_000,
    rng: np.random.Generator | None = None,
    m_draw: str = "poisson",
) -> np.ndarray:
    """Eq. (21): ``R_q ~ N(r_q, sqrt(r_q(1-r_q)/s_q))``, ``N_q ~ Pois(n_q)``, ``M`` (see
    ``m_draw``), ``A ~ Triang``; the binomial tail of each draw, vectorized.

    ``m_draw="poisson"`` (default) is the paper's and the spec's ``M ~ Pois(m)``; ``"shifted"``
    draws ``M = 1 + Pois(m - 1)``: same mean ``m``, but never the impossible 0 instances per value,
    which under ``Pois(m)`` make a value unleakable and understate the risk.
    """
    if m_draw not in M_DRAWS:
        raise OptionError(f"m_draw must be one of {', '.join(M_DRAWS)}, got {m_draw!r}")
    rng = rng or np.random.default_rng()
    if n_q <= 0:
        return np.zeros(draws)
    R = _normal_share(np.array([r_q]), np.array([s_q]), draws, rng)[:, 0]
    N = rng.poisson(n_q, size=draws)
    M = _m_draws(m, draws, rng, m_draw)
    p = 1 - R**M
    if h is not None and r_q >= strict:
        p = h * p
    return binomial_tail2(N, p) * _attempt_draws(attempt, draws, rng)


def _poisson_pmf(lam: float, shift: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of ``shift + Pois(lam)``, truncated far in the upper tail."""
    k = np.arange(int(lam + 12 * math.sqrt(lam) + 25) + 1)
    if lam <= 0:
        return k + shift, (k == 0).astype(float)
    logp = k * math.log(lam) - lam - np.array([math.lgamma(x + 1) for x in k])
    return k + shift, np.exp(logp)


def qi_expected_risk(
    n_q: float,
    r_q: float,
    m: float,
    h: float | None = None,
    strict: float = 0.7,
    attempt=None,
    m_draw: str = "poisson",
) -> float:
    """E of eq. (21) over the Poisson laws of ``N_q`` and ``M`` at the observed ``r_q``: the value
    the Monte Carlo mean tends to as the corpus grows (``R_q``'s spread shrinks with ``s_q``,
    but ``N_q`` and ``M`` model variation between documents, which does not)."""
    if n_q <= 0:
        return 0.0
    ns, pn = _poisson_pmf(n_q)
    ms, pm = _poisson_pmf(m) if m_draw == "poisson" else _poisson_pmf(max(m - 1, 0.0), shift=1)
    p = 1 - r_q ** ms.astype(float)
    if h is not None and r_q >= strict:
        p = h * p
    tails = binomial_tail2(ns[:, None], p[None, :])
    return float(pn @ tails @ pm) * attempt_mean(attempt)


# ---------------------------------------------------------------- assessment


@dataclass
class Distribution:
    """One Monte Carlo distribution with its point value; ``draws`` stay out of JSON."""

    estimate: float
    draws: np.ndarray = field(repr=False)

    @cached_property
    def mean(self) -> float:
        return float(self.draws.mean())

    @cached_property
    def ci(self) -> list[float]:
        lo, hi = np.quantile(self.draws, [0.025, 0.975])
        return [float(lo), float(hi)]

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "mean": self.mean, "ci": self.ci}


@dataclass
class Verdict:
    acceptable: bool
    reason: str


@dataclass
class TextRiskResult:
    stats: CorpusStats
    settings: dict
    direct: Distribution
    benchmark: Distribution
    quasi: Distribution
    quasi_expected: float
    tau: float
    direct_verdict: Verdict
    quasi_verdict: Verdict
    type_map: dict
    samples: list[SampleCheck] = field(default_factory=list)

    @property
    def sample_warnings(self) -> list[str]:
        """One line per share whose sample is too small for its interval (``SAMPLE_RULE``)."""
        return [c.message() for c in self.samples if c.too_small]

    def to_dict(self) -> dict:
        q = self.stats.quasi
        conv = self.stats.conventional
        return {
            "sample": {
                "too_small": bool(self.sample_warnings),
                "warnings": self.sample_warnings,
                "rule": SAMPLE_RULE,
                "checks": [c.to_dict() for c in self.samples],
            },
            "documents": self.stats.documents,
            "n": self.stats.n,
            "unit": self.stats.unit,
            "settings": self.settings,
            "direct": {
                **self.direct.to_dict(),
                "acceptable": self.direct_verdict.acceptable,
                "reason": self.direct_verdict.reason,
                "benchmark": {
                    **self.benchmark.to_dict(),
                    "n": BENCHMARK_N,
                    "w": 1.0,
                    "recall": BENCHMARK_RECALL,
                    "types": len(self.stats.direct),
                },
                "types": [
                    {**d.to_dict(), "hips_applied": self._h_applied(d)} for d in self.stats.direct
                ],
                "conventional": conv["groups"]["direct"],
            },
            "quasi": {
                **self.quasi.to_dict(),
                "expected": self.quasi_expected,
                "acceptable": self.quasi_verdict.acceptable,
                "reason": self.quasi_verdict.reason,
                "tau": self.tau,
                **{k: v for k, v in q.to_dict().items() if k not in ("n",)},
                "hips_applied": self.settings["resynthesized"]
                and q.r_q >= self.settings["strict_qi"],
                "conventional": conv["groups"]["quasi"],
            },
            "conventional": conv["per_type"],
            "ignored_types": self.stats.ignored_types,
            "type_map": self.type_map,
        }

    def _h_applied(self, d: DirectType) -> bool:
        return bool(self.settings["resynthesized"] and d.r >= self.settings["strict_di"])


MAX_DRAWS = 1_000_000


def _check_settings(hips, strict_di, strict_qi, cell_size, draws):
    require_fraction("--hips", hips)
    require_fraction("--strict-di", strict_di)
    require_fraction("--strict-qi", strict_qi)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)):
        raise OptionError(f"--draws must be a whole number, got {draws!r}")
    if draws < 100:
        raise OptionError(f"--draws must be at least 100 for a 95% interval, got {draws}")
    if draws > MAX_DRAWS:
        raise OptionError(
            f"--draws must be at most {MAX_DRAWS:,} (intervals are stable long before; each "
            f"draw costs memory per identifier type), got {draws:,}"
        )
    return threshold_from_cell_size(cell_size)


MC_RANDOMNESS = {"keyed": "seeded from secret", "fresh": "fresh", "seed": "seeded (not recorded)"}


def monte_carlo_streams(key: bytes | None, seed: int | None):
    """Three independent generators (DI, benchmark, QI) and how they were seeded, in words."""
    from hidekit.secrets import Randomness

    if key is not None and seed is not None:
        raise OptionError("text risk: give a secret key or a seed, not both")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise OptionError(f"text risk: a seed must be a whole number ≥ 0, got {seed!r}")
        gens = [np.random.default_rng(s) for s in np.random.SeedSequence(int(seed)).spawn(3)]
        return (*gens, MC_RANDOMNESS["seed"])
    rand = Randomness.from_key(key) if key is not None else Randomness.fresh()
    gens = [rand.rng("text-risk-monte-carlo", part) for part in ("di", "benchmark", "qi")]
    return (*gens, MC_RANDOMNESS[rand.kind])


def assess_text_risk(
    gold,
    pred,
    *,
    fmt: str | None = None,
    types_map=None,
    resynthesized: bool = False,
    hips: float = 0.1,
    strict_di: float = 0.9,
    strict_qi: float = 0.7,
    attempt: Sequence[float] | None = None,
    cell_size: float = 5,
    draws: int = 10_000,
    seed: int | None = None,
    m_draw: str = "poisson",
    key: bytes | None = None,
) -> TextRiskResult:
    """Risk of re-identification left in ``pred`` (a tool's spans) judged against ``gold``.

    ``gold``/``pred``: brat folders, JSONL files or lists of Documents. ``resynthesized``: the
    output carries surrogates (HIPS factor ``hips`` applies above the strict cut-offs);
    ``attempt``: Triang(a, b, c) for a non-public release (None: public, A = 1).
    The Monte Carlo draws come from ``key`` (a secret: HMAC of the key and the stream, the same
    key gives the same intervals), else ``seed`` (tests: same seed, same intervals), else fresh
    OS randomness. Outputs say which (``settings["randomness"]``), never the seed or key: a
    report that prints its seed shows a habit the masking steps must not have.
    """
    tau = _check_settings(hips, strict_di, strict_qi, cell_size, draws)
    att = check_attempt(attempt)
    tmap = load_type_map(types_map)
    stats = corpus_stats(gold, pred, tmap, fmt)
    h = hips if resynthesized else None
    a_mean = attempt_mean(att)
    rng_di, rng_bench, rng_qi, how = monte_carlo_streams(key, seed)

    w = [d.w for d in stats.direct]
    r = [d.r for d in stats.direct]
    s = [d.documents for d in stats.direct]
    direct = Distribution(
        di_risk(w, r, h, strict_di, a_mean),
        simulate_di(w, r, s, stats.n, h, strict_di, att, draws, rng_di),
    )
    k = len(stats.direct)
    bench_r = [BENCHMARK_RECALL] * k
    benchmark = Distribution(
        di_risk([1.0] * k, bench_r, h, strict_di, a_mean),
        simulate_di(
            [1.0] * k, bench_r, [BENCHMARK_N] * k, BENCHMARK_N, h, strict_di, att, draws, rng_bench
        ),
    )
    q = stats.quasi
    quasi = Distribution(
        qi_risk(q.n_q, q.r_q, q.m, h, strict_qi, a_mean),
        simulate_qi(q.n_q, q.r_q, q.m, q.documents, h, strict_qi, att, draws, rng_qi, m_draw),
    )
    settings = {
        "resynthesized": resynthesized,
        "hips": hips,
        "strict_di": strict_di,
        "strict_qi": strict_qi,
        "attempt": list(att) if att else None,
        "attempt_mean": a_mean,
        "cell_size": cell_size,
        "draws": draws,
        "randomness": how,
        "m_draw": m_draw,
    }
    return TextRiskResult(
        stats=stats,
        settings=settings,
        direct=direct,
        benchmark=benchmark,
        quasi=quasi,
        quasi_expected=qi_expected_risk(q.n_q, q.r_q, q.m, h, strict_qi, att, m_draw),
        tau=tau,
        direct_verdict=direct_verdict(direct, benchmark, k),
        quasi_verdict=quasi_verdict(quasi, tau, cell_size, q),
        type_map=tmap.to_dict(),
        samples=sample_checks(stats),
    )


def direct_verdict(direct: Distribution, benchmark: Distribution, types: int) -> Verdict:
    """2.3.9.1: acceptable when the data's upper confidence limit is at most the benchmark's."""
    if types == 0:
        return Verdict(True, "no direct identifiers in the gold annotations")
    ucl, bucl = direct.ci[1], benchmark.ci[1]
    ok = ucl <= bucl
    rel = "≤" if ok else ">"
    return Verdict(
        ok,
        f"upper 95% limit {ucl:.4f} {rel} benchmark's {bucl:.4f} (w = 1, "
        f"n = {BENCHMARK_N}, all-or-nothing recall {BENCHMARK_RECALL} for each of "
        f"the {types} DI types): risk {'acceptable' if ok else 'may exceed the benchmark'}",
    )


def quasi_verdict(quasi: Distribution, tau: float, cell_size: float, q: QuasiStats) -> Verdict:
    """2.3.9.2 / eq. (22): acceptable when the upper confidence limit is at most τ."""
    if q.instances == 0:
        return Verdict(True, "no quasi-identifiers in the gold annotations")
    ucl = quasi.ci[1]
    ok = ucl <= tau
    rel = "≤" if ok else ">"
    return Verdict(
        ok,
        f"upper 95% limit {ucl:.4f} {rel} τ = {tau:.4f} (cell size {cell_size:g}): "
        f"risk {'acceptable' if ok else 'above the threshold'}",
    )
