"""hidekit studio: the live risk update (tick a key, get the risk panel back) on 1,000,000 records.

Issue 13's target: the risk panel recomputed within a second on 1,000,000 records × 8 keys. The
update is timed end to end through the app (form parsed, roles set, k / uniques / RP / CR / El
Emam's figures, histogram, riskiest combinations, HTML rendered), with the table opened once
(the engine's integer codes cached, as in a session). Baseline in the same run: a plain pandas
group-by of the same key set (the figures alone, no page).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench_risk import synthetic  # the same 8-key table as the risk benchmark

from _common import best_of, row

RECORDS = 1_000_000
KEYS = ["sex", "age", "race", "marital", "education", "zip3", "workclass", "occupation"]


def main() -> None:
    from starlette.testclient import TestClient

    from hidekit.studio.app import create_app
    from hidekit.studio.security import COOKIE, allowed_hosts

    frame = synthetic(RECORDS)
    keys = list(KEYS)
    with tempfile.TemporaryDirectory() as tmp:
        frame.to_parquet(Path(tmp) / "big.parquet")
        base = "http://127.0.0.1:9"
        app = create_app(Path(tmp), token="b" * 43, hosts=allowed_hosts(9))
        client = TestClient(app, base_url=base)
        client.cookies.set(COOKIE, "b" * 43)
        t_open, _ = best_of(lambda: client.get("/table?path=big.parquet"), repeat=1, warmup=0)
        print(
            f"{RECORDS:,} records x {len(keys)} keys; table opened (read, scan, page) in {t_open:.2f} s"
        )

        def tick(n_keys: int):
            form = {f"role:{c}": ("key" if i < n_keys else "other") for i, c in enumerate(keys)}
            r = client.post("/api/risk", data=form, headers={"Origin": base})
            assert r.status_code == 200 and 'data-testid="k"' in r.text
            return r

        # first time each key set is seen (columns already encoded by the page's first panel)
        t_first, _ = best_of(lambda: tick(8), repeat=1, warmup=0)
        t_toggle, _ = best_of(lambda: (tick(7), tick(8)), repeat=5, warmup=1)
        t_pd, _ = best_of(lambda: frame.groupby(keys, dropna=False).size().min(), repeat=5)
        print(
            row(
                "live update, 8 keys, first time (HTTP + page)",
                t_first,
                None,
                f"{t_pd / t_first:.2f}x pandas",
            )
        )
        print(
            row(
                "live update, untick + tick a key (2 requests)",
                t_toggle,
                None,
                f"{t_toggle / 2:.3f} s each",
            )
        )
        print(row("pandas group-by of the 8 keys (figures only)", t_pd, None, "baseline"))
        t_step = step_added(client, base)
        worst = max(t_first, t_toggle / 2, t_step)
        print(f"target < 1 s per update: {'met' if worst < 1 else 'NOT met'}")
        page_and_selection(client, base, frame, keys)


def step_added(client, base: str) -> float:
    """A step added to the plan (age binned by tens: cells changed, k and RP after, the plan's
    fragment), then undone: the pair is timed, an upper bound of the step alone."""

    def add():
        r = client.post(
            "/api/step",
            data={"use": "bin", "params": 'columns = ["age"]\nwidth = 10'},
            headers={"Origin": base},
        )
        assert r.status_code == 200, r.text
        assert client.post("/api/undo", headers={"Origin": base}).status_code == 200

    t_pair, _ = best_of(add, repeat=3, warmup=1)
    print(row("a step added (bin age by 10, risk after) and undone", t_pair, None, "upper bound"))
    return t_pair


def page_and_selection(client, base: str, frame, keys: list[str]) -> None:
    """The table page again (a random sample of 15 records, the count from the engine, the risk
    panel), and forward selection through the app (a task polled until done) beside the same
    ``select_variables`` call made directly."""
    import re
    import time

    from hidekit.engines import DuckDBEngine
    from hidekit.selection import select_variables

    t_page, _ = best_of(lambda: client.get("/table"), repeat=3, warmup=1)
    print(row("table page: random sample, engine count, risk panel", t_page, None, ""))

    def through_app():
        form = {"key": keys, "method": "forward", "stop": "0.05"}
        r = client.post("/api/select", data=form, headers={"Origin": base})
        polls = 0
        while 'data-poll="' in r.text:
            time.sleep(0.2)
            polls += 1
            r = client.get(re.search(r'data-poll="([^"]+)"', r.text).group(1))
        assert 'data-testid="selection-result"' in r.text, r.text[:300]
        return polls

    def direct():
        return select_variables(None, keys, stop=0.05, engine=DuckDBEngine(frame))

    t_app, polls = best_of(through_app, repeat=1, warmup=0)
    t_direct, _ = best_of(direct, repeat=1, warmup=0)
    print(row(f"forward selection, 8 keys, through the app ({polls} polls)", t_app, None, ""))
    print(row("forward selection, select_variables directly", t_direct, None, "baseline"))


if __name__ == "__main__":
    main()
