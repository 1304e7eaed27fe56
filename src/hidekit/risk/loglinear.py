"""Re-identification risk from a log-linear model of the key variables (Skinner & Shlomo, JASA 2008).

Each cell k of the keys' cross-classification has a population count F_k ~ Poisson(λ_k), and the
sample keeps each person with probability π, so f_k ~ Poisson(π λ_k) = Poisson(μ_k) and, given
f_k, the unseen rest F_k - f_k ~ Poisson(ν_k) with ν_k = μ_k (1 - π) / π. A log-linear model
for μ_k (main effects of the keys, optionally all two-way interactions) borrows strength across
cells, instead of trusting each cell's own weights as Benedetti–Franconi does. Then

    E[1 / F_k | f_k] = 1F1(1; f_k + 1; -ν_k) / f_k     (= (1 - e^-ν) / ν when f_k = 1)
    P(F_k = 1 | f_k = 1) = e^-ν_k

Expected re-identifications are the sum of E[1/F_k | f_k] over records (comparable to
sdcMicro's sum of individual risks and to the truth Σ 1/F_k); τ1 the expected number of sample
uniques that are population uniques. The interval includes the model's parameter uncertainty: a
parametric bootstrap refits the model on samples drawn from the fit (the estimate's spread over
refits), added to the spread of draws of the unseen population given the fit. Categories are renumbered by first appearance, so how an
engine coded them changes nothing.

The fit check compares the observed frequency of frequencies (how many cells have f = 1, 2, …)
with the model's expectation: a model that expects far fewer (or more) sample uniques than seen
misjudges exactly the cells that carry the risk. Main effects have a closed-form fit (products of
margins) and the expectation over the whole table is estimated by sampling cells in proportion to
μ; two-way interactions are fitted by iterative proportional fitting on the full table, so they
need a table of at most ``TABLE_LIMIT`` cells.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from hidekit.engines.codes import combine, densify
from hidekit.errors import OptionError

TABLE_LIMIT = 4_000_000
FIT_SIZES = 5  # frequencies of frequencies compared: f = 1..5
MODELS = ("main", "two-way")


@dataclass
class LoglinearEstimate:
    model: str
    sampling_fraction: float
    expected_reidentifications: float
    ci: tuple[float, float]
    population_uniques_among_sample_uniques: float
    per_record: np.ndarray
    fit: list[dict] = field(default_factory=list)
    fits: bool = True
    bootstrap: int = 0
    note: str = ""
    refits: int = 0

    def to_dict(self) -> dict:
        return {
            "model": f"log-linear ({self.model}), Skinner & Shlomo 2008",
            "expected_reidentifications": self.expected_reidentifications,
            "ci": list(self.ci),
            "ci_level": 0.95,
            "ci_method": (
                f"parametric bootstrap: the estimate's spread over {self.refits} refits of the "
                f"model on samples drawn from the fit, plus {self.bootstrap} draws of the unseen "
                f"population given the fit"
            ),
            "population_uniques_among_sample_uniques": (
                self.population_uniques_among_sample_uniques
            ),
            "sampling_fraction": self.sampling_fraction,
            "fit": {"fits": self.fits, "frequencies": self.fit, "note": self.note},
        }


def expected_inverse(fk: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """E[1 / (f + G)] for G ~ Poisson(ν), via Kummer's function."""
    from scipy import special  # here, not at import: scipy costs every command's start-up

    fk = np.asarray(fk, dtype=np.float64)
    return special.hyp1f1(1.0, fk + 1.0, -np.asarray(nu, dtype=np.float64)) / fk


def _margins(codes: np.ndarray) -> list[np.ndarray]:
    n = len(codes)
    return [np.bincount(codes[:, j]) / n for j in range(codes.shape[1])]


def main_effects_mu(codes: np.ndarray) -> np.ndarray:
    """μ per record under independence of the keys: n · ∏ p_j(x_j) (the closed-form MLE)."""
    n = len(codes)
    mu = np.full(n, float(n))
    for j, p in enumerate(_margins(codes)):
        mu *= p[codes[:, j]]
    return mu


def two_way_table(
    codes: np.ndarray,
    shape: tuple[int, ...] | None = None,
    start: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    iterations: int = 200,
    tol: float = 1e-9,
) -> np.ndarray:
    """Fitted counts of the all-two-way-interactions model by iterative proportional fitting."""
    if shape is None:
        shape = tuple(int(codes[:, j].max()) + 1 for j in range(codes.shape[1]))
    size = _table_size(shape)
    targets = {}
    for pair in _pairs(len(shape)):
        dims = tuple(shape[j] for j in pair)
        flat = np.ravel_multi_index(tuple(codes[:, j] for j in pair), dims)
        counts = np.bincount(flat, weights=weights, minlength=int(np.prod(dims)))
        targets[pair] = counts.reshape(dims)
    table = np.full(shape, len(codes) / size) if start is None else start.copy()
    return ipf(targets, table, iterations, tol)


