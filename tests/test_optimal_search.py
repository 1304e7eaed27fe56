"""Optimal full-domain generalization: equal to ARX 3.9.2 on Adult, equal to a brute force over
the whole lattice on small cases, and the release keeps its promises."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.anonymize.optimal import evaluate_transformation, optimal_generalization
from hidekit.errors import InputError, OptionError, PolicyError
from hidekit.io.hierarchy import Hierarchy

from conftest import ADULT_KEYS

ADULT = Path(__file__).parent / "fixtures" / "adult"
QI = ADULT_KEYS

# ARX 3.9.2's optima on Adult (../shared/oracles/arx/optimal_adult_k5.json and
# optimal_adult_k5_l2.json): model, suppression limit, metric, levels, loss, suppressed, classes.
ARX = [
    ("k5", 0.0, "loss", [0, 4, 0, 2, 3, 2, 2, 1], 0.5915849773198221, 0, 30),
    ("k5", 0.0, "discernibility", [1, 1, 1, 2, 3, 2, 2, 1], 33627534.0, 0, 45),
    ("k5", 0.0, "precision", [0, 4, 0, 2, 3, 2, 2, 1], 0.6875, 0, 30),
    ("k5", 0.05, "loss", [0, 3, 0, 0, 1, 1, 1, 2], 0.2518517151856563, 1458, 399),
    ("k5", 0.05, "discernibility", [0, 0, 1, 2, 3, 2, 2, 1], 7220555.0, 105, 356),
    ("k5", 0.05, "precision", [0, 4, 0, 0, 1, 1, 0, 2], 0.38052502597086846, 1231, 365),
    ("k5+distinct-l2", 0.0, "loss", [0, 4, 0, 1, 3, 2, 2], 0.5643898584690297, 0, 20),
    ("k5+distinct-l2", 0.0, "discernibility", [1, 1, 1, 1, 3, 2, 2], 55170356.0, 0, 30),
    ("k5+distinct-l2", 0.0, "precision", [0, 4, 0, 1, 3, 2, 2], 0.6428571428571428, 0, 20),
    ("k5+distinct-l2", 0.05, "loss", [0, 3, 0, 0, 1, 1, 1], 0.17149116900811867, 1481, 395),
    ("k5+distinct-l2", 0.05, "discernibility", [0, 0, 1, 1, 3, 2, 2], 9800845.0, 85, 233),
    ("k5+distinct-l2", 0.05, "precision", [0, 4, 0, 0, 1, 1, 0], 0.2933500367854853, 1285, 362),
    ("k5+recursive-c3-l2", 0.0, "loss", [0, 4, 0, 1, 3, 2, 2], 0.5643898584690297, 0, 20),
    ("k5+recursive-c3-l2", 0.0, "discernibility", [1, 1, 1, 1, 3, 2, 2], 55170356.0, 0, 30),
    ("k5+recursive-c3-l2", 0.0, "precision", [0, 4, 0, 1, 3, 2, 2], 0.6428571428571428, 0, 20),
    ("k5+recursive-c3-l2", 0.05, "loss", [0, 3, 0, 0, 2, 1, 1], 0.18092756488896145, 1056, 324),
    ("k5+recursive-c3-l2", 0.05, "discernibility", [0, 0, 1, 1, 3, 2, 2], 9800845.0, 85, 233),
    (
        "k5+recursive-c3-l2",
        0.05,
        "precision",
        [0, 4, 0, 0, 1, 1, 0],
        0.29848895330295766,
        1495,
        352,
    ),
]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)


def _adult_options(model: str):
    if model == "k5":
        return QI, {}
    keys = [q for q in QI if q != "occupation"]
    if "distinct" in model:
        return keys, dict(l=2, l_kind="distinct", sensitive="occupation")
    return keys, dict(l=2, l_kind="recursive", c=3, sensitive="occupation")


@pytest.mark.parametrize("model,supp,metric,levels,loss,suppressed,classes", ARX)
def test_same_optimum_and_loss_as_arx(
    adult, model, supp, metric, levels, loss, suppressed, classes
):
    keys, opts = _adult_options(model)
    hier = {q: ADULT / f"adult_hierarchy_{q}.csv" for q in keys}
    res = optimal_generalization(adult, keys, hier, k=5, suppression=supp, metric=metric, **opts)
    assert res.proven_optimal
    assert res.lattice_size == int(np.prod([len(Hierarchy.read(hier[q]).rows[0]) for q in keys]))
    assert res.information_loss == loss  # to the last bit: ARX's arithmetic, ARX's rounding
    ours = [res.transformation[q] for q in keys]
    if ours == levels:
        assert (res.suppressed, res.classes) == (suppressed, classes)
    else:  # a tie: ARX's node must be anonymous with exactly the same loss
        arx = evaluate_transformation(
            adult,
            keys,
            hier,
            dict(zip(keys, levels, strict=True)),
            k=5,
            suppression=supp,
            metric=metric,
            **opts,
        )
        assert arx.found and arx.information_loss == loss
        assert (arx.suppressed, arx.classes) == (suppressed, classes)


# --- brute force on small cases -------------------------------------------------------------


def _hierarchy(n_values: int, fan: int, depth: int) -> list[list[str]]:
    rows = []
    for i in range(n_values):
        row = [f"v{i}"]
        for lv in range(1, depth):
            row.append(f"g{lv}_{i // fan**lv}")
        row.append("*")
        rows.append(row)
    return rows


def _brute_force(frame, keys, hiers, k, l, sensitive, supp, metric, avg=None):  # noqa: E741
    """Every node, counted from the records with pandas: an independent implementation."""
    n = len(frame)
    limit = math.floor(supp * n)
    heights = [len(h[0]) - 1 for h in hiers]
    best = None
    for levels in itertools.product(*[range(h + 1) for h in heights]):
        gen = pd.DataFrame(
            {
                key: frame[key].map({r[0]: r[lv] for r in h})
                for key, h, lv in zip(keys, hiers, levels, strict=True)
            }
        )
        grp = gen.groupby(keys, sort=False)
        size = grp[keys[0]].transform("size")
        ok = size >= k
        if l is not None:
            distinct = frame[sensitive].groupby([gen[c] for c in keys]).transform("nunique")
            ok &= distinct >= l
        if int((~ok).sum()) > limit:
            continue
        if avg is not None and ok.any():
            released = gen[ok]
            if released.drop_duplicates().shape[0] / len(released) > avg + 1e-10:
                continue
        if metric == "loss":
            per_key = []
            for key, h, lv in zip(keys, hiers, levels, strict=True):
                counts = pd.Series([r[lv] for r in h]).value_counts()
                g = gen[key].map(counts)
                val = np.where(ok, (g - 1) / (len(h) - 1), 1.0).mean()
                per_key.append(math.floor(val * 1e10) / 1e10)
            value = np.prod([(1 + v) ** (1 / len(keys)) for v in per_key]) - 1
        elif metric == "precision":
            vals = [
                (ok * (lv / hgt) + (~ok) * 1.0).mean()
                for lv, hgt in zip(levels, heights, strict=True)
            ]
            value = float(np.mean(vals))
        elif metric == "entropy":
            value = 0.0
            for key in keys:
                fv = frame[key].map(frame[key].value_counts())
                fg = gen[key].map(gen[key].value_counts())
                value += float(np.log2(np.where(ok, fg, n) / fv).sum())
        elif metric == "aecs":
            groups = gen[ok].drop_duplicates().shape[0] + (0 if ok.all() else 1)
            value = n / groups
        else:  # discernibility
            value = float((size[ok]).sum() + (~ok).sum() * n)
        if best is None or value < best[0] - 1e-12:
            best = (value, levels)
    return best


def draw_keys(draw, n: int) -> tuple[list[str], list[list[list[str]]], dict[str, list[str]]]:
    """One to three keys with small hierarchies, and n records' values of them."""
    hiers, keys, cols = [], [], {}
    for j in range(draw(st.integers(1, 3))):
        values = draw(st.integers(2, 6))
        hiers.append(_hierarchy(values, 2, draw(st.integers(1, 3))))
        keys.append(f"q{j}")
        cols[f"q{j}"] = [f"v{draw(st.integers(0, values - 1))}" for _ in range(n)]
    return keys, hiers, cols


