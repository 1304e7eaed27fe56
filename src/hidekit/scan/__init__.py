"""PII scan: flag the columns that identify people, with J-PAL's category and method."""

from hidekit.scan.scanner import ColumnFinding, ScanResult, scan_column, scan_table
from hidekit.scan.table3 import CATEGORIES, TYPES, IdentifierType

__all__ = [
    "CATEGORIES",
    "TYPES",
    "ColumnFinding",
    "IdentifierType",
    "ScanResult",
    "scan_column",
    "scan_table",
]
