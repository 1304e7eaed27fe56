"""Direct identifiers, the J-PAL way: encode, redact, remove; keyed hashing as an option (partition
lives in ``hidekit.transforms.partition``; the files, in ``hidekit.jobs.identifiers``).

Encoded IDs are random ranks (Stata's ``egen rank(runiform()), unique``): they follow no sort order
of the values, are fixed-width strings with leading zeros, and nest for hierarchical units
(province 1 → district 11 → village 1101). A flat column's ranks are those of a keyed hash of each
value (SHA-256 of a secret prefix derived from the key, then the value): a code depends on the key
and the set of values only, so Spark computes it per value on its executors
(``hidekit.transforms.spark_encode``); hierarchy levels draw theirs from the key's generator. The crosswalk learnt by ``fit`` is reused to encode a
later survey round consistently; new values get fresh, unused IDs.

Parameters that hold secrets or identifiers (hash keys, prior crosswalks) are kept in private
attributes so that ``get_params`` — which release plans write into their audit log — never
shows them.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.secrets import randomness
from hidekit.transforms.base import Transform, register
from hidekit.transforms.keyed_hash import arrow_keyed_words, keyed_words, order_of_words

CROSSWALK_COLUMNS = ["column", "parent", "value", "code"]


def value_key(v) -> str:
    """How a value is written in a crosswalk: 1675, 1675.0 and "1675" are one respondent."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    return str(v)


def value_keys(s: pd.Series) -> pd.Series:
    """``value_key`` of every value (missing stays missing), vectorized for numeric columns.

    Text goes value by value: pandas' string hashing stops at a NUL character, so two values that
    differ only after one must not meet a vectorized path.
    """
    if pd.api.types.is_integer_dtype(s.dtype) or (
        pd.api.types.is_float_dtype(s.dtype) and bool(((s % 1) == 0).where(s.notna(), True).all())
    ):
        ints = s.astype("Int64")  # Arrow writes integers as str() does, without a call per value
        text = pc.cast(pa.array(ints.array, type=pa.int64()), pa.string())
        return pd.Series(text.to_numpy(zero_copy_only=False), index=s.index, dtype=object)
    return s.map(value_key).where(s.notna())


def _hash_safe(s: pd.Series) -> bool:
    """True when pandas' hashed lookups are exact for this column: numbers, or text without NUL."""
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        return True
    present = s.dropna()
    if not len(present) or not all(isinstance(v, str) for v in present.to_numpy()):
        return False
    return not present.str.contains("\x00", regex=False).any()


def _key_array(s: pd.Series) -> pa.Array:
    """``value_keys`` of a column without missing values as an Arrow string array (whole
    numbers written by Arrow straight away, without a Python text per value)."""
    if pd.api.types.is_integer_dtype(s.dtype) or (
        pd.api.types.is_float_dtype(s.dtype) and bool(((s % 1) == 0).all())
    ):
        return pc.cast(pa.array(s.astype("Int64").array, type=pa.int64()), pa.string())
    return pa.array(value_keys(s).to_numpy(dtype=object), pa.string())


def _flat_crosswalk(
    frame: pd.DataFrame, columns: list[str], width, prefixes
) -> tuple[pd.DataFrame, dict] | None:
    """``Encode.fit``'s crosswalk for flat columns and no earlier crosswalk, the same frame built
    by Arrow (unique values, zero-padding) instead of per value in Python, and for each column
    the crosswalk row of each present value of ``frame`` (``Encode.fit_transform``); None when a
    value is not plain text Arrow can hold (then the general path runs)."""
    parts: list[pd.DataFrame] = []
    rows = {}
    done = 0  # crosswalk rows of the columns before
    for col in columns:
        try:
            encoded = pc.dictionary_encode(_key_array(frame[col].dropna()))
        except (pa.ArrowException, UnicodeEncodeError):
            return None
        uniq = encoded.dictionary  # the distinct values in order of first record
        n = len(uniq)
        w = _width_for(n, width, None, col)
        check_capacity(n, 0, w)
        order = order_of_words(arrow_keyed_words(uniq, prefixes[col]))
        at = np.empty(n, np.int64)  # crosswalk row (in this column's block) of each distinct
        at[order] = np.arange(n)
        hit = encoded.indices.to_numpy(zero_copy_only=False)
        rows[col] = (frame[col].notna().to_numpy(), done + at[hit])
        done += n
        text = pc.utf8_lpad(pc.cast(pa.array(np.arange(1, n + 1)), pa.string()), w, "0")
        parts.append(
            pd.DataFrame(
                {
                    "column": col,
                    "parent": "",
                    "value": uniq.take(pa.array(order)).to_numpy(zero_copy_only=False),
                    "code": text.to_numpy(zero_copy_only=False),
                },
                dtype=object,
            )
        )
    if not parts:
        return None
    return pd.concat(parts, ignore_index=True).reindex(columns=CROSSWALK_COLUMNS), rows


