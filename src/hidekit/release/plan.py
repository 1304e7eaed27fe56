"""The release plan: one TOML file saying what to read, which variables play which role, which
steps to run in order, and the risk limit the release must meet. Paths are relative to the plan.

    [input]    path = "survey.csv"            (sep = "," optional)
    [output]   folder = "release"              (overwrite = false, neutralize_formulas = true,
                                               private = "release.private")
    [roles]    direct = [...]  keys = [...]  sensitive = [...]  reviewed = [...]
    [risk]     k = 5  rp = 0.05  cell_min = 5  (cell_min defaults to k)
               max_loss = 0.2  (warn when a variable loses more of its cells; default 0.2)
               against the population (individual risk, sdcMicro's model; all optional):
               weights = "w"  household = "hh"  missing = "category" | "any"
               global_risk = 0.01  expected_reidentifications = 5
               risk_threshold = 0.05  share_above_threshold = 0.01
    [secrets]  key_file = "release.key"  or  key_env = "HIDEKIT_KEY"
               (or, for the crosswalk only: passphrase_file / passphrase_env)
    [[steps]]  use = "encode"  columns = ["name"]  ... (the other fields are the step's parameters)

The secret key drives every random choice of the steps (HMAC of the key and the step,
``hidekit.secrets``) and encrypts the crosswalk; without one, draws are fresh from the OS. A
step's ``seed`` is refused unless the step also says ``insecure_seed = true``. Secrets are never
written in the plan itself (a ``key`` or ``passphrase`` value is refused). Crosswalks go to the
private folder, beside the output and never inside it. ``[crosswalk]`` is the older name of
``[secrets]``.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hidekit.errors import InputError, OptionError, check_separator, require_fraction
from hidekit.io.files import read_utf8
from hidekit.transforms.base import get_transform
from hidekit.transforms.loss import DEFAULT_MAX_LOSS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Steps that deal with direct identifiers: a direct identifier may stay in the release only as
# the output of one of these (jitter handles GPS points, which J-PAL lists as direct).
IDENTIFIER_STEPS = {"encode", "hash", "redact", "remove", "jitter", "text_columns"}
_SECTIONS = {"input", "output", "roles", "risk", "crosswalk", "secrets", "steps"}
_SECRET_SOURCES = {"key_file", "key_env", "passphrase_file", "passphrase_env"}
# The settings each section knows: a misspelt one (``maxloss``) is an error, never ignored.
_SECTION_KEYS = {
    "input": ("path", "sep"),
    "output": ("folder", "overwrite", "neutralize_formulas", "private"),
    "roles": ("direct", "keys", "sensitive", "reviewed"),
}  # [risk]: _RISK_KEYS below
# File parameters of steps, relative to the plan (``population`` must stay inside its folder).
_FILE_PARAMS = ("path", "boundaries", "population", "t_hierarchy")


def load_transforms() -> None:
    """Every step registers itself when ``hidekit.transforms`` is imported."""
    import hidekit.transforms  # noqa: F401


def step_parameters(cls) -> list[inspect.Parameter]:
    """The parameters a step takes in a plan (its constructor's, ``self`` aside)."""
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def check_step_params(use: str, cls, params: dict) -> None:
    """An unknown parameter is a one-line error naming the known ones."""
    sig = inspect.signature(cls.__init__).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in sig):
        return
    known = [p.name for p in step_parameters(cls)]
    unknown = [k for k in params if k not in known]
    if unknown:
        raise OptionError(
            f"step {use!r}: unknown parameter(s) {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(known)})"
        )


@dataclass
class Step:
    use: str
    params: dict

    def make(self, key: bytes | None = None):
        """The configured transform (unknown names and bad parameters are clear errors).

        ``key`` (the plan's secret) goes to steps that take one, unless the step sets a seed."""
        load_transforms()
        cls = get_transform(self.use)
        check_step_params(self.use, cls, self.params)
        check_param_types(cls, self.params, f"step {self.use!r}")
        params = dict(self.params)
        if "key" in inspect.signature(cls.__init__).parameters and "seed" not in params:
            if key is not None:
                params["key"] = key
            elif self.use == "hash":
                raise OptionError(
                    "step 'hash': keyed hashing needs the plan's secret key "
                    "([secrets] key_file or key_env)"
                )
        try:
            return cls(**params)
        except TypeError as exc:
            raise OptionError(f"step {self.use!r}: {exc}") from None


