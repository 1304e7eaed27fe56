"""Pitman, Zayatz, SNB and Dankar's rule against hand computations and their own definitions."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from scipy import special

from hidekit.errors import OptionError
from hidekit.risk import measure_risk
from hidekit.risk.population import (
    dankar_rule,
    estimate_population,
    frequencies,
    pitman,
    resolve_population,
    zayatz,
)

# 6 uniques, 2 pairs, 1 triple: n = 13
SIZES = np.array([1] * 6 + [2, 2, 3])


def test_frequencies():
    sizes, counts = frequencies(SIZES)
    assert sizes.tolist() == [1, 2, 3] and counts.tolist() == [6, 2, 1]


def test_zayatz_by_hand():
    N, n, u = 100, 13, 9

    def h1(k):  # P(exactly one of a class of k in a sample of n from N)
        return k * comb(N - k, n - 1) / comb(N, n)

    p = (6 / u) * h1(1) / ((6 / u) * h1(1) + (2 / u) * h1(2) + (1 / u) * h1(3))
    sizes, counts = frequencies(SIZES)
    assert zayatz(sizes, counts, N) == pytest.approx(6 * p / (n / N), rel=1e-9)


BIGGER = np.repeat([1, 2, 3, 5, 10], [200, 50, 20, 10, 5])


def test_pitman_solves_its_likelihood_equations_as_sums():
    """The fitted (θ, α) satisfy the likelihood equations written as plain sums (Hoshino 2001)."""
    sizes, counts = frequencies(BIGGER)
    N = 100_000.0
    uniques = pitman(sizes, counts, N)
    n, u = int(BIGGER.sum()), BIGGER.size
    # recover (θ, α) from the estimate is not possible; re-solve with the plain sums instead
    from scipy import optimize

    def sums(x):
        t, a = x
        i = np.arange(1, u)
        e1 = (1 / (t + i * a)).sum() - (1 / (t + np.arange(1, n))).sum()
        e2 = (i / (t + i * a)).sum() - sum(
            c * (1 / (np.arange(1, k) - a)).sum()
            for k, c in zip(sizes, counts, strict=False)
            if k > 1
        )
        return [e1, e2]

    t, a = optimize.fsolve(sums, [10.0, 0.5], xtol=1e-14)
    expected = np.exp(special.gammaln(t + 1) - special.gammaln(t + a)) * N**a
    assert uniques == pytest.approx(expected, rel=1e-7)


def test_pitman_that_does_not_converge_is_unavailable_with_a_reason():
    e = estimate_population(SIZES, population=1000)
    assert e.pitman is None and "did not converge" in e.reasons["pitman"]
    assert e.dankar_model == "zayatz" and e.dankar == e.zayatz


def test_dankar_rule():
    v = {"pitman": 10.0, "zayatz": 20.0, "snb": 15.0}
    assert dankar_rule(0.05, v) == (10.0, "pitman")
    assert dankar_rule(0.05, {**v, "pitman": None}) == (20.0, "zayatz")
    assert dankar_rule(0.5, v) == (15.0, "snb")
    assert dankar_rule(0.5, {**v, "zayatz": 12.0}) == (12.0, "zayatz")
    assert dankar_rule(0.5, {**v, "snb": None}) == (20.0, "zayatz")


def test_no_sample_uniques_means_no_population_uniques():
    e = estimate_population(np.array([2, 3, 5]), sampling_fraction=0.1)
    assert (e.pitman, e.zayatz, e.snb, e.dankar) == (0.0, 0.0, 0.0, 0.0)


def test_population_and_fraction_checks():
    assert resolve_population(10, None, 0.5) == (20.0, 0.5)
    assert resolve_population(10, 40, None) == (40.0, 0.25)
    with pytest.raises(OptionError, match="smaller than the sample"):
        resolve_population(10, 5, None)
    with pytest.raises(OptionError, match="not both"):
        resolve_population(10, 40, 0.25)
    with pytest.raises(OptionError, match="sampling fraction"):
        resolve_population(10, None, 0)


def test_estimates_in_the_json_contract(adult_frame):
    d = measure_risk(adult_frame, ["sex", "age", "race"], sampling_fraction=0.01).to_dict()
    assert set(d["population"]) >= {"pitman", "zayatz", "snb", "dankar"}
    assert d["dankar_model"] in {"pitman", "zayatz", "snb"}
    assert d["population"]["dankar"] == d["population"][d["dankar_model"]]


def test_weights_that_disagree_with_the_population_are_warned(adult_frame):
    frame = adult_frame.assign(w=10.0)
    d = measure_risk(frame, ["sex", "race"], weights="w", population=10 * len(frame)).to_dict()
    assert "warnings" not in d
    d = measure_risk(frame, ["sex", "race"], weights="w", population=100 * len(frame)).to_dict()
    assert "weights add up to" in d["warnings"][0]
