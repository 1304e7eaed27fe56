"""Every registered step on Spark gives the frame the local engine gives (``spark_steps``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hidekit.registry import TRANSFORMS
from hidekit.testing.contracts import check_spark_transform
from hidekit.testing.examples import contract_frame, resolve, step_example

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


@pytest.mark.parametrize("name", TRANSFORMS.names())
def test_every_step_gives_the_local_output_on_spark(name, spark, tmp_path):
    cls = TRANSFORMS[name]
    good, _ = step_example(name, cls)
    params = resolve(good, tmp_path)
    check_spark_transform(cls, params, spark=spark)
    check_spark_transform(cls, params, contract_frame(missing=0.1), spark=spark)


def test_the_check_catches_a_step_whose_scope_is_wrong(spark):
    """A step declared ``values`` whose output depends on the record order is caught."""
    from hidekit.transforms.base import Transform

    class RowNumber(Transform):
        spark_scope = "values"

        def __init__(self, columns=("age",)):
            self.columns = list(columns)

        def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
            return frame.assign(age=np.arange(len(frame)))

    with pytest.raises(AssertionError, match="on Spark"):
        check_spark_transform(RowNumber, {"columns": ["age"]}, spark=spark)


def test_fit_counts_is_the_fit_on_the_full_table():
    """Fitting on distinct rows and their counts learns what fitting on every record learns."""
    from hidekit.transforms.topcode import TopCode

    frame = contract_frame()
    counts = frame.groupby("income", dropna=False).size()
    distinct = counts.index.to_frame(index=False)
    by_counts = TopCode(["income"], top_percentile=90).fit_counts(distinct, counts.to_numpy())
    full = TopCode(["income"], top_percentile=90).fit(frame)
    assert by_counts.thresholds_ == full.thresholds_
