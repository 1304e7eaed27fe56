"""The demo survey as a CSV of any size, written by chunks: memory stays that of one chunk.

``generate_survey(n)`` builds the whole table in pandas (10M rows reached 12.7 GB). Here the file
is written ``CHUNK`` records at a time: chunk ``i`` is ``generate_survey(CHUNK, seed * 1_000_003
+ i)`` with ``record_id`` counting on from the chunks before. The same ``records`` and ``seed``
give the same bytes every time (the chunk size is fixed, never a tuning knob), so runs on two
engines or two days read the same file. It is written beside its target and renamed at the end.

    python benchmarks/_survey_csv.py OUT.csv --records 10000000 [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

CHUNK = 100_000  # records per chunk: part of the file's definition (changing it changes the file)


def survey_chunks(records: int, seed: int = 7):
    """The survey's chunks in order (pandas frames of at most ``CHUNK`` records)."""
    from hidekit.demo.survey import generate_survey

    for i, start in enumerate(range(0, records, CHUNK)):
        frame = generate_survey(min(CHUNK, records - start), seed * 1_000_003 + i)
        frame["record_id"] += start
        yield frame


def write_survey_csv(path: Path | str, records: int, seed: int = 7) -> Path:
    """Write ``records`` survey rows to the CSV ``path`` (replacing it) and return the path."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    with open(part, "w", encoding="utf-8", newline="") as out:
        for i, frame in enumerate(survey_chunks(records, seed)):
            frame.to_csv(out, index=False, header=i == 0, lineterminator="\n")
    os.replace(part, path)
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    write_survey_csv(args.out, args.records, args.seed)
    size = args.out.stat().st_size / 1e6
    print(f"{args.records:,} records, {size:,.0f} MB in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
