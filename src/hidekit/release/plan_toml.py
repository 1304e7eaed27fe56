"""Write a release plan as TOML that ``load_plan`` reads back (the studio exports plans this way).

Only the shapes plans use: text, whole and real numbers, true/false, lists and tables of them.
A secret is never written: ``[secrets]`` may only name where the key or passphrase comes from.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from hidekit.errors import OptionError

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SECRET_FIELDS = {"key", "passphrase"}


def toml_key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def toml_value(value) -> str:
    """One TOML value: JSON's string escapes are valid TOML basic strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise OptionError(f"cannot write {type(value).__name__} in a plan")


def _table(name: str, fields: Mapping) -> list[str]:
    lines = [f"[{name}]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in fields.items() if v is not None]
    return lines


def plan_toml(
    *,
    input_path: str,
    output_folder: str,
    roles: Mapping[str, Sequence[str]],
    risk: Mapping[str, object],
    steps: Sequence[tuple[str, Mapping]],
    secrets: Mapping[str, str] | None = None,
    overwrite: bool = False,
    comment: str = "",
) -> str:
    """The text of a plan (paths as given: relative to where the plan will be saved)."""
    out: list[str] = [f"# {line}" for line in comment.splitlines()]
    out += _table("input", {"path": input_path}) + [""]
    out += _table("output", {"folder": output_folder, "overwrite": overwrite}) + [""]
    out += _table("roles", {k: list(v) for k, v in roles.items()}) + [""]
    out += _table("risk", risk) + [""]
    if secrets:
        out += _table("secrets", secrets) + [""]
    for use, params in steps:
        secret = _SECRET_FIELDS & set(params)
        if secret:
            raise OptionError(f"step {use!r}: a plan never holds a secret ({', '.join(secret)})")
        out += _table("[steps]", {"use": use, **params}) + [""]
    return "\n".join(out).rstrip() + "\n"