def code_prefix(random, column: str) -> str:
    """The secret that orders a flat column's values (hex of a subkey of the step's key): a
    value's place is the rank of SHA-256(prefix + value) among the column's values."""
    return random.subkey("encode", column).hex()


def keyed_order(values, prefix: str) -> np.ndarray:
    """Indices of ``values`` (text) in the order of their keyed hash SHA-256(prefix + value):
    a value's code depends on the key and the set of values only, and Spark computes the same
    hash per value with ``sha2`` (``hidekit.transforms.spark_encode``)."""
    texts = (v.encode("utf-8", "surrogatepass") for v in values)
    return order_of_words(keyed_words(texts, prefix))


def _as_list(columns) -> list[str]:
    if columns is None:
        return []
    if isinstance(columns, str):
        return [columns]
    return list(columns)


def _digits(n: int) -> int:
    return max(1, len(str(max(int(n), 1))))


def check_capacity(n: int, taken: int, width: int) -> None:
    """Refuse when ``width`` digits cannot hold ``taken`` codes and ``n`` more."""
    capacity = 10**width - 1
    if taken + n > capacity:
        raise OptionError(
            f"width {width} holds {capacity} codes; {taken + n} are needed "
            f"(choose a larger width when the crosswalk is first made)"
        )


def draw_codes(n: int, taken: set[int], width: int, rng: np.random.Generator | None) -> list[int]:
    """``n`` unused numbers: the next free ranks, shuffled by ``rng`` (None: in order, for
    values already put in a keyed order)."""
    check_capacity(n, len(taken), width)
    first = np.arange(1, n + len(taken) + 1)
    if taken:
        first = first[~np.isin(first, np.fromiter(taken, dtype=np.int64, count=len(taken)))]
    return first[:n].tolist() if rng is None else first[:n][rng.permutation(n)].tolist()


def _width_for(needed: int, explicit: int | None, existing: int | None, what: str) -> int:
    if explicit is not None and existing is not None and explicit != existing:
        raise OptionError(
            f"{what}: the crosswalk uses width {existing}, not {explicit} "
            f"(codes must keep their width across rounds)"
        )
    width = existing or explicit or _digits(needed)
    if explicit is not None and explicit < 1:
        raise OptionError(f"width must be at least 1, got {explicit}")
    return width


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """str() per cell: numpy's ``astype(str)`` drops trailing NUL characters and merges values."""
    return frame.apply(lambda col: col.map(str)).astype(object)


def _check_crosswalk(cw) -> pd.DataFrame:
    if cw is None:
        return pd.DataFrame(columns=CROSSWALK_COLUMNS, dtype=object)
    if not isinstance(cw, pd.DataFrame):
        raise OptionError(
            "crosswalk must be a DataFrame (read it with hidekit.jobs.files.read_crosswalk)"
        )
    missing = [c for c in CROSSWALK_COLUMNS if c not in cw.columns]
    if missing:
        raise InputError(f"not an encode crosswalk: missing column(s) {', '.join(missing)}")
    cw = _as_text(cw[CROSSWALK_COLUMNS])
    if (
        cw.duplicated(["column", "parent", "value"]).any()
        or cw.duplicated(["column", "code"]).any()
    ):
        raise InputError("crosswalk is inconsistent: a value or a code appears twice")
    return cw


