"""Which schema Spark reads a folder of parquet parts with, and each part read in it.

Spark (3.5 and 4.x alike) reads every part of a folder in ONE schema:

- an explicit schema (``.schema(ddl)``) when given;
- with ``mergeSchema=true``, the union of the parts' schemas, in path order: a
  part's new columns come after those already seen, names compared ignoring case
  (the first spelling is kept), structs merged field by field; two parts that
  give one column different types are refused (``CANNOT_MERGE_SCHEMAS``);
- otherwise the schema of the first part in path order (``parquet.ParquetFileFormat``
  reads one footer): columns only other parts hold are dropped, columns a part lacks
  are null there.

Each part's columns are then found by name ignoring case. A part whose column has
another type than the schema's is refused, as Spark refuses it, except where Spark
4.x widens it on read (``int`` to ``long``, ``double`` or a wide enough decimal,
``float`` to ``double``, a decimal to a wider one, ``date`` to ``timestamp_ntz``,
``string`` read as ``binary``); Spark 3.5 refuses most of those (the docs say which).

Unsigned integers are read as Spark reads them: ``uint8`` as ``short``, ``uint16`` as
``int``, ``uint32`` as ``long``, ``uint64`` as ``decimal(20,0)``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ubunye.io.names import check_unique

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


class SchemaMismatch(ValueError):
    """Parts (or a part and the explicit schema) that Spark refuses to read as one table."""


def kind(t: "pa.DataType") -> str:
    """The rows-v1 kind of an Arrow type (its Spark type's name)."""
    import pyarrow as pa

    from ubunye.hashing.arrow import arrow_kinds

    return arrow_kinds(pa.schema([("x", t)]))[0][1]


def spark_type(t: "pa.DataType") -> "pa.DataType":
    """The Arrow type of the Spark type a parquet column of type ``t`` is read as (unsigned ints widened)."""
    import pyarrow as pa

    unsigned = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
                pa.uint64(): pa.decimal128(20, 0)}
    if t in unsigned:
        return unsigned[t]
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(spark_type(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(spark_type(t.key_type), spark_type(t.item_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(t.value_field.with_type(spark_type(t.value_type)))
    return t


def file_schema(schema: "pa.Schema", where: str) -> "pa.Schema":
    """A part's schema as Spark sees it; names that differ only by case are refused."""
    import pyarrow as pa

    check_unique(schema.names)
    return pa.schema([f.with_type(spark_type(f.type)) for f in schema], metadata=schema.metadata)


def _merge_type(a: "pa.DataType", b: "pa.DataType", name: str) -> "pa.DataType":
    import pyarrow as pa

    if pa.types.is_struct(a) and pa.types.is_struct(b):
        return pa.struct(_merge_fields(list(a), list(b)))
    if (pa.types.is_list(a) or pa.types.is_large_list(a)) and (pa.types.is_list(b) or pa.types.is_large_list(b)):
        return pa.list_(a.value_field.with_type(_merge_type(a.value_type, b.value_type, name)))
    if kind(a) == kind(b):
        return a
    raise SchemaMismatch(f"parts give column {name!r} different types ({kind(a)} and {kind(b)}): "
                         "Spark cannot merge their schemas")


def _merge_fields(left: list["pa.Field"], right: list["pa.Field"]) -> list["pa.Field"]:
    out = list(left)
    index = {f.name.lower(): i for i, f in enumerate(out)}
    for f in right:
        i = index.get(f.name.lower())
        if i is None:
            index[f.name.lower()] = len(out)
            out.append(f)
        else:
            out[i] = out[i].with_type(_merge_type(out[i].type, f.type, out[i].name))
    return out


def merged(schemas: list["pa.Schema"]) -> "pa.Schema":
    """The union of the parts' schemas (``mergeSchema=true``), in the order given."""
    import pyarrow as pa

    fields: list[pa.Field] = []
    for schema in schemas:
        fields = _merge_fields(fields, list(schema))
    return pa.schema(fields)


def _integer_digits(t: "pa.DataType") -> Optional[int]:
    import pyarrow as pa

    return {pa.int8(): 3, pa.int16(): 5, pa.int32(): 10, pa.int64(): 20}.get(t)


def widens(src: "pa.DataType", dst: "pa.DataType") -> bool:
    """True when Spark 4.x reads a parquet column of ``src`` as ``dst`` (lossless widening)."""
    import pyarrow as pa

    if pa.types.is_integer(src) and pa.types.is_integer(dst):
        return src.bit_width < dst.bit_width and src.bit_width <= 32
    if pa.types.is_integer(src) and src.bit_width <= 32 and pa.types.is_float64(dst):
        return True
    if pa.types.is_integer(src) and pa.types.is_decimal(dst):
        digits = _integer_digits(src)
        return digits is not None and dst.precision - dst.scale >= digits
    if pa.types.is_float32(src) and pa.types.is_float64(dst):
        return True
    if pa.types.is_decimal(src) and pa.types.is_decimal(dst):
        return dst.scale >= src.scale and dst.precision - dst.scale >= src.precision - src.scale
    if pa.types.is_date(src) and pa.types.is_timestamp(dst):
        return dst.tz is None
    return (pa.types.is_string(src) or pa.types.is_large_string(src)) and (
        pa.types.is_binary(dst) or pa.types.is_large_binary(dst))


def conform(column: Any, dst: "pa.DataType", name: str, where: str) -> Any:
    """A part's column read as the schema's type ``dst`` (or :class:`SchemaMismatch`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    src = column.type
    if src == dst:
        return column
    if pa.types.is_struct(src) and pa.types.is_struct(dst):
        return _conform_struct(column, dst, name, where)
    if kind(src) == kind(dst) or widens(src, dst):
        if pa.types.is_date(src) and pa.types.is_timestamp(dst):
            column = pc.cast(column, pa.timestamp(dst.unit))
        return pc.cast(column, dst)
    raise SchemaMismatch(f"{where}: column {name!r} is {kind(src)}, which Spark does not read as {kind(dst)}")


def _conform_struct(column: Any, dst: "pa.DataType", name: str, where: str) -> Any:
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for chunk in chunks:
        by_name = {chunk.type.field(i).name.lower(): chunk.field(i) for i in range(chunk.type.num_fields)}
        children = []
        for f in dst:
            child = by_name.get(f.name.lower())
            children.append(pa.nulls(len(chunk), f.type) if child is None
                            else conform(child, f.type, f"{name}.{f.name}", where))
        out.append(pa.StructArray.from_arrays(children, fields=list(dst), mask=chunk.is_null()))
    return pa.chunked_array(out, type=dst)


def read_as(table: "pa.Table", schema: "pa.Schema", where: str) -> "pa.Table":
    """One part's table in ``schema``: columns found by name ignoring case, missing ones null."""
    import pyarrow as pa

    by_name = {n.lower(): i for i, n in enumerate(table.column_names)}
    columns = []
    for f in schema:
        i = by_name.get(f.name.lower())
        if i is None:
            columns.append(pa.nulls(table.num_rows, f.type))
        else:
            columns.append(conform(table.column(i), f.type, f.name, where))
    return pa.Table.from_arrays(columns, schema=pa.schema(list(schema)))