@dataclass
class PopulationLimits:
    """[risk] limits on individual risk against the population (sdcMicro's figures): global risk
    (mean), expected re-identifications (sum), and the share of records above ``risk_threshold``.
    With ``weights`` the risk is Benedetti–Franconi's; without, 1/fk (the sample alone)."""

    weights: str | None = None
    household: str | None = None
    missing: str = "category"
    global_risk: float | None = None
    expected_reidentifications: float | None = None
    risk_threshold: float = 0.05
    share_above_threshold: float | None = None

    @property
    def active(self) -> bool:
        """Whether the release measures individual risk at all."""
        limits = (self.global_risk, self.expected_reidentifications, self.share_above_threshold)
        return (
            self.weights is not None
            or self.household is not None
            or any(v is not None for v in limits)
        )

    def columns(self) -> list[str]:
        return [c for c in (self.weights, self.household) if c]

    def to_dict(self) -> dict:
        if not self.active:
            return {}
        return {k: v for k, v in self.__dict__.items() if v is not None}


_POPULATION_KEYS = {
    "weights": "str",
    "household": "str",
    "missing": "str",
    "global_risk": "float",
    "expected_reidentifications": "float",
    "risk_threshold": "float",
    "share_above_threshold": "float",
}
_RISK_KEYS = {"k", "rp", "cell_min", "max_loss", *_POPULATION_KEYS}


def population_limits(risk: dict, path: Path) -> PopulationLimits:
    """The [risk] fields on individual risk, type- and range-checked."""
    from hidekit.risk.weighted import check_missing_rule

    values = {k: _typed(risk, k, kind, "risk") for k, kind in _POPULATION_KEYS.items()}
    limits = PopulationLimits(**{k: v for k, v in values.items() if v is not None})
    check_missing_rule(limits.missing)
    for name in ("global_risk", "risk_threshold", "share_above_threshold"):
        require_fraction(f"[risk] {name}", getattr(limits, name))
    if limits.expected_reidentifications is not None and limits.expected_reidentifications < 0:
        raise OptionError(f"plan {path.name}: [risk] expected_reidentifications must be 0 or more")
    if limits.weights is not None and limits.weights == limits.household:
        raise OptionError(f"plan {path.name}: [risk] weights and household name the same column")
    return limits


@dataclass
class Plan:
    path: Path
    input: Path
    output: Path
    sep: str | None = None
    overwrite: bool = False
    neutralize_formulas: bool = True
    direct: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    sensitive: list[str] = field(default_factory=list)
    reviewed: list[str] = field(default_factory=list)
    k: int = 5
    rp: float | None = None
    cell_min: int | None = None
    max_loss: float = DEFAULT_MAX_LOSS
    population: PopulationLimits = field(default_factory=lambda: PopulationLimits())
    crosswalk: dict = field(default_factory=dict)  # [secrets]: where secrets come from
    steps: list[Step] = field(default_factory=list)
    private: Path | None = None  # crosswalks go here (default: OUTPUT.private beside output)
    key: bytes | None = field(default=None, repr=False)  # the secret key, read at load time

    def private_folder(self) -> Path:
        from hidekit.transforms.private import private_dir_for

        return private_dir_for(self.output, self.private)

    def named_columns(self) -> list[str]:
        """Every column the roles name, in order, once."""
        seen: dict[str, None] = {}
        for c in self.direct + self.keys + self.sensitive + self.reviewed:
            seen.setdefault(c, None)
        return list(seen)

    def to_dict(self) -> dict:
        """The plan as a release may show it: no secret, no seed, no absolute path."""
        from hidekit.secrets import public_params, public_path

        base = self.path.parent
        return {
            "plan": self.path.name,
            "input": public_path(self.input, base),
            "output": public_path(self.output, base),
            "keyed": self.key is not None,
            "roles": {
                "direct": self.direct,
                "keys": self.keys,
                "sensitive": self.sensitive,
                "reviewed": self.reviewed,
            },
            "risk": {
                "k": self.k,
                "rp": self.rp,
                "cell_min": self.cell_min or self.k,
                "max_loss": self.max_loss,
                **self.population.to_dict(),
            },
            "steps": [{"use": s.use, **public_params(s.params, base=base)} for s in self.steps],
        }


