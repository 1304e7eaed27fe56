"""Run a release plan in memory: apply the steps in order, then check. The release job
(``hidekit.jobs.release_job``) reads the input and writes the folder everything at once.

Nothing is written unless the release passes: no direct identifier left (the plan's roles and the
PII scanner agree) and the risk limit met. The output folder is built in a temporary sibling and
moved into place at the end, so a failed run leaves nothing behind.

What is shipped (data, ``audit.jsonl``, ``report.html``) and what ``--json`` prints hold no secret:
no key, passphrase or seed (only whether the steps were keyed), no absolute path. Crosswalks go
to the plan's private folder, beside the output.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hidekit.errors import (
    ColumnNotFound,
    HidekitError,
    InputError,
    OptionError,
    PolicyError,
    require_columns,
)
from hidekit.io import Dataset, output_suffix
from hidekit.release.plan import IDENTIFIER_STEPS, Plan, load_plan
from hidekit.release.tables import plan_table
from hidekit.risk.metrics import RiskReport
from hidekit.risk.records import RecordRisk, assess_records
from hidekit.secrets import INSECURE_NOTE, check_key, public_params, public_path, resolve_secret
from hidekit.transforms.loss import VariableLoss, loss_summary, loss_warnings


@dataclass
class StepRecord:
    step: int
    use: str
    parameters: dict
    cells_changed: dict[str, int]
    removed: list[str]
    warnings: list[str]
    risk_after: dict
    seconds: float
    decisions: dict = field(default_factory=dict)  # how the step read the data (codes → meaning)

    def to_dict(self) -> dict:
        return self.__dict__.copy()


@dataclass
class ReleaseResult:
    plan: Plan
    released: bool
    problems: list[str]
    before: RiskReport
    after: RiskReport | None
    steps: list[StepRecord] = field(default_factory=list)
    records: int = 0
    files: dict[str, str] = field(default_factory=dict)
    scan_flagged: list[str] = field(default_factory=list)
    loss: list[VariableLoss] = field(default_factory=list)
    loss_warnings: list[str] = field(default_factory=list)
    individual_before: RecordRisk | None = None  # risk against the population, when asked
    individual_after: RecordRisk | None = None
    chunks: int = 0  # chunks of records the release went through (0: the whole table in memory)
    fit_seconds: float = 0.0  # chunked: the fitting pass (reading, counting, fitting the steps)

    def loss_dict(self) -> dict:
        """Information lost per variable beside the plan's limit, and what goes over it."""
        return loss_summary(self.loss, self.plan.max_loss)

    def individual_dict(self) -> dict:
        """``weighted_before`` / ``weighted_after``: sdcMicro's figures, when the plan asks."""
        if self.individual_before is None:
            return {}
        return {
            "weighted_before": self.individual_before.to_dict(),
            "weighted_after": self.individual_after.to_dict() if self.individual_after else None,
        }

    @property
    def insecure(self) -> bool:
        """Whether a step drew its randomness from a plain seed (then the release says so)."""
        return any(s.parameters.get("randomness") == INSECURE_NOTE for s in self.steps)

    def to_dict(self) -> dict:
        from hidekit.secrets import public_path

        return {
            "released": self.released,
            "problems": self.problems,
            "records": self.records,
            "output": public_path(self.plan.output, self.plan.path.parent)
            if self.released
            else None,
            "keyed": self.plan.key is not None,
            "insecure_seed": self.insecure,
            "files": self.files,
            "risk_before": _risk_dict(self.before),
            "risk_after": _risk_dict(self.after) if self.after else None,
            "information_loss": self.loss_dict(),
            **self.individual_dict(),
            "steps": [s.to_dict() for s in self.steps],
            "plan": self.plan.to_dict(),
            "scan_flagged_direct": self.scan_flagged,
        }


def _risk_dict(r: RiskReport) -> dict:
    return {
        "keys": r.keys,
        "k": r.k,
        "rp": r.rp,
        "cr": r.cr,
        "uniques": r.uniques,
        "at_risk": r.at_risk,
        "cells": r.cells,
        "cell_min": r.cell_min,
    }


def prepare_plan(plan: Plan | str | os.PathLike, *, output=None, key: bytes | None = None) -> Plan:
    """``plan`` loaded (a path) or updated (a ``Plan``): ``output`` and ``key`` override the
    plan's own."""
    if not isinstance(plan, Plan):
        return load_plan(plan, output=output, key=key)
    if output:
        plan.output = Path(output)
    if key is not None:
        plan.key = check_key(bytes(key), "the key")
    return plan