@st.composite
def small_problems(draw):
    n = draw(st.integers(4, 40))
    keys, hiers, cols = draw_keys(draw, n)
    cols["s"] = [draw(st.sampled_from("abc")) for _ in range(n)]
    k = draw(st.integers(1, 5))
    l = draw(st.sampled_from([None, 2]))  # noqa: E741
    supp = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(["loss", "precision", "discernibility", "entropy", "aecs"]))
    avg = draw(st.sampled_from([None, None, 0.2, 0.5]))
    return pd.DataFrame(cols), keys, hiers, k, l, supp, metric, avg


@settings(max_examples=60, deadline=None)
@given(small_problems())
def test_optimum_equals_brute_force_over_the_lattice(problem):
    frame, keys, hiers, k, l, supp, metric, avg = problem  # noqa: E741
    opts = dict(k=k, suppression=supp, metric=metric, max_avg_risk=avg)
    if l is not None:
        opts.update(l=l, sensitive="s")
    res = optimal_generalization(
        frame, keys, {q: Hierarchy.from_rows(h) for q, h in zip(keys, hiers, strict=True)}, **opts
    )
    expected = _brute_force(frame, keys, hiers, k, l, "s", supp, metric, avg)
    if expected is None:
        assert not res.found and res.closest is not None
        return
    assert res.found
    assert res.information_loss == pytest.approx(expected[0], rel=1e-9, abs=1e-9)
    # the release satisfies the models, within the limit, and loses no record
    out = res.apply(frame)
    assert len(out) == len(frame)
    star = (out[keys] == "*").all(axis=1) & (res.suppressed > 0)
    assert int(star.sum()) >= res.suppressed - 0  # suppressed rows are all-star
    kept = out[~star]
    assert res.suppressed <= math.floor(supp * len(frame))
    if len(kept):
        sizes = kept.groupby(keys)[keys[0]].transform("size")
        assert (sizes >= k).all()
        if l is not None:
            assert (kept.groupby(keys)["s"].transform("nunique") >= l).all()
        if avg is not None:
            assert kept.groupby(keys).ngroups / len(kept) <= avg + 1e-10
    dropped = res.apply(frame, suppressed="drop")
    assert len(dropped) == len(frame) - res.suppressed


