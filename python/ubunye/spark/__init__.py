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

Modules (also imported on first use): :mod:`~ubunye.spark.observations` (the
plugin's planner node: ``observations.attach(df, name)``, ``observations.read(spark,
name)``) and :mod:`~ubunye.spark.observe` (a write's hash, one path per kind of session).

Importing this package registers the ``spark`` frame kind with the hashing layer
(:mod:`ubunye.hashing.registry`), so ``ubunye.fingerprint(spark_df)`` reaches
:func:`fingerprint_spark` without ``ubunye.hashing`` importing this package.

SQL (with the plugin): ``ubunye_rows_v1(cols...)`` (data hash),
``ubunye_rows_v1_sums(cols...)`` (rows and lane sums), ``ubunye_rows_v1_sketch(cols...)``
(the sums and the localisation sketch's cells), ``ubunye_row_line(cols...)``
(one row's canonical line, for debugging).
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ubunye._lazy import lazy_getattr
from ubunye.hashing.registry import register_frame_kind, register_worker_probe

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


# submodules named as attributes of the package (``ubunye.spark.observations.attach``)
_SUBMODULES = ("observations", "observe", "fallback", "native", "kinds", "fingerprint", "jar", "testing")
_lazy_name = lazy_getattr(__name__, globals(), _LAZY)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")  # the import sets the attribute too
    return _lazy_name(name)


def _fingerprint(frame: Any, *, engine: Any = None) -> Any:
    from ubunye.spark.fingerprint import fingerprint_spark

    return fingerprint_spark(frame, engine=engine)


def _kinds(frame: Any) -> list[tuple[str, str]]:
    from ubunye.spark.kinds import spark_kinds

    return spark_kinds(frame.schema)


def _in_task() -> bool:
    from ubunye.spark._compat import in_spark_task

    return in_spark_task()


register_frame_kind("spark", fingerprint=_fingerprint, kinds=_kinds)
register_worker_probe("pyspark", _in_task)