# Parameters a step leaves unannotated (they take several shapes), typed by name.
_PARAM_TYPES_BY_NAME = {
    "columns": "str | Sequence[str]",
    "ages": "str | Sequence[str]",
    "dates": "str | Sequence[str]",
    "zips": "str | Sequence[str]",
    "births": "str | Sequence[str]",
    "identifiers": "str | Sequence[str]",
    "keys": "str | Sequence[str]",
    "seed": "int | None",
    "width": "int | None",
    "key": "str",
    "population": "str | dict",
}
_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "str": "text",
    "Path": "a path (text)",
    "dict": "a table",
    "Sequence[str]": "a list of text",
    "Sequence[float]": "a list of numbers",
}


def _is_number(v) -> bool:
    import math

    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _fits(value, kind: str) -> bool | None:
    """Whether a TOML value fits one annotated type; None when the type is not one we check."""
    checks = {
        "None": lambda v: v is None,
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": _is_number,
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "Path": lambda v: isinstance(v, str),
        "dict": lambda v: isinstance(v, dict),
        "Sequence[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "Sequence[float]": lambda v: isinstance(v, list) and all(_is_number(x) for x in v),
    }
    check = checks.get(kind)
    return None if check is None else check(value)


def check_param_types(cls, params: dict, where: str) -> None:
    """Refuse a plan value of the wrong type, before it is silently coerced: ``k = 2.7`` is
    not 2, ``k = true`` is not 1, ``width = "10"`` is not a number. Types come from the step's
    annotations (or, for parameters taking several shapes, from the name)."""
    import inspect

    sig = inspect.signature(cls.__init__)
    for name, value in params.items():
        param = sig.parameters.get(name)
        if param is None:
            continue  # unknown names are the constructor's error
        ann = param.annotation
        if ann is inspect.Parameter.empty:
            ann = _PARAM_TYPES_BY_NAME.get(name)
        if not isinstance(ann, str):
            continue
        kinds = [k.strip() for k in ann.split("|")]
        verdicts = [_fits(value, k) for k in kinds]
        if name == "seed" and isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise OptionError(f"{where}: seed must be 0 or more, got {value}")
        if any(verdicts) or None in verdicts:
            continue
        wanted = " or ".join(_TYPE_WORDS.get(k, k) for k in kinds if k != "None")
        raise OptionError(f"{where}: {name} must be {wanted}, got {_toml_repr(value)}")


