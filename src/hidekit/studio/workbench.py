"""The studio's working state for one table: roles, live risk, and the plan built step by step.

Pure Python, no web: the pages only show what this computes, through the same functions the CLI
uses (``read_table``, ``scan_table``, the engine interface, ``report_from_sizes``, the plan's
``Step.make``, ``cells_changed``, ``information_loss``). The table is encoded once per step into
the engine's integer codes, so ticking keys recounts from cached codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.engines import DuckDBEngine, Engine
from hidekit.errors import OptionError
from hidekit.io import Dataset, read_table
from hidekit.release.plan import Step
from hidekit.release.tables import cells_changed
from hidekit.risk.metrics import RiskReport, report_from_sizes
from hidekit.risk.records import assess_records
from hidekit.scan import scan_table
from hidekit.scan.scanner import ScanResult
from hidekit.transforms.loss import VariableLoss, information_loss

ROLES = ("direct", "key", "sensitive", "weight", "household", "other")
ONE_COLUMN_ROLES = {"weight": "sampling-weight", "household": "household"}
RISKIEST_SHOWN = 10
SAMPLE_SHOWN = 15  # records shown on the table page


@dataclass
class LiveRisk:
    """What the risk panel shows for one key set."""

    report: RiskReport
    riskiest: pd.DataFrame  # the smallest cells: key values and their size (``_n``)
    k_target: int
    weighted: dict | None = None  # individual risk (Benedetti-Franconi) when a weight is chosen

    @property
    def meets_target(self) -> bool:
        return self.report.k >= self.k_target


@dataclass
class AppliedStep:
    step: Step
    frame: pd.DataFrame
    engine: Engine
    cells_changed: dict[str, int]
    removed: list[str]
    warnings: list[str]
    risk: RiskReport | None


def role_from_scan(scan: ScanResult, column: str) -> str:
    """The role a column starts with: a direct identifier, a key (indirect), else other."""
    finding = scan[column]
    if not finding.pii:
        return "other"
    return "direct" if finding.category == "direct" else "key"


@dataclass
class Workbench:
    """One opened table: its roles, its engine, and the steps applied so far (undo pops one)."""

    dataset: Dataset
    source: str  # the file's name relative to the studio's folder
    scan: ScanResult
    roles: dict[str, str]
    k_target: int = 3
    cell_min: int = 3
    steps: list[AppliedStep] = field(default_factory=list)
    base_engine: Engine | None = None

    @classmethod
    def open(cls, path: Path, source: str, *, scan_sample: int | None = 20_000) -> Workbench:
        ds = read_table(path)
        scan = scan_table(ds, sample=scan_sample)
        roles = {c: role_from_scan(scan, c) for c in ds.columns}
        return cls(ds, source, scan, roles, base_engine=DuckDBEngine(ds.frame))

    # --- current state ---------------------------------------------------------------------
    @property
    def frame(self) -> pd.DataFrame:
        return self.steps[-1].frame if self.steps else self.dataset.frame

    @property
    def engine(self) -> Engine:
        if self.steps:
            return self.steps[-1].engine
        if self.base_engine is None:
            self.base_engine = DuckDBEngine(self.dataset.frame)
        return self.base_engine

    def columns_with(self, role: str) -> list[str]:
        return [c for c, r in self.roles.items() if r == role]

    @property
    def keys(self) -> list[str]:
        return [c for c in self.columns_with("key") if c in self.frame.columns]

    def set_roles(self, roles: dict[str, str]) -> None:
        """New roles, all checked before any is set (a refused change leaves the old ones)."""
        new = dict(self.roles)
        for column, role in roles.items():
            if column not in new:
                raise OptionError(f"no column {column!r} in {self.source}")
            if role not in ROLES:
                raise OptionError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
            new[column] = role
        for role, what in ONE_COLUMN_ROLES.items():
            if sum(r == role for r in new.values()) > 1:
                raise OptionError(f"choose one {what} column")
        self.roles = new

    def set_targets(self, k_target: int, cell_min: int) -> None:
        if k_target < 1 or cell_min < 1:
            raise OptionError("k and the cell minimum must be at least 1")
        self.k_target, self.cell_min = int(k_target), int(cell_min)

    # --- risk -------------------------------------------------------------------------------
    def risk(self, keys: list[str] | None = None) -> LiveRisk | None:
        """k, uniques, RP, CR, El Emam's metrics and the smallest cells of the key set."""
        keys = self.keys if keys is None else keys
        if not keys:
            return None
        per_record = self.engine.record_cell_sizes(keys)  # cached per key set by the engine
        report = report_from_sizes(keys, class_sizes_from_records(per_record), self.cell_min)
        live = LiveRisk(report, riskiest_cells(self.frame, keys, per_record), self.k_target)
        weights, household = self.role_column("weight"), self.role_column("household")
        if weights:  # sdcMicro's individual (and household) risk, as `hidekit risk --weights`
            live.weighted = assess_records(
                self.engine, keys, weights=weights, household=household
            ).to_dict()
        return live

    def role_column(self, role: str) -> str | None:
        """The one column holding ``role`` (weight, household) in the current table, if any."""
        found = [c for c in self.columns_with(role) if c in self.frame.columns]
        return found[0] if found else None

    def sample(self, n: int = SAMPLE_SHOWN) -> pd.DataFrame:
        """``n`` records drawn at random from the whole table, in file order (all of a small one).

        A display only: the draw uses fresh randomness each time, no seed is kept or shown.
        """
        frame = self.frame
        if len(frame) <= n:
            return frame
        rows = np.sort(np.random.default_rng().choice(len(frame), size=n, replace=False))
        return frame.iloc[rows]

    # --- the plan ----------------------------------------------------------------------------
    def apply(self, use: str, params: dict) -> AppliedStep:
        """Apply one plan step to the current table (the release runner's own step objects)."""
        applied = self.try_step(use, params)
        self.steps.append(applied)
        return applied

    def try_step(self, use: str, params: dict) -> AppliedStep:
        """One plan step on the current table, not added to the plan (a preview)."""
        step = Step(use, dict(params))
        transform = step.make(None).with_value_labels(self.dataset.value_labels)
        before = self.frame
        after = transform.fit_transform(before)
        if len(after) != len(before):
            raise OptionError(f"step {use!r} changed the number of records")
        engine = DuckDBEngine(after)
        keys = [c for c in self.keys if c in after.columns]
        risk = report_from_sizes(keys, engine.class_sizes(keys), self.cell_min) if keys else None
        return AppliedStep(
            step=step,
            frame=after,
            engine=engine,
            cells_changed=cells_changed(before, after),
            removed=[c for c in before.columns if c not in after.columns],
            warnings=list(getattr(transform, "warnings_", [])),
            risk=risk,
        )

    def undo(self) -> Step | None:
        return self.steps.pop().step if self.steps else None

    def utility_lost(self) -> list[VariableLoss]:
        """Cells blanked or changed per variable kept, against the opened table."""
        direct = set(self.columns_with("direct"))
        kept = [c for c in self.frame.columns if c not in direct]
        return information_loss(self.dataset.frame, self.frame, kept)


