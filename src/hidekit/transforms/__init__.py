"""Table transforms, one shape for all (configure, fit, transform); importing the package
registers every step by name, so release plans can use them."""

from hidekit.transforms import (  # noqa: F401  (imported to register their steps)
    generalize,
    geo,
    identifiers,
    safe_harbor,
    suppression,
    topcode,
)
from hidekit.transforms.base import REGISTRY, Transform, get_transform, register

__all__ = ["REGISTRY", "Transform", "get_transform", "register"]
