"""Example configurations of every built-in piece, for the contract suite and the plan test.

A table step needs parameters naming columns; ``STEP_EXAMPLES`` gives each registered step one
good configuration over ``contract_frame()`` and one bad parameter change (which its ``fit`` must
refuse with ``OptionError``). A third-party step gives its own as class attributes
``contract_params`` and ``contract_bad`` (``{{hierarchy}}`` in a string stands for the path of
the example education hierarchy). A registered step with no example fails the contract suite,
which is how a new piece is covered the moment it is registered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

EDUCATION = ("HS", "BA", "MA", "PhD")
_HIERARCHY = ("HS;school;*", "BA;degree;*", "MA;degree;*", "PhD;degree;*")
HIERARCHY = "{hierarchy}"  # placeholder for the hierarchy file (see ``resolve``)
SECRET = "contract-suite-secret-key-0123456789"
# Seeds below are for the contract suite's determinism checks only (``insecure_seed``): masking
# steps refuse a plain seed otherwise (``hidekit.secrets``).

# name -> (good parameters, a bad change made with set_params)
STEP_EXAMPLES: dict[str, tuple[dict, dict]] = {
    "bin": ({"columns": ["age"], "width": 10}, {"width": -1}),
    "coarsen_date": ({"columns": ["visit"], "to": "quarter"}, {"to": "century"}),
    "map_values": (
        {"columns": ["education"], "mapping": {"MA": "graduate", "PhD": "graduate"}},
        {"mapping": {}},
    ),
    "hierarchy": ({"column": "education", "path": HIERARCHY, "level": 1}, {"level": 7}),
    "jitter": (
        {"lat": "latitude", "lon": "longitude", "urban": "urban", "seed": 3, "insecure_seed": True},
        {"urban_km": -1},
    ),
    "encode": (
        {"columns": ["village"], "seed": 1, "insecure_seed": True},
        {"columns": [], "hierarchy": []},
    ),
    "redact": ({"columns": ["name"]}, {"columns": []}),
    "remove": ({"columns": ["email"]}, {"columns": []}),
    "hash": ({"columns": ["email"], "key": SECRET}, {"key": ""}),
    "partition": (
        {"identifiers": ["name", "email"], "seed": 1, "insecure_seed": True},
        {"id_column": "age"},
    ),
    "safe_harbor": (
        {"ages": ["age"], "dates": ["visit"], "zips": ["zip"]},
        {"ages": [], "dates": [], "zips": []},
    ),
    "suppress": ({"keys": ["sex", "education"], "k": 2}, {"k": 0}),
    "suppress_risk": (
        {"keys": ["sex", "education"], "columns": ["education"], "threshold": 0.5},
        {"threshold": 2.0},
    ),
    "topcode": ({"columns": ["income"], "top_percentile": 95}, {"top_percentile": 120}),
    "text_columns": ({"columns": ["name"], "operator": "tag"}, {"operator": "shout"}),
    "mondrian": ({"keys": ["sex", "age"], "k": 3, "seed": 1, "insecure_seed": True}, {"k": 0}),
    "optimal": (
        {"keys": ["education"], "hierarchies": {"education": HIERARCHY}, "k": 2},
        {"k": 0},
    ),
}


def step_example(name: str, cls=None) -> tuple[dict, dict]:
    """(good parameters, bad change) of step ``name``; a missing example is an error."""
    if name in STEP_EXAMPLES:
        return STEP_EXAMPLES[name]
    if cls is not None and hasattr(cls, "contract_params"):
        return dict(cls.contract_params), dict(getattr(cls, "contract_bad", {}))
    raise LookupError(
        f"step {name!r} has no contract example: add one to hidekit.testing.examples."
        "STEP_EXAMPLES (built-in) or set contract_params / contract_bad on the class (plug-in)"
    )


def write_hierarchy(folder: Path) -> Path:
    """The example education hierarchy (ARX format) in ``folder``."""
    path = Path(folder) / "education_hierarchy.csv"
    path.write_text("\n".join(_HIERARCHY) + "\n", encoding="utf-8")
    return path


def resolve(params: dict, folder: Path) -> dict:
    """``params`` with the hierarchy placeholder replaced by a real file in ``folder``."""
    out = {}
    for key, value in params.items():
        if isinstance(value, dict):  # e.g. {column: hierarchy} of the optimal step
            value = resolve(value, folder)
        elif value == HIERARCHY:
            value = str(write_hierarchy(folder))
        out[key] = value
    return out


def contract_frame(n: int = 120, seed: int = 0, missing: float = 0.0) -> pd.DataFrame:
    """A small survey with every kind of column the built-in steps work on; with ``missing``,
    that share of the cells outside the coordinates is missing (None or NaN)."""
    rng = np.random.default_rng(seed)
    ages = rng.integers(18, 90, n)
    frame = pd.DataFrame(
        {
            "name": [f"Person {i}" for i in rng.permutation(n)],
            "email": [f"p{i}@example.org" for i in rng.integers(0, n // 2, n)],
            "village": rng.choice(["Ayo", "Bel", "Cor", "Dun", "Eli"], n),
            "sex": rng.choice([1, 2], n),
            "age": ages,
            "education": rng.choice(list(EDUCATION), n),
            "income": np.round(rng.lognormal(10, 1, n), 2),
            "zip": [f"{z:05d}" for z in rng.integers(10000, 99999, n)],
            "visit": [
                f"20{y:02d}-{m:02d}-{d:02d}"
                for y, m, d in zip(
                    rng.integers(10, 24, n),
                    rng.integers(1, 13, n),
                    rng.integers(1, 29, n),
                    strict=True,
                )
            ],
            "latitude": np.round(rng.uniform(-10, 10, n), 5),
            "longitude": np.round(rng.uniform(20, 40, n), 5),
            "urban": rng.choice(["urban", "rural"], n),
        }
    )
    for col in frame.columns:
        if missing and col not in ("latitude", "longitude", "urban"):
            gone = rng.random(n) < missing
            s = frame[col]
            frame[col] = (
                s.astype(object).where(~gone, None) if s.dtype == object else s.where(~gone)
            )
    return frame
