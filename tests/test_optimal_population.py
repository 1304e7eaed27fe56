"""Population limits in the optimal search: the share of the population estimated unique (Dankar's
rule, ARX's PopulationUniqueness model) as a privacy model. It is not monotone, so the search may
not tag by it: checked here against a brute force over every node of small lattices."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.anonymize.optimal import optimal_generalization
from hidekit.errors import OptionError
from hidekit.io.hierarchy import Hierarchy
from hidekit.registry import PRIVACY_LIMITS
from hidekit.risk.population import estimate_population
from test_optimal_search import _hierarchy, draw_keys


def _uniqueness(sizes: np.ndarray, population: float) -> float:
    if not len(sizes):
        return 0.0
    value = estimate_population(sizes, population=population).dankar
    return math.inf if value is None else value / population


def _brute_force(frame, keys, hiers, k, supp, limit, population):
    """Every node from the records with pandas; precision as ARX computes it."""
    n, heights = len(frame), [len(h[0]) - 1 for h in hiers]
    best = None
    for levels in itertools.product(*[range(h + 1) for h in heights]):
        gen = pd.DataFrame(
            {
                key: frame[key].map({r[0]: r[lv] for r in h})
                for key, h, lv in zip(keys, hiers, levels, strict=True)
            }
        )
        size = gen.groupby(keys, sort=False)[keys[0]].transform("size")
        ok = size >= k
        if int((~ok).sum()) > math.floor(supp * n):
            continue
        kept = gen[ok].groupby(keys).size().to_numpy()
        if _uniqueness(kept, population) > limit + 1e-10:
            continue
        value = float(
            np.mean(
                [
                    (ok * (lv / hgt) + (~ok) * 1.0).mean()
                    for lv, hgt in zip(levels, heights, strict=True)
                ]
            )
        )
        if best is None or value < best[0] - 1e-12:
            best = (value, levels)
    return best


@st.composite
def small_problems(draw):
    n = draw(st.integers(6, 40))
    keys, hiers, cols = draw_keys(draw, n)
    k = draw(st.integers(1, 3))
    supp = draw(st.sampled_from([0.0, 0.1, 0.3]))
    limit = draw(st.sampled_from([0.0005, 0.002, 0.01, 0.05]))
    fraction = draw(st.sampled_from([0.01, 0.05, 0.3]))
    return pd.DataFrame(cols), keys, hiers, k, supp, limit, fraction


@settings(max_examples=50, deadline=None)
@given(small_problems())
def test_population_uniqueness_optimum_equals_brute_force(problem):
    frame, keys, hiers, k, supp, limit, fraction = problem
    res = optimal_generalization(
        frame,
        keys,
        {q: Hierarchy.from_rows(h) for q, h in zip(keys, hiers, strict=True)},
        k=k,
        suppression=supp,
        metric="precision",
        max_population_uniqueness=limit,
        sampling_fraction=fraction,
    )
    expected = _brute_force(frame, keys, hiers, k, supp, limit, len(frame) / fraction)
    if expected is None:
        assert not res.found
        return
    assert res.found
    assert res.information_loss == pytest.approx(expected[0], rel=1e-9, abs=1e-12)
    out = res.apply(frame, suppressed="drop")
    sizes = out.groupby(keys).size().to_numpy()
    assert _uniqueness(sizes, len(frame) / fraction) <= limit + 1e-10
    assert any("not monotone" in note for note in res.notes)


def test_the_limit_is_not_monotone_so_tagging_by_it_would_be_wrong():
    """A release meeting the limit whose generalization does not: uniques are estimated from the
    frequency profile, and merging two pairs into a class of 4 makes it look riskier (43 records,
    f = 5 %: Pitman, by Dankar's rule)."""
    limit = PRIVACY_LIMITS.lookup("population_uniqueness")(0.0091, 43, sampling_fraction=0.05)
    fine = np.array([1] * 4 + [2] * 18 + [3])
    coarse = np.array([1] * 4 + [2] * 16 + [3, 4])
    assert fine.sum() == coarse.sum() == 43
    assert _uniqueness(fine, 860) < 0.0091 < _uniqueness(coarse, 860)
    assert limit.holds(fine) and not limit.holds(coarse)


def test_population_options_are_checked_in_one_line():
    frame = pd.DataFrame({"q": ["v0", "v1"] * 5})
    hier = {"q": Hierarchy.from_rows(_hierarchy(2, 2, 1))}
    with pytest.raises(OptionError, match="population size or sampling fraction"):
        optimal_generalization(frame, ["q"], hier, max_population_uniqueness=0.01)
    with pytest.raises(OptionError, match="needs a population limit"):
        optimal_generalization(frame, ["q"], hier, population=1000)
    with pytest.raises(OptionError, match="estimator must be one of"):
        optimal_generalization(
            frame,
            ["q"],
            hier,
            max_population_uniqueness=0.01,
            population=1000,
            population_estimator="guess",
        )


def test_command_line_population_limit_on_adult(tmp_path):
    from pathlib import Path

    from typer.testing import CliRunner

    from hidekit.cli.main import app

    adult = Path(__file__).parent / "fixtures" / "adult"
    keys = ["sex", "age", "race", "marital-status"]
    out = tmp_path / "released.csv"
    args = ["anonymize", str(adult / "adult.csv"), "--method", "optimal", "--keys", ",".join(keys)]
    for q in keys:
        args += ["--hierarchy", f"{q}={adult / f'adult_hierarchy_{q}.csv'}"]
    args += ["--k", "1", "--metric", "loss", "--out", str(out)]
    args += ["--max-population-uniqueness", "0.000001", "--population", "317238626", "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    import json

    body = json.loads(res.stdout)
    assert any(m.startswith("population uniqueness (dankar") for m in body["privacy_models"])
    released = pd.read_csv(out, sep=";", dtype=str)
    kept = released[~(released[keys] == "*").all(axis=1)]
    assert len(released) == 30162 and len(kept) == 30162 - body["suppressed"]
    assert _uniqueness(kept.groupby(keys).size().to_numpy(), 317238626) <= 0.000001
    looser = optimal_generalization(
        pd.read_csv(adult / "adult.csv", sep=";", dtype=str),
        keys,
        {q: adult / f"adult_hierarchy_{q}.csv" for q in keys},
        k=1,
    )
    assert looser.information_loss == 0.0  # without the limit nothing is generalized
    assert body["information_loss"] > 0 and body["transformation"]["age"] > 0
