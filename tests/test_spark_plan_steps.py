"""Plan steps that used to run on the driver under ``--engine spark`` (suppression by risk with
weights or ``missing="any"``, ``optimal``, ``partition``, ``text_columns``): on Spark they give
the default engine's output, on a table scattered over partitions in shuffled order."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from spark_steps_plan import write_steps_folder

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


def _scattered(frame: pd.DataFrame, spark, parts: int = 5):
    """``frame`` as a Spark table over ``parts`` partitions, records in reverse order."""
    from hidekit.engines.spark_steps import SparkTable

    table = SparkTable.from_pandas(frame, spark)
    table.sdf = table.sdf.repartition(parts).orderBy(table.sdf.columns[-1], ascending=False)
    return table


def _no_driver_table(monkeypatch) -> None:
    """Fail if a step falls back to the driver (``_by_table``: every record's columns there)."""
    import hidekit.anonymize.spark_optimal as optimal
    import hidekit.engines.spark_steps as steps
    import hidekit.release.spark_text_columns as text
    import hidekit.risk.spark_suppression as supp
    import hidekit.transforms.spark_partition as partition

    def refuse(*args, **kwargs):
        raise AssertionError("the step ran on the driver")

    for module in (steps, supp, optimal, partition, text):
        monkeypatch.setattr(module, "_by_table", refuse)


def _survey(n: int = 240, seed: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": pd.Series(rng.integers(0, 6, n), dtype="Int64"),
            "b": rng.choice(["x", "y", "z", None], n).astype(object),
            "c": rng.integers(0, 4, n),
            # whole and half weights: sums are exact in any order, as on the default engine
            "w": rng.integers(1, 5, n) + 0.5 * rng.integers(0, 2, n),
        }
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"weights": "w"},
        {"missing": "any"},
        {"weights": "w", "missing": "any"},
    ],
)
def test_suppress_risk_with_weights_or_any_runs_on_spark(extra, spark, monkeypatch):
    from hidekit.risk.suppression import RiskSuppression

    frame = _survey()
    params = {"keys": ["a", "b", "c"], "columns": ["b", "a"], "threshold": 0.2, **extra}
    local_step = RiskSuppression(**params)
    local = local_step.fit_transform(frame)
    assert local_step.suppressed_.get("b", 0) > 0  # the data makes the step work
    _no_driver_table(monkeypatch)
    step = RiskSuppression(**params)
    got = _scattered(frame, spark).apply(step)
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    assert got.cells == {c: n for c, n in local_step.suppressed_.items() if n}
    assert (step.above_before_, step.above_after_, step.warnings_) == (
        local_step.above_before_,
        local_step.above_after_,
        local_step.warnings_,
    )


@pytest.mark.parametrize(
    ("row", "value"),
    [(17, np.nan), (30, -2.0), (41, np.inf), (50, 0.5), (3, 0.0)],
)
def test_suppress_risk_on_spark_refuses_bad_weights_as_the_default_engine(row, value, spark):
    from hidekit.errors import InputError
    from hidekit.risk.suppression import RiskSuppression

    frame = _survey(60)
    frame.loc[row, "w"] = value
    frame.loc[row + 5, "w"] = 0.75  # a second fault: the message names the first one
    params = {"keys": ["a", "b"], "weights": "w"}
    with pytest.raises(InputError) as local:
        RiskSuppression(**params).fit_transform(frame)
    with pytest.raises(InputError) as got:
        _scattered(frame, spark).apply(RiskSuppression(**params))
    assert str(got.value) == str(local.value)


def test_suppress_classes_under_any_is_the_record_by_record_rule():
    """Deciding per class under ``missing="any"`` (classes weighted by their records) blanks
    what measuring every record's risk again blanks: a check independent of Spark."""
    from hidekit.risk.suppression import RiskSuppression, suppress_classes

    frame = _survey(300, seed=3)
    params = {"keys": ["a", "b", "c"], "columns": ["a", "b"], "threshold": 0.25}
    step = RiskSuppression(**params, weights="w", missing="any")
    out = step.fit_transform(frame)
    classes = frame.groupby(["a", "b", "c"], dropna=False)
    values = classes.size().index.to_frame(index=False)
    blanks, suppressed, before, after = suppress_classes(
        values,
        classes.size().to_numpy(),
        classes["w"].sum().to_numpy(),
        ["a", "b"],
        0.25,
        "any",
    )
    assert suppressed == step.suppressed_ and (before, after) == (
        step.above_before_,
        step.above_after_,
    )
    keyed = frame.merge(values.assign(cls=np.arange(len(values))), on=["a", "b", "c"], how="left")
    for col, flag in blanks.items():
        assert (out[col].isna() & frame[col].notna()).to_numpy().tolist() == flag[
            keyed["cls"].to_numpy()
        ].tolist()