# --- what a user sees -------------------------------------------------------------------------


def test_release_replaces_keys_by_labels_and_stars_suppressed_records(adult):
    hier = {q: ADULT / f"adult_hierarchy_{q}.csv" for q in QI}
    res = optimal_generalization(adult, QI, hier, k=5, suppression=0.05, metric="loss")
    out = res.apply(adult)
    assert len(out) == len(adult) and list(out.columns) == list(adult.columns)
    assert out["salary-class"].equals(adult["salary-class"])  # other columns untouched
    suppressed = (out[QI] == "*").all(axis=1)
    assert int(suppressed.sum()) == res.suppressed == 1458
    sizes = out[~suppressed].groupby(QI).size()
    assert sizes.min() >= 5 and len(sizes) == res.classes == 399
    assert set(out.loc[~suppressed, "age"]) <= {
        r[res.transformation["age"]] for r in Hierarchy.read(hier["age"]).rows
    }


def test_hierarchy_without_trailing_newline_and_a_code_at_the_top(tmp_path):
    h = tmp_path / "h.csv"
    h.write_bytes(b"a;ab;0\nb;ab;0\nc;cd;0\nd;cd;0")  # no newline at the end, top code "0"
    frame = pd.DataFrame({"x": list("aabbccdd"), "y": range(8)})
    res = optimal_generalization(frame, ["x"], {"x": h}, k=4)
    assert res.transformation == {"x": 1}
    assert set(res.apply(frame)["x"]) == {"ab", "cd"}


