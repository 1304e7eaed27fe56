"""Reading and writing tables with their labels; atomic, owner-only output."""

from hidekit.io.atomic import atomic_dir, atomic_path, write_bytes_atomic, write_text_atomic
from hidekit.io.dataset import Dataset
from hidekit.io.readers import read_table
from hidekit.io.writers import output_suffix, write_table

__all__ = [
    "Dataset",
    "atomic_dir",
    "atomic_path",
    "output_suffix",
    "read_table",
    "write_bytes_atomic",
    "write_table",
    "write_text_atomic",
]
