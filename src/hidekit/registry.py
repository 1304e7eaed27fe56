"""The one registry mechanism: named, swappable pieces — table steps (transforms), text
operators, recognizers, counting engines and the optimal search's limits on a whole release —
each kind in one ``Registry``.

A registry fills itself on first use, explicitly: it imports the modules listed in ``BUILTINS``
(whose ``@register`` decorators and ``register_recognizer`` calls add the pieces), then loads the
third-party plug-ins declared as Python entry points in its group (``hidekit.transforms``,
``hidekit.operators``, ``hidekit.recognizers``, ``hidekit.engines``,
``hidekit.privacy_limits``). So any registered name works
in a fresh process, whatever was imported before. A plug-in's entry point names either a module
(importing it registers its pieces with hidekit's decorators) or one piece (a class; for
recognizers an instance), registered under the entry point's name::

    # pyproject.toml of a plug-in
    [project.entry-points."hidekit.transforms"]
    round_income = "myplugin.steps:RoundIncome"
    [project.entry-points."hidekit.recognizers"]
    myplugin = "myplugin.recognizers"      # a module that calls register_recognizer(...)
"""

from __future__ import annotations

import importlib
import threading
import types
import warnings
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points

from hidekit.errors import OptionError

# The explicit registration list: the modules that hold hidekit's own pieces, imported (in this
# order, which is registration order) the first time a registry is read.
BUILTINS: dict[str, tuple[str, ...]] = {
    "step": (
        "hidekit.transforms.identifiers",
        "hidekit.transforms.partition",
        "hidekit.transforms.generalize",
        "hidekit.transforms.topcode",
        "hidekit.transforms.safe_harbor",
        "hidekit.transforms.geo",
        "hidekit.transforms.suppression",
        "hidekit.risk.suppression",
        "hidekit.anonymize.mondrian",
        "hidekit.anonymize.optimal.transform",
        "hidekit.release.text_columns",
    ),
    "operator": ("hidekit.text.anonymization.operators",),
    "recognizer": (
        "hidekit.text.detection.recognizers.patterns",
        "hidekit.text.detection.recognizers.dictionaries",
        "hidekit.text.detection.recognizers.identifiers",
        "hidekit.text.detection.recognizers.gazetteers",
        "hidekit.text.detection.recognizers.general_pii",
        "hidekit.text.detection.recognizers.signatures",
        "hidekit.text.detection.recognizers.shapes",
    ),
    "engine": ("hidekit.engines.duckdb_engine", "hidekit.engines.spark_engine"),
    # limits on a whole release that the optimal search checks (they live beside the measures
    # they use, in risk/, which anonymize/ does not import)
    "privacy limit": ("hidekit.risk.limits",),
}


class Registry(Mapping):
    """A read-only name -> piece map that fills itself on first read (built-ins, then plug-ins),
    with ``register`` (class decorator) and ``add`` (any object) to fill it and a ``lookup``
    that explains a miss in one line."""

    def __init__(self, kind: str, group: str, builtins: tuple[str, ...] = ()):
        self.kind = kind
        self.group = group  # entry-point group of third-party plug-ins
        self.builtins = builtins
        self._items: dict[str, object] = {}
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()  # a second thread waits for the first load to finish

    # filling ---------------------------------------------------------------------------
    def register(self, name: str):
        """Class decorator: make ``cls`` available as ``name`` (and set ``cls.name``)."""

        def deco(cls):
            cls.name = name
            return self.add(name, cls)

        return deco

    def add(self, name: str, piece):
        """Register ``piece`` under ``name`` (a name is used once) and return it."""
        if name in self._items and self._items[name] is not piece:
            raise ValueError(f"{self.kind} name {name!r} registered twice")
        self._items[name] = piece
        return piece

    def load(self) -> None:
        """Import the built-in modules and the plug-ins of this kind (once)."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:  # loading: a module being imported reads it
                return
            self._loading = True
            try:
                for module in self.builtins:
                    importlib.import_module(module)
                for ep in entry_points(group=self.group):
                    self._load_plugin(ep)
                self._loaded = True  # a failed import is raised again by the next read
            finally:
                self._loading = False

    def _load_plugin(self, ep) -> None:
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plug-in must not break hidekit: say so, go on
            warnings.warn(
                f"hidekit plug-in {ep.name!r} ({ep.value}) in {self.group} failed to load: {exc}",
                stacklevel=3,
            )
            return
        if isinstance(obj, types.ModuleType):  # a module: importing it registered its pieces
            return
        if any(v is obj for v in self._items.values()):
            return
        if isinstance(obj, type) and self.kind != "recognizer":
            setattr(obj, "name", ep.name)  # noqa: B010 - a class attribute of a plug-in's class
        self.add(ep.name, obj)

    # reading ---------------------------------------------------------------------------
    def __getitem__(self, name: str):
        self.load()
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._items))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def lookup(self, name: str):
        """The piece called ``name``; an unknown name is an ``OptionError`` listing the known."""
        self.load()
        try:
            return self._items[name]
        except KeyError:
            raise OptionError(
                f"unknown {self.kind} {name!r} (known: {', '.join(sorted(self._items))})"
            ) from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._items)} registered)"


TRANSFORMS = Registry("step", "hidekit.transforms", BUILTINS["step"])
OPERATORS = Registry("operator", "hidekit.operators", BUILTINS["operator"])
RECOGNIZERS = Registry("recognizer", "hidekit.recognizers", BUILTINS["recognizer"])
ENGINES = Registry("engine", "hidekit.engines", BUILTINS["engine"])
PRIVACY_LIMITS = Registry("privacy limit", "hidekit.privacy_limits", BUILTINS["privacy limit"])

REGISTRIES: dict[str, Registry] = {
    "transforms": TRANSFORMS,
    "operators": OPERATORS,
    "recognizers": RECOGNIZERS,
    "engines": ENGINES,
    "privacy_limits": PRIVACY_LIMITS,
}

__all__ = [
    "ENGINES",
    "OPERATORS",
    "PRIVACY_LIMITS",
    "RECOGNIZERS",
    "REGISTRIES",
    "TRANSFORMS",
    "Registry",
]
