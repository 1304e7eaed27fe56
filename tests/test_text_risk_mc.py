"""Monte Carlo of equations (20)–(22): seeded, bounded, converging, and the decision of 2.3.9."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import OptionError
from hidekit.evaluation.text_risk import (
    Distribution,
    assess_text_risk,
    di_risk,
    direct_verdict,
    qi_expected_risk,
    qi_risk,
    simulate_di,
    simulate_qi,
)
from hidekit.evaluation.text_risk_corpus import drop_spans
from hidekit.text.corpus import read_brat_dir


def rng(seed=1):
    return np.random.default_rng(seed)


def test_di_mean_converges_to_the_point_estimate_as_the_corpus_grows():
    w, r = [0.6, 0.3, 0.9], [0.92, 0.7, 0.97]
    est = di_risk(w, r)
    gaps = []
    for n in (30, 300, 30_000):
        s = [round(n * x) for x in w]
        draws = simulate_di(w, r, s, n, draws=20_000, rng=rng())
        gaps.append(abs(draws.mean() - est))
        width = np.quantile(draws, 0.975) - np.quantile(draws, 0.025)
        if n == 30_000:
            assert width < 0.02
    assert gaps[-1] < 1e-3
    assert gaps[-1] < gaps[0]


def test_di_monte_carlo_from_corpora_of_growing_size():
    """The same tool quality on a bigger corpus: the interval narrows around the estimate."""
    widths = []
    for n in (20, 2000):
        w, r, s = [1.0], [0.9], [n]
        d = Distribution(di_risk(w, r), simulate_di(w, r, s, n, draws=10_000, rng=rng(3)))
        widths.append(d.ci[1] - d.ci[0])
        assert d.ci[0] <= d.estimate <= d.ci[1]
    assert widths[1] < widths[0] / 5  # sd ∝ 1/√n: 10× narrower for 100× the documents


@pytest.mark.parametrize("m_draw", ["shifted", "poisson"])
def test_qi_mean_converges_to_the_expectation_over_the_poisson_laws(m_draw):
    n_q, r_q, m = 6.0, 0.85, 1.4
    exp = qi_expected_risk(n_q, r_q, m, m_draw=m_draw)
    big = simulate_qi(n_q, r_q, m, s_q=10**7, draws=200_000, rng=rng(5), m_draw=m_draw)
    assert big.mean() == pytest.approx(exp, abs=2e-3)
    # R_q's spread shrinks with s_q; what is left is the Poisson variation between documents
    small = simulate_qi(n_q, r_q, m, s_q=10, draws=200_000, rng=rng(5), m_draw=m_draw)
    assert abs(big.mean() - exp) < abs(small.mean() - exp)


def test_qi_expectation_without_spread_in_counts_is_the_point_value():
    # with m = 1 shifted, M is always 1; the mixture over N_q ~ Pois(n_q) equals the exact
    # Poisson-thinning result: leaked values ~ Pois(n_q p), P(≥ 2) = 1 - e^{-λ}(1 + λ)
    n_q, r_q = 4.0, 0.8
    lam = n_q * (1 - r_q)
    expected = qi_expected_risk(n_q, r_q, 1.0, m_draw="shifted")
    assert expected == pytest.approx(1 - np.exp(-lam) * (1 + lam))
    # and eq. (12) at the point n_q differs (Jensen): the paper's MC mean is not eq. (12)
    assert qi_risk(n_q, r_q, 1.0) != pytest.approx(expected, abs=1e-3)


def test_shifted_m_never_draws_an_unleakable_value():
    # with the paper's M ~ Pois(1), a third of the draws have M = 0 and no leak at all
    lit = qi_expected_risk(5, 0.5, 1.0, m_draw="poisson")
    shifted = qi_expected_risk(5, 0.5, 1.0, m_draw="shifted")
    assert shifted > lit
    assert shifted == pytest.approx(1 - np.exp(-2.5) * 3.5)


def test_same_seed_same_interval_other_seed_other_interval(fixtures):
    gold = read_brat_dir(fixtures / "meddocan")
    pred = drop_spans(gold, 0.1, seed=2)
    a = assess_text_risk(gold, pred, seed=11, draws=2000).to_dict()
    b = assess_text_risk(gold, pred, seed=11, draws=2000).to_dict()
    c = assess_text_risk(gold, pred, seed=12, draws=2000).to_dict()
    for part in ("direct", "quasi"):
        assert a[part]["ci"] == b[part]["ci"]
        assert a[part]["mean"] == b[part]["mean"]
        assert a[part]["ci"] != c[part]["ci"]
    assert a["direct"]["benchmark"]["ci"] == b["direct"]["benchmark"]["ci"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1), st.integers(1, 50)), min_size=1, max_size=6
    ),
    st.integers(1, 60),
    st.booleans(),
)
def test_draws_are_probabilities(types, n, resynth):
    w = [t[0] for t in types]
    r = [t[1] for t in types]
    s = [t[2] for t in types]
    d = simulate_di(
        w, r, s, n, h=0.1 if resynth else None, attempt=(0.1, 0.3, 0.5), draws=300, rng=rng()
    )
    assert d.shape == (300,)
    assert np.all((d >= 0) & (d <= 0.5 + 1e-12))  # A ≤ c = 0.5
    q = simulate_qi(3.0, r[0], 1.5, s[0], h=0.1 if resynth else None, draws=300, rng=rng())
    assert np.all((q >= 0) & (q <= 1))


def test_attempt_mean_carries_into_the_monte_carlo_mean():
    w, r = [1.0], [0.8]
    public = simulate_di(w, r, [5000], 5000, draws=50_000, rng=rng(7)).mean()
    private = simulate_di(
        w, r, [5000], 5000, attempt=(0.1, 0.2, 0.6), draws=50_000, rng=rng(7)
    ).mean()
    assert private == pytest.approx(public * 0.3, rel=0.02)


def test_benchmark_and_verdict():
    # k DI types, w = 1, r = 0.95: estimate 1 - 0.95^k
    res_estimate = di_risk([1.0] * 4, [0.95] * 4)
    assert res_estimate == pytest.approx(1 - 0.95**4)
    bench = Distribution(
        res_estimate, simulate_di([1.0] * 4, [0.95] * 4, [220] * 4, 220, draws=5000, rng=rng())
    )
    good = Distribution(0.01, np.full(100, 0.01))
    bad = Distribution(0.2, np.full(100, 0.5))
    assert direct_verdict(good, bench, 4).acceptable
    v = direct_verdict(bad, bench, 4)
    assert not v.acceptable and "benchmark" in v.reason and "0.5000" in v.reason


def test_perfect_tool_is_acceptable_and_dropping_many_spans_is_not(fixtures):
    gold = read_brat_dir(fixtures / "meddocan")
    perfect = assess_text_risk(gold, [d.with_spans(d.spans) for d in gold], draws=1000)
    assert perfect.direct.estimate == 0.0 and perfect.quasi.estimate == 0.0
    assert perfect.direct_verdict.acceptable and perfect.quasi_verdict.acceptable
    leaky = assess_text_risk(gold, drop_spans(gold, 0.5, seed=1), draws=1000)
    assert not leaky.direct_verdict.acceptable and not leaky.quasi_verdict.acceptable
    assert "τ = 0.2000" in leaky.quasi_verdict.reason


def test_draws_come_from_a_secret_or_fresh_and_no_seed_is_printed(fixtures, tmp_path):
    from hidekit.evaluation.text_risk_report import text_risk_report

    gold = read_brat_dir(fixtures / "meddocan")
    pred = drop_spans(gold, 0.1, seed=2)
    key, other = b"k" * 32, b"o" * 32
    a = assess_text_risk(gold, pred, key=key, draws=2000).to_dict()
    b = assess_text_risk(gold, pred, key=key, draws=2000).to_dict()
    c = assess_text_risk(gold, pred, key=other, draws=2000).to_dict()
    assert a["direct"]["ci"] == b["direct"]["ci"] and a["quasi"]["ci"] == b["quasi"]["ci"]
    assert a["direct"]["ci"] != c["direct"]["ci"]
    assert a["settings"]["randomness"] == "seeded from secret" and "seed" not in a["settings"]
    fresh = assess_text_risk(gold, pred, draws=2000)
    assert fresh.to_dict()["settings"]["randomness"] == "fresh"
    seeded = assess_text_risk(gold, pred, seed=987654, draws=2000)
    assert seeded.to_dict()["settings"]["randomness"] == "seeded (not recorded)"
    html = text_risk_report(seeded, "t").html()
    assert "987654" not in html and "seeded (not recorded)" in html
    assert "987654" not in json.dumps(seeded.to_dict())
    with pytest.raises(OptionError, match="not both"):
        assess_text_risk(gold, pred, key=key, seed=1)
