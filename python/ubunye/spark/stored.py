"""When Spark's writer stores other values than the frame holds.

The same-pass hash of an output (:mod:`ubunye.spark.observe`) is taken from the
frame's values while the write runs. Some session settings make the parquet
writer (parquet files, Delta's and catalog tables' data files) store something
else, so that hash would not be of the files:

| setting | what the files hold |
|---|---|
| ``spark.sql.parquet.outputTimestampType=TIMESTAMP_MILLIS`` | timestamps cut to milliseconds |
| ``spark.sql.parquet.outputTimestampType=INT96`` (the default) with ``int96RebaseModeInWrite=LEGACY`` | timestamps before 1900 moved to the Julian calendar |
| ``spark.sql.parquet.datetimeRebaseModeInWrite=LEGACY`` | dates and timestamps before 1582-10-15 moved to the Julian calendar |
| a ``CHAR(n)``/``VARCHAR(n)`` column of the frame or of a table appended to | padding at write or at read (``spark.sql.readSideCharPadding``) |
| any csv or json output | text: timestamps to milliseconds (the default ``timestampFormat``) or any ``timestampFormat``/``dateFormat``, floats and decimals as text, nulls and empty strings as the writer's options say, csv values trimmed of their spaces |

:func:`stored_differently` names the first such reason for a frame and an
output; the backend then hashes the files after the write (``second-pass``)
instead of the frame. A parquet-family output is read back only when its location
holds nothing but this write (``written_whole`` of the output); otherwise no hash is
recorded, and the step says why. A csv or json output is always read back, from
exactly the files this write created (:func:`listed_files` before and after the
write; partition values from their ``key=value`` folders under ``basePath``), with
:func:`read_back`'s settings (the writer's options, the written schema,
``FAILFAST``), which the output's step records (``options``, ``schema``) so
``lineage verify`` reads them the same way. The pandas backend does the same
(:mod:`ubunye.engine.backends.pandas_backend`).

An output here is any object with the attributes of :class:`ubunye.spark.writes.Output`
(the engine's ``IOSpec`` has them); this layer imports nothing from the engine.
"""
from __future__ import annotations

from typing import Any, Optional

PARQUET_WRITERS = ("parquet", "delta", "table")
OUTPUT_TIMESTAMP = "spark.sql.parquet.outputTimestampType"
REBASE_SETTINGS = ("spark.sql.parquet.datetimeRebaseModeInWrite",
                   "spark.sql.legacy.parquet.datetimeRebaseModeInWrite")
INT96_REBASE = "spark.sql.parquet.int96RebaseModeInWrite"
CHAR_METADATA = "__CHAR_VARCHAR_TYPE_STRING"


TEXT_WRITERS = ("csv", "json")


def stored_differently(spark: Any, frame: Any, spec: Any) -> Optional[str]:
    """Why the files written for ``spec`` will not hold the frame's values, or None."""
    if spec.format in TEXT_WRITERS:  # read back from the files this write created, whatever the mode
        return f"{spec.format} files hold the values as text"
    if spec.format not in PARQUET_WRITERS:
        return None
    types = _types(frame.schema)
    if spec.format == "table" and spec.mode not in ("overwrite", "errorifexists"):
        types += [t for t in _table_types(spark, str(spec.table)) if t.startswith("char:")]
    char = [t for t in types if t.startswith("char:")]
    if char:
        return f"column {char[0][5:]} is CHAR/VARCHAR (padded or checked by the writer or the reader)"
    temporal = {t for t in types if t in ("timestamp", "timestamp_ntz", "date")}
    if temporal & {"timestamp", "timestamp_ntz"}:
        unit = str(_setting(spark, OUTPUT_TIMESTAMP) or "INT96").upper()
        if unit not in ("TIMESTAMP_MICROS", "INT96"):
            return f"{OUTPUT_TIMESTAMP}={unit}"
        if unit == "INT96" and str(_setting(spark, INT96_REBASE) or "").upper() == "LEGACY":
            return f"{OUTPUT_TIMESTAMP}=INT96 with {INT96_REBASE}=LEGACY"
    if temporal:
        for key in REBASE_SETTINGS:
            mode = str(_setting(spark, key) or "").upper()
            if mode == "LEGACY":
                return f"{key}=LEGACY"
    return None


def _setting(spark: Any, key: str) -> Optional[str]:
    """The session's value of ``key``, its default when unset (``conf.get(key, None)`` would
    give None there); None for a key this Spark does not know."""
    try:
        return spark.conf.get(key)
    except Exception:  # noqa: BLE001 - SQL_CONF_NOT_FOUND: not a setting of this Spark
        return None


