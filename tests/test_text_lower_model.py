"""The en detector reads texts judged lower case with a second model (issue 14): routing by the
one case judgement, the same in worker processes, and the shipped en-lower model as recorded."""

from __future__ import annotations

import pytest

from hidekit.text.corpus import read_brat_dir
from hidekit.text.detection import detector as detector_module
from hidekit.text.detection.casing import lower_documents, lower_same_length
from hidekit.text.detection.detector import Detector, load_model
from hidekit.text.detection.training import train_model
from hidekit.text.spans import Document

FAST = {"max_iterations": 30}


@pytest.fixture(scope="module")
def pair(fixtures):
    """Two tiny models: one trained on the MEDDOCAN fixtures as written, one lower-cased."""
    docs = read_brat_dir(fixtures / "meddocan")
    main = train_model(docs, "es", **FAST)
    lower = train_model(lower_documents(docs), "es", **FAST)
    routed = Detector(main.crf_model, main.config)
    routed.lower_case = lower
    return main, lower, routed, docs


def _spans(det, text):
    return [(s.start, s.end, s.label, s.source, s.score) for s in det.detect(text)]


def test_a_lower_case_text_is_read_by_the_lower_case_model(pair):
    main, lower, routed, docs = pair
    text = lower_same_length(docs[0].text)
    assert _spans(routed, text) == _spans(lower, text)
    assert _spans(main, text) != _spans(lower, text)  # the two models differ on it


def test_other_texts_are_read_by_the_main_model(pair):
    main, lower, routed, docs = pair
    for text in (docs[0].text, docs[0].text.upper()):
        assert _spans(routed, text) == _spans(main, text)
        assert _spans(lower, text) != _spans(main, text)


def test_workers_route_alike(pair):
    _, _, routed, docs = pair
    batch = [
        Document(f"d{i}", (lower_same_length(d.text) if i % 2 else d.text) * 6)
        for i, d in enumerate(docs)
    ]
    serial = routed.detect_documents(batch, n_jobs=1)
    assert [d.spans for d in routed.detect_documents(batch, n_jobs=2)] == [d.spans for d in serial]


def test_a_worker_started_afresh_gets_the_lower_case_model(pair):
    """A spawned worker or a Spark executor rebuilds the detector from its state."""
    _, lower, routed, docs = pair
    detector_module._init_worker(routed.state())
    worker = detector_module._WORKER
    assert worker is not None and worker is not routed and worker.lower_case is not None
    assert worker.lower_case.crf_model == lower.crf_model and worker.lower_case.lower_case is None
    text = lower_same_length(docs[1].text)
    assert _spans(worker, text) == _spans(lower, text)
    assert Detector.from_state(lower.state()).lower_case is None


def test_the_shipped_en_model_reads_lower_case_with_en_lower():
    en = load_model("en", profile="hipaa", allow=["kent"])
    assert en.lower_case is not None and en.lower_case.lower_case is None
    assert en.lower_case.crf_model == load_model("en-lower").crf_model
    assert en.lower_case.crf_model != en.crf_model
    assert en.lower_case.profile is en.profile or en.lower_case.profile == en.profile
    assert en.lower_case.allow == en.allow == {"kent"}
    assert load_model("es").lower_case is None


def test_en_lower_records_its_recipe():
    low, en = load_model("en-lower"), load_model("en")
    assert low.language == "en" and low.config["feature_version"] == en.config["feature_version"]
    data = low.config["training"]["data"]
    assert "lower_documents" in data and en.config["training"]["data"] in data
    assert low.config["training"]["documents"] == en.config["training"]["documents"]

    def recipe(config):
        return {k: v for k, v in config["training"].items() if k not in ("data", "phi_threshold")}

    assert recipe(low.config) == recipe(en.config)  # the same documents, spans and parameters
    # but for the recall threshold (scripts/train_models.py PARAMS["en-lower"])
    assert (low.phi_threshold, en.phi_threshold) == (0.1, 0.05)
    assert low.config["training"]["phi_threshold"] == 0.1


def test_spark_executors_rebuild_both_models():
    from hidekit.text.spark_detect import detector_state

    en = load_model("en", profile="i2b2")
    again = Detector.from_state(detector_state(en))
    assert again.lower_case is not None and again.profile is not None
    assert again.lower_case.crf_model == en.lower_case.crf_model
    text = "seen at home by dr okafor with daughter ama, lives at 14 mitchell st, latur"
    assert again.detect(text) == en.detect(text) == en.lower_case.detect(text)
    assert [s.text for s in again.detect(text)] == [s.text for s in en.detect(text)]
