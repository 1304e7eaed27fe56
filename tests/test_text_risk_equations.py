"""Scaiano & El Emam's equations (9)–(22) against values computed by hand and the paper's examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import InputError, OptionError
from hidekit.evaluation.text_risk import (
    all_or_nothing_recall,
    assess_text_risk,
    binomial_tail2,
    binomial_tail2_mean_n,
    check_attempt,
    di_risk,
    qi_risk,
    threshold_from_cell_size,
)
from hidekit.evaluation.text_risk_corpus import corpus_stats, normalize_value
from hidekit.evaluation.type_maps import load_type_map, make_type_map
from hidekit.text.spans import Document, Span


def doc(doc_id: str, text: str, spans, patient=None) -> Document:
    """Spans given as (surface, label, occurrence) are located in ``text`` by search."""
    out = []
    for surface, label, nth in spans:
        start = -1
        for _ in range(nth + 1):
            start = text.index(surface, start + 1)
        out.append(Span(start, start + len(surface), label, surface))
    return Document(doc_id, text, sorted(out), patient)


# ---------------------------------------------------------------- 2.3.1 all-or-nothing recall


def names_corpus():
    """100 documents, 250 last names; the 230 caught are every name of 80 documents, the 20
    missed are one name in each of the other 20 (the paper's example in 2.3.1)."""
    gold, pred = [], []
    for i in range(80):
        k = 3 if i < 70 else 2  # 70 × 3 + 10 × 2 = 230 names
        text = " ".join(f"Dr saw Smith{j}." for j in range(k))
        g = doc(f"d{i:03}", text, [(f"Smith{j}", "NAME", 0) for j in range(k)])
        gold.append(g)
        pred.append(g.with_spans(g.spans))
    for i in range(80, 100):
        g = doc(f"d{i:03}", "Patient Jones came in.", [("Jones", "NAME", 0)])
        gold.append(g)
        pred.append(g.with_spans([]))
    return gold, pred


def test_all_or_nothing_example_of_2_3_1():
    gold, pred = names_corpus()
    st_ = corpus_stats(gold, pred, load_type_map())
    (names,) = st_.direct
    assert (names.instances, names.masked_instances) == (250, 230)
    assert names.masking_recall == pytest.approx(0.92)  # the micro-average the paper criticises
    assert (names.documents, names.leaked_documents) == (100, 20)
    assert names.r == pytest.approx(0.8)
    assert st_.conventional["groups"]["direct"]["strict_recall"] == pytest.approx(0.92)
    # w = 1, r = 0.8: the probability of re-identification is 0.2, not 0.08
    assert di_risk([names.w], [names.r]) == pytest.approx(0.2)


def test_all_or_nothing_recall_function():
    assert all_or_nothing_recall(20, 100) == pytest.approx(0.8)
    with pytest.raises(OptionError):
        all_or_nothing_recall(0, 0)


# ---------------------------------------------------------------- DI equations (11, 14, 16, 18)


def test_eq11_hand_value():
    # 1 - (1 - 0.5·0.1)(1 - 0.2·0.5) = 1 - 0.95·0.9
    assert di_risk([0.5, 0.2], [0.9, 0.5]) == pytest.approx(0.145)


def test_eq14_paper_example_of_2_3_6():
    # h = 0.1, w = 1, r = 0.4 gives 0.06 without the strict cut-off …
    assert di_risk([1.0], [0.4], h=0.1, strict=0.0) == pytest.approx(0.06)
    # … and 0.6 with it (eq. 16): r = 0.4 < 0.9 so h may not be used
    assert di_risk([1.0], [0.4], h=0.1, strict=0.9) == pytest.approx(0.6)


def test_eq16_mixes_types_above_and_below_the_cut():
    # type 1: r = 0.95 ≥ 0.9 → 0.1·1·0.05 = 0.005; type 2: r = 0.5 → 0.5
    assert di_risk([1, 1], [0.95, 0.5], h=0.1) == pytest.approx(1 - 0.995 * 0.5)


def test_eq18_attempt_scales_the_probability():
    assert di_risk([1, 1], [0.95, 0.5], h=0.1, attempt=0.3) == pytest.approx(
        0.3 * (1 - 0.995 * 0.5)
    )


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=8))
def test_di_risk_is_a_probability_and_grows_with_types(types):
    w = [t[0] for t in types]
    r = [t[1] for t in types]
    p = di_risk(w, r)
    assert 0.0 <= p <= 1.0
    assert p >= di_risk(w[:-1], r[:-1]) - 1e-12  # another type can only add leaks


# ---------------------------------------------------------------- binomial tail, QI (12, 15, 17, 19)


