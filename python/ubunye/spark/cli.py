"""``ubunye hash PATH --engine spark [--format delta]``: hash a file or table with Spark.

The engine reads PATH with Spark the way the pandas engine reads it
(``csv``: ``header=true, inferSchema=true`` in a UTC session; ``json``: JSON
lines; ``parquet``; ``delta``: a Delta table folder, found by its
``_delta_log``) and hashes it with :func:`ubunye.spark.fingerprint_spark`:
native when the plugin jar is in the package, else the fallback.

The session: the active one if there is one, else a new local session
(``$UBUNYE_SPARK_MASTER``, default ``local[2]``) with the plugin jar and, for
Delta, Delta's jars (``delta.pip_utils.configure_spark_with_delta_pip``).
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any, Mapping, Optional

from ubunye.hashing.fingerprint import Fingerprint

SPARK_FORMATS = ("parquet", "csv", "json", "delta")
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"


def spark_format(path: Path, fmt: Optional[str]) -> str:
    """``fmt``, or the format the path shows: ``delta`` for a folder with ``_delta_log``."""
    from ubunye.io import detect_format, part_files

    if fmt is not None:
        if fmt not in SPARK_FORMATS:
            raise ValueError(f"unknown format {fmt!r} for the spark engine: expected one of {SPARK_FORMATS}")
        return fmt
    if path.is_dir() and (path / "_delta_log").is_dir():
        return "delta"
    return detect_format(part_files(path))


def cli_session(delta: bool) -> Any:
    """The active Spark session, or a new local one set up for the plugin (and Delta)."""
    from pyspark.sql import SparkSession

    from ubunye.spark.jar import JarNotFoundError, configure
    from ubunye.spark.packages import get_or_create

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder: Any = (
        SparkSession.builder.master(os.environ.get("UBUNYE_SPARK_MASTER", "local[2]"))
        .appName("ubunye hash")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if delta:
        from delta.pip_utils import configure_spark_with_delta_pip

        builder = builder.config("spark.sql.extensions", DELTA_EXTENSION).config(
            "spark.sql.catalog.spark_catalog", DELTA_CATALOG
        )
        builder = configure_spark_with_delta_pip(builder)
    try:
        builder = configure(builder)
    except JarNotFoundError as exc:
        warnings.warn(f"{exc}; hashing with the Spark SQL fallback", stacklevel=2)
    spark = get_or_create(builder)  # Delta's jars: one Ivy download at a time
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def read_spark(spark: Any, path: Path, fmt: str, options: Optional[Mapping[str, Any]] = None,
               schema: Optional[str] = None) -> Any:
    """Read ``path`` in ``fmt`` as a DataFrame, with the options the pandas engine mirrors
    (csv: ``header`` and ``inferSchema`` true unless ``options`` say otherwise)."""
    reader = spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    for key, value in (options or {}).items():
        reader = reader.option(str(key), value)
    if schema:
        reader = reader.schema(schema)
    return reader.load(str(path))


def spark_engine(path: Path, fmt: Optional[str], options: Optional[Mapping[str, Any]] = None,
                 schema: Optional[str] = None) -> Fingerprint:
    """The ``spark`` engine of ``ubunye hash``: read with Spark, hash native or fallback."""
    from ubunye.spark.fingerprint import fingerprint_spark

    from ubunye.io import UnreadablePath

    chosen = spark_format(path, fmt)
    spark = cli_session(delta=chosen == "delta")
    try:
        df = read_spark(spark, path, chosen, options, schema)
    except Exception as exc:  # AnalysisException: not a table of that format, no such path
        from ubunye.spark.fingerprint import spark_error

        raise UnreadablePath(f"{path}: cannot read as {chosen}: {spark_error(exc)}") from exc
    return fingerprint_spark(df)
