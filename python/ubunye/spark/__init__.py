"""Spark helpers: the plugin jar, the native aggregate and the fallback.

Public API (imported lazily: ``import ubunye.spark`` imports no pyspark):

- :func:`jar_path` - the packaged plugin jar for the installed pyspark's line (or
  ``jar_path(spark="3.5", scala="2.12")``), for ``spark.jars`` / ``--jars``.
- :func:`status` - a running session's Spark/Scala/Java, the jar it loaded and the
  engine fingerprints use (with a one-line reason when not native).
- :func:`configure` - add the jar and its ``spark.sql.extensions`` to a
  ``SparkSession.builder`` (keeps Delta's and others' entries)::

      spark = ubunye.spark.configure(SparkSession.builder.master("local[2]")).getOrCreate()

- :func:`install` - register the SQL functions on a running classic session
  whose driver has the jar but that started without the extension.
- :func:`native_available` - whether the session has the functions.
- :func:`fingerprint_spark` - the rows-v1 fingerprint of a DataFrame
  (``engine`` ``"spark-native"`` or ``"spark-sql"``, the mapInArrow fallback).
- :func:`spark_kinds` - Spark schema to rows-v1 kinds.
- :func:`rows_v1_sums_column` - the native aggregate as a Column (for
  ``df.observe`` while writing), with :func:`fingerprint_from_sums`.

SQL (with the plugin): ``ubunye_rows_v1(cols...)`` (data hash),
``ubunye_rows_v1_sums(cols...)`` (rows and lane sums), ``ubunye_row_line(cols...)``
(one row's canonical line, for debugging).
"""
from __future__ import annotations

from ubunye._lazy import lazy_getattr

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ubunye.spark.fingerprint import fingerprint_from_sums, fingerprint_spark
    from ubunye.spark.jar import (
        JarError,
        JarLineMissingError,
        available_jars,
        JarMismatchError,
        JarMismatchWarning,
        JarNotFoundError,
        configure,
        install,
        jar_info,
        jar_path,
    )
    from ubunye.spark.kinds import spark_kinds
    from ubunye.spark.status import SparkStatus, status
    from ubunye.spark.native import native_available, rows_v1_sums_column

__all__ = [
    "jar_path",
    "jar_info",
    "available_jars",
    "status",
    "SparkStatus",
    "JarLineMissingError",
    "configure",
    "install",
    "native_available",
    "fingerprint_spark",
    "fingerprint_from_sums",
    "spark_kinds",
    "rows_v1_sums_column",
    "JarError",
    "JarNotFoundError",
    "JarMismatchError",
    "JarMismatchWarning",
]

_LAZY = {
    "jar_path": "ubunye.spark.jar",
    "available_jars": "ubunye.spark.jar",
    "JarLineMissingError": "ubunye.spark.jar",
    "status": "ubunye.spark.status",
    "SparkStatus": "ubunye.spark.status",
    "jar_info": "ubunye.spark.jar",
    "configure": "ubunye.spark.jar",
    "install": "ubunye.spark.jar",
    "JarError": "ubunye.spark.jar",
    "JarNotFoundError": "ubunye.spark.jar",
    "JarMismatchError": "ubunye.spark.jar",
    "JarMismatchWarning": "ubunye.spark.jar",
    "native_available": "ubunye.spark.native",
    "rows_v1_sums_column": "ubunye.spark.native",
    "fingerprint_spark": "ubunye.spark.fingerprint",
    "fingerprint_from_sums": "ubunye.spark.fingerprint",
    "spark_kinds": "ubunye.spark.kinds",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
