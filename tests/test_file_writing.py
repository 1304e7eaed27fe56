"""Only the jobs layer writes files (issue 15): the library takes and returns data (frames, spans,
text, bytes) and ``hidekit.jobs`` does paths, through ``hidekit.io``. Read from the source with
``ast``: outside the packages allowed to write, no call opens a file for writing, writes or
moves one, makes or removes a folder, or calls one of ``hidekit.io``'s atomic writers.

The exceptions are few and listed below, each with why; an exception that no longer writes
fails the test too, so the list only shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

import hidekit

PACKAGE = Path(hidekit.__file__).parent

# Packages that write: the file layer itself, the jobs over it, and the faces that call jobs.
WRITING_PACKAGES = {
    "io": "the file layer: atomic writers, table formats, locks",
    "jobs": "the verbs on files: the only library layer that writes a user's files",
    "cli": "the command line (calls jobs; --help output and nothing else of its own)",
    "studio": "the web app (calls jobs; saves an uploaded table and the plan it builds)",
    # the demo is a script over the jobs, like the CLI: it makes its own inputs (a synthetic
    # survey, notes about it, a key) in the folder `make demo` builds, then runs the jobs on them
    "demo": "the `make demo` script: writes its own synthetic inputs, then calls the jobs",
    # the contract suite writes its example side files (a hierarchy) into its own temp folder
    "testing": "the contract suite's example files, in a temporary folder it owns",
}

# Single functions outside those packages allowed to write ("module:function"), with why.
EXCEPTIONS = {
    # the JVM reads its log settings from a file: a scratch file in the temp folder, not a
    # user's file, rewritten only when it differs
    "engines/spark_engine.py:_quiet_log_config": "Spark's log settings in the temp folder",
}

# Calls that write, whatever they are called on (Path methods and hidekit.io's writers).
WRITING_CALLS = {
    "atomic_path",
    "atomic_dir",
    "write_text_atomic",
    "write_bytes_atomic",
    "write_files_together",
    "write_marker",
    "write_table",
    "table_writer",
    "write_text",
    "write_bytes",
    "mkdir",
    "touch",
    "unlink",
    "rmdir",
    "chmod",
    "symlink_to",
    "hardlink_to",
}
# Calls that write when made on these modules (``os.replace``, ``shutil.copy``…).
MODULE_CALLS = {
    "os": {"remove", "unlink", "rename", "replace", "makedirs", "mkdir", "chmod", "rmdir"},
    "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "rmtree"},
}
# pandas / numpy writers: they write when given a path (``to_csv()`` alone returns text).
PATH_WRITERS = {"to_csv", "to_parquet", "to_excel", "to_stata", "to_json", "save", "savez"}


def _writes(node: ast.Call) -> str | None:
    """What the call writes with, or None when it writes nothing."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    if name == "open":
        # open(path, mode) or path.open(mode): a mode that writes, appends or creates
        modes = node.args[1:2] if isinstance(f, ast.Name) else node.args[:1]
        modes += [k.value for k in node.keywords if k.arg == "mode"]
        for m in modes:
            if isinstance(m, ast.Constant) and set(str(m.value)) & set("wax+"):
                return f"open({m.value!r})"
        return None
    if name in WRITING_CALLS:
        return name
    module = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
    if isinstance(f, ast.Attribute) and f.attr in MODULE_CALLS.get(module, ()):
        return f"{module}.{f.attr}"
    if name in PATH_WRITERS and (node.args or any("path" in (k.arg or "") for k in node.keywords)):
        return f"{name}(path)"
    return None


