"""The contract suite over every registered piece: a step, operator, recognizer or engine is
checked the moment it is registered (see hidekit.testing.contracts for the promises)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidekit.errors import HidekitError
from hidekit.registry import ENGINES, OPERATORS, RECOGNIZERS, TRANSFORMS
from hidekit.testing.contracts import (
    check_engine,
    check_operator,
    check_recognizer,
    check_transform,
)
from hidekit.testing.examples import contract_frame, resolve, step_example


@pytest.mark.parametrize("name", TRANSFORMS.names())
def test_transform_contract(name, tmp_path):
    cls = TRANSFORMS[name]
    good, bad = step_example(name, cls)
    check_transform(cls, resolve(good, tmp_path), bad)


@pytest.mark.parametrize("name", TRANSFORMS.names())
def test_transform_contract_with_missing_values(name, tmp_path):
    """Missing values: every promise holds, or the step refuses the table in one line."""
    cls = TRANSFORMS[name]
    good, bad = step_example(name, cls)
    try:
        check_transform(cls, resolve(good, tmp_path), bad, contract_frame(missing=0.1))
    except HidekitError as exc:
        assert "\n" not in str(exc), exc


@pytest.mark.parametrize("name", OPERATORS.names())
def test_operator_contract(name):
    from hidekit.text.anonymization.operators import get_operator

    # a key makes random operators (surrogates) reproducible; without one they are fresh
    key = b"contract-suite-secret-key-0123456789"
    check_operator(lambda: get_operator(name, key=key))


@pytest.mark.parametrize("name", RECOGNIZERS.names())
def test_recognizer_contract(name, synthetic_notes):
    check_recognizer(RECOGNIZERS[name])
    check_recognizer(RECOGNIZERS[name], synthetic_notes)


@pytest.fixture(scope="module")
def synthetic_notes(fixtures) -> list[str]:
    """English notes from hidekit's own generator, the development notes and the MEDDOCAN
    train-split cases in tests/fixtures (never a held-out set)."""
    from hidekit.text.synthesis import generate_notes

    texts = [d.text for d in generate_notes(6, seed=11)]
    for folder in ("en-dev", "meddocan"):
        for path in sorted((fixtures / folder).glob("*.txt"))[:6]:
            texts.append(path.read_text(encoding="utf-8"))
    return texts


frames = st.integers(1, 40).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            c: st.lists(st.one_of(st.none(), st.integers(0, card)), min_size=n, max_size=n)
            for c, card in (("a", 2), ("b", 4), ("c", 12))
        }
    )
)
KEYSETS = [[], ["a"], ["a", "b"], ["b", "c"], ["a", "b", "c"]]


def _engine_maker(name):
    def make(frame: pd.DataFrame):
        return ENGINES[name].open(frame)

    return make


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=[pytest.mark.spark, pytest.mark.xdist_group("spark")])
        if n == "spark"
        else n
        for n in ENGINES.names()
    ],
)
def test_engine_contract(name, request):
    if name == "spark":
        request.getfixturevalue("spark")  # skips cleanly where Java or PySpark is missing
    examples = 4 if name == "spark" else 40

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(frames, st.integers(1, 4))
    def run(data, cell_min):
        check_engine(_engine_maker(name), pd.DataFrame(data), KEYSETS, cell_min)

    run()


# -- the checks catch what they promise to catch --------------------------------------------------


def test_the_checks_pass_the_example_plugin_and_catch_broken_pieces():
    from hidekit.text.detection.recognizers import PatternRecognizer
    from hidekit.text.spans import Span
    from plugin_example import ZOO_ID, PandasEngine, RoundIncome, Shout

    class DropsARecord(RoundIncome):
        def transform(self, frame):
            return super().transform(frame).iloc[1:]

    class TouchesOthers(RoundIncome):
        def transform(self, frame):
            return super().transform(frame).assign(age=0)

    class Unseeded(RoundIncome):
        def transform(self, frame):
            out = super().transform(frame)
            return out.assign(income=out["income"] + np.random.default_rng().random(len(out)))

    good, bad = RoundIncome.contract_params, RoundIncome.contract_bad
    check_transform(RoundIncome, good, bad)
    for broken, why in (
        (DropsARecord, "records in"),
        (TouchesOthers, "does not name"),
        (Unseeded, "same parameters"),
    ):
        with pytest.raises(AssertionError, match=why):
            check_transform(broken, good, bad)
    with pytest.raises(AssertionError, match="accepted the bad"):
        check_transform(RoundIncome, good, {"to": 5})

    check_operator(Shout)
    from hidekit.text.anonymization import operators

    real = operators.anonymize_document

    def shifted(doc, op):
        new, records = real(doc, op)
        new.text = new.text.replace("seen", "sen")
        return new, records

    operators.anonymize_document = shifted
    try:
        with pytest.raises(AssertionError, match="outside the spans"):
            check_operator(Shout)
    finally:
        operators.anonymize_document = real

    class OffByOne(PatternRecognizer):
        def find(self, text):
            return [Span(s.start + 1, s.end, s.label, s.text, s.source) for s in super().find(text)]

    check_recognizer(ZOO_ID)
    check_recognizer(ZOO_ID, ["ZOO-1234 and ZOO-5678, not ZOO-12345"])
    with pytest.raises(AssertionError, match="the span says"):
        check_recognizer(OffByOne("digits", "ID", (), 0.5, pattern=r"\d{4}"))

    class CountsWrong(PandasEngine):
        def keyset_stats(self, keysets, cell_min):
            return super().keyset_stats(keysets, cell_min + 1)

    frame = pd.DataFrame({"a": [1, 1, 2, None], "b": [0, 0, 0, 1]})
    check_engine(PandasEngine, frame, KEYSETS[:3], 2)
    with pytest.raises(AssertionError, match="pandas says"):
        check_engine(CountsWrong, frame, KEYSETS[:3], 2)