def apply_plan(
    plan: Plan,
    ds: Dataset,
    *,
    progress: Callable[..., None] | None = None,
    scan: bool = True,
    engine: str = "duckdb",
) -> tuple[ReleaseResult, Dataset, list]:
    """Apply the plan's steps to the table ``ds`` in memory and check the result: the
    ``ReleaseResult``, the released table and the crosswalks (``(step, frame)``, for the private
    folder). Raises PolicyError when the release does not pass; writes nothing (the release job,
    ``hidekit.jobs.release_job``, writes the folder). ``engine="spark"`` runs the steps and the risk
    counts on Spark (``hidekit.release.tables``); the release is the same."""
    require_columns(ds.frame.columns, plan.named_columns() + plan.population.columns())
    cell_min = int(plan.cell_min or plan.k)
    table = original = plan_table(ds, engine)
    before = table.risk(plan.keys, cell_min)
    result = ReleaseResult(plan, False, [], before, None, records=len(table))
    result.individual_before = _individual(plan, table, plan.keys)
    crosswalks = []
    handled: set[str] = set()
    risk_now: RiskReport | None = None  # the risk after the last step, on the keys left then
    for i, step in enumerate(plan.steps, 1):
        t0 = time.perf_counter()
        transform = step.make(plan.key).with_value_labels(ds.value_labels)
        try:
            new, changed = table.apply(transform)
        except HidekitError as exc:
            raise (
                type(exc)(f"step {i} ({step.use}): {exc}")
                if not isinstance(exc, ColumnNotFound)
                else InputError(f"step {i} ({step.use}): {exc}")
            ) from None
        if len(new) != len(table) and step.use not in ("partition",):
            raise OptionError(f"step {i} ({step.use}) changed the number of records")
        keys_now = [c for c in plan.keys if c in new.columns]
        risk = risk_now = new.risk(keys_now, cell_min) if keys_now else None
        if hasattr(transform, "crosswalk_"):
            crosswalks.append((step, transform.crosswalk_))
        elif hasattr(transform, "link_"):  # partition: ID -> identifiers, kept like a crosswalk
            crosswalks.append((step, transform.link_))
        if step.use in IDENTIFIER_STEPS:
            handled.update(transform.handled_columns())
        result.steps.append(
            StepRecord(
                step=i,
                use=step.use,
                parameters=public_params(step.params, transform, plan.path.parent),
                cells_changed=changed,
                removed=[c for c in table.columns if c not in new.columns],
                warnings=list(getattr(transform, "warnings_", [])),
                risk_after=_risk_dict(risk) if risk else {},
                seconds=round(time.perf_counter() - t0, 4),
                decisions=dict(getattr(transform, "decisions_", {})),
            )
        )
        table = new
        if progress:
            progress(1)
    keys_left = [c for c in plan.keys if c in table.columns]
    if len(table) == len(original):  # loss per variable kept, identifiers (handled) aside
        measured = [c for c in table.columns if c not in handled and c not in plan.direct]
        result.loss = table.loss(original, measured)
        result.loss_warnings = loss_warnings(result.loss, plan.max_loss)
    if risk_now is not None:  # the last step's own figures: the table has not changed since
        result.after = risk_now
    else:
        result.after = table.risk(keys_left, cell_min) if keys_left else None
    if keys_left:
        result.individual_after = _individual(plan, table, keys_left)
    result.problems = _problems(plan, table, handled, result, scan)
    if result.problems:
        raise PolicyError("release refused: " + "; ".join(result.problems))
    return result, table.released(ds), crosswalks


def _individual(plan: Plan, table, keys: list[str]) -> RecordRisk | None:
    """Individual risk against the population when the plan's [risk] asks for it."""
    limits = plan.population
    if not limits.active:
        return None
    missing = [c for c in limits.columns() if c not in table.columns]
    if missing:
        raise OptionError(
            f"[risk] names {', '.join(missing)}, which a step removed: keep the weight and "
            "household columns until the risk is measured (remove them in a later release)"
        )
    from hidekit.engines import make_engine

    return assess_records(
        make_engine(table.to_pandas(), "duckdb"),  # a Spark table comes to the driver here
        keys,
        weights=limits.weights,
        household=limits.household,
        missing=limits.missing,
        threshold=limits.risk_threshold,
    )


