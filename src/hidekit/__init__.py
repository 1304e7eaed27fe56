"""hidekit: prepare personal data for safe release, with re-identification risk measured.

The Python API mirrors the command line::

    import hidekit
    hidekit.measure_risk("survey.csv", keys=["sex", "age", "zip"])
    hidekit.select_variables(df, keys=[...], method="forward", stop=0.3, force=["sex"])
"""

__version__ = "0.1.0"

from hidekit.engines import make_engine  # noqa: E402
from hidekit.io import Dataset, read_table, write_table  # noqa: E402
from hidekit.risk import measure_risk  # noqa: E402
from hidekit.selection import select_variables  # noqa: E402

__all__ = [
    "Dataset",
    "__version__",
    "make_engine",
    "measure_risk",
    "read_table",
    "select_variables",
    "write_table",
]
