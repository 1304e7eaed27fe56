"""Information lost per variable: the share of cells a release blanked (suppressed) or changed
(generalized, top-coded, perturbed). A verdict states it beside the risk, so a release that meets
its risk limit by blanking most of a variable does not read as a plain success.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

DEFAULT_MAX_LOSS = 0.2  # warn when more than a fifth of a variable's cells is lost


def same_cells(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Per row, whether two columns hold the same value (missing equals missing; 3 equals "3")."""
    if a.dtype == b.dtype:
        eq = (a == b).fillna(False).to_numpy(dtype=bool)
        return eq | (a.isna() & b.isna()).to_numpy()
    arrow_a, arrow_b = _arrow_keys(a), _arrow_keys(b)
    if arrow_a is not None and arrow_b is not None:
        return _equal_or_missing(arrow_a, arrow_b)
    ka, kb = _text_keys(a), _text_keys(b)
    if ka is not None and kb is not None:
        return ka == kb
    from hidekit.transforms.generalize import value_key

    return np.array([value_key(x) == value_key(y) for x, y in zip(a, b, strict=True)])


# columns whose equal values (as pandas hashes them) always have equal text keys: not a mix in
# which True and 1 would share one code
_KEYED_KINDS = {"string", "empty", "floating", "integer", "mixed-integer-float", "boolean"}


def _text_keys(s: pd.Series) -> np.ndarray | None:
    """``value_key`` of every row, computed once per distinct value (None for a mixed column)."""
    from hidekit.transforms.generalize import value_key

    kind = pd.api.types.infer_dtype(s, skipna=True)
    if kind not in _KEYED_KINDS:
        return None
    if kind == "string":  # value_key of a text is the text itself: nothing to share
        text = s.to_numpy(dtype=object).copy()
        text[s.isna().to_numpy()] = None
        return text
    codes, uniques = pd.factorize(s)  # missing -> -1, whose key is None
    keys = np.empty(len(uniques) + 1, dtype=object)
    if pd.api.types.is_integer_dtype(s.dtype) and _exact_floats(uniques):
        # value_key of an integer below 2**53 is its decimal text: written by Arrow at once
        import pyarrow as pa
        import pyarrow.compute as pc

        ints = pa.array(np.asarray(uniques, dtype=np.int64))
        keys[:-1] = pc.cast(ints, pa.string()).to_numpy(zero_copy_only=False)
    else:
        keys[:-1] = [value_key(u) for u in uniques]
    return keys[codes]


