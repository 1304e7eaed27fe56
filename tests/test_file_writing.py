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


def _writers(root: Path = PACKAGE, allowed=tuple(WRITING_PACKAGES)) -> dict[str, list[str]]:
    """("module:function" -> the writing calls in it) for every module outside ``allowed``."""
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
            if isinstance(node, ast.Call) and (how := _writes(node)):
                key = f"{rel.as_posix()}:{owner.get(id(node), '<module>')}"
                found.setdefault(key, []).append(f"line {node.lineno}: {how}")
    return found


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