def _table_size(shape: tuple[int, ...]) -> int:
    size = int(np.prod(shape, dtype=np.float64))
    if size > TABLE_LIMIT:
        raise OptionError(
            f"the two-way log-linear model needs the full table: {size:,} cells is more than "
            f"{TABLE_LIMIT:,}; use the main-effects model or fewer/coarser keys"
        )
    return size


def _pairs(m: int) -> list[tuple[int, ...]]:
    return list(combinations(range(m), 2)) or [(0,)]


def ipf(targets: dict, table: np.ndarray, iterations: int = 200, tol: float = 1e-9) -> np.ndarray:
    """Scale ``table`` until its margins over each pair of axes equal ``targets``."""
    m = table.ndim
    for _ in range(iterations):
        change = 0.0
        for pair, target in targets.items():
            other = tuple(j for j in range(m) if j not in pair)
            fitted = table.sum(axis=other)
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(fitted > 0, target / fitted, 0.0)
            change = max(change, float(np.abs(factor[target > 0] - 1).max(initial=0)))
            expand = [slice(None) if j in pair else None for j in range(m)]
            table = table * factor[tuple(expand)]
        if change < tol:
            break
    return table


def _mu(codes: np.ndarray, model: str) -> tuple[np.ndarray, np.ndarray | None]:
    if model == "main":
        return main_effects_mu(codes), None
    table = two_way_table(codes)
    return table[tuple(codes.T)], table


def frequency_fit(
    codes: np.ndarray, mu_table: np.ndarray | None, rng: np.random.Generator, draws: int = 200_000
) -> list[dict]:
    """Observed cells with f = j against the model's expected number, j = 1..FIT_SIZES."""
    from scipy import stats

    ids, card = _cell_ids(codes)
    fk = np.bincount(np.bincount(ids, minlength=card))
    observed = [int(fk[j]) if j < len(fk) else 0 for j in range(1, FIT_SIZES + 1)]
    js = np.arange(1, FIT_SIZES + 1)
    if mu_table is not None:
        mu = mu_table.ravel()
        expected = [float(stats.poisson.pmf(j, mu).sum()) for j in js]
    else:
        # importance sampling: a cell drawn margin by margin has probability μ_k / n, and
        # Σ_k P(f_k = j) = n · E[P(f = j; μ) / μ] over such draws
        n = len(codes)
        mu = np.full(draws, float(n))
        for p in _margins(codes):
            mu *= p[rng.choice(len(p), size=draws, p=p)]
        expected = [float(n * (stats.poisson.pmf(j, mu) / mu).mean()) for j in js]
    return [
        {"f": int(j), "observed": o, "expected": e}
        for j, o, e in zip(js, observed, expected, strict=True)
    ]


def _cell_ids(codes: np.ndarray) -> tuple[np.ndarray, int]:
    ids, card = np.zeros(len(codes), dtype=np.int64), 1
    for j in range(codes.shape[1]):
        ids, card = combine(ids, card, codes[:, j], int(codes[:, j].max()) + 1)
    return densify(ids, card)


def _shape(codes: np.ndarray) -> tuple[int, ...]:
    return tuple(int(codes[:, j].max()) + 1 for j in range(codes.shape[1]))


def parameter_draws(
    codes: np.ndarray, cells: np.ndarray, model: str, table: np.ndarray | None, rng, draws: int
) -> Iterator[np.ndarray]:
    """μ of each cell (rows of ``cells``) refitted on samples drawn from the fitted model: the
    parametric bootstrap of the model's parameters. Main effects: n* ~ Poisson(n) and each key's
    margin ~ Multinomial(n*, p̂_j) (independent under the model); two-way: f* ~ Poisson(μ̂) over
    the full table, refitted by proportional fitting started from the fit."""
    n = len(codes)
    if model == "main":
        margins = _margins(codes)
        for _ in range(draws):
            n_star = int(rng.poisson(n))
            mu = np.full(len(cells), float(n_star))
            for j, p in enumerate(margins):
                mu *= rng.multinomial(n_star, p)[cells[:, j]] / max(n_star, 1)
            yield mu
        return
    assert table is not None  # the two-way model always has its table
    m = table.ndim
    for _ in range(draws):
        f_star = rng.poisson(table).astype(np.float64)
        targets = {
            pair: f_star.sum(axis=tuple(j for j in range(m) if j not in pair)) for pair in _pairs(m)
        }
        yield ipf(targets, table.copy(), iterations=50, tol=1e-5)[tuple(cells.T)]


