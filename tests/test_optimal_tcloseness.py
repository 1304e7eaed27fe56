"""t-closeness with ARX's hierarchical ground distance (issue 12): hand-computed distances and the
same optima as ARX 3.9.2 on Adult."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hidekit.anonymize.optimal import optimal_generalization
from hidekit.anonymize.optimal.models import (
    ClassView,
    EqualDistanceTCloseness,
    HierarchicalDistanceTCloseness,
)
from hidekit.errors import OptionError

FIXTURES = Path(__file__).parent / "fixtures"
ADULT = FIXTURES / "adult"


def _view() -> ClassView:
    # values a=0, b=1, c=2; class 0 holds a and b, class 1 holds a and c (one record each)
    return ClassView(
        class_of_row=np.array([0, 0, 1, 1]),
        sizes=np.array([2, 2]),
        row_counts=np.array([1, 1, 1, 1]),
        row_sensitive=np.array([0, 1, 0, 2]),
    )


def _model(t: float = 0.3) -> HierarchicalDistanceTCloseness:
    # hierarchy: a, b under X; c under Y; both under the root (height 2)
    ancestors = (np.array([0, 1, 2]), np.array([0, 0, 1]), np.array([0, 0, 0]))
    return HierarchicalDistanceTCloseness(t, np.full(3, 1 / 3), ancestors)


def test_hierarchical_distance_by_hand():
    # class 0: q = (1/2, 1/2, 0). X has only deficits (cost 0), Y only surplus; the root moves
    # 1/3 across the whole height: 1/3. Class 1: q = (1/2, 0, 1/2): inside X, 1/6 moves from b
    # to a at level 1 (1/2 · 1/6), then 1/6 crosses the root (1 · 1/6): 1/4.
    d = _model().distances(_view())
    assert d == pytest.approx([1 / 3, 1 / 4], abs=1e-15)
    # equal distance does not see that a and b are related: 1/3 for both
    eq = EqualDistanceTCloseness(0.3, np.full(3, 1 / 3))
    assert eq.ok(_view()).tolist() == [False, False]
    assert _model(0.3).ok(_view()).tolist() == [False, True]


def test_hierarchical_distance_is_zero_for_the_table_itself_and_at_most_one():
    view = ClassView(np.zeros(3, dtype=np.int64), np.array([3]), np.ones(3), np.arange(3))
    assert _model().distances(view) == pytest.approx([0.0], abs=1e-15)
    one_value = ClassView(np.array([0]), np.array([5]), np.array([5]), np.array([2]))
    assert 0 < _model().distances(one_value)[0] <= 1


def test_t_hierarchy_needs_t():
    with pytest.raises(OptionError, match="needs t"):
        optimal_generalization(
            pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, nrows=200),
            ["sex"],
            {"sex": ADULT / "adult_hierarchy_sex.csv"},
            sensitive="occupation",
            t_hierarchy=ADULT / "adult_hierarchy_occupation.csv",
        )


REFERENCE = json.loads((FIXTURES / "arx-tcloseness.json").read_text())


@pytest.mark.parametrize(
    "run", REFERENCE["runs"], ids=lambda r: f"{r['distance']}-t{r['t']}-s{r['suppression']}"
)
def test_same_optimum_as_arx_on_adult(run):
    qis = REFERENCE["quasi_identifiers"]
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    options = {"k": 5, "t": run["t"], "sensitive": "occupation", "suppression": run["suppression"]}
    if run["distance"] == "hierarchical":
        options["t_hierarchy"] = ADULT / "adult_hierarchy_occupation.csv"
    res = optimal_generalization(
        frame, qis, {q: ADULT / f"adult_hierarchy_{q}.csv" for q in qis}, **options
    )
    # same loss to the last bits and the same suppression; the node may differ only in a tie
    assert res.information_loss == pytest.approx(run["information_loss"], rel=1e-12)
    assert res.suppressed == run["suppressed"]
    if res.transformation != run["transformation"]:
        from hidekit.anonymize.optimal import evaluate_transformation

        arx_node = evaluate_transformation(
            frame,
            qis,
            {q: ADULT / f"adult_hierarchy_{q}.csv" for q in qis},
            run["transformation"],
            **options,
        )
        assert arx_node.found
        assert arx_node.information_loss == pytest.approx(res.information_loss, rel=1e-12)