def _calls(what, root: Path, allowed) -> dict[str, list[str]]:
    """("module:function" -> the calls ``what`` names in it) for every module outside ``allowed``."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owner = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(fn):
                    owner.setdefault(id(inner), fn.name)  # outermost function first
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (how := what(node)):
                key = f"{rel.as_posix()}:{owner.get(id(node), '<module>')}"
                found.setdefault(key, []).append(f"line {node.lineno}: {how}")
    return found


def _writers(root: Path = PACKAGE, allowed=tuple(WRITING_PACKAGES)) -> dict[str, list[str]]:
    """("module:function" -> the writing calls in it) for every module outside ``allowed``."""
    return _calls(_writes, root, allowed)


def test_the_walk_sees_writes(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.py").write_text(
        "import os, shutil\n"
        "def a(p):\n    open(p, 'w').write('x')\n"
        "def b(p):\n    p.write_text('x')\n"
        "def c(p, q):\n    os.replace(p, q)\n"
        "def d(f, p):\n    f.to_csv(p)\n"
        "def e(f):\n    return f.to_csv(index=False)\n"  # returns text: no write
        "def g(p):\n    return open(p).read() + open(p, 'rb').read().decode()\n"
        "def h(p):\n    with p.open('a') as f:\n        f.write('x')\n"
        "def i(tmp):\n    shutil.rmtree(tmp)\n"
        "def j(x):\n    return x.replace('a', 'b')\n"  # str.replace: no write
    )
    found = _writers(tmp_path, allowed=())
    assert set(found) == {f"lib/m.py:{n}" for n in "abcdhi"}, found


def test_only_the_jobs_layer_writes_files():
    found = _writers()
    bad = {k: v for k, v in found.items() if k not in EXCEPTIONS}
    assert not bad, "write through hidekit.jobs (the library returns data):\n" + "\n".join(
        f"{k}: {', '.join(v)}" for k, v in sorted(bad.items())
    )


def test_every_exception_still_writes():
    stale = sorted(set(EXCEPTIONS) - set(_writers()))
    assert not stale, f"no longer writes, remove from EXCEPTIONS: {stale}"


def test_every_writing_package_exists():
    assert all((PACKAGE / pkg).is_dir() for pkg in WRITING_PACKAGES)


# ---------------------------------------------------------------- reading
# Reading a user's file is the file layer's job too: outside the same packages, no call opens a
# file or reads one (``open``, ``Path.read_text``/``read_bytes``, ``json.load``, pandas' and
# numpy's readers); the library calls ``hidekit.io`` (``hidekit.io.files``: text, bytes, a
# sampled table) and parses what it gets. Package data read through ``importlib.resources``
# (``resources.files(...) / "data" / name``) is part of hidekit, not a user's file, and passes.
# Listing a folder (``glob``, ``iterdir``, ``os.walk``…) is reading it too (``files_matching``);
# looking at one path (``exists``, ``is_dir``) reads nothing and passes.

# Single functions outside those packages allowed to read ("module:function"), with why.
READ_EXCEPTIONS = {
    "engines/spark_engine.py:_quiet_log_config": "Spark's log settings it wrote in the temp folder",
    # crfsuite's trainer can only write its model to a path: a scratch file in a temporary
    # folder the function makes and removes, read back as bytes (not a user's file)
    "text/detection/training.py:_fit": "crfsuite's model from the temp folder _fit owns",
}
READING_CALLS = {"read_text", "read_bytes", "glob", "rglob", "iterdir"}
READING_MODULE_CALLS = {
    "json": {"load"},
    "tomllib": {"load"},
    "pickle": {"load"},
    "pd": {"read_csv", "read_parquet", "read_excel", "read_json", "read_stata", "read_spss"},
    "pandas": {"read_csv", "read_parquet", "read_excel", "read_json", "read_stata", "read_spss"},
    "np": {"load", "loadtxt", "genfromtxt", "fromfile"},
    "pq": {"read_table", "ParquetFile"},
    "os": {"listdir", "scandir", "walk"},
}


def _is_package_resource(node: ast.expr) -> bool:
    """Whether ``node`` is built on ``resources.files(...)`` (package data, not a user's file)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            f = inner.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name == "files":
                return True
    return False


def _reads(node: ast.Call) -> str | None:
    """What the call reads with, or None when it reads no file."""
    f = node.func
    if isinstance(f, ast.Name) and f.id == "open":
        return "open()"
    if not isinstance(f, ast.Attribute):
        return None
    if f.attr == "open" and (
        not node.args
        or (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))
    ):  # path.open() / path.open("rb"); a zip member (z.open(name)) or Engine.open(data) is no file
        return "path.open()"
    if f.attr in READING_CALLS and not _is_package_resource(f.value):
        return f.attr
    module = f.value.id if isinstance(f.value, ast.Name) else ""
    if f.attr in READING_MODULE_CALLS.get(module, ()):
        return f"{module}.{f.attr}"
    return None


def _readers(root: Path = PACKAGE, allowed=tuple(WRITING_PACKAGES)) -> dict[str, list[str]]:
    """("module:function" -> the reading calls in it) for every module outside ``allowed``."""
    return _calls(_reads, root, allowed)


def test_the_walk_sees_reads(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.py").write_text(
        "import json, zipfile\nimport pandas as pd\nfrom importlib import resources\n"
        "def a(p):\n    return open(p).read()\n"
        "def b(p):\n    return p.read_text(encoding='utf-8')\n"
        "def c(p):\n    return p.read_bytes()\n"
        "def d(fh):\n    return json.load(fh)\n"
        "def e(p):\n    return pd.read_csv(p)\n"
        "def f(p):\n    with p.open('rb') as fh:\n        return fh.read()\n"
        "def g():\n    return (resources.files('hidekit') / 'data' / 'x.txt').read_text()\n"
        "def h(z, name):\n    with z.open(name) as fh:\n        return fh.read()\n"  # zip member
        "def i(engine, data):\n    return engine.open(data)\n"  # Engine.open: no file read
        "def j(s):\n    return json.loads(s)\n"  # parses text: reads nothing
        "def k(p):\n    return p.exists() and p.is_dir()\n"  # looks, reads nothing
        "def m(p):\n    return sorted(p.glob('*.txt'))\n"
        "import os\ndef n(p):\n    return os.listdir(p)\n"
    )
    found = _readers(tmp_path, allowed=())
    assert set(found) == {f"lib/m.py:{n}" for n in "abcdefmn"}, found


def test_only_the_file_layer_and_jobs_read_files():
    found = _readers()
    bad = {k: v for k, v in found.items() if k not in READ_EXCEPTIONS}
    assert not bad, "read through hidekit.io (the library takes data):\n" + "\n".join(
        f"{k}: {', '.join(v)}" for k, v in sorted(bad.items())
    )


def test_every_read_exception_still_reads():
    stale = sorted(set(READ_EXCEPTIONS) - set(_readers()))
    assert not stale, f"no longer reads, remove from READ_EXCEPTIONS: {stale}"
