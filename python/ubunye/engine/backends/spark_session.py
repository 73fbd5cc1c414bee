"""Finding or starting the SparkSession (Delta versions and tables: :mod:`ubunye.spark.tables`)."""
from __future__ import annotations

import importlib.metadata
import logging
import os
import sys
from typing import Any, Mapping, Optional

from ubunye.spark.tables import delta_installed, delta_version_of, table_exists

__all__ = ["delta_installed", "delta_version_of", "get_session", "table_exists", "with_delta"]

log = logging.getLogger("ubunye.engine")

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
# Dates and instants as they are (proleptic Gregorian, the calendar of rows-v1, of Arrow
# and of Spark 4's defaults), never rebased to the Julian calendar of Spark 2: Spark 3.5
# otherwise refuses to write a date before 1582-10-15 (or an INT96 instant before 1900)
# to parquet or Delta, and to read one from a file no Spark wrote (pyarrow's, pandas').
PROLEPTIC_CALENDAR = {
    "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
    "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
}


def unpaired_delta() -> Optional[str]:
    """One line when the installed delta-spark does not pair with the installed pyspark
    (both versions and the ``pip install 'ubunye[deltaXY]'`` that fixes it), else None."""
    from ubunye.spark.lines import delta_mismatch
    from ubunye.spark.runtime import pyspark_version

    try:
        delta = importlib.metadata.version("delta-spark")
    except importlib.metadata.PackageNotFoundError:
        return None
    pyspark = pyspark_version()
    return delta_mismatch(pyspark, delta) if pyspark else None


def with_delta(builder: Any) -> Any:
    """``builder`` with Delta's extension, catalog and jars (``configure_spark_with_delta_pip``);
    a delta-spark that does not pair with pyspark is named in one warning first."""
    from delta import configure_spark_with_delta_pip

    problem = unpaired_delta()
    if problem is not None:
        log.warning("%s", problem)
    builder = _add_extension(builder, DELTA_EXTENSION)
    builder = builder.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG)
    return configure_spark_with_delta_pip(builder)


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
    for key, value in PROLEPTIC_CALENDAR.items():
        conf.setdefault(key, value)
    conf["spark.sql.session.timeZone"] = time_zone or conf.get("spark.sql.session.timeZone", "UTC")
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        from ubunye.spark import configure

        builder = configure(builder)
    except Exception as exc:  # noqa: BLE001 - no jar built: the session starts, hashes use the fallback
        log.warning("plugin jar not added (%s): Spark hashes use the mapInArrow fallback (spark-sql)", exc)
    if delta_installed():
        builder = with_delta(builder)
    from ubunye.spark.packages import get_or_create

    return get_or_create(builder)  # Delta's jars: one Ivy download at a time


class SessionChanges:
    """What a run changed on a Spark session it did not start, to put back when it ends."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self._old: dict[str, Optional[str]] = {}  # key -> value before the run (None: unset)

    def set(self, key: str, value: str) -> None:
        """Set a runtime setting, remembering its value before the run's first change."""
        if key not in self._old:
            self._old[key] = _current(self.spark, key)
        self.spark.conf.set(key, value)

    def restore(self) -> None:
        """Put back every setting changed, in reverse order; a failure is logged, not raised."""
        for key, old in reversed(list(self._old.items())):
            try:
                if old is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, old)
            except Exception as exc:  # noqa: BLE001 - the run's own outcome is what is reported
                log.warning("could not put back %s=%r on the Spark session: %s", key, old, " ".join(str(exc).split()))
        self._old.clear()


def _current(spark: Any, key: str) -> Optional[str]:
    try:
        value = spark.conf.get(key, None)
    except Exception:  # noqa: BLE001 - an unknown key reads as unset
        return None
    return None if value is None else str(value)


def _same(current: Optional[str], wanted: Any) -> bool:
    if current is None:
        return False
    text = str(wanted)
    if text.lower() in ("true", "false"):  # YAML's True is Spark's true
        return current.lower() == text.lower()
    return current == text


def _modifiable(spark: Any, key: str) -> bool:
    try:
        return bool(spark.conf.isModifiable(key))
    except Exception:  # noqa: BLE001 - a session that cannot say: try to set it
        return True


def _missing_plugin(spark: Any) -> Optional[str]:
    """``spark.jars``/``spark.sql.extensions`` of the plugin, when the found session lacks its
    functions (a session this run starts would have had them)."""
    try:
        from ubunye.spark.jar import jar_info
        from ubunye.spark.native import native_available

        info = jar_info()
    except Exception:  # noqa: BLE001 - no packaged jar: a started session would not have it either
        return None
    if info.extensions in (_current(spark, "spark.sql.extensions") or "") or native_available(spark):
        return None
    return f"spark.jars/spark.sql.extensions (the plugin {info.extensions}: hashes use the mapInArrow fallback)"


def get_session(
    spark: Any, *, time_zone: Optional[str], spark_conf: Mapping[str, str], want_plugin: bool = True
) -> tuple[Any, Optional[SessionChanges]]:
    """The given session, else the active one, else a new local one; its time zone set.

    The session time zone is the config's (``ENGINE.time_zone``), else UTC
    for a session this function starts, else the running session's own.
    On a session it did not start, the settings it changes are remembered in
    the returned :class:`SessionChanges` (``restore()`` puts them back when the
    run ends), and the settings it wants but cannot set on a running session
    (static ones, such as ``spark.jars`` and ``spark.sql.extensions``) are
    named in one warning. A session it starts comes back with None.
    """
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
        if spark is None:
            return build_session(time_zone, spark_conf), None
    changes = SessionChanges(spark)
    wanted: dict[str, Any] = dict(spark_conf)
    if time_zone:
        wanted["spark.sql.session.timeZone"] = time_zone
    unapplied: list[str] = []
    for key, value in wanted.items():
        current = _current(spark, key)
        if _same(current, value):
            continue
        if _modifiable(spark, key):
            try:
                changes.set(key, str(value))
                continue
            except Exception:  # noqa: BLE001 - refused after all: named below
                pass
        unapplied.append(f"{key}={value} (the session has {current if current is not None else 'it unset'})")
    plugin = _missing_plugin(spark) if want_plugin else None
    if plugin is not None:
        unapplied.append(plugin)
    if unapplied:
        log.warning("the Spark session was running before this run, which cannot apply %d of its settings: %s",
                    len(unapplied), "; ".join(unapplied))
    return spark, changes
