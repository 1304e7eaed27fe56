"""Variable selection: hand-computed tables and the paper's worked numbers (Lin & Garin)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hidekit.engines import CellStats
from hidekit.engines.base import Engine
from hidekit.errors import ColumnNotFound, OptionError
from hidekit.selection import select_variables

# Hand table, cell_min 2 (only uniques are at risk), n = 8.
#   A: 4 a + 4 b          -> RP 0,   CR 2/8
#   B: 4 x + 4 y          -> RP 0,   CR 2/8
#   C: 7 p + 1 q          -> RP 1/8, CR 2/8
#   D: all distinct       -> RP 1,   CR 1
HAND = pd.DataFrame(
    {
        "A": list("aaaabbbb"),
        "B": list("xxyyxxyy"),
        "C": list("pppppppq"),
        "D": range(8),
    }
)


def test_forward_hand_table():
    r = select_variables(HAND, ["A", "B", "C", "D"], method="forward", stop=0.5, cell_min=2)
    steps = r.taken
    # F1: A and B tie on ratio 0 and CR 0.25 -> the earlier in the user's order, A.
    # ratio(empty set) = 0, so alpha = the resulting ratio (the paper's Forward step 1).
    assert [s.variable for s in steps] == ["A", "B", "C"]
    f1 = {c.variable: c for c in r.steps[0].candidates}
    assert f1["C"].alpha == pytest.approx(0.5) and f1["C"].rp == pytest.approx(1 / 8)
    assert f1["D"].alpha == pytest.approx(1.0)
    # F2 from {A}: C splits b into (b,p)=3,(b,q)=1 -> RP 1/8, CR 3/8, ratio 1/3
    f2 = {c.variable: c for c in r.steps[1].candidates}
    assert f2["C"].ratio == pytest.approx(1 / 3) and f2["B"].alpha == 0.0
    # F3 from {A,B}: C -> RP 2/8, CR 5/8, ratio 0.4 (alpha = ratio since ratio({A,B}) = 0)
    assert steps[2].rp == pytest.approx(0.25) and steps[2].cr == pytest.approx(5 / 8)
    assert steps[2].alpha == pytest.approx(0.4)
    # F4: D gives RP 1 > 0.5: stop; alpha = 1 / 0.4
    assert not r.steps[3].taken and r.steps[3].alpha == pytest.approx(2.5)
    assert r.selected == ["A", "B", "C"]
    assert "F4" in r.stop_reason


def test_forward_stops_before_exceeding_limit():
    r = select_variables(HAND, ["A", "B", "C", "D"], method="forward", stop=0.2, cell_min=2)
    assert r.selected == ["A", "B"]
    assert r.final["rp"] == 0.0


def test_backward_hand_table():
    r = select_variables(HAND, ["A", "B", "C", "D"], method="backward", stop=0.2, cell_min=2)
    b1, b2 = r.steps
    assert b1.variable == "D" and b1.taken and b1.alpha == pytest.approx(1 / 0.4)
    others = {c.variable: c.alpha for c in b1.candidates if c.variable != "D"}
    assert others == {"A": 1.0, "B": 1.0, "C": 1.0}
    # B2 from {A,B,C} (ratio 0.4): removing C gives ratio 0 -> alpha +inf, RP 0 < 0.2: stop
    assert b2.variable == "C" and math.isinf(b2.alpha) and not b2.taken
    assert {c.variable: round(c.alpha, 6) for c in b2.candidates if c.variable != "C"} == {
        "A": 1.2,
        "B": 1.2,
    }
    assert r.selected == ["A", "B", "C"]


def test_backward_stops_at_first_step_when_already_low():
    r = select_variables(HAND, ["A", "B", "C", "D"], method="backward", stop=0.3, cell_min=2)
    assert r.selected == ["A", "B", "C", "D"] and r.taken == []


def test_forced_variables_stay():
    r = select_variables(
        HAND, ["A", "B", "C"], force=["D"], method="backward", stop=0.0, cell_min=2
    )
    assert "D" in r.selected
    fwd = select_variables(
        HAND, ["A", "B", "C"], force=["D"], method="forward", stop=0.9, cell_min=2
    )
    assert fwd.selected == ["D"] and fwd.start["rp"] == 1.0


def test_missing_values_count_as_a_category():
    frame = pd.DataFrame({"A": ["a", "a", None, None, "b", "b"], "B": [1, 1, 1, 1, 1, None]})
    r = select_variables(frame, ["A", "B"], method="forward", stop=1.0, cell_min=2)
    a = next(c for c in r.steps[0].candidates if c.variable == "A")
    assert a.cells == 3 and a.rp == 0.0  # a, b, missing: three cells of two
    b = next(c for c in r.steps[0].candidates if c.variable == "B")
    assert b.cells == 2 and b.rp == pytest.approx(1 / 6)


def test_one_record():
    r = select_variables(pd.DataFrame({"A": [1], "B": [2]}), ["A", "B"], method="forward", stop=0.5)
    assert r.selected == [] and r.steps[0].rp == 1.0


def test_all_unique_data():
    frame = pd.DataFrame({"A": range(10), "B": range(10, 20)})
    r = select_variables(frame, ["A", "B"], method="backward", stop=0.5)
    # B1: removing A or B leaves all records unique (ratio 1, alpha 1): tie -> A, RP 1 >= 0.5
    b1, b2 = r.steps
    assert (b1.variable, b1.taken, b1.alpha, b1.rp) == ("A", True, 1.0, 1.0)
    # B2: removing B leaves one cell of 10 records: RP 0, alpha inf, below the limit: stop
    assert (b2.variable, b2.taken, b2.rp) == ("B", False, 0.0) and math.isinf(b2.alpha)
    assert r.selected == ["B"]


def test_diff_criterion_prefers_lower_rp_minus_half_cr():
    r = select_variables(HAND, ["C", "D"], method="forward", stop=1.0, cell_min=2, criterion="diff")
    c = {x.variable: x for x in r.steps[0].candidates}
    assert c["C"].score == pytest.approx(1 / 8 - 0.5 * 2 / 8)
    assert c["D"].score == pytest.approx(1 - 0.5)
    assert r.steps[0].variable == "C"


def test_bad_options():
    with pytest.raises(OptionError, match="stop"):
        select_variables(HAND, ["A"], stop=1.2)
    with pytest.raises(OptionError, match="remove-stop"):
        select_variables(HAND, ["A"], method="stepwise", stop=0.5)
    with pytest.raises(OptionError, match="method"):
        select_variables(HAND, ["A"], method="sideways", stop=0.5)
    with pytest.raises(ColumnNotFound):
        select_variables(HAND, ["A", "Z"], stop=0.5)


def test_by_subgroup_runs_each_group():
    res = select_variables(HAND, ["B", "C", "D"], by="A", method="forward", stop=0.5, cell_min=2)
    assert [r.group for r in res] == [None, "a", "b"]
    assert res[1].steps[0].candidates[0].variable == "B"


# --- The paper's worked example, through an engine that serves the paper's printed figures -------

KEYS = [
    "sex",
    "ag8r",
    "source",
    "pow",
    "ms",
    "psx",
    "aor",
    "homstate",
    "means",
    "nsurg",
    "nbs",
    "cp",
    "lsr",
    "ethnic",
    "race1",
    "psrcd",
]
FORCED = ["sex", "ag8r"]
PATH = ["pow", "aor", "nsurg", "psrcd", "psx", "means", "cp", "nbs", "source", "ms"]
PATH_FIG = [
    (0.000, 0.006),
    (0.003, 0.013),
    (0.012, 0.030),
    (0.030, 0.050),
    (0.034, 0.054),
    (0.079, 0.108),
    (0.138, 0.174),
    (0.220, 0.254),
    (0.346, 0.370),
    (0.523, 0.533),
]
N = 10000


class PaperEngine(Engine):
    """Serves RP/CR of the key sets the paper printed; every other candidate is worse."""

    name = "paper"

    def __init__(self):
        self.table: dict[frozenset, tuple[float, float]] = {}
        for t in range(len(PATH)):
            base = FORCED + PATH[:t]
            for v in KEYS:
                if v in base:
                    continue
                rp, cr = PATH_FIG[t]
                self.table[frozenset(base + [v])] = (
                    (rp, cr) if v == PATH[t] else (rp + 0.05, cr + 0.01)
                )
        full = FORCED + PATH
        b1 = {
            "pow": (0.430, 0.442),
            "aor": (0.474, 0.490),
            "nsurg": (0.445, 0.468),
            "psrcd": (0.523, 0.533),
            "psx": (0.523, 0.532),
            "means": (0.462, 0.478),
            "cp": (0.404, 0.430),
            "nbs": (0.418, 0.442),
            "source": (0.379, 0.403),
            "ms": (0.346, 0.370),
        }
        for v, fig in b1.items():
            self.table[frozenset(k for k in full if k != v)] = fig
        after = [k for k in full if k != "cp"]
        b2 = {
            "pow": (0.316, 0.343),
            "aor": (0.359, 0.390),
            "nsurg": (0.328, 0.361),
            "psrcd": (0.404, 0.430),
            "psx": (0.403, 0.430),
            "means": (0.279, 0.308),
            "nbs": (0.301, 0.335),
            "source": (0.275, 0.3065),
        }
        for v, fig in b2.items():
            self.table[frozenset(k for k in after if k != v)] = fig
        f11 = {
            "homstate": (0.932, 0.886),
            "lsr": (0.656, 0.647),
            "ethnic": (0.564, 0.570),
            "race1": (0.585, 0.591),
            "cp": (0.523, 0.533),
        }
        for v, fig in f11.items():
            self.table[frozenset(after + [v])] = fig
        # backward example: Backward steps 11 and 12 of the paper
        b11 = ["sex", "ag8r", "pow", "ms", "cp", "ethnic"]
        self.table[frozenset(b11)] = (0.153, 0.188)
        for v, fig in {
            "pow": (0.101, 0.130),
            "ms": (0.064, 0.090),
            "cp": (0.060, 0.081),
            "ethnic": (0.058, 0.092),
        }.items():
            self.table[frozenset(k for k in b11 if k != v)] = fig
        b12 = ["sex", "ag8r", "pow", "ms", "cp"]
        for v, fig in {"pow": (0.030, 0.056), "ms": (0.013, 0.031), "cp": (0.012, 0.026)}.items():
            self.table[frozenset(k for k in b12 if k != v)] = fig

    columns = property(lambda self: KEYS)
    n_records = property(lambda self: N)

    def keyset_stats(self, keysets, cell_min):
        out = []
        for ks in keysets:
            rp, cr = self.table.get(frozenset(ks), (0.0, 0.5))  # unprinted sets: harmless
            out.append(CellStats(tuple(ks), N, round(cr * N), 1, 0, round(rp * N), cell_min))
        return out

    def cell_counts(self, keys):  # pragma: no cover - not used by selection
        raise NotImplementedError

    def record_cell_sizes(self, keys):  # pragma: no cover
        raise NotImplementedError

    def split(self, by):  # pragma: no cover
        raise NotImplementedError


def test_paper_forward_stops_at_step_9():
    r = select_variables(
        None, KEYS, force=FORCED, method="forward", stop=0.30, engine=PaperEngine()
    )
    assert r.selected == sorted(FORCED + PATH[:8], key=KEYS.index)  # kept in the user's order
    assert [s.label for s in r.taken] == [f"F{i}" for i in range(1, 9)]
    f9 = r.steps[-1]
    assert f9.label == "F9" and f9.variable == "source" and not f9.taken
    assert f9.rp == pytest.approx(0.346)
    assert f9.alpha == pytest.approx(1.078, abs=0.003)  # 0.934 / 0.866 in the paper
    assert "F9" in r.stop_reason


def test_paper_stepwise_rules():
    r = select_variables(
        None,
        KEYS,
        force=FORCED,
        method="stepwise",
        stop=0.55,
        remove_stop=0.35,
        engine=PaperEngine(),
    )
    labels = [(s.label, s.variable, s.taken) for s in r.steps]
    # F10 adds ms; B1 removes cp although ms has the smallest ratio: ms was just added
    f10 = next(i for i, s in enumerate(r.steps) if s.label == "F10")
    assert labels[f10] == ("F10", "ms", True)
    b1 = r.steps[f10 + 1]
    assert (b1.label, b1.variable, b1.taken) == ("B1", "cp", True)
    assert "ms" not in {c.variable for c in b1.candidates}
    assert b1.rp == pytest.approx(0.404)
    # B2 cannot remove source (RP 0.275 < 0.35): the removal phase ends
    b2 = r.steps[f10 + 2]
    assert (b2.label, b2.variable, b2.taken) == ("B2", "source", False)
    # F11's best candidate is cp, just removed: it cannot re-enter, so the method stops
    f11 = r.steps[f10 + 3]
    assert (f11.label, f11.variable, f11.taken) == ("F11", "cp", False)
    assert "cannot re-enter" in r.stop_reason
    assert set(r.selected) == {
        "sex",
        "ag8r",
        "pow",
        "aor",
        "nsurg",
        "psrcd",
        "psx",
        "means",
        "nbs",
        "source",
        "ms",
    }
    assert r.final["rp"] == pytest.approx(0.404)


def test_paper_backward_stops_at_ms():
    keys = ["sex", "ag8r", "pow", "ms", "cp", "ethnic"]
    r = select_variables(
        None, keys, force=FORCED, method="backward", stop=0.05, engine=PaperEngine()
    )
    first, second = r.steps
    assert (first.variable, first.taken, first.rp) == ("ethnic", True, pytest.approx(0.058))
    assert first.alpha == pytest.approx((0.153 / 0.188) / (0.058 / 0.092))
    assert (second.variable, second.taken) == ("ms", False)
    assert second.rp == pytest.approx(0.013)
    assert r.selected == ["sex", "ag8r", "pow", "ms", "cp"]
    assert r.final["rp"] == pytest.approx(0.058)