def _arrow_keys(s: pd.Series):
    """``value_key`` of every row as an Arrow string array (null where missing), for whole
    numbers below 2**53 (their decimal text) and columns of text (the text); else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if pd.api.types.is_integer_dtype(s.dtype):
            ints = pa.array(s.array, type=pa.int64(), from_pandas=True)
            low, high = pc.min_max(ints).values()
            if low.is_valid and max(-low.as_py(), high.as_py()) >= 2**53:
                return None
            return pc.cast(ints, pa.string())
        if s.dtype == object:
            return pa.array(s.to_numpy(), type=pa.string(), from_pandas=True)
    except (pa.ArrowException, UnicodeEncodeError, OverflowError):
        return None
    return None


def _equal_or_missing(a, b) -> np.ndarray:
    """Per row, whether two Arrow arrays hold equal values or are both missing."""
    import pyarrow.compute as pc

    eq = pc.equal(a, b).fill_null(False).to_numpy(zero_copy_only=False)
    both = pc.and_(a.is_null(), b.is_null()).to_numpy(zero_copy_only=False)
    return eq | both


def _exact_floats(uniques) -> bool:
    """Whether every integer is exactly a float (``value_key`` goes through ``float``)."""
    values = np.asarray(uniques, dtype=np.int64)
    return not len(values) or bool(np.abs(values).max() < 2**53)


@dataclass
class VariableLoss:
    column: str
    records: int
    suppressed: int  # present before, missing after
    generalized: int  # present before and after, with another value

    @property
    def share(self) -> float:
        return (self.suppressed + self.generalized) / self.records if self.records else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "share": round(self.share, 6)}


def information_loss(
    before: pd.DataFrame,
    after: pd.DataFrame,
    columns: Sequence[str] | None = None,
    weights: np.ndarray | None = None,
) -> list[VariableLoss]:
    """Loss per column present in both frames (rows aligned), in ``columns`` order if given;
    ``weights``: how many records each row stands for (default: one)."""
    cols = [c for c in (columns or before.columns) if c in before.columns and c in after.columns]
    w = np.ones(len(after), np.int64) if weights is None else np.asarray(weights, np.int64)
    out = []
    for c in cols:
        a, b = before[c].reset_index(drop=True), after[c].reset_index(drop=True)
        was = a.notna().to_numpy()
        blank = was & b.isna().to_numpy()
        changed = was & ~blank & ~same_cells(a, b)
        out.append(VariableLoss(c, int(w.sum()), int(w[blank].sum()), int(w[changed].sum())))
    return out


def loss_warnings(losses: Sequence[VariableLoss], max_loss: float = DEFAULT_MAX_LOSS) -> list[str]:
    """One line per variable losing more than ``max_loss`` of its cells."""
    return [
        f"{v.column}: {v.share:.0%} of cells lost ({v.suppressed:,} suppressed, "
        f"{v.generalized:,} generalized) > {max_loss:.0%}"
        for v in losses
        if v.share > max_loss + 1e-12
    ]


def loss_summary(losses: Sequence[VariableLoss], max_loss: float = DEFAULT_MAX_LOSS) -> dict:
    """Information lost as JSON outputs show it: the limit, every variable, what goes over."""
    return {
        "max_loss": max_loss,
        "variables": [v.to_dict() for v in losses],
        "warnings": loss_warnings(losses, max_loss),
        "headline": loss_headline(losses, max_loss),
    }


def loss_headline(losses: Sequence[VariableLoss], max_loss: float = DEFAULT_MAX_LOSS) -> str:
    """One line for a command's output: the worst variable's share beside the warning limit."""
    worst = max(losses, key=lambda v: v.share, default=None)
    if worst is None:
        return "information lost: no variable measured"
    return (
        f"information lost: at most {worst.share:.1%} of a variable's cells "
        f"({worst.column}); warning above {max_loss:.0%}"
    )


def loss_verdict(losses: Sequence[VariableLoss], max_loss: float, met: str) -> tuple[str, bool]:
    """A report's verdict once the risk limit is met (``met`` says how), stating the information
    lost beside it: the text, and whether it warns (a variable lost more than ``max_loss``)."""
    lost = loss_warnings(losses, max_loss)
    if lost:
        return (
            f"{met}, but at a high information loss (above {max_loss:.0%}): " + "; ".join(lost),
            True,
        )
    return f"{met}; no variable lost more than {max_loss:.0%} of its cells.", False


def require_max_loss(value) -> float:
    """``max_loss`` is a share of cells, 0 to 1."""
    from hidekit.errors import require_fraction

    require_fraction("max_loss", value)
    return float(value)


def loss_section(rep, losses: Sequence[VariableLoss], max_loss: float):
    """Information lost per variable in a report (``hidekit.report.Report``): table and bars."""
    from hidekit.report import bar_chart

    rep.heading("Information lost")
    rep.table(
        [
            {
                "variable": v.column,
                "suppressed": v.suppressed,
                "generalized": v.generalized,
                "share lost": v.share,
                "above limit": v.share > max_loss + 1e-12,
            }
            for v in losses
        ],
        caption=f"cells blanked or changed per variable (warning above {max_loss:.0%})",
    )
    shown = [v for v in losses if v.share > 0]
    if shown:
        rep.figure(
            bar_chart(
                [v.column for v in shown],
                {"share lost": [v.share for v in shown]},
                title="Share of cells lost per variable",
                xlabel="variable",
                ylabel="share",
            ),
            f"Suppressed or generalized cells; the plan warns above {max_loss:.0%}.",
        )
    return rep
