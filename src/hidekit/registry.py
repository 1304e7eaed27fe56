"""Named, swappable pieces — table steps, text operators, recognizers — registered by name."""

from __future__ import annotations

from hidekit.errors import OptionError


class Registry(dict):
    """A name -> class map with a decorator to fill it and a lookup that explains a miss."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind

    def register(self, name: str):
        """Class decorator: make ``cls`` available as ``name`` (and set ``cls.name``)."""

        def deco(cls):
            if name in self and self[name] is not cls:
                raise ValueError(f"{self.kind} name {name!r} registered twice")
            cls.name = name
            self[name] = cls
            return cls

        return deco

    def lookup(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise OptionError(
                f"unknown {self.kind} {name!r} (known: {', '.join(sorted(self))})"
            ) from None
