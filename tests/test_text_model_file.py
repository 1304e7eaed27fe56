"""The model file keeps the lower-case model (issue 14): "en" saved and loaded again by path reads
lower-case texts with en-lower as the shipped "en" does; a file without one loads as before."""

from __future__ import annotations

import io
import zipfile

import pytest

from hidekit.errors import InputError
from hidekit.jobs.files import save_model
from hidekit.text.detection.detector import Detector, load_model
from hidekit.text.detection.model_file import read_model_parts


def _spans(det, text):
    return [(s.start, s.end, s.label, s.source, s.score) for s in det.detect(text)]


@pytest.fixture(scope="module")
def en():
    return load_model("en", allow=["biscuit"], deny={"kaylee": "NAME"})


@pytest.fixture(scope="module")
def lower_text(fixtures):
    """The head of a lower-case home visit note from en-dev's training part."""
    text = (fixtures / "en-dev" / "dev75.txt").read_text(encoding="utf-8")
    return "\n".join(text.splitlines()[:7])


def test_en_saved_and_loaded_keeps_its_lower_case_model(en, lower_text, tmp_path):
    path = save_model(en, tmp_path / "en-copy.model")
    again = load_model(path, allow=["biscuit"], deny={"kaylee": "NAME"})
    assert again.lower_case is not None
    assert again.lower_case.crf_model == en.lower_case.crf_model
    assert again.lower_case.config == en.lower_case.config
    assert _spans(again, lower_text) == _spans(en, lower_text)
    # the lower-case model reads this text differently: without it the spans would differ
    alone = Detector(en.crf_model, en.config, ["biscuit"], {"kaylee": "NAME"})
    assert _spans(alone, lower_text) != _spans(en, lower_text)
    # the same detector gives the same bytes, and a loaded copy saves to them again
    assert again.to_bytes() == en.to_bytes()


def test_the_file_holds_both_models_in_a_fixed_order(en):
    with zipfile.ZipFile(io.BytesIO(en.to_bytes())) as z:
        names = [i.filename for i in z.infolist()]
        times = {i.date_time for i in z.infolist()}
    assert names == ["model.json", "model.crfsuite", "lower/model.json", "lower/model.crfsuite"]
    assert times == {(2020, 1, 1, 0, 0, 0)}


def test_a_file_without_a_lower_case_model_loads_as_before(en, lower_text, tmp_path):
    alone = Detector(en.crf_model, en.config)
    data = alone.to_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert [i.filename for i in z.infolist()] == ["model.json", "model.crfsuite"]
    assert read_model_parts(data, "m")[1] is None
    again = load_model(save_model(alone, tmp_path / "m.model"))
    assert again.lower_case is None
    assert _spans(again, lower_text) == _spans(alone, lower_text)


def test_a_lower_case_part_without_its_weights_is_refused(en):
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(en.to_bytes())) as src, zipfile.ZipFile(buf, "w") as z:
        for name in ("model.json", "model.crfsuite", "lower/model.json"):
            z.writestr(name, src.read(name))
    with pytest.raises(InputError, match="not a hidekit model file"):
        read_model_parts(buf.getvalue(), "m.model")
