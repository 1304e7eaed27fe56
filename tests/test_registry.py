"""One registry mechanism: every kind fills itself on first lookup (so any registered name works
in a fresh process), engine names are checked in one place, and third-party plug-ins add pieces
through entry points (simulated here; see tests/plugin_example.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from importlib.metadata import EntryPoint

import pandas as pd
import pytest

import hidekit.registry as registry_module
from hidekit.engines import make_engine
from hidekit.errors import OptionError
from hidekit.registry import ENGINES, OPERATORS, RECOGNIZERS, REGISTRIES, TRANSFORMS, Registry
from hidekit.testing.examples import SECRET, resolve, step_example


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def _plan_with_every_step(tmp_path) -> str:
    lines = [
        '[input]\npath = "survey.csv"',
        '[output]\nfolder = "release"',
        '[roles]\nkeys = ["sex", "age"]',
        '[secrets]\nkey_file = "plan.key"',  # a plan never holds a key itself
    ]
    (tmp_path / "plan.key").write_text(SECRET + "\n", encoding="utf-8")
    for name in TRANSFORMS.names():
        good, _ = step_example(name, TRANSFORMS[name])
        good = {k: v for k, v in good.items() if k != "key"}  # from [secrets]
        params = "\n".join(f"{k} = {_toml(v)}" for k, v in resolve(good, tmp_path).items())
        lines.append(f'[[steps]]\nuse = "{name}"\n{params}')
    return "\n\n".join(lines) + "\n"


FRESH = """
import json, sys
from hidekit.release import load_plan
plan = load_plan(sys.argv[1])
import hidekit.registry as r
print(json.dumps({"steps": [s.use for s in plan.steps],
                  "names": {k: reg.names() for k, reg in r.REGISTRIES.items()}}))