def test_binomial_tail_hand_values():
    assert binomial_tail2(3, 0.5) == pytest.approx(0.5)  # 3/8 + 1/8
    assert binomial_tail2(2, 0.1) == pytest.approx(0.01)
    assert binomial_tail2(4, 0.2) == pytest.approx(1 - 0.8**4 - 4 * 0.2 * 0.8**3)  # 0.1808
    assert binomial_tail2(1, 0.9) == 0.0 and binomial_tail2(0, 0.9) == 0.0
    assert binomial_tail2(5, 1.0) == 1.0 and binomial_tail2(5, 0.0) == 0.0


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 200), st.floats(0, 1))
def test_binomial_tail_matches_scipy(n, p):
    stats = pytest.importorskip("scipy.stats")  # an independent implementation
    assert binomial_tail2(n, p) == pytest.approx(stats.binom.sf(1, n, p), rel=1e-6, abs=1e-12)


def test_binomial_tail_keeps_tiny_probabilities():
    # C(5,2) p² for p = 1e-9: the naive 1 - (1-p)^5 - 5p(1-p)^4 would give 0 or noise
    assert binomial_tail2(5, 1e-9) == pytest.approx(1e-17, rel=1e-6)


def test_non_integer_n_q_mixes_the_two_nearest_counts():
    assert binomial_tail2_mean_n(2.5, 0.3) == pytest.approx(
        0.5 * binomial_tail2(2, 0.3) + 0.5 * binomial_tail2(3, 0.3)
    )
    assert binomial_tail2_mean_n(3.0, 0.3) == pytest.approx(binomial_tail2(3, 0.3))


def test_eq12_hand_value():
    # p = 1 - 0.9² = 0.19; P(X ≥ 2), X ~ B(3, 0.19) = 1 - 0.81³ - 3·0.19·0.81²
    assert qi_risk(3, 0.9, 2) == pytest.approx(1 - 0.81**3 - 3 * 0.19 * 0.81**2)  # 0.094582


def test_eq15_and_eq17_hips_only_above_the_cut():
    p = 0.1 * 0.19
    expected = 1 - (1 - p) ** 3 - 3 * p * (1 - p) ** 2
    assert qi_risk(3, 0.9, 2, h=0.1, strict=0.0) == pytest.approx(expected)  # (15)
    assert qi_risk(3, 0.9, 2, h=0.1, strict=0.7) == pytest.approx(expected)  # (17), r_q ≥ 0.7
    # r_q = 0.6 < 0.7: Y ~ B(n_q, 1 - r_q^m), no h
    assert qi_risk(3, 0.6, 2, h=0.1) == pytest.approx(qi_risk(3, 0.6, 2))
    assert qi_risk(3, 0.6, 2, h=0.1) == pytest.approx(1 - 0.36**3 - 3 * 0.64 * 0.36**2)


def test_eq19_attempt():
    assert qi_risk(3, 0.9, 2, attempt=0.25) == pytest.approx(0.25 * qi_risk(3, 0.9, 2))


def test_tau_from_cell_size():
    assert threshold_from_cell_size(5) == pytest.approx(0.2)
    assert threshold_from_cell_size(3) == pytest.approx(0.3333, abs=1e-4)
    assert threshold_from_cell_size(11) == pytest.approx(0.0909, abs=1e-4)
    assert threshold_from_cell_size(20) == pytest.approx(0.05)
    with pytest.raises(OptionError):
        threshold_from_cell_size(0)


def test_attempt_checks():
    assert check_attempt([0.1, 0.2, 0.3]) == (0.1, 0.2, 0.3)
    assert check_attempt(None) is None
    for bad in ([0.3, 0.2, 0.1], [0.1, 0.2], [0.1, 0.2, 1.5]):
        with pytest.raises(OptionError):
            check_attempt(bad)


# ---------------------------------------------------------------- QI quantities from a corpus


def qi_corpus():
    # doc a: date ×2 (one missed), "Madrid" ×1 masked, "MADRID" ×1 masked → values {date, madrid}
    a = doc(
        "a",
        "Seen 12/03/2005 in Madrid. Again 12/03/2005 at MADRID.",
        [
            ("12/03/2005", "DATE", 0),
            ("12/03/2005", "DATE", 1),
            ("Madrid", "CITY", 0),
            ("MADRID", "CITY", 0),
        ],
    )
    # doc b: age 45 ×1 missed, "Boston  city" (white space collapsed) masked
    b = doc("b", "Age 45, from Boston  city.", [("45", "AGE", 0), ("Boston  city", "CITY", 0)])
    # doc c: no QI
    c = doc("c", "Nothing here.", [])
    second_date = [x for x in a.spans if x.label == "DATE"][1]
    pred = [
        a.with_spans([x for x in a.spans if x != second_date]),
        b.with_spans([x for x in b.spans if x.label != "AGE"]),
        c,
    ]
    return [a, b, c], pred


def test_qi_quantities_by_hand():
    gold, pred = qi_corpus()
    q = corpus_stats(gold, pred, load_type_map()).quasi
    assert q.instances == 6 and q.masked_instances == 4
    assert q.r_q == pytest.approx(4 / 6)
    assert q.documents == 2  # s_q
    assert q.distinct_values == 4  # a: date, madrid; b: 45, boston city
    assert q.n_q == pytest.approx(4 / 3)  # over all n = 3 documents
    assert q.m == pytest.approx(6 / 4)
    assert q.leaked_documents_2plus == 0  # a leaks one value, b one
    assert normalize_value("Boston \n  City") == "boston city"


