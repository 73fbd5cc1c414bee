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
instead of the frame, or records no hash where it cannot read back exactly what
this write stored (an append, ``partition_by``). csv and json files are read
back with :func:`read_back`'s settings (the writer's options, the written
schema, ``FAILFAST``), which the output's step records (``options``,
``schema``) so ``lineage verify`` reads them the same way.
"""
from __future__ import annotations

from typing import Any, Optional

from ubunye.engine.config import IOSpec

PARQUET_WRITERS = ("parquet", "delta", "table")
OUTPUT_TIMESTAMP = "spark.sql.parquet.outputTimestampType"
REBASE_SETTINGS = ("spark.sql.parquet.datetimeRebaseModeInWrite",
                   "spark.sql.legacy.parquet.datetimeRebaseModeInWrite")
INT96_REBASE = "spark.sql.parquet.int96RebaseModeInWrite"
CHAR_METADATA = "__CHAR_VARCHAR_TYPE_STRING"


TEXT_WRITERS = ("csv", "json")


def stored_differently(spark: Any, frame: Any, spec: IOSpec) -> Optional[str]:
    """Why the files written for ``spec`` will not hold the frame's values, or None."""
    if spec.format in TEXT_WRITERS:
        # Read back only what can be read back alone (a whole folder this write made); appends and
        # partitioned writes are hashed from the frame, as the pandas backend hashes its csv/json
        # (docs/safety.md: a known gap), so the two engines' receipts stay comparable.
        if spec.mode in ("overwrite", "errorifexists") and not spec.partition_by:
            return f"{spec.format} files hold the values as text"
        return None
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


def read_back(frame: Any, spec: IOSpec) -> tuple[dict[str, str], str]:
    """The reader options and schema (Spark DDL) that read a csv or json output's files as this
    write stored them: the writer's options (names lower-cased, Spark's string values; the
    reader takes the ones it shares, such as ``sep``, ``nullValue``, ``emptyValue``,
    ``timestampFormat``, and ignores the others), csv's ``header`` as the writer defaults it,
    the frame's schema, and ``mode=FAILFAST`` (text the schema cannot take fails the hash
    instead of reading as null)."""
    from ubunye.engine.config import _spark_value

    options = {str(k).lower(): _spark_value(v) for k, v in spec.options.items()}
    if spec.format == "csv":
        options.setdefault("header", "true")
    options["mode"] = "FAILFAST"
    return options, _ddl(frame)


def _ddl(frame: Any) -> str:
    """The frame's schema as Spark DDL (pyspark 4: ``StructType.toDDL``; 3.5: the JVM's)."""
    from ubunye.spark._compat import schema_ddl

    return schema_ddl(frame)
