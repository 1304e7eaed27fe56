"""Long texts are read in bounded windows: the plan tiles the text, merging finds every span whole
and once, and a text no longer than one window gives exactly what reading it whole gives."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hidekit.errors import OptionError
from hidekit.io import windows as IW
from hidekit.text.detection import windows as W
from hidekit.text.detection.detector import load_model, widen_to_direct
from hidekit.text.spans import Document, Span
from hidekit.text.synthesis import generate_notes


@pytest.fixture(scope="module")
def det():
    return load_model("en")


@pytest.fixture(scope="module")
def notes():
    return generate_notes(80, seed=5)


def _full(s: Span) -> tuple:
    return (s.start, s.end, s.label, s.text, s.source, s.score)


def _check_plan(text: str, size: int, margin: int) -> list[W.Window]:
    plan = W.plan_windows(text, size, margin)
    n = len(text)
    assert plan[0].own_start == 0 and plan[-1].own_end == n
    for a, b in zip(plan, plan[1:], strict=False):
        assert a.own_end == b.own_start and a.own_start < a.own_end  # own parts tile the text
    for w in plan:
        assert w.end - w.start <= size
        assert w.start <= max(0, w.own_start - margin) and w.end >= min(n, w.own_end + margin)
    assert (len(plan) == 1) == (n <= size)
    return plan


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="ab .\n\t", max_size=3000),
    size=st.integers(60, 400),
    margin=st.integers(0, 14),
)
def test_windows_tile_the_text_and_stay_bounded(text, size, margin):
    _check_plan(text, size, margin)


def test_a_long_note_is_split_into_the_expected_number_of_windows():
    # 10,000 lines of 100 characters; own parts of 50,000 - 3 x 2,000 = 44,000 characters end
    # exactly on a line break, so 1,000,000 / 44,000 -> 23 windows
    text = ("x" * 99 + "\n") * 10_000
    plan = _check_plan(text, W.WINDOW_CHARS, W.MARGIN_CHARS)
    assert len(plan) == 23
    assert all(w.own_end - w.own_start == 44_000 for w in plan[:-1])
    assert all(text[w.own_start - 1] == "\n" for w in plan[1:])  # seams after a line break
    assert all(w.start == 0 or text[w.start - 1] == "\n" for w in plan)  # windows start a line


def test_seams_prefer_paragraphs_then_lines_then_sentences_then_spaces():
    assert IW._seam_before("aa\n\nbb\ncc. dd ee", 16, 0) == 4
    assert IW._seam_before("aa bb\ncc. dd ee", 15, 0) == 6
    assert IW._seam_before("aa bb cc. dd ee", 15, 0) == 10
    assert IW._seam_before("aa bb cc dd ee", 14, 0) == 12
    assert IW._seam_before("aabbccddee", 8, 2) == 8  # nothing to cut at: a hard cut
    assert IW._seam_before("a\n" + "b" * 20, 20, 5) == 20  # a break before lo does not count


def test_bad_window_settings_raise():
    with pytest.raises(OptionError):
        W.plan_windows("x" * 100, size=40, margin=10)


_WORD = re.compile(r"(?<![a-z])[a-z]{1,6}(?![a-z])")


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="abc  .\n", max_size=2500),
    size=st.integers(80, 300),
    margin=st.integers(8, 19),
)
def test_windowed_detection_equals_whole_text_detection_for_short_local_matches(text, size, margin):
    def detect(t: str) -> list[Span]:
        return [Span(m.start(), m.end(), "W", m.group()) for m in _WORD.finditer(t)]

    got = W.detect_in_windows(detect, text, size, margin)
    assert [_full(s) for s in got] == [_full(s) for s in detect(text)]
    assert all(text[s.start : s.end] == s.text for s in got)


def test_merge_keeps_a_span_crossing_a_seam_once_from_the_window_owning_its_start():
    # two windows: own parts [0, 10) and [10, 20); each reads the whole text
    plan = [W.Window(0, 20, 0, 10), W.Window(0, 20, 10, 20)]
    across = Span(7, 13, "NAME", "x" * 6)
    later = Span(12, 15, "ID", "y" * 3)  # found by the second window only, overlaps `across`
    after = Span(16, 18, "ID", "zz")
    got = W.merge_windows(plan, [[across], [across, later, after]])
    assert got == [across, after]


def test_detection_below_the_window_size_is_identical_to_reading_whole(det, notes):
    texts = [d.text for d in notes[:20]]
    joined = "\n\n".join(d.text for d in notes[:60])
    assert len(joined) < W.WINDOW_CHARS
    for text in [*texts, joined]:
        assert len(det.windows(text)) == 1
        assert [_full(s) for s in det.detect(text)] == [_full(s) for s in det._detect_whole(text)]


def _seam_through(monkeypatch, cut: int) -> None:
    real = IW._seam_before

    def seam(text, target, lo):
        return cut if lo < cut <= target else real(text, target, lo)

    monkeypatch.setattr(IW, "_seam_before", seam)


def test_a_phi_span_across_a_window_seam_is_found_whole_and_once(det, notes, monkeypatch):
    text = "\n\n".join(d.text for d in notes[:12])
    whole = det.detect(text)  # one window: read whole
    assert len(det.windows(text)) == 1
    names = [s for s in whole if s.label in ("NAME", "DOCTOR") and s.length >= 8]
    target = next(s for s in names if 2_500 < s.start < len(text) - 2_500)
    cut = target.start + target.length // 2
    _seam_through(monkeypatch, cut)
    det.window_chars, det.window_margin = 2_400, 300
    try:
        plan = det.windows(text)
        assert len(plan) > 3 and any(w.own_end == cut for w in plan)
        got = det.detect(text)
    finally:
        det.window_chars, det.window_margin = W.WINDOW_CHARS, W.MARGIN_CHARS
    touching = [s for s in got if s.overlaps(target)]
    assert [(s.start, s.end, s.label, s.text) for s in touching] == [
        (target.start, target.end, target.label, target.text)
    ]
    assert all(a.end <= b.start for a, b in zip(got, got[1:], strict=False))


def test_windows_of_long_documents_shared_out_among_processes_give_the_same_spans(det, notes):
    long = "\n\n".join(d.text for d in notes[:79])
    docs = [Document("long", long), Document("short", notes[79].text)]
    assert len(long) > 50_000
    det.window_chars, det.window_margin = 20_000, 1_000
    try:
        assert len(det.windows(long)) >= 3
        alone = [det.detect(d.text) for d in docs]
        shared = det.detect_documents(docs, n_jobs=2)
    finally:
        det.window_chars, det.window_margin = W.WINDOW_CHARS, W.MARGIN_CHARS
    assert [[_full(s) for s in d.spans] for d in shared] == [[_full(s) for s in a] for a in alone]


def _widen_pairwise(crf, direct):
    """widen_to_direct as first written (every CRF span against every hit): the reference."""
    drop = set()
    for d in direct:
        inside = [
            i
            for i, c in enumerate(crf)
            if c.start < d.end and d.start < c.end and c.label == d.label
            if d.start <= c.start and c.end <= d.end and c.length < d.length
        ]
        clash = any(
            c.start < d.end and d.start < c.end and i not in inside for i, c in enumerate(crf)
        )
        if inside and not clash:
            drop.update(inside)
    return [c for i, c in enumerate(crf) if i not in drop]


_spans = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 8), st.sampled_from("AB")), max_size=14
)


@settings(max_examples=300, deadline=None)
@given(crf=_spans, direct=_spans, disjoint=st.booleans())
def test_widen_to_direct_by_bisection_equals_the_pairwise_check(crf, direct, disjoint):
    c = sorted(Span(a, a + k, lab) for a, k, lab in crf)
    if disjoint:  # what the CRF gives: ordered, non-empty, no overlaps
        kept: list[Span] = []
        for s in c:
            if s.length and (not kept or kept[-1].end <= s.start):
                kept.append(s)
        c = kept
    d = [Span(a, a + k, lab) for a, k, lab in direct]
    assert [id(s) for s in widen_to_direct(c, d)] == [id(s) for s in _widen_pairwise(c, d)]


def test_text_detect_says_how_many_documents_were_read_in_windows(tmp_path, notes):
    from typer.testing import CliRunner

    from hidekit.cli.main import app

    src = tmp_path / "in"
    src.mkdir()
    long = "\n\n".join(d.text for d in notes)
    while len(long) < 60_000:
        long += "\n\n" + long
    (src / "long.txt").write_text(long[:60_000], encoding="utf-8")
    (src / "short.txt").write_text(notes[0].text, encoding="utf-8")
    args = ["text", "detect", str(src), "--jobs", "1", "--out"]
    res = CliRunner().invoke(app, [*args, str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert (summary["long_documents"], summary["windows"]) == (1, 2)
    res = CliRunner().invoke(app, [*args, str(tmp_path / "out2")])
    assert "1 long document(s) read in 2 bounded windows" in " ".join(res.output.split())
