"""Partition, the J-PAL way: one random observation ID in place of the identifier columns, the
identified original and the link file kept apart (and, on disk, encrypted: ``hidekit.jobs``
writes them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.secrets import randomness
from hidekit.transforms.base import Transform, register
from hidekit.transforms.identifiers import _as_list, _width_for, draw_codes, value_key


@register("partition")
class Partition(Transform):
    """Replace the identifier columns by one random observation ID; ``link_`` keeps the link."""

    param_docs: ClassVar[dict[str, str]] = {
        "identifiers": "identifier columns moved out of the data",
        "id_column": "name of the new observation ID column",
        "seed": "tests and synthetic data only (needs insecure_seed): seed of the IDs",
        "width": "width of the observation IDs",
        "insecure_seed": "accept seed (anyone who knows it can replay the IDs)",
        "key": "the secret key that draws the IDs (plans: [secrets] key_file; never written)",
    }
    # the IDs drawn on the driver for the ranks Spark counts; records and link stay on Spark
    spark_scope: ClassVar[str] = "spark"

    def __init__(
        self,
        identifiers=(),
        id_column: str = "hk_id",
        seed=None,
        width=None,
        insecure_seed: bool = False,
        key=None,
    ):
        self.identifiers = _as_list(identifiers)
        self.id_column = id_column
        self.seed, self.insecure_seed = seed, bool(insecure_seed)
        self._random = randomness(key, seed, insecure_seed, "partition")  # private: holds the key
        self.width = width
        if not self.identifiers:
            raise OptionError("partition needs at least one identifier column")

    def fit(self, frame: pd.DataFrame) -> Partition:
        require_columns(frame.columns, self.identifiers)
        if self.id_column in frame.columns:
            raise OptionError(f"the ID column {self.id_column!r} already exists in the data")
        # Combinations compared in Python (pandas' hashing stops at NUL characters), then put in
        # value order so the draw depends on the set of combinations only, never on row order.
        rows = self._keys(frame)
        first_row: dict[tuple, int] = {}
        for i, k in enumerate(rows):
            first_row.setdefault(k, i)
        order = sorted(first_row, key=lambda k: tuple((v is not None, v or "") for v in k))
        link = frame[self.identifiers].iloc[[first_row[k] for k in order]].reset_index(drop=True)
        width = _width_for(len(link), self.width, None, self.id_column)
        codes = [
            str(c).zfill(width)
            for c in draw_codes(
                len(link), set(), width, self._random.rng("partition", self.id_column)
            )
        ]
        self._ids = dict(zip(order, codes, strict=True))
        link.insert(0, self.id_column, codes)
        self.link_ = link.sort_values(self.id_column).reset_index(drop=True)
        return self

    def _keys(self, frame: pd.DataFrame) -> list[tuple]:
        cols = [
            frame[c].map(value_key).where(frame[c].notna(), None).tolist() for c in self.identifiers
        ]
        return list(zip(*cols, strict=True))

    def ids(self, frame: pd.DataFrame) -> pd.Series:
        """The observation ID of each record (missing identifiers match missing)."""
        if not hasattr(self, "_ids"):
            raise OptionError("partition: call fit before transform")
        require_columns(frame.columns, self.identifiers)
        ids = [self._ids.get(k) for k in self._keys(frame)]
        if any(i is None for i in ids):
            raise InputError("partition: some records have identifiers not seen in fit")
        return pd.Series(ids, index=frame.index, dtype=object)

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        ids = self.ids(frame)
        out = frame.drop(columns=self.identifiers)
        out.insert(0, self.id_column, ids)
        return out

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table: the combinations ranked by Spark in the default engine's order,
        their IDs joined onto the records (``hidekit.transforms.spark_partition``)."""
        from hidekit.transforms.spark_partition import spark_partition

        return spark_partition(self, table, fit)


@dataclass
class PartitionResult:
    """The three files of the guide: identified original, de-identified data, link file."""

    original: pd.DataFrame
    deidentified: pd.DataFrame
    link: pd.DataFrame
    id_column: str


def partition(
    frame: pd.DataFrame,
    identifiers,
    id_column: str = "hk_id",
    seed=None,
    width=None,
    insecure_seed: bool = False,
    key=None,
) -> PartitionResult:
    """Split ``frame`` into original (with ID), de-identified (ID, no identifiers) and link.

    The IDs come from ``key`` (secret bytes), else fresh randomness; ``seed`` needs
    ``insecure_seed``."""
    step = Partition(
        identifiers,
        id_column=id_column,
        seed=seed,
        width=width,
        insecure_seed=insecure_seed,
        key=key,
    ).fit(frame)
    ids = step.ids(frame)
    original = frame.copy()
    original.insert(0, id_column, ids)
    return PartitionResult(original, step.transform(frame), step.link_, id_column)


def partition_names(stem: str, suffix: str) -> dict[str, str]:
    return {
        "original": f"{stem}_original{suffix}",
        "deidentified": f"{stem}_deidentified{suffix}",
        "link": f"{stem}_link{suffix}",
    }


PARTITION_NEEDS_SECRET = (
    "partition writes the original and the link file encrypted, never in plain text: give a "
    "secret key or a passphrase (hidekit new-key KEYFILE, then --key-file KEYFILE)"
)


def require_partition_secret(secret: dict | None) -> dict:
    """The secret that encrypts a partition's original and link file; refuses when there is
    none (one line, before anything is read or written)."""
    if not secret or all(v is None for v in secret.values()):
        raise OptionError(PARTITION_NEEDS_SECRET)
    return secret