def _optimal_case() -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(11)
    n = 300
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "education": rng.choice(["HS", "BA", "MA", "PhD"], n, p=[0.5, 0.3, 0.15, 0.05]),
            "sex": rng.choice([1, 2], n),
            "diag": rng.choice(["flu", "cold", "asthma", "gout"], n),
            "other": np.arange(n),
        }
    )
    ages = [
        [str(a), f"{a // 10 * 10}s", "18-49" if a < 50 else "50-79", "*"] for a in range(18, 80)
    ]
    hierarchies = {
        "age": ages,
        "education": [
            ["HS", "school", "*"],
            ["BA", "degree", "*"],
            ["MA", "degree", "*"],
            ["PhD", "degree", "*"],
        ],
        "sex": [["1", "*"], ["2", "*"]],
    }
    params = {
        "keys": ["age", "education", "sex"],
        "hierarchies": hierarchies,
        "k": 4,
        "l": 2,
        "sensitive": "diag",
        "suppression": 0.05,
        "metric": "entropy",
    }
    return frame, params


def test_optimal_on_spark_gives_the_local_release(spark, monkeypatch):
    """The search on Spark's counts finds the default engine's optimum (same loss to the bit,
    same suppressed records), and the release joined back is the default engine's frame."""
    from hidekit.anonymize.optimal.transform import OptimalGeneralization

    frame, params = _optimal_case()
    local_step = OptimalGeneralization(**params)
    local = local_step.fit_transform(frame)
    assert local_step.result_.suppressed > 0 and (local["age"] == "*").any()
    assert sum(local_step.result_.transformation.values()) > 0
    _no_driver_table(monkeypatch)
    step = OptimalGeneralization(**params)
    got = _scattered(frame, spark, parts=7).apply(step)
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    mine, theirs = step.result_.to_dict(), local_step.result_.to_dict()
    mine.pop("seconds"), theirs.pop("seconds")
    assert mine == theirs and step.warnings_ == local_step.warnings_


def test_optimal_on_spark_refuses_as_the_default_engine(spark):
    from hidekit.anonymize.optimal.transform import OptimalGeneralization
    from hidekit.errors import HidekitError

    frame, params = _optimal_case()
    params = {**params, "k": 400}  # more than the records: no release
    with pytest.raises(HidekitError) as local:
        OptimalGeneralization(**params).fit_transform(frame)
    with pytest.raises(HidekitError) as got:
        _scattered(frame, spark).apply(OptimalGeneralization(**params))
    assert (type(got.value), str(got.value)) == (type(local.value), str(local.value))


def test_partition_on_spark_gives_the_local_ids_and_link(spark, monkeypatch, tmp_path):
    """IDs drawn for the ranks Spark counts: the default engine's records, IDs and link (text
    ordered by code point, whole numbers by their text: 10 before 9, missing first), and the
    link file, encrypted by pieces, reads back as the default engine's."""
    from hidekit.jobs.files import read_crosswalk, write_crosswalk
    from hidekit.transforms.partition import Partition
    from hidekit.transforms.spark_partition import SparkLink

    rng = np.random.default_rng(4)
    names = ["Zoe", "zoe", "Émile", "Ana", "ana b", "Ünal", "Bo", "", 'O\'Hara "Jr"']
    n = 260
    frame = pd.DataFrame(
        {
            "name": rng.choice(names, n).astype(object),
            "hh": pd.Series(rng.integers(1, 40, n), dtype="Int64"),
            "age": rng.integers(18, 90, n),
        }
    )
    frame.loc[::23, "name"] = None
    frame.loc[::31, "hh"] = pd.NA
    key = bytes(range(1, 33))
    local_step = Partition(["name", "hh"], key=key)
    local = local_step.fit_transform(frame)
    _no_driver_table(monkeypatch)
    step = Partition(["name", "hh"], key=key)
    got = _scattered(frame, spark, parts=6).apply(step)
    assert isinstance(step.link_, SparkLink)
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    assert got.cells == {"hk_id": n}
    pd.testing.assert_frame_equal(step.link_.to_pandas(), local_step.link_)
    for name, link in (("spark", step.link_), ("local", local_step.link_)):
        write_crosswalk(link, tmp_path / f"{name}.hkcw", key_file=key)
    pd.testing.assert_frame_equal(
        read_crosswalk(tmp_path / "spark.hkcw", key_file=key),
        read_crosswalk(tmp_path / "local.hkcw", key_file=key),
    )


