"""hidekit: prepare personal data for safe release, with re-identification risk measured.

The Python API mirrors the command line::

    import hidekit
    hidekit.measure_risk("survey.csv", keys=["sex", "age", "zip"])
    hidekit.select_variables(df, keys=[...], method="forward", stop=0.3, force=["sex"])
"""

from hidekit._version import __version__
from hidekit.engines import make_engine
from hidekit.io import Dataset, read_table, write_table
from hidekit.risk import measure_risk
from hidekit.selection import select_variables

__all__ = [
    "Dataset",
    "__version__",
    "make_engine",
    "measure_risk",
    "read_table",
    "select_variables",
    "write_table",
]