def test_token_partly_inside_a_gold_span_counts_as_masked_by_its_part():
    # gold annotates "Francisco" inside the token "DR.Francisco"-like run "XFrancisco"
    g = Document("x", "Dr.XFrancisco Lopez", [Span(4, 19, "NAME")])
    st_ = corpus_stats([g], [g.with_spans(g.spans)], load_type_map())
    assert st_.direct[0].masked_instances == 1


def test_masking_is_type_blind_and_token_level():
    # the paper's Table 2: one ORG span masked by three predictions of other types
    text = "At Thompson's Ohio Children's Hospital today"
    g = doc("t", text, [("Thompson's Ohio Children's Hospital", "ORGANIZATION", 0)])
    p = doc(
        "t",
        text,
        [
            ("Thompson's", "NAME", 0),
            ("Ohio", "STATE", 0),
            ("Children's Hospital", "ORGANIZATION", 0),
        ],
    )
    st_ = corpus_stats([g], [p], load_type_map())
    conv = st_.conventional["per_type"]["ORGANIZATION"]
    assert conv["masking_recall"] == 1.0 and conv["strict_recall"] == 0.0
    # drop "Ohio": one token uncovered → not masked
    p2 = p.with_spans([s for s in p.spans if s.label != "STATE"])
    assert corpus_stats([g], [p2], load_type_map()).quasi.masked_instances == 0


def test_documents_of_one_patient_form_one_virtual_document():
    d1 = doc("v1", "Mr Smith seen.", [("Smith", "NAME", 0)], patient="p1")
    d2 = doc("v2", "Smith again.", [("Smith", "NAME", 0)], patient="p1")
    d3 = doc("v3", "Ms Lee seen.", [("Lee", "NAME", 0)], patient="p2")
    pred = [d1.with_spans(d1.spans), d2.with_spans([]), d3.with_spans(d3.spans)]
    st_ = corpus_stats([d1, d2, d3], pred, load_type_map())
    assert (st_.n, st_.unit, st_.documents) == (2, "patient", 3)
    (names,) = st_.direct
    assert (names.documents, names.leaked_documents) == (2, 1)  # p1 leaked through v2


def test_no_direct_identifiers_is_acceptable_with_reason():
    gold, pred = qi_corpus()
    res = assess_text_risk(gold, pred, draws=500)
    assert res.direct.estimate == 0.0 and res.direct_verdict.acceptable
    assert "no direct identifiers" in res.direct_verdict.reason


def test_type_map_override_and_conflicts(tmp_path):
    gold, pred = qi_corpus()
    # declare dates direct: DATE becomes a DI type with all-or-nothing recall 0 (1 leaking doc)
    st_ = corpus_stats(gold, pred, make_type_map(["date"], ["city", "age"]))
    assert [(d.label, d.documents, d.r) for d in st_.direct] == [("DATE", 1, 0.0)]
    with pytest.raises(OptionError, match="both direct and quasi"):
        make_type_map(["DATE"], ["date"])
    bad = tmp_path / "map.json"
    bad.write_text('{"direct": "NAME"}')
    with pytest.raises(InputError, match="list of type names"):
        load_type_map(bad)
    bad.write_text('{"direkt": ["NAME"]}')
    with pytest.raises(InputError, match="unknown keys"):
        load_type_map(bad)


def test_type_map_leaving_every_type_unmapped_is_an_error():
    g = doc("a", "Blue sky", [("Blue", "COLOUR", 0)])
    with pytest.raises(InputError, match="leaves every gold type unmapped: COLOUR"):
        corpus_stats([g], [g], load_type_map())


def test_spans_outside_the_text_are_an_error():
    g = Document("a", "short", [Span(0, 50, "NAME")])
    with pytest.raises(InputError, match="outside the text"):
        corpus_stats([g], [Document("a", "short")], load_type_map())


def test_default_maps_cover_meddocan_fixture(fixtures):
    from hidekit.text.corpus import read_brat_dir

    labels = {s.label for d in read_brat_dir(fixtures / "meddocan") for s in d.spans}
    tm = load_type_map("meddocan")
    assert all(tm.kind(lab) is not None for lab in labels)
    assert tm.kind("NOMBRE_SUJETO_ASISTENCIA") == "direct" and tm.kind("FECHAS") == "quasi"
    hipaa = load_type_map("hipaa")
    assert hipaa.kind("doctor") == "direct" and hipaa.kind("ZIP") == "quasi"
    assert hipaa.kind("MEDICALRECORD") == "direct"  # i2b2 2014 spelling
    assert math.isclose(len(load_type_map().direct), len(hipaa.direct) + len(tm.direct))
