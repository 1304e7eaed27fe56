"""``text detect`` starts worker processes only where they pay off (hidekit.text.detection.workers)."""

from __future__ import annotations

import pytest

from hidekit.text.detection import workers


@pytest.fixture
def machine(monkeypatch):
    """A machine with ``cores`` cores at 1-minute load ``load``."""

    def set_(cores: int, load: float) -> None:
        monkeypatch.setattr(workers.os, "sched_getaffinity", lambda _pid: set(range(cores)))
        monkeypatch.setattr(workers.os, "getloadavg", lambda: (load, load, load))

    return set_


BIG = (500_000, 2_000)  # characters, pieces: worth a pool, not large


@pytest.mark.parametrize(
    ("cores", "load", "expected"),
    [
        (2, 0.0, 2),  # both cores idle: this process and one more
        (2, 0.9, 2),  # 1.1 idle cores: one more worker
        (2, 1.2, 1),  # 0.8 idle: a second worker would gain no core
        (2, 11.0, 1),  # busy machine: measured 0.8x of one process
        (8, 1.0, 8),  # seven idle cores: eight processes, no more than the cores
        (8, 5.5, 3),
    ],
)
def test_automatic_choice_counts_idle_cores(machine, cores, load, expected):
    machine(cores, load)
    assert workers.choose_workers(None, *BIG) == expected


def test_a_requested_number_is_kept_whatever_the_load(machine):
    machine(2, 11.0)
    assert workers.choose_workers(2, *BIG) == 2
    assert workers.choose_workers(5, *BIG) == 5
    assert workers.choose_workers(1, *BIG) == 1


@pytest.mark.parametrize("n_jobs", [None, 2, 4])
def test_small_inputs_run_in_this_process(machine, n_jobs):
    machine(8, 0.0)
    assert workers.choose_workers(n_jobs, workers.MIN_CHARS - 1, 100) == 1
    assert workers.choose_workers(n_jobs, 10**6, workers.MIN_PIECES - 1) == 1


@pytest.mark.parametrize("load", [0.0, 3.0, 11.0])
def test_large_inputs_get_a_worker_per_core_whatever_the_load(machine, load):
    machine(2, load)
    assert workers.choose_workers(None, workers.LARGE_CHARS, 20_000) == 2
    assert workers.choose_workers(None, workers.LARGE_CHARS - 1, 20_000) == (2 if load < 1 else 1)


def test_no_more_workers_than_pieces(machine):
    machine(8, 0.0)
    assert workers.choose_workers(None, 10**6, 5) == 5


def test_detect_documents_gives_the_same_spans_whatever_the_choice(machine):
    from hidekit.text.detection.detector import load_model
    from hidekit.text.spans import Document
    from hidekit.text.synthesis import generate_notes

    det = load_model("en")
    docs = [Document(d.id, d.text * 6, []) for d in generate_notes(16, seed=5)]
    assert sum(len(d.text) for d in docs) > workers.MIN_CHARS
    one = det.detect_documents(docs, n_jobs=1)
    machine(2, 0.0)  # automatic: two processes
    auto = det.detect_documents(docs, n_jobs=None)
    assert [d.spans for d in auto] == [d.spans for d in one]
    assert sum(len(d.spans) for d in one) > 0


def _square_there(x: int) -> tuple[str, int]:
    return "there", x * x


def _set_up(value: int) -> None:
    assert value == 0


@pytest.mark.parametrize(("n_jobs", "chunk"), [(2, 1), (2, 7), (3, 4)])
def test_shared_out_keeps_order_workers_take_a_prefix_this_process_the_rest(n_jobs, chunk):
    items = list(range(60))
    got = list(
        workers.shared_out(
            items, lambda x: ("here", x * x), _square_there, n_jobs, _set_up, (0,), chunk
        )
    )
    assert [v for _, v in got] == [x * x for x in items]
    # the workers take chunks from the front, this process from the back: no interleaving
    who = [w for w, _ in got]
    assert who == sorted(who, key=lambda w: w == "here")
    assert set(who) <= {"here", "there"}
