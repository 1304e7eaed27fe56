"""Run every benchmark script in turn (``make bench``); each prints its own figures and ratios."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    failed = []
    for script in scripts:
        print(f"\n=== {script.name}", flush=True)
        t = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)], cwd=HERE)
        print(f"--- {script.name}: {time.perf_counter() - t:.1f} s, exit {code}", flush=True)
        if code:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