def _table_types(spark: Any, table: str) -> list[str]:
    """The column types of an existing table written into (its CHAR/VARCHAR columns pad rows)."""
    try:
        return _types(spark.table(table).schema)
    except Exception:  # noqa: BLE001 - no such table yet: the frame's schema makes it
        return []


def _types(schema: Any) -> list[str]:
    """Every field's type name, nested ones too; ``char:<name>`` for CHAR/VARCHAR columns."""
    found: list[str] = []

    def walk(dtype: Any, name: str, metadata: Any) -> None:
        if metadata and CHAR_METADATA in metadata:
            found.append(f"char:{name}")
        kind = dtype.typeName()
        if kind == "struct":
            for field in dtype.fields:
                walk(field.dataType, f"{name}.{field.name}" if name else field.name, field.metadata)
        elif kind == "array":
            walk(dtype.elementType, name, None)
        elif kind == "map":
            walk(dtype.keyType, name, None)
            walk(dtype.valueType, name, None)
        else:
            found.append(kind)

    walk(schema, "", None)
    return found


def read_back(frame: Any, spec: Any) -> tuple[dict[str, str], str]:
    """The reader options (the output's ``read_back_options()``) and schema (the frame's, as Spark
    DDL) that read a csv or json output's files as this write stored them."""
    return spec.read_back_options(), _ddl(frame)


# Spark's reader option that takes each path literally (DataSource.GLOB_PATHS_KEY): a partition
# folder's name may hold ``[``, ``}`` or ``\``, which a glob would read as a pattern.
_LITERAL_PATHS = "__globPaths__"


def listed_files(spark: Any, location: str) -> frozenset[str]:
    """Every data file under ``location`` now (recursively; names starting with ``_`` or ``.``
    skipped, as Spark's file sources skip them), as paths Spark reads back; empty when there is
    nothing there. Listed by Spark's own file index (``inputFiles``: no job, no data read), on
    classic and Connect sessions alike. Raises when the location cannot be listed."""
    from urllib.parse import unquote

    try:
        files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
                 .option(_LITERAL_PATHS, "false").load(location)  # the folder written, not a glob
                 .inputFiles())
    except Exception as exc:  # noqa: BLE001 - nothing there yet is an empty listing; else raise
        if "PATH_NOT_FOUND" in str(exc) or "Path does not exist" in str(exc):
            return frozenset()
        raise
    return frozenset(unquote(str(uri)) for uri in files)  # URIs escape % and spaces; paths do not


def listed_before(spark: Any, spec: Any) -> Optional[frozenset[str]]:
    """The files at a csv or json output's location before its write (None: not listable; the
    step then records no hash, and why)."""
    try:
        return listed_files(spark, str(spec.path))
    except Exception:  # noqa: BLE001 - said on the step: its new files cannot be told apart
        return None


OL_LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


def json_round_trip(spark: Any, spec: Any) -> bool:
    """A json output (not partitioned: its partition values are folder names, not lines) on a
    session running the OpenLineage Spark listener: with the plugin's planner node its rows are
    hashed in the write after a round trip through Spark's json writer and reader, so the
    listener's event for the write carries the files' hash. Elsewhere no one reads that hash
    before the files are read back, so no write pays for it."""
    if spec.format != "json" or spec.partition_by:
        return False
    try:
        listeners = str(spark.conf.get("spark.extraListeners", "") or "")
    except Exception:  # noqa: BLE001 - a session that cannot say runs no listener we know of
        return False
    return OL_LISTENER in listeners


def new_files_frame(spark: Any, frame: Any, spec: Any, before: frozenset[str]) -> Any:
    """The rows of the csv or json files this write created (those listed now but not in
    ``before``), read with :func:`read_back`'s settings; their ``key=value`` folders under the
    output's location give the partition columns, typed by the written schema, as Spark reads a
    partitioned folder. No new file (an empty partitioned write): no rows, the written schema."""
    options, ddl = read_back(frame, spec)
    new = sorted(listed_files(spark, str(spec.path)) - before)
    if not new:
        return spark.createDataFrame([], ddl)
    return (spark.read.format(spec.format).options(**options).option("basePath", str(spec.path))
            .option(_LITERAL_PATHS, "false").schema(ddl).load(new))


def _ddl(frame: Any) -> str:
    """The frame's schema as Spark DDL (pyspark 4: ``StructType.toDDL``; 3.5: the JVM's)."""
    from ubunye.spark._compat import schema_ddl

    return schema_ddl(frame)