def population_problems(plan: Plan, records: RecordRisk | None) -> list[str]:
    """Each [risk] limit on individual risk that the release does not meet."""
    limits = plan.population
    if records is None:
        return []
    summary = records.household_summary or records.summary
    checks = [
        ("global risk", summary.global_risk, limits.global_risk, ".4f"),
        (
            "expected re-identifications",
            summary.expected_reidentifications,
            limits.expected_reidentifications,
            ".2f",
        ),
        (
            f"share of records above risk {limits.risk_threshold:g}",
            summary.share_above_threshold,
            limits.share_above_threshold,
            ".4f",
        ),
    ]
    scope = " (household)" if records.household_summary is not None else ""
    return [
        f"risk limit not met: {name}{scope} = {value:{fmt}} > {limit:{fmt}}"
        for name, value, limit, fmt in checks
        if limit is not None and value > float(limit) + 1e-12
    ]


def _problems(plan: Plan, table, handled: set[str], result: ReleaseResult, scan: bool) -> list[str]:
    problems = []
    left = [c for c in plan.direct if c in table.columns and c not in handled]
    if left:
        problems.append(
            f"direct identifier(s) still in the data: {', '.join(left)} "
            f"(encode, hash, redact or remove them)"
        )
    if scan:
        from hidekit.scan import scan_table

        flagged = scan_table(table.scan_frame()).names("direct")
        result.scan_flagged = flagged
        bad = [c for c in flagged if c not in handled and c not in plan.reviewed and c not in left]
        if bad:
            problems.append(
                f"the PII scan flags direct identifier(s): {', '.join(bad)} (treat them "
                f"with a step, or list them under [roles] reviewed after checking)"
            )
    r = result.after
    if r is not None:
        if r.k < plan.k:
            problems.append(f"risk limit not met: k = {r.k} < {plan.k} on {', '.join(r.keys)}")
        if plan.rp is not None and r.rp > float(plan.rp) + 1e-12:
            problems.append(f"risk limit not met: RP = {r.rp:.4f} > {float(plan.rp):.4f}")
        problems.extend(population_problems(plan, result.individual_after))
    return problems


def plan_inputs(plan: Plan) -> tuple:
    """Every file a plan reads (data, the plan itself, key files, step side files): the output
    folder must not be, hold or sit inside any of them."""
    files = [plan.input, plan.path]
    for k in ("key_file", "passphrase_file"):
        if plan.crosswalk.get(k):  # already made relative to the plan by load_plan
            files.append(Path(plan.crosswalk[k]))
    for step in plan.steps:
        for key in ("path", "boundaries", "population", "hierarchy", "key_file"):
            v = step.params.get(key)
            if isinstance(v, str):
                files.append(Path(v))
    return tuple(files)


def released_name(plan: Plan, ds: Dataset) -> str:
    """The released table's file name: the input's stem, in the input's format."""
    return Path(plan.input).stem + output_suffix(ds.format)


def audit_text(plan: Plan, result: ReleaseResult) -> str:
    """``audit.jsonl``: the input, one line per step, the information lost; no secret, no
    absolute path."""
    lines = [
        json.dumps(
            {
                "step": 0,
                "use": "input",
                "parameters": {"path": public_path(plan.input, plan.path.parent)},
                "records": result.records,
                "keyed": plan.key is not None,
                "risk_after": _risk_dict(result.before),
            }
        )
    ]
    lines += [json.dumps(s.to_dict(), default=str) for s in result.steps]
    lines.append(json.dumps({"use": "information_loss", **result.loss_dict()}))
    return "\n".join(lines) + "\n"


def crosswalk_stems(crosswalks: list) -> list[str]:
    """The private files' names (no suffix): ``crosswalk`` / ``link`` (a partition), numbered
    with their step when there are several."""
    stems = []
    for n, (step, _) in enumerate(crosswalks, 1):
        name = "link" if step.use == "partition" else "crosswalk"
        stems.append(name if len(crosswalks) == 1 else f"{name}-{n}-{step.use}")
    return stems


def crosswalk_secret(plan: Plan, passphrase) -> dict:
    """The crosswalk's secret: the plan's key, else a passphrase (given, or from [secrets]
    passphrase_file / passphrase_env)."""
    if plan.key is not None:
        return {"key_file": plan.key}
    cfg = plan.crosswalk
    if passphrase is None:
        passphrase = resolve_secret(
            file=cfg.get("passphrase_file"), env=cfg.get("passphrase_env"), required=False
        )
    if not passphrase:
        raise OptionError(
            "the plan encodes or partitions identifiers: give [secrets] key_file or key_env "
            "(or passphrase_file / passphrase_env) to encrypt the crosswalk or link"
        )
    return {"passphrase": passphrase}
