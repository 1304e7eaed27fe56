"""PySpark engine: the same questions as DuckDB, for data that outgrows one machine.

All key sets of a step are counted in one job with GROUPING SETS; ``grouping_id`` tells which
set each cell belongs to. Missing values group together, as in the DuckDB engine.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from hidekit.engines.base import (
    COUNT_COLUMN,
    CellStats,
    Engine,
    check_cell_min,
    numeric_values,
    register_engine,
)
from hidekit.errors import InputError
from hidekit.io.dataset import as_text

_ROW = "__hidekit_row"
SPARK_NATIVE = (".csv", ".tsv", ".txt", ".parquet", ".pq")  # files Spark reads itself


def _bq(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


# Spark's JVM logs WARN lines (native-hadoop, default log level) on stderr before the session
# exists, so setLogLevel comes too late: give the driver a log4j2 configuration that only lets
# errors through, from the first line on.
_LOG4J2 = """\
status = error
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""


SECRET_IN_PLAN = "(?i)[0-9a-f]{64}"  # a keyed step's secret as it stands in a plan: redacted


def java_command() -> str | None:
    """The ``java`` Spark will start: ``$JAVA_HOME/bin/java``, else the one on ``PATH``."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        return str(candidate) if candidate.is_file() else None
    return shutil.which("java")


def _quiet_log_config() -> str:
    path = Path(tempfile.gettempdir()) / f"hidekit-spark-log4j2-{os.getuid()}.properties"
    if not path.is_file() or path.read_text() != _LOG4J2:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(_LOG4J2)
        os.replace(tmp, path)
    return path.as_uri()


@lru_cache(maxsize=1)
def get_spark(master: str | None = None):
    """A shared local SparkSession, quiet and small (tests and single machines)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:  # pragma: no cover - depends on install
        raise InputError("the Spark engine needs PySpark: pip install 'hidekit[spark]'") from exc
    if java_command() is None:
        where = "JAVA_HOME has no bin/java" if os.environ.get("JAVA_HOME") else "no java on PATH"
        raise InputError(
            f"the Spark engine needs Java 17 ({where}): install a JDK or use --engine duckdb"
        )
    master = master or os.environ.get("HIDEKIT_SPARK_MASTER", "local[2]")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Python workers (pandas UDFs) must run this interpreter, the one that has hidekit installed
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = {
        "spark.master": master,
        "spark.app.name": "hidekit",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": os.environ.get("HIDEKIT_SPARK_PARTITIONS", "4"),
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.driver.memory": os.environ.get("HIDEKIT_SPARK_MEMORY", "2g"),
        "spark.sql.session.timeZone": "UTC",
        # keyed steps write their secret (64 hex digits: ``Randomness.subkey``) into the query
        # plan as a literal; plans are printed by explain, logged and kept in event logs
        "spark.sql.redaction.string.regex": SECRET_IN_PLAN,
    }
    _launch_quiet_gateway(settings)
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# Lines the JVM prints on stderr at start-up whatever log4j is told (Spark's own println).
_JVM_NOISE = ("Setting default log level to", "To adjust logging level use sc.setLogLevel")


def _launch_quiet_gateway(settings: dict) -> None:
    """Start Spark's JVM with its stderr read by a thread that drops start-up noise (WARN lines,
    "Setting default log level") and passes everything else on: an error stays the one line."""
    import subprocess
    import threading

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway:
            return
        conf = SparkConf(loadDefaults=False).setAll(list(settings.items()))
        submit = os.environ.get("PYSPARK_SUBMIT_ARGS")
        if submit is None:  # the driver JVM is started by spark-submit: its options go there
            os.environ["PYSPARK_SUBMIT_ARGS"] = (
                f"--driver-java-options -Dlog4j2.configurationFile={_quiet_log_config()} "
                "pyspark-shell"
            )
        try:
            gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
        except Exception as exc:  # Java exited before the gateway came up
            raise InputError(f"the Spark engine could not start Java: {exc}") from None
        finally:
            if submit is None:
                os.environ.pop("PYSPARK_SUBMIT_ARGS", None)
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.stderr is not None:
        threading.Thread(target=_forward_stderr, args=(proc.stderr,), daemon=True).start()


