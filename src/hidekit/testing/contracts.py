"""What every registered piece promises, checked the way scikit-learn's ``check_estimator``
checks an estimator. Each ``check_*`` raises ``AssertionError`` naming the broken promise.

- ``check_transform``: parameters round-trip (``get_params`` / ``set_params``); ``fit`` returns
  the transform and ``transform`` a new frame, the input untouched; no record lost; columns the
  step does not name come out identical (values, types, so their value labels still hold); the
  same parameters (seed, key) give the same output; a bad parameter set with ``set_params`` is a
  one-line ``OptionError`` at ``fit``.
- ``check_operator``: offsets of every replacement exact in the old and the new text; text
  outside the spans unchanged; overlapping spans leave no character behind; deterministic.
- ``check_recognizer``: ``text[start:end]`` is the span's text; the recognizer's own label and
  name on every span; no two spans of one recognizer overlap; deterministic.
- ``check_engine``: the same numbers as a pandas group-by (missing values a category).
- ``check_spark_transform``: a step run on Spark gives the frame the local engine gives (values,
  types, record order), or refuses the same way.

``tests/test_contracts.py`` runs them over every registered piece; a plug-in can run them on
its own pieces (see ``tests/plugin_example.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from hidekit.errors import OptionError
from hidekit.testing.examples import contract_frame


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # arrays, frames
        return repr(a) == repr(b)


# -- transforms -----------------------------------------------------------------------------


def _named_columns(params: dict, columns: Sequence[str]) -> set[str]:
    """Columns a step's parameters name (whatever the parameter is called)."""
    named: set[str] = set()
    for value in params.values():
        values = value if isinstance(value, (list, tuple)) else [value]
        named.update(v for v in values if isinstance(v, str) and v in columns)
    return named


