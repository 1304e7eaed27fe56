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


def step_scan(out, ctx: dict) -> str:
    """Demo step: scan the demo survey, write ``scan.json``, partition its direct identifiers.

    Adds ``ctx["scan"]`` (the ScanResult) and ``ctx["direct"]`` (direct identifier columns) for
    later steps (the release plan).
    """
    from pathlib import Path

    from hidekit.io import write_text_atomic
    from hidekit.io.jsonout import to_json
    from hidekit.secrets import demo_key
    from hidekit.transforms.identifiers import partition, write_partition

    out = Path(out)
    result = scan_table(ctx["survey"])
    write_text_atomic(out / "scan.json", to_json(result.to_dict()))
    direct = result.names("direct")
    ctx["scan"], ctx["direct"] = result, direct
    key = demo_key(out)  # the demo's secret key: keys the IDs, encrypts original and link
    parts = partition(
        ctx["frame"], [c for c in direct if c not in ("latitude", "longitude")], key=key
    )
    write_partition(
        parts, out / "partitioned", stem="survey", overwrite=True, link_secret={"key_file": key}
    )
    return (
        f"PII scan: {len(result.flagged)} of {len(result.columns)} columns flagged, direct: "
        f"{', '.join(direct)} -> {out / 'scan.json'}; partitioned into "
        f"{out / 'partitioned'} ({len(parts.link):,} observation IDs)"
    )
