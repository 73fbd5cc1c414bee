"""Parquet files or folders of part files, with Spark's timestamp meaning kept."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

SPARK_SCHEMA_KEY = b"org.apache.spark.sql.parquet.row.metadata"


# The options this reader follows (lower-case names; ubunye.io.options refuses others).
OPTIONS: tuple[str, ...] = ("mergeschema",)


def read_parquet(paths: list[Path], options: Optional[Mapping[str, str]] = None,
                 schema: Optional["pa.Schema"] = None) -> tuple["pa.Table", list[int]]:
    """Read parquet part files into one table, in the one schema Spark reads them with.

    The schema is the explicit one, else with ``mergeSchema=true`` the union of the
    parts' schemas, else the first part's (path order), as :mod:`.parquet_schema`
    says; unsigned integers are read as Spark's types, names that differ only by
    case are refused. Spark writes instants as INT96 or as timestamps without a
    zone flag in some versions; Spark's own schema (kept in the file metadata)
    says which naive Arrow timestamps are really instants, and those are read as
    UTC. Returns the table (rows in the order of ``paths``) and each file's row count.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ubunye.io import parquet_schema as ps
    from ubunye.io.options import flag

    if not paths:
        raise ValueError("no parquet part files")
    merge = flag(options or {}, "mergeSchema", False)
    parts = []
    for path in paths:
        with _source(path) as source:
            pf = pq.ParquetFile(source)
            table = _mark_instants(pf.read(), _instant_columns(pf))
        parts.append((path, table.cast(ps.file_schema(table.schema, path.name))))
    if schema is not None:
        ps.check_unique(schema.names)
        target = schema
    elif merge:
        target = ps.merged([t.schema for _, t in parts])
    else:  # Spark reads one footer: the first part's, in path order
        target = min(parts, key=lambda part: str(part[0]))[1].schema
    target = pa.schema([f.with_nullable(True) for f in target])
    tables = [ps.read_as(t, target, path.name) for path, t in parts]
    counts = [t.num_rows for t in tables]
    return (pa.concat_tables(tables) if len(tables) > 1 else tables[0]), counts


def _source(path: Any) -> Any:
    """What ``pq.ParquetFile`` opens: the path, or (a name that is not UTF-8, which pyarrow
    cannot take: a folder named in another encoding) the file opened here."""
    import contextlib

    try:
        os.fsdecode(path).encode("utf-8")
    except UnicodeEncodeError:
        return open(path, "rb")
    return contextlib.nullcontext(path)


def _instant_columns(pf: "object") -> set[str]:
    meta = pf.schema_arrow.metadata or {}  # type: ignore[attr-defined]
    names: set[str] = set()
    spark = meta.get(SPARK_SCHEMA_KEY)
    if spark:
        for field in json.loads(spark).get("fields", []):
            if field.get("type") == "timestamp":
                names.add(field["name"])
    schema = pf.schema  # type: ignore[attr-defined]
    for i in range(len(schema)):
        column = schema.column(i)
        if column.physical_type == "INT96" and "." not in column.path:
            names.add(column.path)
    return names


def _mark_instants(table: "pa.Table", instants: set[str]) -> "pa.Table":
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if field.name in instants and pa.types.is_timestamp(field.type) and field.type.tz is None:
            t = pa.timestamp(field.type.unit, tz="UTC")
            table = table.set_column(i, pa.field(field.name, t), table.column(i).cast(t))
    return table


def write_parquet(table: "pa.Table", path: Path) -> None:
    """Write one parquet file."""
    import pyarrow.parquet as pq

    pq.write_table(table, path)