def refits(model: str, table: np.ndarray | None, reps: int) -> int:
    """How many parameter draws: 100 (a refit's spread, not a tail, is what they measure),
    fewer for big two-way tables (each refit is a proportional fitting of the full table)."""
    if model == "main" or table is None:
        return max(min(reps, 100), 1)
    work = table.size * max(len(_pairs(table.ndim)), 1)
    return int(np.clip(2e7 // work, 10, max(min(reps, 100), 1)))


def _interval(codes, fk, ids, nu, pi, model, table, reps, rng) -> tuple[tuple[float, float], int]:
    """95% interval of Σ 1/F_k over the sample's records with the model's parameter uncertainty.

    Two independent parts added to the estimate: the spread of the estimate over parameter
    draws (:func:`parameter_draws`; centred on their mean, which removes the bootstrap's own
    bias: resampled margins that drop to zero make observed cells impossible) and the spread of
    Σ 1/F_k over draws of the unseen population F_k - f_k ~ Poisson(ν_k) given the fit.
    Returns the interval and the refits used."""
    if reps <= 0:
        return (float("nan"), float("nan")), 0
    first = np.unique(ids, return_index=True)[1]
    f_cell = fk[first].astype(np.float64)
    draws = refits(model, table, reps)
    factor = (1.0 - pi) / pi
    refit = np.array(
        [
            (f_cell * expected_inverse(f_cell, mu * factor)).sum()
            for mu in parameter_draws(codes, codes[first], model, table, rng, draws)
        ]
    )
    predicted = np.array([(f_cell / (f_cell + rng.poisson(nu[first]))).sum() for _ in range(reps)])
    estimate = (f_cell * expected_inverse(f_cell, nu[first])).sum()
    every = estimate + (refit - refit.mean())[np.arange(reps) % draws] + (predicted - estimate)
    return (float(np.percentile(every, 2.5)), float(np.percentile(every, 97.5))), draws


def default_reps(n: int) -> int:
    """Draws for the interval: 1000, fewer for very large samples."""
    return int(np.clip(200_000_000 // max(n, 1), 100, 1000))


def loglinear_estimate(
    codes: np.ndarray,
    sampling_fraction: float,
    *,
    model: str = "main",
    bootstrap: int | None = None,
    seed: int = 0,
) -> LoglinearEstimate:
    """Expected re-identifications under a log-linear model, with a 95% interval.

    ``codes``: records × keys integer codes (-1, missing, becomes a value of its own).
    The seed only makes the interval reproducible; it protects nobody.
    """
    if model not in MODELS:
        raise OptionError(f"unknown log-linear model {model!r} (choose from {', '.join(MODELS)})")
    pi = float(sampling_fraction)
    if not 0 < pi < 1:
        raise OptionError(f"sampling fraction must be in (0, 1), got {sampling_fraction}")
    codes = _recode(np.asarray(codes, dtype=np.int64))
    rng = np.random.default_rng(seed)
    ids, card = _cell_ids(codes)
    fk = np.bincount(ids, minlength=card)[ids]
    mu, table = _mu(codes, model)
    nu = mu * (1.0 - pi) / pi
    risk = expected_inverse(fk, nu)
    tau1 = float(np.exp(-nu[fk == 1]).sum())
    total = float(risk.sum())
    bootstrap = default_reps(len(codes)) if bootstrap is None else int(bootstrap)
    ci, n_refits = _interval(codes, fk, ids, nu, pi, model, table, bootstrap, rng)
    fit = frequency_fit(codes, table, rng)
    one = fit[0]
    fits = abs(one["observed"] - one["expected"]) <= 0.1 * max(one["observed"], 1) + 2 * np.sqrt(
        max(one["expected"], 1.0)
    )
    note = (
        "the model's expected number of sample uniques is close to the observed one"
        if fits
        else "the model expects a different number of sample uniques than observed: "
        "do not trust this estimate (try the two-way model or coarser keys)"
    )
    return LoglinearEstimate(
        model, pi, total, ci, tau1, risk, fit, bool(fits), bootstrap, note, n_refits
    )  # fmt: skip


def _recode(codes: np.ndarray) -> np.ndarray:
    """Dense 0..c-1 codes per column numbered by first appearance in the records (missing, -1,
    is a value of its own): the same whatever numbers an engine gave the categories, so the
    estimate, its fit and its random draws do not depend on the coding."""
    out = np.empty_like(codes)
    for j in range(codes.shape[1]):
        out[:, j] = pd.factorize(codes[:, j])[0]
    return out
