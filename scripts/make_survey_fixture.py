"""Write tests/fixtures/survey/survey.csv: a synthetic household survey with sampling weights.

1,000 households (3,076 people) drawn from six strata at different rates, so the weights differ by
stratum; key variables region, urban, sex, age group, relation to the head, household size.
Run: ``python scripts/make_survey_fixture.py`` (deterministic).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "survey" / "survey.csv"


def main() -> None:
    rng = np.random.default_rng(20261123)
    rows = []
    for hh in range(1, 1001):
        region = int(rng.integers(1, 7))
        urban = int(rng.random() < 0.3 + 0.1 * (region % 3))
        size = int(rng.integers(1, 6))
        weight = round(float([80, 120, 150, 200, 260, 400][region - 1] * rng.uniform(0.9, 1.1)), 1)
        for person in range(size):
            relation = 1 if person == 0 else (2 if person == 1 else 3)
            age = int(rng.integers(18, 80)) if relation < 3 else int(rng.integers(0, 25))
            rows.append(
                {
                    "hhid": hh,
                    "region": region,
                    "urban": urban,
                    "sex": int(rng.integers(1, 3)),
                    "agegroup": min(age // 10, 7),
                    "relation": relation,
                    "hhsize": size,
                    "weight": weight,
                }
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(OUT, index=False)
    print(f"{OUT}: {len(rows)} records")


if __name__ == "__main__":
    main()
