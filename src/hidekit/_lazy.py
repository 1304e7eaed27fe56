"""Names a package exports but loads on first use (PEP 562), so importing it stays light.

``hidekit`` and ``hidekit.jobs`` both keep a table of public name -> where it is defined, and
their module ``__getattr__`` asks this function; the value is then cached in the package's
globals so later lookups never come back here.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any


def load_export(namespace: dict[str, Any], name: str, module: str, attribute: str = "") -> Any:
    """``module.attribute`` (``attribute`` defaults to ``name``), cached as ``namespace[name]``."""
    value = getattr(import_module(module), attribute or name)
    namespace[name] = value
    return value
