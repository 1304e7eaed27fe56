"""Geographic masking the DHS way (Burgert et al. 2013, as summarised in the J-PAL guide).

Points of one cluster (enumeration area, village) are first aggregated to one point, their mean;
then each cluster point is displaced in a random direction by a random distance: urban clusters up
to 2 km, rural clusters up to 5 km, and a random 1% of rural clusters up to 10 km. Every record of a
cluster gets the same displaced point. With a GeoJSON boundary file, a draw that leaves the area
(feature) holding the cluster point is redrawn, so the point stays in its district. The draws come
from a secret key: each cluster's are a keyed BLAKE2b of a subkey of the step (``hidekit.secrets``)
and the cluster's own name (its value in the cluster column, else the record's row number), so the
same key gives the same points however the records are split (Spark partitions, chunks), and
without the key nobody can replay them. Without a key they come fresh from the OS. A plain seed is
refused unless ``insecure_seed`` says it is only for tests or synthetic data: with the seed anyone
can re-run the draws and subtract them.

Which clusters are urban is read from the ``urban`` column through its value labels when the file
has them (Stata/SPSS: ``0 = Urban, 1 = Rural`` is read as labelled, not as "1 is urban"), else
from its values, in several languages ("Urbano", "urbain", "rural"); ``urban_codes`` says it
explicitly. A value that cannot be told is an error; ``decisions_`` records which code was taken
as which, for the audit (``hidekit.transforms.labels``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hidekit.errors import InputError, OptionError, require_columns
from hidekit.io.files import read_utf8
from hidekit.secrets import randomness
from hidekit.transforms.base import Transform, register
from hidekit.transforms.generalize import value_key
from hidekit.transforms.keyed_hash import keyed_blake2b_words
from hidekit.transforms.labels import classify_codes

log = logging.getLogger("hidekit.transforms")

EARTH_RADIUS_KM = 6371.0088


def check_coordinates(lat: np.ndarray, lon: np.ndarray, lat_col: str, lon_col: str) -> None:
    """Latitudes in [-90, 90] and longitudes in [-180, 180], or a clear error naming a bad one."""
    for name, v, lim in ((lat_col, lat, 90.0), (lon_col, lon, 180.0)):
        bad = np.flatnonzero(np.abs(np.nan_to_num(v)) > lim)
        if bad.size:
            raise out_of_range(name, v[bad[0]], int(bad[0]), lim)


def out_of_range(column: str, value, row: int, limit: float) -> InputError:
    """The error for a coordinate beyond ``limit`` (row counted from 0)."""
    return InputError(
        f"coordinate out of range in {column!r}: {value} (row {row + 1}; "
        f"allowed -{limit:g} to {limit:g})"
    )


def destination(lat, lon, bearing, km):
    """Point reached from (lat, lon) going ``km`` along a great circle at ``bearing`` (radians)."""
    p1, l1, d = np.radians(lat), np.radians(lon), np.asarray(km) / EARTH_RADIUS_KM
    p2 = np.arcsin(np.sin(p1) * np.cos(d) + np.cos(p1) * np.sin(d) * np.cos(bearing))
    l2 = l1 + np.arctan2(
        np.sin(bearing) * np.sin(d) * np.cos(p1), np.cos(d) - np.sin(p1) * np.sin(p2)
    )
    return np.degrees(p2), (np.degrees(l2) + 540.0) % 360.0 - 180.0


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0, 1)))


# Boundaries -----------------------------------------------------------------
def read_boundaries(path) -> list[list[list[np.ndarray]]]:
    """GeoJSON features as polygons: per area, a list of polygons, each [outer ring, holes...]."""
    path = Path(path)
    try:
        data = json.loads(read_utf8(path))
    except FileNotFoundError:
        raise InputError(f"boundary file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"boundary file {path} is not valid GeoJSON: {exc}") from None
    features = data.get("features") if data.get("type") == "FeatureCollection" else [data]
    areas = []
    for f in features or []:
        geom = f.get("geometry", f) if isinstance(f, dict) else None
        if not geom:
            continue
        kind = geom.get("type")
        if kind == "Polygon":
            polys = [geom["coordinates"]]
        elif kind == "MultiPolygon":
            polys = geom["coordinates"]
        else:
            continue
        areas.append([[np.asarray(ring, dtype=float)[:, :2] for ring in poly] for poly in polys])
    if not areas:
        raise InputError(f"boundary file {path} holds no Polygon or MultiPolygon features")
    return areas


def _in_ring(x: np.ndarray, y: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """Even-odd ray casting, vectorised over points (x = lon, y = lat)."""
    inside = np.zeros(x.shape, dtype=bool)
    xs, ys = ring[:, 0], ring[:, 1]
    for i in range(len(ring)):
        x1, y1, x2, y2 = xs[i - 1], ys[i - 1], xs[i], ys[i]
        if y1 == y2:
            continue
        crosses = (y1 > y) != (y2 > y)
        xint = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (x < xint)
    return inside


def in_area(lon: np.ndarray, lat: np.ndarray, area) -> np.ndarray:
    """Whether each point lies in the area (any polygon: inside the outer ring, outside its holes)."""
    hit = np.zeros(np.shape(lon), dtype=bool)
    for rings in area:
        inside = _in_ring(lon, lat, rings[0])
        for hole in rings[1:]:
            inside &= ~_in_ring(lon, lat, hole)
        hit |= inside
    return hit


def area_of(lon: np.ndarray, lat: np.ndarray, areas) -> np.ndarray:
    """Index of the first area holding each point, -1 where none does."""
    out = np.full(np.shape(lon), -1, dtype=np.int64)
    for i, area in enumerate(areas):
        free = out == -1
        if not free.any():
            break
        out[free] = np.where(in_area(lon[free], lat[free], area), i, -1)
    return out


# The transform -----------------------------------------------------------------
@register("jitter")
class Jitter(Transform):
    """Aggregate to cluster points, then displace them the DHS way; see the module docstring."""

    param_docs: ClassVar[dict[str, str]] = {
        "lat": "latitude column",
        "lon": "longitude column",
        "urban": "column saying urban or rural (read through its value labels when the file has them)",
        "urban_codes": 'explicit table value = "urban" or "rural" (wins over labels and values)',
        "value_labels": "code = label of the urban column (default: the file's own value labels)",
        "cluster": "cluster column: points of a cluster are aggregated to their mean first",
        "urban_km": "largest displacement of an urban cluster, km",
        "rural_km": "largest displacement of a rural cluster, km",
        "rural_far_km": "largest displacement of the far rural share, km",
        "rural_far_share": "share of rural clusters displaced up to rural_far_km",
        "boundaries": "GeoJSON file of areas a point must stay in (plan-relative)",
        "seed": "tests and synthetic data only (needs insecure_seed): seed of the displacements",
        "insecure_seed": "accept seed (anyone who knows it can re-run and subtract the jitter)",
        "key": "the secret key that draws the displacements (plans: [secrets]; never written)",
        "max_tries": "redraws allowed for a point to stay in its area",
    }
    spark_scope: ClassVar[str] = "spark"  # fitted on aggregates, records displaced on executors

    def __init__(
        self,
        lat: str = "latitude",
        lon: str = "longitude",
        urban: str | None = None,
        urban_codes: Mapping | None = None,
        value_labels: Mapping | None = None,
        cluster: str | None = None,
        urban_km: float = 2.0,
        rural_km: float = 5.0,
        rural_far_km: float = 10.0,
        rural_far_share: float = 0.01,
        boundaries: str | None = None,
        seed: int | None = None,
        max_tries: int = 1000,
        insecure_seed: bool = False,
        key=None,
    ):
        self.lat, self.lon, self.urban, self.cluster = lat, lon, urban, cluster
        self.urban_codes = dict(urban_codes) if urban_codes is not None else None
        self.value_labels = dict(value_labels) if value_labels is not None else None
        if self.urban_codes is not None and not urban:
            raise OptionError("jitter: urban_codes needs the urban column (urban = ...)")
        self.urban_km, self.rural_km, self.rural_far_km = urban_km, rural_km, rural_far_km
        self.rural_far_share = rural_far_share
        self.boundaries = boundaries
        self.seed, self.insecure_seed = seed, bool(insecure_seed)
        self._random = randomness(key, seed, insecure_seed, "jitter")  # private: holds the key
        self.max_tries = int(max_tries)
        for name in ("urban_km", "rural_km", "rural_far_km"):
            if not float(getattr(self, name)) > 0:
                raise OptionError(f"jitter: {name} must be positive, got {getattr(self, name)}")
        if not 0 <= float(rural_far_share) <= 1:
            raise OptionError(
                f"jitter: rural_far_share must be between 0 and 1, got {rural_far_share}"
            )

    def with_value_labels(self, labels: Mapping[str, Mapping]) -> Jitter:
        """This step reading the urban column through the file's value labels (unless given)."""
        if not self.urban or self.value_labels is not None or self.urban not in labels:
            return self
        params = {**self.get_params(), "value_labels": dict(labels[self.urban])}
        if self.seed is None:  # the secret key is no public parameter: it is carried over
            params["key"] = self._random
        return type(self)(**params)

    def handled_columns(self) -> list[str]:
        """The coordinates are what jitter protects (the urban and cluster columns are read)."""
        return [self.lat, self.lon]

    def _columns(self) -> list[str]:
        return [c for c in (self.lat, self.lon, self.urban, self.cluster) if c]

    def fit(self, frame: pd.DataFrame) -> Jitter:
        require_columns(frame.columns, self._columns())
        self.fit_urban(frame[self.urban] if self.urban else None)
        lat, lon = self._coords(frame)
        self.note_missing(int((np.isnan(lat) | np.isnan(lon)).sum()))
        return self

    def fit_urban(self, values: pd.Series | None) -> None:
        """Boundaries read, and each value of the urban column (``values``: its distinct values
        in order of first appearance are enough) told urban or rural."""
        self.areas_ = read_boundaries(self.boundaries) if self.boundaries else None
        self.warnings_: list[str] = []
        self.decisions_: dict = {}
        self.urban_codes_: dict[str, str] = {}
        if self.urban and values is not None:
            self.urban_codes_, self.decisions_["urban"] = classify_codes(
                values, self.urban, labels=self.value_labels, mapping=self.urban_codes
            )

    def note_missing(self, missing: int) -> None:
        """The warning for ``missing`` records without coordinates (they stay without)."""
        if missing:
            msg = f"jitter: {missing} record(s) without coordinates stay without"
            log.warning(msg)
            self.warnings_.append(msg)

    out_of_range = staticmethod(out_of_range)

    def spark_apply(self, table, fit: bool = True):
        """On a Spark table: fitted on aggregates, every record displaced on the executors
        (``hidekit.transforms.spark_jitter``); the same points as on the default engine."""
        from hidekit.transforms.spark_jitter import spark_jitter

        return spark_jitter(self, table, fit)

    def _coords(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        cols = []
        for c in (self.lat, self.lon):
            s = frame[c]
            v = pd.to_numeric(s, errors="coerce")
            bad = s.notna() & v.isna()
            if bad.any():
                raise InputError(
                    f"coordinate column {c!r} must be numeric; found {s[bad].iloc[0]!r}"
                )
            cols.append(v.to_numpy(dtype=float))
        check_coordinates(cols[0], cols[1], self.lat, self.lon)
        return cols[0], cols[1]

    def displacement(
        self, frame: pd.DataFrame, rows: np.ndarray | None = None
    ) -> tuple[pd.DataFrame, np.ndarray]:
        """Per cluster: its point, urban or not, the maximum and displaced point; cluster id per
        record. ``rows``: the records' row numbers in the whole table (default 0..n-1), which name
        a record's own cluster when there is no cluster column."""
        if not hasattr(self, "areas_"):
            raise OptionError("jitter: call fit (or fit_transform) before transform")
        require_columns(frame.columns, self._columns())
        lat, lon = self._coords(frame)
        ok = ~(np.isnan(lat) | np.isnan(lon))
        if rows is None:
            rows = np.arange(len(frame))
        cl = frame[self.cluster] if self.cluster else pd.Series(rows, index=frame.index)
        ids, names = pd.factorize(cl.where(pd.Series(ok, index=frame.index)), use_na_sentinel=True)
        n = int(ids.max()) + 1 if ids.size else 0
        keep = ids >= 0
        counts = np.bincount(ids[keep], minlength=n)
        clat = np.bincount(ids[keep], weights=lat[keep], minlength=n) / np.maximum(counts, 1)
        clon = _mean_longitude(ids[keep], lon[keep], n)
        urban = np.zeros(n, dtype=bool)
        if self.urban:
            cats = self._urban_categories(frame[self.urban])
            if (frame[self.urban].notna() & cats.isna()).any():
                first = frame[self.urban][frame[self.urban].notna() & cats.isna()].iloc[0]
                raise OptionError(
                    f"jitter: value {first!r} of {self.urban!r} was not seen in fit: "
                    "refit, or name it in urban_codes"
                )
            is_urban = (cats == "urban").to_numpy()
            urban = np.bincount(ids[keep], weights=is_urban[keep], minlength=n) > counts / 2
        tags = _cluster_tags(names, bool(self.cluster))
        first = self._uniforms(tags, 0)
        far = first[:, 0] < float(self.rural_far_share)
        limit = np.where(
            urban,
            float(self.urban_km),
            np.where(far, float(self.rural_far_km), float(self.rural_km)),
        )
        new_lat, new_lon = self._draw(tags, first, clat, clon, limit)
        return pd.DataFrame(
            {
                "cluster_lat": clat,
                "cluster_lon": clon,
                "urban": urban,
                "max_km": limit,
                "lat": new_lat,
                "lon": new_lon,
                "records": counts,
            }
        ), ids

    def _urban_categories(self, values: pd.Series) -> pd.Series:
        """ "urban" / "rural" / None per record, judged once per distinct value where values
        of one kind make that exact (True and 1 would share a code)."""
        codes = self.urban_codes_

        def category(v):
            return None if (k := value_key(v)) is None else codes.get(k)

        kind = pd.api.types.infer_dtype(values, skipna=True)
        if kind not in ("string", "integer", "floating", "empty"):
            return values.map(category)
        at, uniques = pd.factorize(values)
        cats = np.array([category(u) for u in uniques] + [None], dtype=object)
        return pd.Series(cats[at], index=values.index, dtype=object)

    def _uniforms(self, tags: pa.Array, draw: int) -> np.ndarray:
        """Four uniforms in [0, 1) per cluster for its ``draw``-th try: a keyed BLAKE2b of
        "draw:tag" (``tags``: ``_cluster_tags``), so they depend on the key and the cluster only
        (not on the others); the key block hashed once (``keyed_hash``)."""
        key = self._random.subkey("jitter", self.lat, self.lon)
        words = keyed_blake2b_words(tags, key, f"{draw}:".encode())
        return (words >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def _draw(self, tags, first, clat, clon, limit):
        n = clat.size
        home = area_of(clon, clat, self.areas_) if self.areas_ is not None else np.full(n, -1)
        new_lat, new_lon = np.empty(n), np.empty(n)
        todo = np.arange(n)
        for t in range(self.max_tries):
            if todo.size == 0:
                break
            u = first[todo, 1:3] if t == 0 else self._uniforms(tags.take(pa.array(todo)), t)[:, :2]
            bearing = 2 * np.pi * u[:, 0]
            km = u[:, 1] * limit[todo]
            la, lo = destination(clat[todo], clon[todo], bearing, km)
            good = np.ones(todo.size, dtype=bool)
            if self.areas_ is not None:
                for a in np.unique(home[todo]):
                    if a < 0:
                        continue
                    sel = home[todo] == a
                    good[sel] = in_area(lo[sel], la[sel], self.areas_[a])
            new_lat[todo[good]], new_lon[todo[good]] = la[good], lo[good]
            todo = todo[~good]
        if todo.size:
            raise InputError(
                f"jitter: {todo.size} cluster point(s) could not be displaced inside "
                f"their boundary area in {self.max_tries} draws (first at "
                f"{clat[todo[0]]:.5f}, {clon[todo[0]]:.5f})"
            )
        return new_lat, new_lon

    def transform(self, frame: pd.DataFrame, rows: np.ndarray | None = None) -> pd.DataFrame:
        """Every record's coordinates replaced by its cluster's displaced point (``rows``: see
        ``displacement``)."""
        table, ids = self.displacement(frame, rows)
        out = frame.copy(deep=False)  # the coordinates are replaced, not written into
        keep = ids >= 0
        lat = np.full(len(frame), np.nan)
        lon = np.full(len(frame), np.nan)
        lat[keep] = table["lat"].to_numpy()[ids[keep]]
        lon[keep] = table["lon"].to_numpy()[ids[keep]]
        out[self.lat] = lat
        out[self.lon] = lon
        return out


def _cluster_tags(names, clustered: bool) -> pa.Array:
    """Each cluster's name as its draws are keyed (UTF-8 bytes): ``c`` + its value, or ``r`` +
    the record's row number (written as ``value_key`` writes it, by Arrow for whole numbers)."""
    if not clustered:
        rows = np.asarray(names, dtype=np.float64)
        if len(rows) and np.all(rows == np.floor(rows)) and np.abs(rows).max() < 2**53:
            text = pc.cast(pa.array(rows.astype(np.int64)), pa.string())
            return pc.binary_join_element_wise("r", text, "").cast(pa.binary())
    mark = "c" if clustered else "r"
    return pa.array([(mark + str(value_key(v))).encode() for v in names], pa.binary())


def _mean_longitude(ids: np.ndarray, lon: np.ndarray, n: int) -> np.ndarray:
    """Mean longitude per cluster through unit vectors, so clusters across ±180° average right."""
    r = np.radians(lon)
    s = np.bincount(ids, weights=np.sin(r), minlength=n)
    c = np.bincount(ids, weights=np.cos(r), minlength=n)
    return np.degrees(np.arctan2(s, c))
