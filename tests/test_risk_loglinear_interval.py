"""The log-linear interval carries the model's parameter uncertainty and holds the truth at about
its stated level on populations built here; the estimate ignores how categories are coded."""

from __future__ import annotations

import numpy as np
import pytest

from hidekit.risk.loglinear import loglinear_estimate, parameter_draws

CARDS = (6, 5, 4, 3)


def _truth_and_sample(seed: int, n_pop: int = 12_000, pi: float = 0.05):
    """A population of independent keys (the main-effects model holds), a Bernoulli sample, and
    the true Σ 1/F_k over the sampled records."""
    rng = np.random.default_rng(seed)
    probs = [rng.dirichlet(np.full(c, 0.7)) for c in CARDS]
    pop = np.column_stack([rng.choice(c, n_pop, p=p) for c, p in zip(CARDS, probs, strict=True)])
    take = rng.random(n_pop) < pi
    _, inv, cnt = np.unique(pop, axis=0, return_inverse=True, return_counts=True)
    return pop[take], (1.0 / cnt[inv.reshape(-1)][take]).sum(), take.mean()


def test_interval_holds_the_truth_at_about_its_level():
    """40 populations (fixed seeds): the 95% interval held the truth in 40 of them when this test
    was written (the predictive interval alone: 39); fewer than 34 (85 %) would mean the interval is too narrow."""
    held = 0
    for seed in range(40):
        sample, truth, pi = _truth_and_sample(seed)
        e = loglinear_estimate(sample, pi, model="main", bootstrap=400, seed=seed)
        held += e.ci[0] <= truth <= e.ci[1]
        assert e.refits == 100
    assert held >= 34


def test_parameter_uncertainty_widens_the_interval():
    sample, _, pi = _truth_and_sample(1)
    e = loglinear_estimate(sample, pi, model="main", bootstrap=400)
    rng = np.random.default_rng(0)
    cells = np.unique(sample, axis=0)
    mus = np.array(list(parameter_draws(sample, cells, "main", None, rng, 300)))
    # refitted cell means vary around the fit: the spread the old predictive interval ignored
    assert (mus.std(axis=0) > 0).all()
    assert e.ci[0] < e.expected_reidentifications < e.ci[1]
    assert "parametric bootstrap" in e.to_dict()["ci_method"]


@pytest.mark.parametrize("model", ["main", "two-way"])
def test_estimate_does_not_depend_on_the_coding(model):
    sample, _, pi = _truth_and_sample(3)
    rng = np.random.default_rng(9)
    relabelled = sample.copy()
    for j, c in enumerate(CARDS):  # other numbers for the same categories
        relabelled[:, j] = rng.permutation(c)[sample[:, j]] + 10
    a = loglinear_estimate(sample, pi, model=model, bootstrap=200)
    b = loglinear_estimate(relabelled, pi, model=model, bootstrap=200)
    assert a.expected_reidentifications == b.expected_reidentifications
    assert a.ci == b.ci
    assert a.fit == b.fit
