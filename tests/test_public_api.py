"""The public API (``hidekit/__init__.py``): every exported name resolves, the names type checkers
see are the names loaded at run time, ``import hidekit`` stays light, and the docs' examples
import from ``hidekit`` itself (issue 15)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hidekit
from test_docs_examples import DOCS, blocks

INIT = Path(hidekit.__file__)

# Submodules the docs present as building blocks of their own, and why they are not flattened
# into ``hidekit``: anything else a docs example imports must be a name of ``hidekit.__all__``.
DOCUMENTED_SUBMODULES = {
    "hidekit.registry": "architecture.md: the registries plug-ins fill (TRANSFORMS, ENGINES, …)",
    "hidekit.linking": "link.md: linking.release, whose name the hidekit.release package holds",
    "hidekit.jobs": "architecture.md, release.md: the jobs layer (verbs on files, SecretOptions)",
    "hidekit.studio.workbench": "studio.md: the studio's Python face (Workbench)",
    "hidekit.studio": "studio.md: the studio's screens without a page (hierarchy, selection, tasks)",
    "hidekit.text.synthesis.general": "text-anonymize.md: the generator's general-PII kinds",
    "hidekit.engines.spark_steps": "transforms.md: a plug-in step checked on Spark (SparkTable)",
    "hidekit.testing.examples": "transforms.md: the contract suite's example frame",
    "hidekit.engines.file_engine": "risk.md: counting straight from a file of any size",
    "hidekit.io.direct": "risk.md: the file source the FileEngine reads",
}


def _type_checking_imports(init: Path = INIT) -> dict[str, str]:
    """name -> module of the imports inside ``if TYPE_CHECKING:`` in a package's ``__init__``."""
    return {name: module for name, (module, _) in _type_checking_sources(init).items()}


def _type_checking_sources(init: Path) -> dict[str, tuple[str, str]]:
    """name -> (module, attribute) of the imports inside ``if TYPE_CHECKING:``."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.dump(imp)
                for alias in imp.names:
                    found[alias.asname or alias.name] = (imp.module, alias.name)
    return found


def test_every_public_name_resolves():
    missing = [n for n in hidekit.__all__ if not hasattr(hidekit, n)]
    assert missing == []
    for name, module in hidekit._EXPORTS.items():
        assert getattr(hidekit, name) is getattr(importlib.import_module(module), name), name


def test_all_lists_exactly_the_exports():
    assert len(set(hidekit.__all__)) == len(hidekit.__all__)
    assert set(hidekit.__all__) == {"__version__", *hidekit._EXPORTS}


def test_type_checkers_see_what_runs():
    """The ``TYPE_CHECKING`` imports (what mypy and IDEs read) match the lazy table name by name."""
    assert _type_checking_imports() == hidekit._EXPORTS


def test_jobs_table_all_and_type_checking_agree():
    """``hidekit.jobs`` lists each job three times (lazy table, ``__all__``, the imports type
    checkers read): the three agree, and every name loads the function its import names."""
    from hidekit import jobs

    where = {n: (f"hidekit.jobs.{m}", a) for n, (m, a) in jobs._WHERE.items()}
    assert _type_checking_sources(Path(jobs.__file__)) == where
    assert sorted(jobs.__all__) == sorted(where) and len(set(jobs.__all__)) == len(jobs.__all__)
    for name, (module, attribute) in where.items():
        assert getattr(jobs, name) is getattr(importlib.import_module(module), attribute), name


def test_subpackages_stay_reachable_as_attributes():
    assert hidekit.risk.measure_risk is hidekit.measure_risk
    assert hidekit.release.load_plan is hidekit.load_plan  # the package, not linking.release
    with pytest.raises(AttributeError):
        hidekit.no_such_name  # noqa: B018


def test_import_hidekit_loads_no_heavy_library():
    """Names load on first use: ``import hidekit`` alone imports neither pandas nor DuckDB."""
    code = (
        "import sys, hidekit\n"
        "heavy = sorted(m for m in ('pandas', 'numpy', 'duckdb', 'pyarrow') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


IMPORT = re.compile(r"^\s*(?:\.venv/bin/python -c \")?(from|import)\s+(hidekit[\w.]*)(.*)$", re.M)


def _doc_imports() -> list[tuple[str, int, str, str, str]]:
    """(page, block line, from/import, module, rest) for every hidekit import in the examples
    (python blocks and ``python -c`` in bash blocks)."""
    out = []
    for page in DOCS:
        for b in blocks(page):
            for m in IMPORT.finditer(b["code"]):
                out.append((page.name, b["line"], m.group(1), m.group(2), m.group(3)))
    return out


def test_the_walk_finds_the_docs_imports():
    modules = {mod for *_, mod, _ in _doc_imports()}
    assert {"hidekit", "hidekit.registry"} <= modules


def test_docs_import_from_hidekit_itself():
    bad = []
    for page, line, kind, module, rest in _doc_imports():
        if module in DOCUMENTED_SUBMODULES:
            continue
        if module != "hidekit":
            bad.append(f"{page}:{line}: {kind} {module} (use a name of hidekit.__all__)")
        elif kind == "from":
            names = re.findall(r"\w+", rest.split("#")[0].replace("import", "", 1))
            unknown = [
                n
                for n in names
                if n not in hidekit.__all__ and f"hidekit.{n}" not in DOCUMENTED_SUBMODULES
            ]
            if unknown:
                bad.append(f"{page}:{line}: {', '.join(unknown)} not in hidekit.__all__")
    assert bad == []


def test_multiline_doc_imports_are_read_whole():
    """``from hidekit import (`` spans lines: the names inside must be public too."""
    for page in DOCS:
        for b in blocks(page):
            for m in re.finditer(r"from hidekit import \((.*?)\)", b["code"], re.S):
                names = re.findall(r"\w+", m.group(1))
                assert names and set(names) <= set(hidekit.__all__), (page.name, b["line"], names)
