"""Partitioned writes laid out as Spark's ``partitionBy`` lays them out.

One folder level per partition column, in ``partition_by`` order, named
``<name>=<value>``; the name and the value are escaped as Spark's
``escapePathName`` escapes them (``"#%'*/:=?\\{[]^``, DEL and control
characters become ``%XX``); a null or empty value is ``__HIVE_DEFAULT_PARTITION__``;
the value is the text Spark's cast to string gives in a UTC session (dates
``2024-01-01``, instants ``2024-01-01 12:30:00.5``, decimals with their scale
``1.50``, booleans ``true``, doubles as Java prints them ``1.0E10``). The data
files hold the other columns, in their order, one part file per folder.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ubunye.hashing.javatext import double_text, float_text
from ubunye.io.partitions import DEFAULT_PARTITION

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

_ESCAPE = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


class PartitionWriteError(ValueError):
    """A partitioned write Spark refuses too (the message names the column)."""


def escape(text: str) -> str:
    """Spark's ``escapePathName``."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPE else c for c in text)


def value_text(value: Any, t: "pa.DataType") -> str:
    """The folder text of one value, as Spark casts it to string (UTC)."""
    import pyarrow as pa

    if value is None:
        return DEFAULT_PARTITION
    if pa.types.is_boolean(t):
        text = "true" if value else "false"
    elif pa.types.is_integer(t):
        text = str(int(value))
    elif pa.types.is_float64(t):
        text = double_text(float(value))
    elif pa.types.is_float32(t):
        text = float_text(float(value))
    elif pa.types.is_decimal(t):
        text = format(Decimal(value).quantize(Decimal(1).scaleb(-t.scale)), "f")
    elif pa.types.is_date(t):
        text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    elif pa.types.is_timestamp(t):
        if t.tz is not None:
            value = value.astimezone(dt.timezone.utc)
        text = f"{value.year:04d}-{value:%m-%d %H:%M:%S}"
        if value.microsecond:
            text += f".{value.microsecond:06d}".rstrip("0")
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        text = str(value)
    else:
        raise PartitionWriteError(f"type {t} cannot be a partition column")
    return escape(text) if text else DEFAULT_PARTITION


def partition_columns(schema: "pa.Schema", columns: Sequence[str]) -> list[str]:
    """The frame's names of the partition columns (names matched ignoring case, as Spark),
    refused in one line as Spark refuses them: unknown, twice, every column, or a type with no folder text."""
    import pyarrow as pa

    names = list(schema.names)
    chosen = []
    for col in columns:
        found = [n for n in names if n == col] or [n for n in names if n.lower() == str(col).lower()]
        if not found:
            raise PartitionWriteError(f"partition column {col!r} is not a column of the frame ({', '.join(names)})")
        chosen.append(found[0])
    if len(set(n.lower() for n in chosen)) < len(chosen):
        raise PartitionWriteError(f"partition_by names a column twice: {', '.join(chosen)}")
    if len(chosen) == len(names):
        raise PartitionWriteError("partition_by names every column; Spark needs at least one data column")
    for name in chosen:
        t = schema.field(name).type
        if not (pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t)
                or pa.types.is_decimal(t) or pa.types.is_date(t) or pa.types.is_timestamp(t)
                or pa.types.is_string(t) or pa.types.is_large_string(t)):
            raise PartitionWriteError(f"partition column {name!r} of type {t} cannot be a partition column")
    return chosen


def write_partitioned(table: "pa.Table", folder: Path, columns: Sequence[str],
                      write: Callable[["pa.Table", Path], None]) -> list[Path]:
    """Write ``table`` under ``folder`` partitioned by ``columns``; ``write(part, sub_folder)`` writes one part.

    Returns the partition folders written (none for an empty table, as Spark).
    """
    import pyarrow as pa

    chosen = partition_columns(table.schema, columns)
    keys: dict[str, list[int]] = {}
    for row, key in enumerate(partition_keys(table, chosen)):
        keys.setdefault(key, []).append(row)
    data = table.drop_columns(chosen)
    written = []
    for key, rows in keys.items():
        sub = folder.joinpath(*key.split("/"))
        sub.mkdir(parents=True, exist_ok=True)
        write(data.take(pa.array(rows, pa.int64())) if len(rows) < table.num_rows else data, sub)
        written.append(sub)
    return written


def partition_keys(batch: Any, columns: Sequence[str]) -> list[str]:
    """Each row's partition folder, relative to the table root, as :func:`write_partitioned`
    names it (``day=2024-01-02/shop=7``): the key of the per-partition sums
    (``docs/spec/rows-v1-localise.md`` section 7). ``columns`` are matched as
    :func:`partition_columns` matches them."""
    names = list(batch.schema.names)
    chosen = [next((n for n in names if n == c), None) or next(n for n in names if n.lower() == str(c).lower())
              for c in columns]
    texts = [[value_text(v, batch.schema.field(n).type) for v in batch.column(n).to_pylist()] for n in chosen]
    heads = [f"{escape(n)}=" for n in chosen]
    return ["/".join(h + col[row] for h, col in zip(heads, texts)) for row in range(batch.num_rows)]