def test_a_plan_with_the_driver_steps_gives_identical_files(spark, tmp_path, monkeypatch):
    """A whole release with partition, optimal, suppress_risk (weights, ``missing="any"``) and
    text_columns on both engines: the same released file, audit (the text step's decisions too)
    and link file, and no step fell back to the driver."""
    from hidekit.jobs.files import read_crosswalk
    from hidekit.jobs.release_job import run_plan
    from hidekit.release import load_plan

    key = bytes(range(7, 39))
    frame = write_steps_folder(tmp_path, 400, ANSWERS)
    results = {}
    for engine in ("duckdb", "spark"):
        if engine == "spark":
            _no_driver_table(monkeypatch)
        plan = load_plan(tmp_path / "plan.toml", output=tmp_path / engine, key=key)
        results[engine] = run_plan(plan, engine=engine, scan=False)
    steps = results["duckdb"].steps
    assert [s.use for s in steps][-4:] == ["optimal", "suppress_risk", "suppress", "text_columns"]
    assert steps[-1].decisions["note"]["cells_with_phi"] > 0
    assert steps[3].cells_changed and steps[4].cells_changed  # both steps changed cells
    local, remote = tmp_path / "duckdb", tmp_path / "spark"
    assert (remote / "survey.csv").read_bytes() == (local / "survey.csv").read_bytes()
    lines = [
        [
            {k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        for folder in (local, remote)
    ]
    assert lines[0] == lines[1]
    links = [
        read_crosswalk(next((tmp_path / f"{e}.private").glob("link*")), key_file=key)
        for e in ("duckdb", "spark")
    ]
    assert len(links[0]) == len(frame) and links[0].equals(links[1])


ANSWERS = [
    "My neighbour Mary Okafor helps, call her on 07700 900123.",
    "Nothing to add.",
    None,
    "Refunds go to GB29 NWBK 6016 1331 9268 19 please.",
    "   ",
    "Ask Dr. John Smith at St Mary's Hospital, john.smith@example.org",
    "Moved from Leeds in March 2019.",
]


@pytest.mark.parametrize("operator", ["tag", "redact"])
def test_text_columns_on_spark_gives_the_local_cells_and_decisions(operator, spark, monkeypatch):
    """Cells rewritten on the executors with the model shipped once: the default engine's
    cells, and its decisions (cells, cells with PHI, spans per label, text risk) counted by
    Spark."""
    from hidekit.release.text_columns import TextColumns

    n = 42
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "other": [ANSWERS[i % len(ANSWERS)] for i in range(n)],
            "comment": [ANSWERS[(3 * i + 1) % len(ANSWERS)] for i in range(n)],
        }
    )
    params = {"columns": ["other", "comment"], "operator": operator, "recall": 0.9}
    local_step = TextColumns(**params)
    local = local_step.fit_transform(frame)
    assert local_step.decisions_["other"]["cells_with_phi"] > 0
    _no_driver_table(monkeypatch)
    step = TextColumns(**params)
    got = _scattered(frame, spark, parts=4).apply(step)
    pd.testing.assert_frame_equal(got.to_pandas(), local)
    assert step.decisions_ == local_step.decisions_


def test_text_columns_with_surrogates_stay_on_the_driver(spark):
    """Keyed surrogates keep state across cells in record order: the driver path, same cells."""
    from hidekit.release.text_columns import TextColumns

    frame = pd.DataFrame({"other": ANSWERS * 3})
    params = {"columns": ["other"], "operator": "surrogate", "key": b"k" * 32}
    local = TextColumns(**params).fit_transform(frame)
    got = _scattered(frame, spark).apply(TextColumns(**params))
    pd.testing.assert_frame_equal(got.to_pandas(), local)
