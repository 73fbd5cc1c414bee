"""Tables and Delta versions as a session sees them: whether a catalog table exists, the
latest version of a Delta table (by path or name; the one a write made), whether
``delta-spark`` is installed; a written table's comment and properties.

Importing this module imports nothing from pyspark or delta-spark.
"""
from __future__ import annotations

import importlib.util
from typing import Any, Optional


def delta_installed() -> bool:
    """True when the ``delta-spark`` Python package is installed."""
    return importlib.util.find_spec("delta") is not None


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


def written_version(spark: Any, out: Any) -> Optional[int]:
    """The Delta version a write of ``out`` made (None for other formats)."""
    if out.format == "delta":
        return delta_version_of(spark, path=out.path)
    if out.format == "table":
        return delta_version_of(spark, table=out.table)
    return None


def describe_table(spark: Any, out: Any) -> None:
    """A table output's comment and properties (0.8.0's unity writer set them after writing)."""
    def literal(text: str) -> str:
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

    if out.table_comment is not None:
        spark.sql(f"COMMENT ON TABLE {out.table} IS {literal(out.table_comment)}")
    if out.table_properties:
        props = ", ".join(f"{literal(k)} = {literal(v)}" for k, v in out.table_properties.items())
        spark.sql(f"ALTER TABLE {out.table} SET TBLPROPERTIES ({props})")
