"""Turn the frames people hash into Arrow batches or port rows.

- pandas: converted to Arrow per spec section 3 (named index levels become
  columns, unnamed ones are dropped; categoricals take their values' kind;
  top-level naive numpy-backed timestamps are instants read as UTC wall time,
  while Arrow-backed (``pd.ArrowDtype``) columns keep their Arrow type, so a
  naive one stays ``timestamp_ntz``; numpy-backed float NaN is null,
  Arrow-backed NaN stays ``"NaN"``).
- pyarrow ``Table`` / ``RecordBatch`` / ``RecordBatchReader``: used as is.
- polars: ``to_arrow()`` (no rows copied into Python objects).
- DuckDB relations: an Arrow record batch reader.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Union

from ubunye.hashing.kinds import Kind, check_unique_names

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


class UnsupportedFrame(TypeError):
    """An object that is not a frame this package can hash."""


class ArrowSource:
    """An Arrow schema plus a one-shot iterator of its record batches."""

    def __init__(self, schema: "pa.Schema", batches: Iterator["pa.RecordBatch"]) -> None:
        self.schema = schema
        self.batches = batches


_ARROW_TYPES = ("Table", "RecordBatch", "RecordBatchReader")


def frame_kind(frame: Any) -> str:
    """``pandas``, ``arrow``, ``polars``, ``duckdb``, ``spark``, ``port`` or ``unknown``."""
    module = type(frame).__module__ or ""
    name = type(frame).__name__
    root = module.split(".")[0]
    if root == "pandas":
        return "pandas" if name == "DataFrame" else "unknown"
    if root == "pyarrow":
        return "arrow" if name in _ARROW_TYPES else "unknown"
    if root == "polars":
        return "polars" if name in ("DataFrame", "LazyFrame") else "unknown"
    if root in ("duckdb", "_duckdb"):
        return "duckdb" if hasattr(frame, "to_arrow_reader") or hasattr(frame, "arrow") else "unknown"
    if root == "pyspark":
        return "spark"
    if hasattr(frame, "collect") and hasattr(frame, "schema"):
        return "port"
    return "unknown"


def to_arrow_source(frame: Any, batch_rows: int = 65_536) -> ArrowSource:
    """An :class:`ArrowSource` for a pandas, pyarrow, polars or DuckDB frame."""
    import pyarrow as pa

    kind = frame_kind(frame)
    if kind == "pandas":
        table = pandas_to_arrow(frame)
        return ArrowSource(table.schema, iter(table.to_batches(max_chunksize=batch_rows)))
    if kind == "polars":
        if type(frame).__name__ == "LazyFrame":
            frame = frame.collect()
        table = frame.to_arrow()
        return ArrowSource(table.schema, iter(table.to_batches(max_chunksize=batch_rows)))
    if kind == "duckdb":
        reader = _duckdb_reader(frame, batch_rows)
        return ArrowSource(reader.schema, iter(reader))
    if isinstance(frame, pa.Table):
        return ArrowSource(frame.schema, iter(frame.to_batches(max_chunksize=batch_rows)))
    if isinstance(frame, pa.RecordBatch):
        return ArrowSource(frame.schema, iter([frame]))
    if isinstance(frame, pa.RecordBatchReader):
        return ArrowSource(frame.schema, iter(frame))
    raise UnsupportedFrame(f"cannot hash a {type(frame).__module__}.{type(frame).__name__} through Arrow")


def _duckdb_reader(relation: Any, batch_rows: int) -> "pa.RecordBatchReader":
    for name in ("to_arrow_reader", "fetch_arrow_reader", "fetch_record_batch", "record_batch"):
        method = getattr(relation, name, None)
        if method is not None:
            try:
                return method(batch_rows)
            except TypeError:
                continue
    return relation.arrow()


def pandas_to_arrow(df: Any, index: bool = True) -> "pa.Table":
    """A pandas DataFrame as an Arrow table, per spec section 3 (its named index levels first,
    unless ``index`` is false)."""
    import pyarrow as pa

    columns = [str(c) for c in df.columns]
    index_names = [n for n in df.index.names if n is not None] if index else []
    names = [str(n) for n in index_names] + columns
    check_unique_names(names)
    if index_names:
        df = df.reset_index(level=index_names)
    arrow_backed = {str(c) for c, dtype in df.dtypes.items() if type(dtype).__name__ == "ArrowDtype"}
    table = pa.Table.from_pandas(df, preserve_index=False)
    fields = []
    arrays = []
    for field, column in zip(table.schema, table.columns):
        t = field.type
        if pa.types.is_dictionary(t):
            column = column.cast(t.value_type)
            t = t.value_type
        if pa.types.is_timestamp(t) and t.tz is None and str(field.name) not in arrow_backed:
            # naive pandas (numpy-backed) timestamps are instants read as UTC wall
            # time; Arrow-backed columns keep their Arrow meaning (timestamp_ntz)
            t = pa.timestamp(t.unit, tz="UTC")
            column = column.cast(t)
        fields.append(pa.field(str(field.name), t))
        arrays.append(column)
    if not fields:
        # a frame with rows but no columns keeps its rows (each is the line "{}")
        return pa.table({"_": pa.nulls(len(df))}).drop_columns(["_"])
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def port_kinds(schema: Any) -> list[tuple[str, Union[str, Kind]]]:
    """``(name, kind text or Kind)`` from a port's ``schema`` (a mapping or a list of pairs). A
    :class:`Kind` is kept as it is: its text is ambiguous when a struct field's name holds ``:``,
    ``,`` or ``>`` (``struct<a:b:int64>``), and could not be read back."""
    items = schema.items() if hasattr(schema, "items") else schema
    return [(str(n), k if isinstance(k, Kind) else str(k)) for n, k in items]

