"""CSV written the way Spark writes it (header, ``"`` quotes, ``\\`` escapes)."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dt.datetime):
        from ubunye.io.datetimes import written_timestamp

        return written_timestamp(v)
    if isinstance(v, float):
        return repr(v) if v == v and v not in (float("inf"), float("-inf")) else (
            "NaN" if v != v else ("Inf" if v > 0 else "-Inf"))
    text = str(v)
    if text == "" or any(c in text for c in ',"\\\n\r') or text != text.strip():
        return '"' + text.replace('"', '\\"') + '"'
    return text


def write_csv(table: "pa.Table", path: Path) -> None:
    """Write a flat table as CSV with a header line; nested columns are refused."""
    import pyarrow as pa

    for field in table.schema:
        if pa.types.is_nested(field.type) or pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
            raise ValueError(f"column {field.name!r} of type {field.type}: CSV cannot hold it (as in Spark)")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(_cell(n) for n in table.schema.names) + "\n")
        for row in table.to_pylist():
            handle.write(",".join(_cell(v) for v in row.values()) + "\n")