def _toml_repr(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _typed(table: dict, key: str, kind: str, where: str, default=None):
    """``table[key]`` checked against ``kind`` (see ``_fits``), or ``default`` when absent."""
    if key not in table:
        return default
    value = table[key]
    if not _fits(value, kind):
        raise OptionError(
            f"plan [{where}] {key} must be {_TYPE_WORDS[kind]}, got {_toml_repr(value)}"
        )
    return value


def _list(table: dict, key: str, where: str) -> list[str]:
    v = table.get(key, [])
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise OptionError(f"plan [{where}] {key} must be a list of column names")
    return list(v)


def _secrets(raw: dict, path: Path) -> dict:
    """The [secrets] section (or its older name [crosswalk]): where secrets come from, never a
    secret itself; file paths made relative to the plan."""
    cfg = {}
    for section in ("crosswalk", "secrets"):
        table = raw.get(section, {})
        if not isinstance(table, dict):
            raise OptionError(f"plan {path.name}: [{section}] must be a table")
        cfg.update(table)
    clear = sorted(set(cfg) & {"key", "passphrase"})
    if clear:
        raise OptionError(
            f"plan {path.name}: a {clear[0]} written in the plan would be published with it "
            "(audit, report): give [secrets] key_file or key_env (passphrase_file or "
            "passphrase_env) instead"
        )
    unknown = sorted(set(cfg) - _SECRET_SOURCES)
    if unknown:
        raise OptionError(
            f"plan {path.name}: unknown [secrets] field(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(_SECRET_SOURCES))})"
        )
    for k, v in cfg.items():
        if not isinstance(v, str) or not v:
            what = "a file name" if k.endswith("_file") else "the name of an environment variable"
            raise OptionError(
                f"plan {path.name}: [secrets] {k} must be {what}, got {_toml_repr(v)}"
            )
    for k in ("key_file", "passphrase_file"):
        if cfg.get(k) is not None and not Path(cfg[k]).is_absolute():
            cfg[k] = str(path.parent / cfg[k])
    return cfg


def _confined(value: str, base: Path, path: Path, what: str) -> str:
    """A file parameter that must stay inside the plan's folder (no ``..``, no absolute path
    elsewhere): a plan is often shared, and a step reading any file could leak it."""
    p = (base / value).resolve()
    try:
        p.relative_to(base.resolve())
    except ValueError:
        raise OptionError(
            f"plan {path.name}: {what} must be a file inside the plan's folder"
        ) from None
    return str(p)


def load_plan(path, output: str | Path | None = None, key: bytes | None = None) -> Plan:
    """Read and check a plan file; ``output`` overrides its output folder, ``key`` its secret
    key (else it is read from [secrets] key_file / key_env). The file is read through
    ``hidekit.io``; ``parse_plan`` does the rest."""
    path = Path(path)
    return parse_plan(_read_toml(path), path, output=output, key=key)


def parse_plan(
    raw: dict | str, path, output: str | Path | None = None, key: bytes | None = None
) -> Plan:
    """A checked plan from its TOML (the text, or the table ``tomllib`` made of it). ``path`` is
    where the plan sits: its relative paths are taken against that folder and errors name it."""
    from hidekit.secrets import check_key, load_key

    path = Path(path)
    if isinstance(raw, str):
        raw = _parse_toml(raw, path)
    _check_sections(raw, path)
    base = path.parent
    inp = raw.get("input", {})
    if not _typed(inp, "path", "str", "input"):
        raise OptionError(f"plan {path}: [input] path is required")
    sep = _typed(inp, "sep", "str", "input")
    if sep is not None:
        check_separator(sep, "plan [input] sep")
    out = raw.get("output", {})
    folder = output or _typed(out, "folder", "str", "output")
    if not folder:
        raise OptionError(f"plan {path}: [output] folder is required (or pass --out)")
    neutralize = out.get("neutralize_formulas", True)
    if not isinstance(neutralize, bool):
        raise OptionError(f"plan {path}: [output] neutralize_formulas must be true or false")
    roles = raw.get("roles", {})
    risk = raw.get("risk", {})
    k, rp, cell_min = _risk_settings(risk, path)
    for field_name in raw.get("crosswalk", {}):
        _typed(raw["crosswalk"], field_name, "str", "crosswalk")
    plan = Plan(
        path=path,
        input=(base / inp["path"]).resolve()
        if not Path(inp["path"]).is_absolute()
        else Path(inp["path"]),
        output=Path(folder) if output or Path(folder).is_absolute() else base / folder,
        sep=sep,
        overwrite=_typed(out, "overwrite", "bool", "output", False),
        neutralize_formulas=neutralize,
        direct=_list(roles, "direct", "roles"),
        keys=_list(roles, "keys", "roles"),
        sensitive=_list(roles, "sensitive", "roles"),
        reviewed=_list(roles, "reviewed", "roles"),
        k=k,
        rp=rp,
        cell_min=cell_min,
        max_loss=_typed(risk, "max_loss", "float", "risk", DEFAULT_MAX_LOSS),
        population=population_limits(risk, path),
        crosswalk=_secrets(raw, path),
    )
    private = out.get("private")
    if private is not None:
        if not isinstance(private, str):
            raise OptionError(f"plan {path.name}: [output] private must be a folder name")
        plan.private = Path(private) if Path(private).is_absolute() else base / private
    plan.private_folder()  # refuse a private folder inside the output now
    plan.key = (
        check_key(bytes(key), "the key")
        if key is not None
        else load_key(plan.crosswalk.get("key_file"), plan.crosswalk.get("key_env"))
    )
    _check_plan(plan, path)
    for i, s in enumerate(_step_tables(raw, path), 1):
        step = Step(str(s["use"]), _step_params(s, i, base, path))
        step.make(plan.key)  # fail now, before reading data, on unknown steps or bad parameters
        plan.steps.append(step)
    return plan


def _read_toml(path: Path) -> dict:
    """The plan file's TOML, or one line saying why it cannot be read."""
    try:
        text = read_utf8(path)
    except FileNotFoundError:
        raise InputError(f"plan file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"plan {path}: is a folder, expected a TOML file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"plan {path}: not UTF-8 text (invalid byte at {exc.start})") from None
    except OSError as exc:
        raise InputError(f"plan {path}: cannot read: {exc.strerror or exc}") from None
    return _parse_toml(text, path)


def _parse_toml(text: str, path: Path) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"plan {path} is not valid TOML: {exc}") from None


