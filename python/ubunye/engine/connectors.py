"""Connectors by their ubunye-engine 0.8.0 names, mapped onto this project's inputs and outputs.

A 0.8.0 ``config.yaml`` names a connector plugin in ``format:``; each becomes
one of this project's formats, read and written by the backends:

- ``unity`` / ``hive``: a catalog table (format ``table``), named by ``table``
  or by ``db_name`` + ``tbl_name``; an unqualified name is qualified with
  ``ENGINE.catalog`` / ``ENGINE.schema_name`` (or the mode's profile's), as
  0.8.0's ``USE CATALOG`` / ``USE SCHEMA`` resolved it. A unity output is
  written as Delta unless ``file_format`` says otherwise (0.8.0's default).
- ``delta``: a Delta table by ``path`` (format ``delta``) or by ``table``
  (format ``table`` with provider delta); ``version`` reads that version.
- ``s3``: any path (``s3a://``, ``file://``, a local folder ...) in
  ``file_format`` (parquet by default), with ``options``, ``schema`` (inputs)
  and ``partitionBy`` (outputs).
- ``jdbc``: ``url`` with ``table`` or ``sql``, ``user``, ``password`` (Spark
  only). The password is kept out of the recorded options and location.

Connectors this project does not have (``rest_api``, ``binary``, a plugin's)
are refused before anything runs, naming the connector and the file.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

from ubunye.engine.errors import ConfigError

CONNECTORS = ("unity", "hive", "delta", "s3", "jdbc")
# 0.8.0 connectors with no counterpart here, and why.
REFUSED = {
    "rest_api": "HTTP endpoints are not read or written by this engine; fetch the data in transformations.py "
                "or land it as files first",
    "binary": "raw binary files are not a table; read them in transformations.py",
}
S3_FILE_FORMATS = ("parquet", "csv", "json", "delta")
# Spark's own JDBC settings 0.8.0 read at the top level of a jdbc input or output.
JDBC_TUNING = ("fetchsize", "partitionColumn", "lowerBound", "upperBound", "numPartitions", "batchsize")

_OUTPUT_ONLY = ("mode", "partitionBy", "partition_by")
_KEYS = {
    "unity": ("format", "table", "db_name", "tbl_name", "sql", "options", "mode", "partitionBy", "partition_by",
              "file_format", "version", "optimize", "vacuum"),
    "hive": ("format", "table", "db_name", "tbl_name", "sql", "options", "mode", "partitionBy", "partition_by",
             "file_format", "version"),
    "delta": ("format", "path", "table", "version", "options", "mode", "partitionBy", "partition_by"),
    "s3": ("format", "path", "file_format", "options", "schema", "mode", "partitionBy", "partition_by"),
    "jdbc": ("format", "url", "table", "dbtable", "sql", "user", "password", "driver", "options", "mode",
             *JDBC_TUNING),
}
# 0.8.0 keys refused with the reason.
_WHY = {
    "sql": "a SQL query is not a location a record can name; read the table and filter it in transformations.py",
    "optimize": "Databricks OPTIMIZE is table maintenance, not part of a run; run it as a job of its own",
    "vacuum": "Databricks VACUUM is table maintenance, not part of a run; run it as a job of its own",
}


def is_connector(fmt: str) -> bool:
    """True for a 0.8.0 connector name this module maps (``delta`` only when 0.8.0-only keys are used)."""
    return fmt in CONNECTORS


def uses_080_keys(body: Mapping[str, Any]) -> bool:
    """A ``format: delta`` body written the 0.8.0 way (by table name, or with ``partitionBy``)."""
    return "table" in body or "partitionBy" in body


def refuse_unknown_format(fmt: Any, file: Path, key: str, native: tuple[str, ...]) -> ConfigError:
    """The one-line error for a connector this project does not have."""
    name = str(fmt)
    if name.lower() in REFUSED:
        return ConfigError(file, f"{key}.format",
                           f"connector {name!r} (ubunye-engine 0.8.0) is not supported: {REFUSED[name.lower()]}")
    more = ", ".join(c for c in CONNECTORS if c not in native)
    return ConfigError(file, f"{key}.format", f"expected one of {', '.join(native)}; got {fmt!r} (or a "
                                              f"ubunye-engine 0.8.0 connector: {more}; plugins are not supported)")


def qualify(name: str, catalog: Optional[str], schema: Optional[str]) -> str:
    """A table name qualified as 0.8.0's ``USE CATALOG c`` / ``USE SCHEMA s`` resolved it:
    ``t`` -> ``c.s.t``, ``x.t`` -> ``c.x.t``; three parts (or a back-quoted name) stay as they are.
    With a catalog but no schema, ``t`` is in the catalog's ``default`` schema."""
    if "`" in name or (catalog is None and schema is None):
        return name
    parts = name.split(".")
    if len(parts) == 1:
        if schema is None:
            return f"{catalog}.default.{name}"
        return f"{catalog}.{schema}.{name}" if catalog is not None else f"{schema}.{name}"
    if len(parts) == 2 and catalog is not None:
        return f"{catalog}.{name}"
    return name


