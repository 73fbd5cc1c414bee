"""Spark types to rows-v1 kinds (spec section 3).

- strings of any collation, ``char(n)`` and ``varchar(n)`` are ``string``;
- a user-defined type (ML vectors, for example) is hashed as its SQL type;
- a map keyed by a list, struct or map, a struct with a repeated field name,
  two top-level columns with one name, and every type without canonical text
  (intervals, time of day, variant, ...) raise :class:`RowsV1Error` naming the
  column and its type.
"""
from __future__ import annotations

from typing import Any

from pyspark.sql import types as T

from ubunye.hashing import kinds as K
from ubunye.hashing.errors import RowsV1Error

_SCALARS: tuple[tuple[type, str], ...] = (
    (T.ByteType, "int8"),
    (T.ShortType, "int16"),
    (T.IntegerType, "int32"),
    (T.LongType, "int64"),
    (T.FloatType, "float32"),
    (T.DoubleType, "float64"),
    (T.BooleanType, "bool"),
    (T.StringType, "string"),
    (T.CharType, "string"),
    (T.VarcharType, "string"),
    (T.BinaryType, "binary"),
    (T.DateType, "date"),
    (T.TimestampNTZType, "timestamp_ntz"),
    (T.TimestampType, "timestamp"),
    (T.NullType, "null"),
)


def spark_kind(dt: Any) -> K.Kind:
    """The canonical :class:`~ubunye.hashing.kinds.Kind` of one Spark data type.

    Raises :class:`RowsV1Error` (without a column name) for a type with no
    canonical text.
    """
    if isinstance(dt, T.UserDefinedType):
        return spark_kind(dt.sqlType())
    for cls, tag in _SCALARS:
        if isinstance(dt, cls):
            return K.scalar(tag)
    if isinstance(dt, T.DecimalType):
        return K.decimal(dt.precision, dt.scale)
    if isinstance(dt, T.ArrayType):
        return K.list_of(spark_kind(dt.elementType))
    if isinstance(dt, T.MapType):
        return K.map_of(spark_kind(dt.keyType), spark_kind(dt.valueType), strict=True)
    if isinstance(dt, T.StructType):
        return K.struct_of([(f.name, spark_kind(f.dataType)) for f in dt.fields], strict=True)
    raise RowsV1Error(f"type {dt.simpleString()} has no canonical text in rows-v1")


def spark_kinds(schema: "T.StructType") -> list[tuple[str, str]]:
    """``(name, kind text)`` of each top-level column, in schema order.

    Raises :class:`RowsV1Error` with a one-line message naming the column and
    its Spark type.
    """
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for field in schema.fields:
        if field.name in seen:
            raise RowsV1Error(
                f"column {field.name!r}: duplicate top-level column names cannot make a "
                "canonical line"
            )
        seen.add(field.name)
        try:
            kind = spark_kind(field.dataType)
        except RowsV1Error as exc:
            raise RowsV1Error(
                f"column {field.name!r} of type {field.dataType.simpleString()}: {exc}"
            ) from None
        out.append((field.name, kind.text))
    return out


def has_udt(dt: Any) -> bool:
    """True when a user-defined type occurs anywhere in ``dt``."""
    if isinstance(dt, T.UserDefinedType):
        return True
    if isinstance(dt, T.ArrayType):
        return has_udt(dt.elementType)
    if isinstance(dt, T.MapType):
        return has_udt(dt.keyType) or has_udt(dt.valueType)
    if isinstance(dt, T.StructType):
        return any(has_udt(f.dataType) for f in dt.fields)
    return False