@register("encode")
class Encode(Transform):
    """Replace values by random fixed-width IDs; hierarchical codes for nested units."""

    # values: a record's code depends on its value and the fit only (``spark_apply`` computes it
    # per value on Spark; the chunked release fits it on the distinct values)
    spark_scope: ClassVar[str] = "values"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "identifier column(s) to replace by random fixed-width codes",
        "width": "code width (a list: one per hierarchy level)",
        "seed": "tests and synthetic data only (needs insecure_seed): seed of the codes",
        "hierarchy": "nested unit columns, outermost first (district, village, household): codes nest",
        "crosswalk": "an earlier crosswalk to extend (Python API; codes already given stay)",
        "insecure_seed": "accept seed (anyone who knows it can rebuild the crosswalk)",
        "key": "the secret key that draws the codes (plans: [secrets] key_file; never written)",
    }

    def __init__(
        self,
        columns=(),
        width=None,
        seed=None,
        hierarchy=None,
        crosswalk=None,
        insecure_seed: bool = False,
        key=None,
    ):
        self.columns = _as_list(columns)
        self.hierarchy = _as_list(hierarchy)
        self.width = width
        self.seed, self.insecure_seed = seed, bool(insecure_seed)
        self._random = randomness(key, seed, insecure_seed, "encode")  # private: holds the key
        self._prior = crosswalk  # private: it holds identifiers
        overlap = set(self.columns) & set(self.hierarchy)
        if overlap:
            raise OptionError(
                f"column(s) both flat and in the hierarchy: {', '.join(sorted(overlap))}"
            )
        if not self.columns and not self.hierarchy:
            raise OptionError("encode needs columns or a hierarchy")
        if len(set(self.hierarchy)) != len(self.hierarchy):
            raise OptionError("a hierarchy level is listed twice")

    def handled_columns(self) -> list[str]:
        """Flat columns and every hierarchy level are encoded."""
        return list(self.columns) + list(self.hierarchy)

    def _level_width(self, i: int) -> int | None:
        if isinstance(self.width, (list, tuple)):
            if len(self.width) != len(self.hierarchy):
                raise OptionError(f"give one width per hierarchy level ({len(self.hierarchy)})")
            return int(self.width[i])
        return None if self.width is None else int(self.width)

    def fit(self, frame: pd.DataFrame) -> Encode:
        require_columns(frame.columns, self.columns + self.hierarchy)
        if isinstance(self.width, (list, tuple)) and not self.hierarchy:
            raise OptionError("a list of widths is for hierarchy levels")
        prior = _check_crosswalk(self._prior)
        rng = self._random.rng("encode", *self.columns, "|", *self.hierarchy)
        prefixes = {c: code_prefix(self._random, c) for c in self.columns}
        self._fitted_rows = None
        if not self.hierarchy and not len(prior):
            fast = _flat_crosswalk(frame, self.columns, self.width, prefixes)
            if fast is not None:
                self.crosswalk_, self._fitted_rows = fast
                return self
        rows = [prior]
        for col in self.columns:
            rows.append(
                self._fit_level(
                    col,
                    "",
                    value_keys(frame[col].dropna()),
                    prior,
                    prefixes[col],
                    None if isinstance(self.width, (list, tuple)) else self.width,
                )
            )
        parent_codes = pd.Series("", index=frame.index, dtype=object)
        for i, col in enumerate(self.hierarchy):
            keys = frame[col].map(value_key).where(frame[col].notna())
            known = pd.concat(rows, ignore_index=True)
            level = self._fit_hier_level(col, keys, parent_codes, known, rng, self._level_width(i))
            rows.append(level)
            lookup = {
                (p, v): c
                for p, v, c in known[known["column"] == col][
                    ["parent", "value", "code"]
                ].itertuples(index=False)
            }
            lookup.update(
                {
                    (p, v): c
                    for p, v, c in level[["parent", "value", "code"]].itertuples(index=False)
                }
            )
            parent_codes = pd.Series(
                [
                    lookup.get((p, v)) if isinstance(v, str) and isinstance(p, str) else None
                    for p, v in zip(parent_codes, keys, strict=True)
                ],
                index=frame.index,
                dtype=object,
            )
        # reindex: an all-missing column adds a frame without columns (nothing to encode)
        cw = pd.concat(rows, ignore_index=True).reindex(columns=CROSSWALK_COLUMNS)
        # Python-level de-duplication: pandas' string hashing stops at NUL characters.
        seen: set[tuple] = set()
        first: list[bool] = []
        for k in zip(cw["column"], cw["parent"], cw["value"], strict=True):
            first.append(k not in seen)
            seen.add(k)
        cw = cw[pd.Series(first, index=cw.index, dtype=bool)]  # a bare [] would select columns
        order = {c: i for i, c in enumerate(self.columns + self.hierarchy)}
        cw = cw.assign(_o=cw["column"].map(lambda c: order.get(c, len(order))))
        self.crosswalk_ = (
            cw.sort_values(["_o", "code"], kind="stable")
            .drop(columns="_o")
            .reset_index(drop=True)
            .pipe(_as_text)
        )
        return self

    @staticmethod
    def _fit_level(col, parent, keys: pd.Series, prior, prefix: str, width) -> pd.DataFrame:
        """A flat column's new values, in their keyed order, get the next free codes."""
        old = prior[(prior["column"] == col) & (prior["parent"] == parent)]
        existing_width = int(old["code"].str.len().max()) if len(old) else None
        new = list(set(keys) - set(old["value"]))
        new = [new[i] for i in keyed_order(new, prefix)]
        w = _width_for(len(old) + len(new), width, existing_width, col)
        codes = draw_codes(len(new), {int(c) for c in old["code"]}, w, None)
        return pd.DataFrame(
            {
                "column": col,
                "parent": parent,
                "value": new,
                "code": np.char.zfill(np.asarray(codes, dtype=np.int64).astype(str), w).tolist(),
            },
            dtype=object,
        )

    @staticmethod
    def _fit_hier_level(col, keys, parent_codes, known, rng, width) -> pd.DataFrame:
        """Local codes per parent, one width for the whole level; full code = parent + local."""
        old = known[known["column"] == col]
        existing_width = (
            int((old["code"].str.len() - old["parent"].str.len()).max()) if len(old) else None
        )
        ok = keys.notna() & parent_codes.notna()
        pairs = sorted(set(zip(parent_codes[ok], keys[ok], strict=True)))
        by_parent: dict[str, list[str]] = {}
        for p, v in pairs:
            by_parent.setdefault(p, []).append(v)
        old_by_parent = {p: g for p, g in old.groupby("parent")} if len(old) else {}
        need = max(
            [
                len(set(vs) | set(old_by_parent.get(p, pd.DataFrame(columns=["value"]))["value"]))
                for p, vs in by_parent.items()
            ]
            or [1]
        )
        w = _width_for(need, width, existing_width, col)
        out = []
        for p, vs in by_parent.items():
            og = old_by_parent.get(p)
            old_vals = set(og["value"]) if og is not None else set()
            taken = {int(c[len(p) :]) for c in og["code"]} if og is not None else set()
            new = [v for v in vs if v not in old_vals]
            for v, c in zip(new, draw_codes(len(new), taken, w, rng), strict=True):
                out.append((col, p, v, p + str(c).zfill(w)))
        return pd.DataFrame(out, columns=CROSSWALK_COLUMNS, dtype=object)

    crosswalk_columns: ClassVar[list[str]] = CROSSWALK_COLUMNS

    def keyed_only(self) -> bool:
        """Whether the codes come from the key and the values alone (flat columns, no earlier
        crosswalk): then Spark computes them per value."""
        return not self.hierarchy and not len(_check_crosswalk(self._prior))

    def code_prefix(self, column: str) -> str:
        """The secret that orders ``column``'s values (``keyed_order``)."""
        return code_prefix(self._random, column)

    def code_width(self, n: int, column: str) -> int:
        """The width of a flat column's codes for ``n`` distinct values (refused when too many)."""
        if isinstance(self.width, (list, tuple)):
            raise OptionError("a list of widths is for hierarchy levels")
        width = _width_for(n, self.width, None, column)
        check_capacity(n, 0, width)
        return width

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table: each flat column's codes computed per value from the key on the
        executors, the crosswalk kept by Spark (``hidekit.transforms.spark_encode``); the same
        codes as the default engine. Hierarchies and earlier crosswalks go through ``fit``."""
        from hidekit.transforms.spark_encode import spark_encode

        return spark_encode(self, table, fit)

    def fit_transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``fit`` then ``transform`` on the same frame; on the Arrow path of flat columns, each
        value's code is taken from the rows ``fit`` found for it (no second lookup)."""
        self.fit(frame)
        rows, self._fitted_rows = self._fitted_rows, None
        if rows is None:
            return self.transform(frame)
        codes = self.crosswalk_["code"].to_numpy(dtype=object)
        out = frame.copy()
        for col in self.columns:
            present, at = rows[col]
            column = np.full(len(frame), None, dtype=object)
            column[present] = codes[at]
            out[col] = pd.Series(column, index=frame.index, dtype=object)
        return out

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "crosswalk_"):
            raise OptionError("encode: call fit before transform")
        require_columns(frame.columns, self.columns + self.hierarchy)
        cw = self.crosswalk_
        out = frame.copy()
        for col in self.columns:
            m = cw[(cw["column"] == col) & (cw["parent"] == "")]
            out[col] = self._map(frame[col], m["value"], m["code"], col)
        parent = pd.Series("", index=frame.index, dtype=object)
        for col in self.hierarchy:
            m = cw[cw["column"] == col]
            lookup = dict(zip(zip(m["parent"], m["value"], strict=True), m["code"], strict=True))
            keys = frame[col].map(value_key).where(frame[col].notna())
            codes = [
                lookup.get((p, v)) if isinstance(v, str) and isinstance(p, str) else None
                for p, v in zip(parent, keys, strict=True)
            ]
            unseen = [
                v
                for v, c, p in zip(keys, codes, parent, strict=True)
                if c is None and isinstance(v, str) and isinstance(p, str)
            ]
            if unseen:
                raise InputError(f"{col}: {len(unseen)} value(s) not in the crosswalk; fit again")
            parent = pd.Series(codes, index=frame.index, dtype=object)
            out[col] = parent
        return out

    @staticmethod
    def _map(s: pd.Series, values: pd.Series, codes_of: pd.Series, col: str) -> pd.Series:
        """Each value's code (missing stays missing): one Arrow hash lookup when every value is
        present and plain text, else through a dictionary."""
        keys = value_keys(s)
        if keys.notna().all():
            try:
                found = pc.index_in(
                    pa.array(keys.to_numpy(dtype=object), pa.string()),
                    value_set=pa.array(values.to_numpy(dtype=object), pa.string()),
                )
            except (pa.ArrowException, UnicodeEncodeError):
                found = None
            if found is not None and found.null_count == 0:
                at = found.to_numpy(zero_copy_only=False)
                return pd.Series(codes_of.to_numpy(dtype=object)[at], index=s.index, dtype=object)
        mapping = dict(zip(values, codes_of, strict=True))
        if _hash_safe(s):  # no NUL anywhere: pandas' hashed lookup is exact
            codes = keys.map(mapping)
        else:
            codes = keys.map(lambda k: mapping.get(k) if isinstance(k, str) else None)
        unseen = keys.notna() & codes.isna()
        if unseen.any():
            raise InputError(f"{col}: {int(unseen.sum())} value(s) not in the crosswalk; fit again")
        return codes.astype(object).where(codes.notna(), None)


