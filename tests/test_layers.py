"""Layers run one way: nothing below the command line imports it, and no two packages of hidekit
import each other (directly or round a longer loop). Read from the source with ``ast``, so
imports inside functions count too."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import hidekit

PACKAGE = Path(hidekit.__file__).parent


def _imports() -> list[tuple[str, str, int]]:
    """(importing module, imported hidekit module, line) for every import in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module.split(".")[:-1] if parts[-1] != "__init__" else module.split(".")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: resolve against the importing package
                    anchor = package[: len(package) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base]
            else:
                continue
            found += [(module, t, node.lineno) for t in targets if t.split(".")[0] == "hidekit"]
    return found


def _layer(module: str) -> str | None:
    """The top-level piece of hidekit a module belongs to (None for ``hidekit`` itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_walk_sees_the_imports_it_should():
    pairs = {(a, b) for a, b, _ in _imports()}
    assert ("hidekit.release.plan", "hidekit.transforms.base") in pairs  # module level
    assert ("hidekit.jobs.measure", "hidekit.engines") in pairs  # inside a function
    assert len(pairs) > 300


def test_nothing_below_the_cli_imports_the_cli():
    bad = [
        f"{a}:{n} imports {b}"
        for a, b, n in _imports()
        if _layer(b) == "cli" and _layer(a) not in ("cli", None)
    ]
    assert not bad, "\n".join(bad)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_between_packages():
    graph: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], str] = {}
    for a, b, n in _imports():
        la, lb = _layer(a), _layer(b)
        if la and lb and la != lb:
            graph[la].add(lb)
            where.setdefault((la, lb), f"{a}:{n}")
    cycle = _cycle(graph)
    assert cycle is None, (
        " -> ".join(cycle)
        + "; first imports: "
        + ", ".join(where[(x, y)] for x, y in zip(cycle, cycle[1:], strict=False))
    )


def test_the_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


# The rows of the picture in docs/architecture.md, top first: a package imports only packages on
# lower rows. (A package not listed here is checked by the cycle test only.)
LAYERS = [
    ["cli"],
    ["demo"],
    ["jobs", "testing"],
    ["release", "linking", "evaluation", "selection"],
    ["scan", "risk", "anonymize", "text"],
    ["transforms"],
    ["engines", "report"],
    ["io", "registry"],
    ["errors"],
]


def test_packages_import_only_lower_layers():
    row = {pkg: i for i, pkgs in enumerate(LAYERS) for pkg in pkgs}
    bad = sorted(
        {
            f"{a}:{n} imports {b}"
            for a, b, n in _imports()
            if _layer(a) in row
            and _layer(b) in row
            and _layer(a) != _layer(b)
            and row[_layer(b)] <= row[_layer(a)]
        }
    )
    assert not bad, "\n".join(bad)
    documented = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    for pkgs in LAYERS:
        assert "   ".join(pkgs) in documented, pkgs


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _file_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], int]]:
    """Which module (file) imports which, with the line of the first such import.

    ``from hidekit.a import b`` points at module ``hidekit.a.b`` when that is a module, else at
    ``hidekit.a``; an import of a name that is no module points at the nearest module holding it."""
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    line: dict[tuple[str, str], int] = {}
    for module, path in modules.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package[: len(package) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != module:
                    graph[module].add(target)
                    line.setdefault((module, target), node.lineno)
    return graph, line


def test_the_file_graph_resolves_submodules_and_names():
    graph, _ = _file_graph()
    assert "hidekit.text.detection.crf_decode" in graph["hidekit.text.detection.detector"]
    assert "hidekit.errors" in graph["hidekit.text.corpus"]  # a class imported from a module
    assert "hidekit.engines" in graph["hidekit.anonymize.mondrian"]  # a package, in a function
    assert "hidekit.anonymize.spark_mondrian" in graph["hidekit.anonymize.mondrian"]


# Imports left out of the file-cycle check, each with why; an entry that no longer exists fails.
KNOWN_FILE_CYCLE_EDGES: set[tuple[str, str]] = set()


def test_no_import_cycles_between_files():
    """No module imports itself round a loop, even through imports inside functions (which
    hide a cycle until the day someone moves the import to the top)."""
    graph, line = _file_graph()
    for a, b in KNOWN_FILE_CYCLE_EDGES:
        assert b in graph[a], f"{a} no longer imports {b}: drop it from KNOWN_FILE_CYCLE_EDGES"
        graph[a].discard(b)
    cycle = _cycle(graph)
    assert cycle is None, (
        " -> ".join(f"{a} (line {line[(a, b)]})" for a, b in zip(cycle, cycle[1:], strict=False))
        + f" -> {cycle[-1]}"
    )