def to_native(body: Mapping[str, Any], direction: str, file: Path, key: str,
              catalog: Optional[str] = None, schema: Optional[str] = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Map a 0.8.0 connector body onto this project's keys.

    Returns ``(native, extra)``: ``native`` holds ``format``, ``path`` / ``table``,
    ``options``, ``schema``, ``version``, ``mode``, ``partition_by`` as
    :func:`ubunye.engine.config._io` validates them; ``extra`` holds what only
    the connector has (``connection`` and ``location`` for jdbc).
    """
    connector = str(body["format"]).lower()
    allowed = _KEYS[connector]
    for k in body:
        if k not in allowed:
            raise ConfigError(file, f"{key}.{k}",
                              f"unknown key for format {connector!r}; expected one of {', '.join(allowed)}")
        if direction == "input" and k in _OUTPUT_ONLY:
            raise ConfigError(file, f"{key}.{k}", f"only outputs take {k}; this is an input")
        if k in _WHY and body[k] is not None and connector != "jdbc":  # jdbc reads a query (its location names it)
            raise ConfigError(file, f"{key}.{k}", f"not supported: {_WHY[k]}")
    if "partitionBy" in body and "partition_by" in body:
        raise ConfigError(file, f"{key}.partitionBy", "give partitionBy or partition_by, not both")
    if str(body.get("mode", "")).lower() == "merge":
        raise ConfigError(file, f"{key}.mode", "mode 'merge' (a Delta MERGE) is not supported; expected overwrite, "
                                               "append, ignore or errorifexists (merge in transformations.py)")
    native: dict[str, Any] = {k: body[k] for k in ("options", "mode", "version") if k in body}
    if direction == "output" and body.get("mode") is None and connector in ("unity", "jdbc"):
        native["mode"] = "append"  # 0.8.0's unity and jdbc writers append unless told otherwise
    pb = body.get("partitionBy", body.get("partition_by"))
    if pb is not None:
        native["partition_by"] = pb
    extra: dict[str, Any] = {}
    if connector in ("unity", "hive"):
        native["format"] = "table"
        native["table"] = qualify(_table_name(body, connector, file, key), catalog, schema)
        if direction == "output":
            extra.update(_table_settings(body, file, key))
        using = body.get("file_format", "delta" if connector == "unity" else None)
        if direction == "output":
            provider = {} if using is None else {"using": str(using).lower()}
            native["options"] = {**provider, **_options(body, file, key, plain=True)}
        elif direction == "input" and body.get("file_format") is not None:
            raise ConfigError(file, f"{key}.file_format", "only outputs take file_format (a table is read as it is)")
    elif connector == "delta":
        if (body.get("path") is None) == (body.get("table") is None):
            raise ConfigError(file, f"{key}.path", "format 'delta' needs exactly one of path or table")
        if body.get("path") is not None:
            native.update(format="delta", path=body["path"])
        else:
            native.update(format="table", table=qualify(_text(body["table"], file, f"{key}.table"), catalog, schema))
            if direction == "output":
                native["options"] = {"using": "delta", **_options(body, file, key)}
    elif connector == "s3":
        if body.get("path") is None:
            raise ConfigError(file, f"{key}.path", "missing; format 's3' needs a path (any URL Spark reads: "
                                                   "s3a://, file://, a local folder ...)")
        fmt = str(body.get("file_format", "parquet")).lower()
        if fmt not in S3_FILE_FORMATS:
            raise ConfigError(file, f"{key}.file_format",
                              f"expected one of {', '.join(S3_FILE_FORMATS)}; got {body['file_format']!r} "
                              "(other formats cannot be read the same way on every backend)")
        native.update(format=fmt, path=body["path"])
        if body.get("schema") is not None:
            if direction == "output":
                raise ConfigError(file, f"{key}.schema", "only inputs take a schema; this is an output")
            native["schema"] = body["schema"]
    else:
        native, extra = _jdbc(body, native, direction, file, key)
    return native, extra


def _text(value: Any, file: Path, key: str) -> str:
    if value is None or isinstance(value, (bool, dict, list)) or not str(value).strip():
        raise ConfigError(file, key, "expected a name")
    return str(value)


def _options(body: Mapping[str, Any], file: Path, key: str, plain: bool = False) -> dict[str, Any]:
    """The writer options (``plain``: without the unity writer's ``comment`` and ``tblproperties``)."""
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(file, f"{key}.options", "expected a mapping")
    if plain:
        options = {k: v for k, v in options.items() if str(k).lower() not in ("comment", "tblproperties")}
    if any(str(k).lower() == "using" for k in options):
        raise ConfigError(file, f"{key}.options.using", "give the table's provider as file_format")
    return dict(options)


def _table_settings(body: Mapping[str, Any], file: Path, key: str) -> dict[str, Any]:
    """0.8.0's unity writer options set on the table after the write: ``comment`` and ``tblproperties``."""
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(file, f"{key}.options", "expected a mapping")
    out: dict[str, Any] = {}
    for name, value in options.items():
        where = f"{key}.options.{name}"
        if str(name).lower() == "comment":
            out["comment"] = _text(value, file, where)
        elif str(name).lower() == "tblproperties":
            if not isinstance(value, dict) or any(v is None or isinstance(v, (dict, list)) for v in value.values()):
                raise ConfigError(file, where, f"expected a mapping of property names to values; got {value!r}")
            out["tblproperties"] = {str(k): str(v).lower() if isinstance(v, bool) else str(v)
                                    for k, v in value.items()}
    return out


def _table_name(body: Mapping[str, Any], connector: str, file: Path, key: str) -> str:
    table, db, tbl = body.get("table"), body.get("db_name"), body.get("tbl_name")
    if table is not None:
        if db is not None or tbl is not None:
            raise ConfigError(file, f"{key}.table", "give table, or db_name and tbl_name, not both")
        return _text(table, file, f"{key}.table")
    if db is None or tbl is None:
        missing = "tbl_name" if db is not None else "db_name" if tbl is not None else "table"
        raise ConfigError(file, f"{key}.{missing}",
                          f"missing; format {connector!r} needs table, or db_name and tbl_name")
    return f"{_text(db, file, f'{key}.db_name')}.{_text(tbl, file, f'{key}.tbl_name')}"


def _jdbc(body: Mapping[str, Any], native: dict[str, Any], direction: str, file: Path,
          key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    from ubunye.masking import current

    url = body.get("url")
    if url is None:
        raise ConfigError(file, f"{key}.url", "missing; format 'jdbc' needs a JDBC url")
    url = _text(url, file, f"{key}.url")
    table = body.get("table", body.get("dbtable"))
    if "table" in body and "dbtable" in body:
        raise ConfigError(file, f"{key}.dbtable", "give table or dbtable, not both")
    sql = body.get("sql")
    if direction == "output" and sql is not None:
        raise ConfigError(file, f"{key}.sql", "an output is written to a table; give table, not sql")
    if (table is None) == (sql is None):
        raise ConfigError(file, f"{key}.table", "format 'jdbc' needs exactly one of table or sql")
    connection: dict[str, str] = {"url": url}
    if table is not None:
        connection["dbtable"] = _text(table, file, f"{key}.table")
    else:
        connection["query"] = _text(sql, file, f"{key}.sql")
    for name in ("user", "password", "driver"):
        if body.get(name) is not None:
            connection[name] = _text(body[name], file, f"{key}.{name}") if name != "password" else str(body[name])
    options = dict(_options(body, file, key))
    for name in JDBC_TUNING:
        if name in body and body[name] is not None:
            if any(str(k).lower() == name.lower() for k in options):
                raise ConfigError(file, f"{key}.{name}", f"also given in options; give {name} once")
            options[name] = body[name]
    for name in options:
        if str(name).lower() in ("url", "dbtable", "query", "user", "password", "driver"):
            raise ConfigError(file, f"{key}.options.{name}", f"give {name} as a key of its own, not an option")
    current().add(connection.get("password"))  # the run's masker masks it wherever it appears
    what = f"table {connection['dbtable']}" if "dbtable" in connection else f"sql {connection['query']}"
    location = current().text(f"{url} {what}")
    native.update(format="jdbc", table=connection.get("dbtable"), options=options)
    return native, {"connection": connection, "location": location}


@contextlib.contextmanager
def jdbc_errors(spec: Any) -> Iterator[None]:
    """Re-raise a failed jdbc read or write as one line with the password masked (and without
    the original traceback, whose frames hold the connection settings)."""
    from ubunye.engine.errors import IOSpecError
    from ubunye.masking import current

    try:
        yield
    except Exception as exc:  # noqa: BLE001 - any driver error may quote its settings
        password = spec.connection.get("password")
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        message = " ".join(line for line in lines if not line.startswith("at "))  # no JVM stack frames
        message = " ".join(message.split(" at org.")[0].split())  # nor a one-line trace's
        current().add(password)
        text = f"{type(exc).__name__}: {message}"  # IOSpecError masks its text when made
        raise IOSpecError(f"{spec.direction} {spec.name!r} ({spec.location}): {text}") from None
