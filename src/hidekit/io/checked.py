"""Read a table only once every output path is known to be safe: no output is an input or a
secret file, no two outputs are the same file, and the output format can be written."""

from __future__ import annotations

from collections.abc import Iterable

from hidekit.errors import OptionError
from hidekit.io.atomic import check_output_file, same_file
from hidekit.io.dataset import Dataset
from hidekit.io.readers import read_table


def read_for_output(
    data, out, sep: str | None = None, extra_outputs: Iterable = (), protect: Iterable = ()
) -> Dataset:
    """The table ``data``, read after checking ``out`` and ``extra_outputs`` (none of them
    ``data`` or one of ``protect``, all distinct) and, for ``out``, that its suffix and the
    column names can be written: problems show before any work."""
    from hidekit.io.writers import table_writer

    protect = tuple(p for p in protect if p is not None)
    outputs = [t for t in (out, *extra_outputs) if t is not None]
    for i, a in enumerate(outputs):
        for b in outputs[i + 1 :]:
            if same_file(a, b):
                raise OptionError(f"two outputs are the same file {b}: give each its own path")
    for target in outputs:
        check_output_file(target, (data, *protect))
    ds = read_table(data, sep=sep)
    if out is not None:
        table_writer(ds.frame.head(0), out)
    return ds
