"""Mondrian on Spark (local mode): first cuts on the driver, the rest per class on workers."""

from __future__ import annotations

import pytest

from hidekit.anonymize import is_l_diverse, mondrian
from hidekit.engines import make_engine


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_spark_release_is_valid_and_equals_the_local_one(spark, adult_frame, fixtures):
    sample = adult_frame.sample(1500, random_state=4).reset_index(drop=True)
    keys = ["age", "race", "education"]
    hier = {"education": fixtures / "adult" / "adult_hierarchy_education.csv"}
    opts = dict(l=2, sensitive="salary-class", hierarchies=hier, shuffle=False)
    on_spark = mondrian(sample, keys, 5, engine="spark", **opts)
    local = mondrian(sample, keys, 5, **opts)
    rel = on_spark.released
    assert len(rel) == len(sample)
    assert make_engine(rel).is_k_anonymous(keys, 5)
    assert is_l_diverse(rel, keys, "salary-class", 2)
    assert rel.astype(str).equals(local.released.astype(str))
    assert on_spark.stats["classes"] == local.stats["classes"] > 1


@pytest.mark.spark
@pytest.mark.xdist_group("spark")
def test_the_mondrian_step_on_a_spark_table_gives_the_local_release(spark, adult_frame, fixtures):
    """The plan's Mondrian step on Spark (cuts on count tables, labels joined on the executors,
    rows in the keyed shuffle's order) gives the local step's frame, type for type."""
    import pandas as pd

    from hidekit.anonymize.mondrian import Mondrian
    from hidekit.engines.spark_steps import SparkTable

    sample = adult_frame.sample(2000, random_state=5).reset_index(drop=True)
    hier = {"education": fixtures / "adult" / "adult_hierarchy_education.csv"}
    opts = dict(l=2, sensitive="salary-class", hierarchies=hier, key=bytes(range(32)))
    keys = ["age", "education", "sex"]
    local = Mondrian(keys, 4, **opts).fit_transform(sample)
    table = SparkTable.from_pandas(sample, spark).apply(Mondrian(keys, 4, **opts))
    assert table.reordered and table.changed == keys
    pd.testing.assert_frame_equal(table.to_pandas(), local)
    assert not local["age"].equals(sample["age"].astype(str))  # rows were cut and shuffled
