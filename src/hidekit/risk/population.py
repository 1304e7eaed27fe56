"""How many population uniques a sample implies: Pitman, Zayatz, SNB and Dankar's rule.

All four read only the sample's frequency of frequencies (how many classes of size 1, 2, …),
the sample size n and the population size N (or the sampling fraction f = n / N), as ARX's
population-uniqueness risk model does (Dankar, El Emam, Neisa & Roffey, 2012):

- **Pitman** (Hoshino, 2001): the Pitman sampling formula's parameters (θ, α) by maximum likelihood,
  then N^α · Γ(θ + 1) / Γ(θ + α) population uniques.
- **Zayatz** (1991): the chance that a sample unique is a population unique, from hypergeometric
  draws of each class size; c1 · that chance / f.
- **SNB** (Chen & Keller-McNulty, 1998): a slide-negative-binomial fit to c1 and c2 with Shlosser's
  estimate of the number of non-empty population classes; K · β^α.
- **Dankar's rule**: f ≤ 0.1 → Pitman (Zayatz if Pitman fails); otherwise the smaller of Zayatz and
  SNB (Zayatz if SNB fails).

An estimator that does not converge or gives a value outside [0, N] is unavailable (``None``),
with the reason, and the rule falls back as above. ARX's own solver choices are kept where they
change the numbers (its starting point for Pitman, its Shlosser sum for SNB); the population is
not capped at 2³¹ - 1 for Zayatz as ARX's does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from hidekit.errors import OptionError

MODELS = ("pitman", "zayatz", "snb")


@dataclass
class PopulationEstimates:
    population_size: float
    sample_size: int
    sampling_fraction: float
    sample_uniques: int
    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    dankar_model: str
    reasons: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "population": {
                "pitman": self.pitman,
                "zayatz": self.zayatz,
                "snb": self.snb,
                "dankar": self.dankar,
                "population_size": self.population_size,
                "sampling_fraction": self.sampling_fraction,
                "sample_uniques": self.sample_uniques,
                "unavailable": dict(self.reasons),
            },
            "dankar_model": self.dankar_model,
        }


def frequencies(class_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class sizes present and how many classes have each (the frequency of frequencies)."""
    counts = np.bincount(np.asarray(class_sizes, dtype=np.int64))
    sizes = np.flatnonzero(counts)
    sizes = sizes[sizes > 0]
    return sizes, counts[sizes]


def resolve_population(
    n: int, population: float | None, sampling_fraction: float | None
) -> tuple[float, float]:
    """(N, f) from either; a population smaller than the sample is refused."""
    if (population is None) == (sampling_fraction is None):
        raise OptionError("give either the population size or the sampling fraction, not both")
    if sampling_fraction is not None:
        f = float(sampling_fraction)
        if not 0 < f <= 1:
            raise OptionError(f"sampling fraction must be in (0, 1], got {sampling_fraction}")
        return n / f, f
    assert population is not None  # exactly one of the two was given (checked above)
    N = float(population)
    if not math.isfinite(N) or n > N:
        raise OptionError(
            f"population size {population:g} is smaller than the sample ({n} records)"
        )
    return N, n / N


def estimate_population(
    class_sizes: np.ndarray,
    *,
    population: float | None = None,
    sampling_fraction: float | None = None,
    weights_total: float | None = None,
) -> PopulationEstimates:
    """Pitman, Zayatz, SNB and Dankar's choice from the sample's class sizes."""
    sizes, counts = frequencies(class_sizes)
    n = int((sizes * counts).sum())
    N, f = resolve_population(n, population, sampling_fraction)
    warnings = []
    if weights_total is not None and abs(weights_total - N) > 0.1 * N:
        warnings.append(
            f"the weights add up to {weights_total:,.0f} but the population is {N:,.0f}: "
            f"check the population size or the weights"
        )
    c1 = int(counts[sizes == 1].sum())
    if c1 == 0:
        return PopulationEstimates(N, n, f, 0, 0.0, 0.0, 0.0, 0.0, "none", {}, warnings)
    reasons: dict[str, str] = {}
    values = {}
    for name, fn in (("pitman", pitman), ("zayatz", zayatz), ("snb", snb)):
        try:
            value = fn(sizes, counts, N)
        except (ArithmeticError, ValueError) as exc:
            value, why = None, str(exc)
        else:
            why = "" if _valid(value, N) else f"estimate {value!r} is outside [0, N]"
        if why:
            reasons[name] = why
            value = None
        values[name] = value
    dankar, model = dankar_rule(f, values)
    return PopulationEstimates(
        N, n, f, c1, values["pitman"], values["zayatz"], values["snb"], dankar, model,
        reasons, warnings,
    )  # fmt: skip