def test_value_missing_from_hierarchy_is_named_and_can_go_to_the_top(tmp_path):
    frame = pd.DataFrame({"x": ["a", "b", "zz", "a", "b", "a"]})
    rows = [["a", "ab", "*"], ["b", "ab", "*"]]
    with pytest.raises(InputError, match="'zz'"):
        optimal_generalization(frame, ["x"], {"x": Hierarchy.from_rows(rows)}, k=2)
    res = optimal_generalization(
        frame, ["x"], {"x": Hierarchy.from_rows(rows)}, k=2, unknown_values="top", suppression=0.2
    )
    assert res.found


def test_levels_that_are_not_nested_are_refused():
    rows = [["a", "g1", "h1"], ["b", "g1", "h2"], ["c", "g2", "h2"]]
    frame = pd.DataFrame({"x": list("abc")})
    with pytest.raises(InputError, match="not nested"):
        optimal_generalization(frame, ["x"], {"x": Hierarchy.from_rows(rows)}, k=1)


def test_unsatisfiable_models_say_so_and_give_the_closest_node():
    frame = pd.DataFrame({"x": list("abab"), "s": list("aaaa")})
    rows = [["a", "*"], ["b", "*"]]
    res = optimal_generalization(
        frame, ["x"], {"x": Hierarchy.from_rows(rows)}, k=2, l=2, sensitive="s"
    )
    assert not res.found and res.closest == {"x": 0}  # all suppress every record: least change
    assert any("even the most general release fails" in n for n in res.notes)
    with pytest.raises(PolicyError):
        res.apply(frame)


@pytest.mark.parametrize(
    "opts,match",
    [
        (dict(metric="nope"), "unknown metric"),
        (dict(suppression=1.5), "between 0 and 1"),
        (dict(l=2), "need --sensitive"),
        (dict(l=2, sensitive="x"), "both a key"),
        (dict(k=0), "k must be"),
    ],
)
def test_bad_options_are_one_line_errors(opts, match):
    frame = pd.DataFrame({"x": list("abab")})
    with pytest.raises(OptionError, match=match):
        optimal_generalization(
            frame, ["x"], {"x": Hierarchy.from_rows([["a", "*"], ["b", "*"]])}, **opts
        )


def test_missing_key_values_are_refused():
    frame = pd.DataFrame({"x": ["a", None, "b"]})
    with pytest.raises(OptionError, match="missing values"):
        optimal_generalization(frame, ["x"], {"x": Hierarchy.from_rows([["a", "*"], ["b", "*"]])})


def test_numbers_are_matched_to_the_hierarchy_by_their_text():
    frame = pd.DataFrame({"age": [30.0, 31.0, 30.0, 31.0]})
    rows = [["30", "30-31", "*"], ["31", "30-31", "*"]]
    res = optimal_generalization(frame, ["age"], {"age": Hierarchy.from_rows(rows)}, k=2)
    assert res.transformation == {"age": 0}
    res = optimal_generalization(frame, ["age"], {"age": Hierarchy.from_rows(rows)}, k=4)
    assert res.transformation == {"age": 1}
    assert list(res.apply(frame)["age"]) == ["30-31"] * 4


def test_heuristic_under_a_time_limit_says_it_is_not_proven(adult):
    hier = {q: ADULT / f"adult_hierarchy_{q}.csv" for q in QI}
    res = optimal_generalization(adult, QI, hier, k=5, time_limit=0.0)
    assert not res.proven_optimal and res.found
    assert any("not proven optimal" in n for n in res.notes)
    exact = optimal_generalization(adult, QI, hier, k=5)
    assert res.information_loss >= exact.information_loss


def test_risk_proportion_limit_on_the_release(adult):
    keys = ["sex", "age", "race"]
    hier = {q: ADULT / f"adult_hierarchy_{q}.csv" for q in keys}
    res = optimal_generalization(adult, keys, hier, k=2, max_rp=0.01, cell_min=20)
    out = res.apply(adult)
    sizes = out.groupby(keys)[keys[0]].transform("size")
    assert (sizes < 20).mean() <= 0.01  # hand check of the RP of the release
    looser = optimal_generalization(adult, keys, hier, k=2)
    assert res.information_loss >= looser.information_loss
    assert "RP(cell_min 20) ≤ 0.01" in res.models