@register("redact")
class Redact(Transform):
    """Every present value becomes the same constant (missing stays missing), as LSMS does."""

    spark_scope: ClassVar[str] = "rows"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "column(s) whose every present value becomes the constant",
        "constant": "the replacement text",
    }

    def __init__(self, columns=(), constant: str = "XXXX"):
        self.columns = _as_list(columns)
        self.constant = constant
        if not self.columns:
            raise OptionError("redact needs at least one column")

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            out[col] = frame[col].astype(object).where(frame[col].isna(), self.constant)
        return out


@register("remove")
class Remove(Transform):
    """Drop the columns altogether."""

    spark_scope: ClassVar[str] = "spark"  # a select: no record goes through Python
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "column(s) to drop",
    }

    def __init__(self, columns=()):
        self.columns = _as_list(columns)
        if not self.columns:
            raise OptionError("remove needs at least one column")

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        return frame.drop(columns=self.columns)

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table (``hidekit.engines.spark_steps.SparkTable``): the other columns kept."""
        from hidekit.engines.spark_steps import SparkTable

        self.check_params()
        require_columns(table.columns, self.columns)
        kept = {c: t for c, t in table.dtypes.items() if c not in self.columns}
        return SparkTable(table.sdf.drop(*self.columns), kept, [], cells={})


HMAC_KEY_MIN_BYTES = 16  # 128 bits


def _key_bytes(key) -> bytes:
    from hidekit.transforms.crosswalk import check_key_strength

    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)) or not key:
        raise OptionError(
            "keyed hashing needs a non-empty secret key (an unsalted hash of a name "
            "or ID can be reversed by hashing every candidate)"
        )
    return check_key_strength(bytes(key), "the hash key", HMAC_KEY_MIN_BYTES)


@register("hash")
class KeyedHash(Transform):
    """HMAC-SHA256 of each value under a secret key: same value → same token, no key → no lookup."""

    spark_scope: ClassVar[str] = "rows"
    param_docs: ClassVar[dict[str, str]] = {
        "columns": "column(s) to hash",
        "key": "the secret HMAC key (plans: the [secrets] key; a key written in a plan is refused)",
    }

    def __init__(self, columns=(), key=None):
        self.columns = _as_list(columns)
        self._key = _key_bytes(key)  # private: never in get_params / audit logs
        if not self.columns:
            raise OptionError("hash needs at least one column")

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        require_columns(frame.columns, self.columns)
        out = frame.copy()
        for col in self.columns:
            s = frame[col]
            uniq = {
                k: hmac.new(self._key, k.encode("utf-8"), hashlib.sha256).hexdigest()
                for k in s.dropna().map(value_key).unique()
            }
            keys = s.map(value_key).where(s.notna())
            tokens = keys.map(uniq)
            out[col] = tokens.astype(object).where(tokens.notna(), None)
        return out


def code_width(n: int) -> int:
    """Digits needed for ``n`` codes (exposed for plans that fix widths up front)."""
    return _digits(n) if n > 0 else 1