def _as_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with rows in a canonical order (a step may reorder rows, never change them)."""
    cols = list(frame.columns)
    if not cols:
        return frame.reset_index(drop=True)
    keys = frame.astype(str)
    order = keys.sort_values(cols, kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def check_transform(cls, params: dict, bad: dict, frame: pd.DataFrame | None = None) -> None:
    """Every promise of a table step (see the module docstring) on ``frame``."""
    frame = contract_frame() if frame is None else frame
    before = frame.copy(deep=True)
    name = getattr(cls, "name", cls.__name__)

    step = cls(**params)
    got = step.get_params()
    assert isinstance(got, dict) and got, f"{name}: get_params() gives no parameters"
    again = cls(**{**params, **got})
    assert all(_same(again.get_params()[k], v) for k, v in got.items()), (
        f"{name}: rebuilding from get_params() changes the parameters"
    )
    assert step.set_params(**got) is step, f"{name}: set_params must return the step"
    assert all(_same(step.get_params()[k], v) for k, v in got.items()), (
        f"{name}: set_params(**get_params()) changes the parameters"
    )
    assert name in repr(step) or type(step).__name__ in repr(step)

    assert step.fit(frame) is step, f"{name}: fit must return the step itself"
    out = step.transform(frame)
    assert isinstance(out, pd.DataFrame), f"{name}: transform must return a DataFrame"
    pd.testing.assert_frame_equal(frame, before, obj=f"{name}: the input frame")
    assert len(out) == len(frame), f"{name}: {len(frame)} records in, {len(out)} out"

    named = _named_columns(params, list(frame.columns))
    kept = [c for c in frame.columns if c not in named]
    missing = [c for c in kept if c not in out.columns]
    assert not missing, f"{name}: columns it does not name are gone: {missing}"
    pd.testing.assert_frame_equal(
        _as_rows(out[kept]), _as_rows(frame[kept]), obj=f"{name}: columns it does not name"
    )

    twice = cls(**params).fit_transform(frame)
    pd.testing.assert_frame_equal(
        cls(**params).fit_transform(frame), twice, obj=f"{name}: the same parameters twice"
    )

    changed = cls(**params)
    changed.set_params(**bad)  # parameters are checked by fit, not here
    try:
        changed.fit(frame)
    except OptionError as exc:
        assert "\n" not in str(exc), f"{name}: the error is more than one line"
    else:
        raise AssertionError(f"{name}: fit accepted the bad parameter(s) {bad}")


# -- operators ------------------------------------------------------------------------------

OPERATOR_TEXT = (
    "Patient: John Smith (MRN 0012345), seen 03/04/2021 at Saint Mary Hospital.\n"
    "Mr. Smith called from 617-555-0199; wife Anna\tSmith.\r\nNo other findings."
)


def operator_document(patient: str | None = "p1"):
    """A note with adjacent, overlapping, multi-line and whitespace-bearing spans."""
    from hidekit.text.spans import Document, Span

    def span(needle: str, label: str, occurrence: int = 0) -> Span:
        start = -1
        for _ in range(occurrence + 1):
            start = OPERATOR_TEXT.index(needle, start + 1)
        return Span(start, start + len(needle), label, needle)

    spans = [
        span("John Smith", "NAME"),
        span("Smith", "NAME"),  # inside the one before: merged into it
        span("0012345", "ID"),
        span("03/04/2021", "DATE"),
        span("Saint Mary Hospital", "HOSPITAL"),
        span("Mary Hospital.\nMr", "HOSPITAL"),  # overlaps across a line break
        span("617-555-0199", "PHONE"),
        span("Anna\tSmith", "NAME"),
    ]
    return Document("contract", OPERATOR_TEXT, sorted(spans), patient)


def check_operator(make) -> None:
    """Every promise of a text operator; ``make()`` gives a fresh, configured operator."""
    for patient in ("p1", None):  # a document without a patient is a patient of its own
        _check_operator_on(make, operator_document(patient))


def _check_operator_on(make, doc) -> None:
    from hidekit.text.anonymization.operators import anonymize_document, merge_overlaps

    op = make()
    name = op.name
    new, records = anonymize_document(doc, op)
    merged = merge_overlaps(doc.spans, doc.text)
    assert [(r.start, r.end) for r in records] == [(s.start, s.end) for s in merged], (
        f"{name}: one replacement per merged span, in order"
    )
    old_pos = new_pos = 0
    for r in records:
        assert doc.text[old_pos : r.start] == new.text[new_pos : r.new_start], (
            f"{name}: text outside the spans changed before offset {r.start}"
        )
        assert new.text[r.new_start : r.new_end] == r.replacement, (
            f"{name}: replacement offsets {r.new_start}-{r.new_end} are not exact"
        )
        old_pos, new_pos = r.end, r.new_end
    assert doc.text[old_pos:] == new.text[new_pos:], f"{name}: the text after the last span changed"
    for s in new.spans:
        assert new.text[s.start : s.end] == s.text, f"{name}: new span {s} is not exact"
    assert make() is not op
    again, _ = anonymize_document(doc, make())
    assert again.text == new.text, f"{name}: the same parameters give different text"


# -- recognizers ----------------------------------------------------------------------------

RECOGNIZER_TEXTS = (
    "",
    "   \n\t ",
    "Seen on 12/03/2019 and 2019-12-04; call (617) 555-0199 or +34 912 345 678.",
    "MRN: 12345678, SSN 123-45-6789, e-mail jane.doe@example.org, http://example.org/x.",
    "Dr. María José García-López visitó el Hospital Universitario La Paz, Madrid, 28046.",
    "DNI 12345678Z, NASS 28/12345678/90, teléfono 600 123 456, calle Mayor 3, 2º izq.",
    "Patient is a 67 year old nurse from Boston, MA 02114; IP 192.168.0.1; fax 617-555-0100.",
    "ünïcödé ✓ text — with dashes – and “quotes” 1234 5678 9012 3456",
)


def check_recognizer(rec, texts: Iterable[str] = RECOGNIZER_TEXTS) -> None:
    """Every promise of a recognizer over ``texts``."""
    for text in texts:
        spans = rec.find(text)
        assert spans == rec.find(text), f"{rec.name}: two runs on one text differ"
        for s in spans:
            assert 0 <= s.start < s.end <= len(text), f"{rec.name}: span {s} out of the text"
            assert text[s.start : s.end] == s.text, (
                f"{rec.name}: text[{s.start}:{s.end}] is {text[s.start : s.end]!r}, "
                f"the span says {s.text!r}"
            )
            assert rec.emits(s.label), f"{rec.name}: label {s.label} is not {rec.label}"
            assert s.source == rec.name, f"{rec.name}: source {s.source!r} is not its name"
        ordered = sorted(spans, key=lambda s: (s.start, s.end))
        for a, b in zip(ordered, ordered[1:], strict=False):
            assert a.end <= b.start, f"{rec.name}: its spans {a} and {b} overlap"
        # detection reads hits as arrays (recognizers.hits): the same hits, the recognizer's score
        starts, ends, labels = rec.find_arrays(text)
        labels = [labels] * len(starts) if isinstance(labels, str) else list(labels)
        assert list(zip(starts, ends, labels, strict=True)) == [
            (s.start, s.end, s.label) for s in spans
        ], f"{rec.name}: find_arrays and find give different hits"
        assert all(s.score == rec.score for s in spans), f"{rec.name}: a hit's score is not its own"


# -- engines --------------------------------------------------------------------------------


def _pandas_sizes(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    if not keys:
        return np.array([len(frame)] if len(frame) else [], dtype=np.int64)
    return frame.groupby(keys, dropna=False).size().to_numpy(dtype=np.int64)


def check_engine(make, frame: pd.DataFrame, keysets: Sequence[Sequence[str]], cell_min: int = 3):
    """An engine (``make(frame)``) gives the numbers a pandas group-by gives on ``frame``."""
    from hidekit.engines.base import COUNT_COLUMN, CellStats

    eng = make(frame)
    name = getattr(eng, "name", type(eng).__name__)
    assert eng.n_records == len(frame), f"{name}: n_records"
    assert list(eng.columns)[: len(frame.columns)] == list(frame.columns), f"{name}: columns"
    keysets = [list(ks) for ks in keysets]
    for ks, got in zip(keysets, eng.keyset_stats(keysets, cell_min), strict=True):
        want = CellStats.from_sizes(ks, _pandas_sizes(frame, ks), cell_min)
        assert got == want, f"{name}: keyset_stats{ks} is {got}, pandas says {want}"
        if not ks:
            continue
        counts = eng.cell_counts(ks)
        assert sorted(counts[COUNT_COLUMN].tolist()) == sorted(_pandas_sizes(frame, ks).tolist())
        per_record = frame.groupby(ks, dropna=False)[ks[0]].transform("size").to_numpy()
        got_rec = np.asarray(eng.record_cell_sizes(ks))
        assert got_rec.tolist() == per_record.tolist(), f"{name}: record_cell_sizes{ks}"
    by = frame.columns[0]
    parts = eng.split(by)
    assert sum(p.n_records for _, p in parts) == len(frame), f"{name}: split({by!r}) loses records"
    want_sizes = frame.groupby(by, dropna=False).size()
    assert sorted(p.n_records for _, p in parts) == sorted(want_sizes.tolist()), f"{name}: split"


# -- the Spark engine ----------------------------------------------------------------------


def check_spark_transform(cls, params: dict, frame: pd.DataFrame | None = None, spark=None):
    """A step run on Spark (``hidekit.engines.spark_steps``) gives the very frame the local
    engine gives: same values, same types, same record order."""
    from hidekit.engines.spark_steps import SparkTable
    from hidekit.errors import HidekitError

    frame = contract_frame() if frame is None else frame
    name = getattr(cls, "name", cls.__name__)
    table = SparkTable.from_pandas(frame, spark)
    try:
        local = cls(**params).fit_transform(frame).reset_index(drop=True)
    except HidekitError as exc:  # a refusal: Spark refuses the same way
        try:
            table.apply(cls(**params))
        except HidekitError as got_exc:
            assert (type(got_exc), str(got_exc)) == (type(exc), str(exc)), (
                f"{name} on Spark refuses with {got_exc!r}, the local engine with {exc!r}"
            )
            return
        raise AssertionError(f"{name}: the local engine refuses ({exc}), Spark does not") from None
    got = table.apply(cls(**params)).to_pandas()
    pd.testing.assert_frame_equal(got, local, obj=f"{name} on Spark")
