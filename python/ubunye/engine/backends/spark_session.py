"""Finding or starting the SparkSession, and asking Delta for versions."""
from __future__ import annotations

import importlib.util
import logging
import os
import sys
from typing import Any, Mapping, Optional

log = logging.getLogger("ubunye.engine")

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"


def delta_installed() -> bool:
    """True when the ``delta-spark`` Python package is installed."""
    return importlib.util.find_spec("delta") is not None


def _add_extension(builder: Any, extension: str) -> Any:
    from ubunye.spark._compat import builder_options

    current = builder_options(builder).get("spark.sql.extensions", "")
    parts = [p for p in str(current).split(",") if p]
    if extension not in parts:
        parts.append(extension)
    return builder.config("spark.sql.extensions", ",".join(parts))


def build_session(time_zone: Optional[str], spark_conf: Mapping[str, str]) -> Any:
    """A local session (``local[2]`` unless the config says) with the plugin jar and Delta."""
    from pyspark.sql import SparkSession

    # Python workers (the hash fallback runs there) use this interpreter, with this package.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("ubunye")
    conf = dict(spark_conf)
    conf.setdefault("spark.master", "local[2]")
    conf.setdefault("spark.ui.enabled", "false")
    conf.setdefault("spark.sql.shuffle.partitions", "4")
    conf.setdefault("spark.ui.showConsoleProgress", "false")
    conf.setdefault("spark.databricks.delta.snapshotPartitions", "2")
    conf["spark.sql.session.timeZone"] = time_zone or conf.get("spark.sql.session.timeZone", "UTC")
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        from ubunye.spark import configure

        builder = configure(builder)
    except Exception as exc:  # noqa: BLE001 - no jar built: the session starts, hashes use the fallback
        log.warning("plugin jar not added (%s): Spark hashes use the mapInArrow fallback (spark-sql)", exc)
    if delta_installed():
        from delta import configure_spark_with_delta_pip

        builder = _add_extension(builder, DELTA_EXTENSION)
        builder = builder.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG)
        builder = configure_spark_with_delta_pip(builder)
    return builder.getOrCreate()


def get_session(spark: Any, *, time_zone: Optional[str], spark_conf: Mapping[str, str]) -> Any:
    """The given session, else the active one, else a new local one; its time zone set.

    The session time zone is the config's (``ENGINE.time_zone``), else UTC
    for a session this function starts, else the running session's own.
    """
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
        if spark is None:
            return build_session(time_zone, spark_conf)
    for key, value in spark_conf.items():
        if not key.startswith("spark.sql."):
            continue
        try:
            spark.conf.set(key, value)
        except Exception as exc:  # noqa: BLE001 - static confs cannot change on a running session
            log.warning("cannot set %s on the running session: %s", key, exc)
    if time_zone:
        spark.conf.set("spark.sql.session.timeZone", time_zone)
    return spark


def table_exists(spark: Any, name: str) -> bool:
    try:
        return bool(spark.catalog.tableExists(name))
    except Exception:  # noqa: BLE001 - a malformed name: the write will say why
        return False


def delta_version_of(spark: Any, *, path: Optional[str] = None, table: Optional[str] = None) -> Optional[int]:
    """The latest version of a Delta table (None when it is not a Delta table)."""
    if not delta_installed():
        return None
    from delta.tables import DeltaTable

    try:
        if path is not None:
            if not DeltaTable.isDeltaTable(spark, path):
                return None
            dt = DeltaTable.forPath(spark, path)
        else:
            dt = DeltaTable.forName(spark, str(table))
        row = dt.history(1).select("version").first()
    except Exception:  # noqa: BLE001 - not a Delta table (a parquet catalog table, say)
        return None
    return None if row is None else int(row[0])
