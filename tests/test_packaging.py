"""Packaging habits: the version written once, package-data globs that match shipped files, the
license the metadata names, and the typing marker."""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import hidekit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(hidekit.__file__).parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "hidekit._version.__version__"
    }
    assert version("hidekit") == hidekit.__version__


def test_every_package_data_glob_matches_a_file():
    package = Path(hidekit.__file__).parent
    for pattern in PYPROJECT["tool"]["setuptools"]["package-data"]["hidekit"]:
        assert [p for p in package.glob(pattern) if p.is_file()], f"{pattern} matches nothing"


def test_license_and_typing_marker():
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert (Path(hidekit.__file__).parent / "py.typed").is_file()