def dankar_rule(f: float, values: dict[str, float | None]) -> tuple[float | None, str]:
    """Dankar et al.'s choice among the estimates (ARX's decision rule, Zayatz as fallback)."""
    if f <= 0.1:
        if values["pitman"] is not None:
            return values["pitman"], "pitman"
        return values["zayatz"], "zayatz"
    z, s = values["zayatz"], values["snb"]
    if s is not None and z is not None:
        return (z, "zayatz") if z < s else (s, "snb")
    return z, "zayatz"


def _valid(value, N) -> bool:
    return value is not None and math.isfinite(value) and 0 < value <= N


# --- Zayatz ------------------------------------------------------------------------------------
def zayatz(sizes: np.ndarray, counts: np.ndarray, N: float) -> float:
    """c1 · P(population unique | sample unique) / f, by hypergeometric draws."""
    from scipy import stats  # here: scipy costs every command's start-up

    n = int((sizes * counts).sum())
    u = counts.sum()
    c1 = counts[sizes == 1].sum()
    pop = int(round(N))
    one = stats.hypergeom.pmf(1, pop, sizes, n)  # P(X = 1) drawing n from N with K = size
    denom = ((counts / u) * one).sum()
    if denom <= 0:
        raise ArithmeticError("no class size can give a sample unique (hypergeometric sum is 0)")
    p_unique = (c1 / u) * stats.hypergeom.pmf(1, pop, 1, n) / denom
    return float(c1 * p_unique / (n / N))


# --- Pitman ------------------------------------------------------------------------------------
def pitman(sizes: np.ndarray, counts: np.ndarray, N: float) -> float:
    """Population uniques under the Pitman model fitted by maximum likelihood (Hoshino 2001)."""
    from scipy import optimize, special  # here: scipy costs every command's start-up

    n = float((sizes * counts).sum())
    u = float(counts.sum())
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum()) or 1.0  # ARX's start: overestimate when no pairs
    c = c1 * (c1 - 1) / c2
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    big = sizes[sizes > 1]
    many = counts[sizes > 1]

    def equations(x):
        t, a = x
        o1 = (special.digamma(u + t / a) - special.digamma(t / a + 1)) / a
        o2 = special.digamma(n + t) - special.digamma(t + 1)
        o3 = ((u - 1) - t * o1) / a
        o4 = (many * (special.digamma(big - a) - special.digamma(1 - a))).sum()
        return [o1 - o2, o3 - o4]

    # ARX's starting point first (its results are reproduced from there), then a few others
    for start in ([t0, a0], [1.0, 0.5], [10.0, 0.3], [0.1, 0.9], [100.0, 0.1]):
        with np.errstate(all="ignore"):
            sol = optimize.root(equations, start, method="hybr", options={"xtol": 1e-13})
            t, a = sol.x
            fits = sol.success and t >= 0 and 0 < a < 1
            if fits and max(map(abs, equations(sol.x))) <= 1e-6:
                break
    else:
        raise ArithmeticError(f"Pitman's likelihood equations did not converge ({sol.message})")
    return float(math.exp(special.gammaln(t + 1) - special.gammaln(t + a) + a * math.log(N)))


# --- SNB ---------------------------------------------------------------------------------------
def snb(sizes: np.ndarray, counts: np.ndarray, N: float) -> float:
    """Slide negative binomial: K · β^α, with α, β fitted to c1 and c2."""
    from scipy import optimize  # here: scipy costs every command's start-up

    n = float((sizes * counts).sum())
    f = n / N
    u = float(counts.sum())
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum())
    k = shlosser(sizes, counts, u, c1, f)

    def equations(x):
        a, b = x
        d = (1 - f) * (1 - b)
        e1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1
        e2 = k * a * b**a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
        return [e1 / c1, e2 / max(c2, 1.0)]

    best = None
    with np.errstate(all="ignore"):
        for start in ([1.0, f], [0.5, 0.5], [2.0, 0.1], [0.1, 0.9]):
            sol = optimize.root(equations, start, method="hybr")
            a, b = sol.x
            if sol.success and a > 0 and 0 < b <= 1 and max(map(abs, equations(sol.x))) < 1e-8:
                best = sol.x
                break
    if best is None:
        raise ArithmeticError("the SNB equations have no solution with α > 0 and 0 < β ≤ 1")
    a, b = best
    return float(k * b**a)


def shlosser(sizes, counts, u, c1, f) -> float:
    """Shlosser's estimate of non-empty population classes, as ARX sums it."""
    f2 = f * f
    s = sizes.astype(np.float64)
    v1 = (s * f2 * (1 - f2) ** (s - 1) * counts).sum()
    v2 = ((1 - f) ** s * counts * (1 + f) ** s - 1).sum()
    v3 = ((1 - f) ** s * counts).sum()
    v4 = (s * f * (1 - f) ** (s - 1) * counts).sum()
    return u + c1 * (v1 / v2) * (v3 / v4) ** 2
