"""ubunye.io.ddl: Spark DDL schema strings as Arrow schemas (the kinds rows-v1 gives them).

The same strings are read by Spark itself in integration/test_io_ddl_spark.py.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from ubunye.hashing.arrow import arrow_kinds
from ubunye.io.ddl import DDLError, as_schema, parse

# DDL -> the kinds rows-v1 gives each column (the Spark side gives the same in the integration test)
CASES = {
    "a INT, b STRING": [("a", "int32"), ("b", "string")],
    "a integer, b long, c short, d byte, e real, f boolean": [
        ("a", "int32"), ("b", "int64"), ("c", "int16"), ("d", "int8"), ("e", "float32"), ("f", "bool")],
    "a BIGINT NOT NULL, b DOUBLE COMMENT 'the b'": [("a", "int64"), ("b", "float64")],
    "d DECIMAL, e DECIMAL(38, 4), f dec(5), g NUMERIC(7,2)": [
        ("d", "decimal(10,0)"), ("e", "decimal(38,4)"), ("f", "decimal(5,0)"), ("g", "decimal(7,2)")],
    "t TIMESTAMP, n TIMESTAMP_NTZ, l TIMESTAMP_LTZ, d DATE, b BINARY": [
        ("t", "timestamp"), ("n", "timestamp_ntz"), ("l", "timestamp"), ("d", "date"), ("b", "binary")],
    "`a b` INT, `x``y` STRING": [("a b", "int32"), ("x`y", "string")],
    "xs ARRAY<INT>, m MAP<STRING, ARRAY<DOUBLE>>": [("xs", "list<int32>"), ("m", "map<string,list<float64>>")],
    "s STRUCT<a: INT, b STRING, `c d`: STRUCT<e: DATE>>": [
        ("s", "struct<a:int32,b:string,c d:struct<e:date>>")],
}


def _kinds(schema: pa.Schema) -> list[tuple[str, str]]:
    return [(name, str(kind)) for name, kind in arrow_kinds(schema)]


@pytest.mark.parametrize("ddl", sorted(CASES))
def test_ddl_gives_the_kinds_spark_gives(ddl: str) -> None:
    assert _kinds(parse(ddl)) == CASES[ddl]


def test_not_null_and_comment_are_kept() -> None:
    schema = parse("a BIGINT NOT NULL, b DOUBLE COMMENT 'the b'")
    assert not schema.field("a").nullable and schema.field("b").nullable
    assert schema.field("b").metadata == {b"comment": b"the b"}


def test_char_and_varchar_read_as_strings() -> None:
    assert parse("a CHAR(3), b VARCHAR(10)").types == [pa.string(), pa.string()]


@pytest.mark.parametrize("ddl, words", [
    ("", "empty"),
    ("a", "expected a type"),
    ("a INT b STRING", "expected ','"),
    ("a FOO", "unknown type"),
    ("a INTERVAL", "INTERVAL is not read"),
    ("a DECIMAL(40, 2)", "out of range"),
    ("a ARRAY<INT", "expected '>'"),
    ("a INT, A STRING", "same name"),
    ("a INT NOT", "expected NULL"),
    ("a INT; drop", "unexpected"),
])
def test_bad_ddl_is_refused_in_one_line_naming_where(ddl: str, words: str) -> None:
    with pytest.raises(DDLError) as err:
        parse(ddl)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_as_schema_keeps_arrow_schemas_and_none() -> None:
    schema = pa.schema([("a", pa.int32())])
    assert as_schema(schema) is schema and as_schema(None) is None
    with pytest.raises(DDLError, match="DDL string"):
        as_schema(3)