def _check_sections(raw: dict, path: Path) -> None:
    """Known sections only, tables where a table is expected, known settings in each."""
    unknown = sorted(set(raw) - _SECTIONS)
    if unknown:
        raise OptionError(
            f"plan {path}: unknown section(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(_SECTIONS))})"
        )
    for name in ("input", "output", "roles", "risk", "crosswalk"):
        if not isinstance(raw.get(name, {}), dict):
            raise OptionError(f"plan {path}: [{name}] must be a table of settings")
    for name, known in _SECTION_KEYS.items():
        extra = [k for k in raw.get(name, {}) if k not in known]
        if extra:
            raise OptionError(
                f"plan {path.name}: unknown [{name}] setting(s) {', '.join(map(repr, extra))} "
                f"(known: {', '.join(known)})"
            )


def _risk_settings(risk: dict, path: Path) -> tuple:
    """k (default 5), rp and cell_min of [risk], typed; unknown [risk] fields refused."""
    k = _typed(risk, "k", "int", "risk", 5)
    rp = _typed(risk, "rp", "float", "risk")
    cell_min = _typed(risk, "cell_min", "int", "risk")
    unknown_risk = sorted(set(risk) - _RISK_KEYS)
    if unknown_risk:
        raise OptionError(
            f"plan {path.name}: unknown [risk] field(s) {', '.join(unknown_risk)} "
            f"(known: {', '.join(sorted(_RISK_KEYS))})"
        )
    if cell_min is not None and cell_min < 1:
        raise OptionError(f"plan {path}: [risk] cell_min must be at least 1, got {cell_min}")
    return k, rp, cell_min


def _check_plan(plan: Plan, path: Path) -> None:
    """k at least 1, rp and max_loss fractions, key variables named."""
    if plan.k < 1:
        raise OptionError(f"plan {path}: [risk] k must be at least 1, got {plan.k}")
    require_fraction("[risk] rp", plan.rp)
    require_fraction("[risk] max_loss", plan.max_loss)
    plan.max_loss = float(plan.max_loss)
    if not plan.keys:
        raise OptionError(
            f"plan {path}: [roles] keys must name the key variables (quasi-identifiers)"
        )


def _step_tables(raw: dict, path: Path) -> list:
    """The [[steps]] tables."""
    steps = raw.get("steps", [])
    if not isinstance(steps, list):
        raise OptionError(f"plan {path}: steps must be an array of tables ([[steps]])")
    return steps


def _step_params(s, i: int, base: Path, path: Path) -> dict:
    """Step ``i``'s parameters: a step name given, no secret written in the plan, file
    parameters made plan-relative."""
    if not isinstance(s, dict) or "use" not in s:
        raise OptionError(f"plan {path}: step {i} has no 'use' (the step name)")
    if not isinstance(s["use"], str):
        raise OptionError(f"plan {path}: step {i}: use must be a step name (text)")
    params = {k: v for k, v in s.items() if k != "use"}
    if "key" in params or "passphrase" in params:
        raise OptionError(
            f"plan {path.name}: step {i} writes a secret in the plan, where the audit and "
            "report would publish it: give [secrets] key_file or key_env instead"
        )
    for name in _FILE_PARAMS:  # file parameters are plan-relative
        if name == "population" and isinstance(params.get(name), str):
            params[name] = _confined(params[name], base, path, f"step {i} population")
        elif isinstance(params.get(name), str) and not Path(params[name]).is_absolute():
            params[name] = str(base / params[name])
    if isinstance(params.get("hierarchies"), dict):  # {column: file} of the optimal step
        params["hierarchies"] = {
            col: str(base / f) if isinstance(f, str) and not Path(f).is_absolute() else f
            for col, f in params["hierarchies"].items()
        }
    return params