def _forward_stderr(stream) -> None:
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace")
        if line.startswith(_JVM_NOISE) or " WARN " in line[:40]:
            continue
        sys.stderr.write(line)
        sys.stderr.flush()


def _spark_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Object columns become strings (None stays missing) so Spark infers one type per column."""
    out = frame.copy()
    for col in out.columns:
        s = out[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            s = s.astype(object)
        if s.dtype == object:
            s = as_text(s)
        out[col] = s
    return out


@register_engine("spark")
class SparkEngine(Engine):
    name = "spark"

    @classmethod
    def open(cls, data, sep: str | None = None) -> SparkEngine:
        """Files Spark reads itself are not copied through the driver; the rest are read once."""
        if isinstance(data, (str, Path)) and Path(data).suffix.lower() in SPARK_NATIVE:
            return cls.from_path(data, sep=sep)
        return super().open(data, sep=sep)

    def __init__(self, data, spark=None, cache=True):
        self._spark = spark or get_spark()
        from pyspark.sql import DataFrame as SparkDataFrame
        from pyspark.sql import functions as F

        if isinstance(data, SparkDataFrame):
            sdf = data
        else:
            sdf = self._spark.createDataFrame(
                _spark_ready(pd.DataFrame(data).reset_index(drop=True))
            )
            # Row order of a pandas frame survives through an explicit row number.
        if _ROW not in sdf.columns:
            sdf = sdf.withColumn(_ROW, F.monotonically_increasing_id())
        self._sdf = sdf.cache() if cache else sdf
        self._n = None
        self._view = f"hidekit_{id(self)}"
        self._sdf.createOrReplaceTempView(self._view)

    @classmethod
    def from_path(cls, path, sep: str | None = None, spark=None) -> SparkEngine:
        """Read CSV or Parquet with Spark itself, for files larger than the driver's memory."""
        from hidekit.io.files import read_head_text
        from hidekit.io.readers import detect_delimiter

        spark = spark or get_spark()
        path = str(path)
        if not Path(path).exists():
            raise InputError(f"{path}: no such file")
        if path.endswith((".parquet", ".pq")):
            return cls(spark.read.parquet(path), spark)
        head = read_head_text(path)
        if not head.strip():
            raise InputError(f"{path}: the file is empty")
        # every column as text: leading zeros of ZIP codes and IDs are part of the value
        reader = spark.read.option("header", True).option("encoding", "UTF-8")
        return cls(reader.csv(path, sep=sep or detect_delimiter(head), inferSchema=False), spark)

    @property
    def columns(self) -> list[str]:
        return [c for c in self._sdf.columns if c != _ROW]

    @property
    def n_records(self) -> int:
        if self._n is None:
            self._n = int(self._sdf.count())
        return self._n

    def cell_counts(self, keys: Sequence[str]) -> pd.DataFrame:
        keys = self.check_keys(keys)
        if not keys:
            return pd.DataFrame({COUNT_COLUMN: [self.n_records]})
        out = self._sdf.groupBy(*keys).count().withColumnRenamed("count", COUNT_COLUMN)
        return out.toPandas()

    def record_cell_sizes(self, keys: Sequence[str]) -> np.ndarray:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        keys = self.check_keys(keys)
        if not keys:
            return np.full(self.n_records, self.n_records, dtype=np.int64)
        w = Window.partitionBy(*[F.col(_bq(k)) for k in keys])
        sized = self._sdf.select(_ROW, F.count(F.lit(1)).over(w).alias("size")).orderBy(_ROW)
        return sized.toPandas()["size"].to_numpy(dtype=np.int64)

    def record_weighted_sizes(
        self, keys: Sequence[str], weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        keys = self.check_keys(keys)
        weights = np.asarray(weights, dtype=np.float64)
        n = self.n_records
        if not keys:
            return np.full(n, n, dtype=np.int64), np.full(n, weights.sum())
        # the checked weights travel with their row number, so Spark sums exactly what was checked
        rows = self._sdf.select(_ROW).orderBy(_ROW).toPandas()[_ROW].to_numpy()
        wdf = self._spark.createDataFrame(
            pd.DataFrame({_ROW: rows, "__w": weights}).astype({_ROW: "int64"})
        )
        w = Window.partitionBy(*[F.col(_bq(k)) for k in keys])
        sized = (
            self._sdf.join(wdf, _ROW)
            .select(
                _ROW,
                F.count(F.lit(1)).over(w).alias("fk"),
                F.sum(F.col("__w")).over(w).alias("Fk"),
            )
            .orderBy(_ROW)
            .toPandas()
        )
        return sized["fk"].to_numpy(dtype=np.int64), sized["Fk"].to_numpy(dtype=np.float64)

    def numeric_column(self, column: str) -> np.ndarray:
        self.check_keys([column])
        values = self._sdf.select(_ROW, _bq(column)).orderBy(_ROW).toPandas()[column]
        return numeric_values(values, column)

    def record_codes(self, keys: Sequence[str]) -> np.ndarray:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        keys = self.check_keys(keys)
        if not keys:
            return np.empty((self.n_records, 0), dtype=np.int64)
        cols = [
            F.when(F.col(_bq(k)).isNull(), F.lit(-1))
            .otherwise(F.dense_rank().over(Window.orderBy(F.col(_bq(k)))))
            .alias(f"__c{i}")
            for i, k in enumerate(keys)
        ]
        codes = self._sdf.select(_ROW, *cols).orderBy(_ROW).toPandas()
        return codes[[f"__c{i}" for i in range(len(keys))]].to_numpy(dtype=np.int64)

    def keyset_stats(self, keysets: Sequence[Sequence[str]], cell_min: int) -> list[CellStats]:
        cell_min = check_cell_min(cell_min)
        keysets = [self.check_keys(ks) for ks in keysets]
        if not keysets:
            return []
        n = self.n_records
        if n == 0:
            return [CellStats(tuple(ks), 0, 0, 0, 0, 0, cell_min) for ks in keysets]
        if not any(keysets):  # only empty key sets: one cell of every record
            return [CellStats.from_sizes((), np.array([n]), cell_min) for _ in keysets]
        sets: list[frozenset] = []
        for ks in keysets:
            if frozenset(ks) not in sets:
                sets.append(frozenset(ks))
        # grouping_id's arguments must follow Spark's order of grouping columns: first appearance
        universe: list[str] = []
        for s in sets:
            universe += [c for c in sorted(s, key=self.columns.index) if c not in universe]
        width = len(universe)

        def gid(s: frozenset) -> int:  # grouping_id: bit set where the column is rolled up
            return sum(1 << (width - 1 - i) for i, c in enumerate(universe) if c not in s)

        cols = ", ".join(_bq(c) for c in universe)
        grouping = ", ".join(
            "(" + ", ".join(_bq(c) for c in sorted(s, key=self.columns.index)) + ")" for s in sets
        )
        sql = (
            f"SELECT gid, count(*) AS cells, min(n) AS k, sum(CASE WHEN n = 1 THEN 1 ELSE 0 END) AS uniques, "
            f"sum(CASE WHEN n < {cell_min} THEN n ELSE 0 END) AS at_risk FROM ("
            f"SELECT grouping_id({cols}) AS gid, count(*) AS n FROM {self._view} "
            f"GROUP BY GROUPING SETS ({grouping})) GROUP BY gid"
        )
        rows = {int(r["gid"]): r for r in self._spark.sql(sql).collect()}
        out = []
        for ks in keysets:
            r = rows[gid(frozenset(ks))]
            out.append(
                CellStats(
                    tuple(ks),
                    n,
                    int(r["cells"]),
                    int(r["k"]),
                    int(r["uniques"]),
                    int(r["at_risk"]),
                    cell_min,
                )
            )
        return out

    def split(self, by: str) -> list[tuple[object, Engine]]:
        from pyspark.sql import functions as F

        self.check_keys([by])
        values = [r[0] for r in self._sdf.select(by).distinct().collect()]
        values.sort(key=lambda v: (v is None, str(type(v)), v if v is not None else 0))
        return [
            (v, SparkEngine(self._sdf.filter(F.col(_bq(by)).eqNullSafe(v)), self._spark))
            for v in values
        ]
