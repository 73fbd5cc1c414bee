"""Spark types to rows-v1 kinds (spec section 3), and user-defined types end to end."""
from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa
import pyspark
import pytest
from pyspark.ml.linalg import Vectors, VectorUDT
from pyspark.sql import types as T

import ubunye
from ubunye.hashing.errors import RowsV1Error
from ubunye.spark import fingerprint_spark, spark_kinds


def schema(*fields: tuple[str, Any]) -> T.StructType:
    return T.StructType([T.StructField(n, t) for n, t in fields])


def test_every_scalar_and_nested_type() -> None:
    s = schema(
        ("i8", T.ByteType()), ("i16", T.ShortType()), ("i32", T.IntegerType()), ("i64", T.LongType()),
        ("f32", T.FloatType()), ("f64", T.DoubleType()), ("b", T.BooleanType()),
        ("s", T.StringType()), ("c", T.CharType(3)), ("v", T.VarcharType(9)),
        ("bin", T.BinaryType()), ("d", T.DateType()), ("t", T.TimestampType()),
        ("n", T.TimestampNTZType()), ("dec", T.DecimalType(38, 18)), ("z", T.NullType()),
        ("l", T.ArrayType(T.ArrayType(T.IntegerType()))),
        ("m", T.MapType(T.DateType(), T.ArrayType(T.LongType()))),
        ("st", T.StructType([T.StructField("zz", T.IntegerType()), T.StructField("a b", T.StringType())])),
    )
    assert spark_kinds(s) == [
        ("i8", "int8"), ("i16", "int16"), ("i32", "int32"), ("i64", "int64"),
        ("f32", "float32"), ("f64", "float64"), ("b", "bool"),
        ("s", "string"), ("c", "string"), ("v", "string"),
        ("bin", "binary"), ("d", "date"), ("t", "timestamp"),
        ("n", "timestamp_ntz"), ("dec", "decimal(38,18)"), ("z", "null"),
        ("l", "list<list<int32>>"),
        ("m", "map<date,list<int64>>"),
        ("st", "struct<zz:int32,a b:string>"),
    ]


@pytest.mark.skipif(pyspark.__version__.startswith("3."), reason="pyspark 3.5 has no collated strings (4.0+)")
def test_collated_string_is_a_string() -> None:
    assert spark_kinds(schema(("s", T.StringType("UTF8_LCASE")))) == [("s", "string")]


def test_user_defined_type_is_its_sql_type() -> None:
    assert spark_kinds(schema(("v", VectorUDT()))) == [
        ("v", "struct<type:int8,size:int32,indices:list<int32>,values:list<float64>>")]


# pyspark 3.5 has neither CalendarIntervalType nor VariantType in its Python types (4.0+).
NO_TEXT_TYPES = [(T.DayTimeIntervalType(), "interval day to second"),
                 (T.YearMonthIntervalType(), "interval year to month")] + [
    (getattr(T, name)(), text) for name, text in (("CalendarIntervalType", "interval"), ("VariantType", "variant"))
    if hasattr(T, name)]


@pytest.mark.parametrize("dt, text", NO_TEXT_TYPES)
def test_types_without_canonical_text_fail_naming_column_and_type(dt: Any, text: str) -> None:
    with pytest.raises(RowsV1Error) as caught:
        spark_kinds(schema(("id", T.LongType()), ("span", T.ArrayType(dt))))
    message = str(caught.value)
    assert "'span'" in message and text in message and "\n" not in message


def test_map_keyed_by_a_struct_fails() -> None:
    key = T.StructType([T.StructField("a", T.IntegerType())])
    with pytest.raises(RowsV1Error, match=r"column 'm' .*map key of kind struct<a:int32>"):
        spark_kinds(schema(("m", T.MapType(key, T.StringType()))))


def test_repeated_names_fail() -> None:
    with pytest.raises(RowsV1Error, match="column 'a': duplicate"):
        spark_kinds(schema(("a", T.LongType()), ("a", T.LongType())))
    with pytest.raises(RowsV1Error, match="duplicate field names"):
        spark_kinds(schema(("s", T.StructType([T.StructField("x", T.LongType())] * 2))))


def test_vector_column_hashes_as_its_struct_on_every_engine(spark: Any) -> None:
    """ML vectors: both Spark engines hash the UDT's SQL struct, as pandas hashes that struct."""
    vectors = [Vectors.dense([1.0, -0.0, 1e23]), Vectors.sparse(5, [1, 4], [0.5, float("nan")]), None]
    df = spark.createDataFrame([(i, v) for i, v in enumerate(vectors)], schema(("id", T.LongType()),
                                                                             ("v", VectorUDT())))
    struct = pa.struct([("type", pa.int8()), ("size", pa.int32()),
                        ("indices", pa.list_(pa.int32())), ("values", pa.list_(pa.float64()))])
    rows = [{"type": 1, "size": None, "indices": None, "values": [1.0, -0.0, 1e23]},
            {"type": 0, "size": 5, "indices": [1, 4], "values": [0.5, float("nan")]}, None]
    table = pa.table({"id": pa.array([0, 1, 2], pa.int64()), "v": pa.array(rows, struct)})
    expected = ubunye.fingerprint(table.to_pandas(types_mapper=pd.ArrowDtype))
    assert expected.ok
    for engine in ("spark-native", "spark-sql"):
        fp = fingerprint_spark(df, engine=engine)
        assert (fp.error, fp.schema_hash, fp.data_hash) == (None, expected.schema_hash, expected.data_hash)