"""


def test_fresh_interpreter_loads_a_plan_using_every_registered_step(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(_plan_with_every_step(tmp_path), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", FRESH, str(plan)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["steps"] == TRANSFORMS.names()
    assert "mondrian" in got["steps"]  # registered outside hidekit.transforms
    # the fresh process knows exactly what this one knows, whatever was imported first
    assert got["names"] == {k: reg.names() for k, reg in REGISTRIES.items()}


def test_every_kind_has_its_builtins():
    assert {"bin", "encode", "hash", "jitter", "mondrian", "suppress"} <= set(TRANSFORMS)
    assert {"redact", "tag", "surrogate"} <= set(OPERATORS)
    assert {"phone_us", "fax_us"} <= set(RECOGNIZERS)
    assert ENGINES.names() == ["duckdb", "spark"]
    for reg in REGISTRIES.values():
        for name in reg:
            piece = reg[name]
            assert getattr(piece, "name", name) == name  # every piece knows its own name


def test_unknown_names_are_one_line_option_errors():
    for reg, kind in ((TRANSFORMS, "step"), (OPERATORS, "operator"), (ENGINES, "engine")):
        with pytest.raises(OptionError, match=rf"unknown {kind} 'nope' \(known: ") as exc:
            reg.lookup("nope")
        assert "\n" not in str(exc.value)
    with pytest.raises(OptionError, match="unknown engine 'oracle'"):
        make_engine(pd.DataFrame({"a": [1]}), "oracle")


def test_a_name_is_registered_once():
    reg = Registry("thing", "hidekit.test-things")

    @reg.register("a")
    class A:
        pass

    reg.register("a")(A)  # the same class again is harmless (a module imported twice)
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("a")(type("B", (), {}))


# -- plug-ins through entry points --------------------------------------------------------------

PLUGIN_ENTRY_POINTS = {
    "hidekit.transforms": [("round_income", "plugin_example:RoundIncome")],
    "hidekit.operators": [("shout", "plugin_example:Shout")],
    "hidekit.recognizers": [("zoo_id", "plugin_example:ZOO_ID")],
    "hidekit.engines": [("pandas", "plugin_example:PandasEngine")],
}


@pytest.fixture
def plugins(monkeypatch):
    """Every registry reloaded with the example plug-in's entry points, as if it were installed;
    the registries are restored afterwards."""

    def fake_entry_points(group):
        return [EntryPoint(n, v, group) for n, v in PLUGIN_ENTRY_POINTS.get(group, [])]

    monkeypatch.setattr(registry_module, "entry_points", fake_entry_points)
    for reg in REGISTRIES.values():
        reg.load()
        monkeypatch.setattr(reg, "_items", dict(reg._items))
        monkeypatch.setattr(reg, "_loaded", False)
    return REGISTRIES


def test_plugins_add_a_piece_of_every_kind(plugins):
    from hidekit.text.anonymization.operators import get_operator
    from hidekit.text.detection.recognizers import get_recognizers
    from hidekit.transforms import get_transform
    from plugin_example import ZOO_ID, PandasEngine, RoundIncome, Shout

    assert get_transform("round_income") is RoundIncome and RoundIncome.name == "round_income"
    assert isinstance(get_operator("shout"), Shout)
    assert get_recognizers(names=["zoo_id"]) == [ZOO_ID]
    assert ZOO_ID in get_recognizers("en") and ZOO_ID not in get_recognizers("es")
    frame = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", None]})
    eng = make_engine(frame, "pandas")
    assert isinstance(eng, PandasEngine) and eng.stats(["a", "b"], 2).uniques == 1
    out = RoundIncome("v", to=10).fit_transform(pd.DataFrame({"v": [5, 17, 23]}))
    assert out["v"].tolist() == [0, 10, 20]


def test_a_plugin_step_works_in_a_release_plan(plugins, tmp_path):
    from hidekit.release import load_plan

    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[input]\npath = "x.csv"\n[output]\nfolder = "o"\n[roles]\nkeys = ["age"]\n'
        '[[steps]]\nuse = "round_income"\ncolumns = ["income"]\nto = 500\n',
        encoding="utf-8",
    )
    assert [s.make().get_params() for s in load_plan(plan).steps] == [
        {"columns": ["income"], "to": 500}
    ]


def test_a_broken_plugin_warns_and_hidekit_keeps_working(monkeypatch):
    reg = Registry("step", "hidekit.transforms", ())
    monkeypatch.setattr(
        registry_module,
        "entry_points",
        lambda group: [EntryPoint("bad", "no_such_module_xyz:Thing", group)],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert reg.names() == []
    assert any("plug-in 'bad'" in str(w.message) for w in caught)


def test_a_plugin_module_registers_its_own_pieces(monkeypatch, tmp_path):
    (tmp_path / "plugin_module_example.py").write_text(
        "from hidekit.registry import Registry\n"
        "import test_registry_target as t\n"
        "@t.REG.register('thing')\nclass Thing: pass\n",
        encoding="utf-8",
    )
    target = type(sys)("test_registry_target")
    target.REG = Registry("thing", "hidekit.things", ())
    monkeypatch.setitem(sys.modules, "test_registry_target", target)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(
        registry_module,
        "entry_points",
        lambda group: [EntryPoint("mod", "plugin_module_example", group)],
    )
    assert target.REG.names() == ["thing"]


def test_threads_reading_a_registry_at_once_all_see_it_filled(monkeypatch):
    import threading
    import time

    reg = Registry("thing", "hidekit.threads-test", ())
    started = threading.Event()

    def slow_entry_points(group):
        started.set()
        time.sleep(0.2)  # the first reader is still loading when the second one asks
        return [EntryPoint("x", "plugin_example:Shout", group)]

    monkeypatch.setattr(registry_module, "entry_points", slow_entry_points)
    seen = []
    first = threading.Thread(target=lambda: seen.append(reg.names()))
    first.start()
    started.wait()
    seen.append(reg.names())
    first.join()
    assert seen == [["x"], ["x"]]


def test_a_failed_builtin_import_is_raised_again_not_hidden(monkeypatch):
    reg = Registry("thing", "hidekit.missing-test", ("no_such_hidekit_module_xyz",))
    for _ in range(2):
        with pytest.raises(ModuleNotFoundError):
            reg.lookup("anything")
