"""JSON for people and scripts: numpy numbers, dates, paths and sets written plainly, NaN as null.

Every layer writes JSON the same way (summaries, audits, ``--json`` output), so the helper lives
here, below the command line.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from pathlib import Path

import numpy as np


def json_default(o):
    """What ``json`` cannot write by itself, as the nearest JSON value."""
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return clean(float(o))
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (datetime, date)):
        return o.isoformat()
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


def clean(o):
    """JSON has no NaN or infinity: NaN becomes null, infinity the string "inf"."""
    if isinstance(o, float):
        if math.isnan(o):
            return None
        if math.isinf(o):
            return "inf" if o > 0 else "-inf"
        return o
    if isinstance(o, dict):
        return {str(k): clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    if isinstance(o, np.floating):
        return clean(float(o))
    return o


def to_json(obj) -> str:
    """``obj`` as indented JSON text (UTF-8 kept readable)."""
    return json.dumps(clean(obj), default=json_default, ensure_ascii=False, indent=2)