def class_sizes_from_records(per_record: np.ndarray) -> np.ndarray:
    """Every class's size from each record's class size (a class of size s has s records)."""
    per_record = np.asarray(per_record, dtype=np.int64)
    if per_record.size == 0:
        return per_record
    records_by_size = np.bincount(per_record)
    sizes = np.flatnonzero(records_by_size)
    return np.repeat(sizes, records_by_size[sizes] // sizes)


def riskiest_cells(
    frame: pd.DataFrame, keys: list[str], per_record: np.ndarray, n: int = RISKIEST_SHOWN
) -> pd.DataFrame:
    """The ``n`` smallest cells of the key set (key values and size ``_n``), smallest first.

    Records sorted by their class size: a prefix of ``n * t`` records (``t`` the largest size
    in it) holds at least ``n`` distinct classes, the smaller ones complete, so only that
    prefix is read from the table.
    """
    per_record = np.asarray(per_record, dtype=np.int64)
    if per_record.size == 0:
        return pd.DataFrame(columns=[*keys, "_n"])
    sizes = np.sort(class_sizes_from_records(per_record))
    t = int(sizes[min(n, sizes.size) - 1])  # the n-th smallest class size
    candidates = np.flatnonzero(per_record <= t)
    order = candidates[np.argsort(per_record[candidates], kind="stable")][: n * t]
    rows = frame.iloc[order][keys].reset_index(drop=True)
    rows["_n"] = per_record[order]
    firsts = ~rows[keys].duplicated(keep="first")
    return rows[firsts.to_numpy()].head(n).reset_index(drop=True)
