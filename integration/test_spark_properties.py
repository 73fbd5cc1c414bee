"""Property: random schemas and rows hash the same on Spark native, Spark fallback and pandas.

Each example is one random table (1 to 5 columns of random kinds, nested up to
two levels, 0 to 40 rows with nulls, NaN, infinities, -0.0, control and
non-ASCII characters, old and far dates). It is built once as a pandas frame
(Arrow-backed) and once as a Spark DataFrame with the matching Spark types; the
three engines must give one data hash. Hypothesis runs derandomized (a fixed
seed), with a modest number of examples because each costs Spark jobs.
"""
from __future__ import annotations

import datetime as dt
import math
from decimal import Context, Decimal
from typing import Any, Callable

import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ubunye
from ubunye.hashing import kinds as K
from ubunye.hashing.arrow_types import kind_to_arrow
from ubunye.spark import fingerprint_spark
from ubunye.spark.testing import spark_value

UTC = dt.timezone.utc
EXACT = Context(prec=60)  # more digits than decimal(38, s) has
NAME_CHARS = "aAbBzZ09 ._-\"é😀\t"


def _not_negative_zero(x: float) -> bool:
    return not (x == 0.0 and math.copysign(1.0, x) < 0)


# kind tag -> (Spark DDL, value strategy, map-key strategy or None)
def _scalar(tag: str) -> tuple[str, st.SearchStrategy[Any], Any]:
    if tag in ("int8", "int16", "int32", "int64"):
        bits = int(tag[3:])
        ints = st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        ddl = {"int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT"}[tag]
        return ddl, ints, ints
    if tag == "float64":
        return "DOUBLE", st.floats(), st.floats(allow_nan=False).filter(_not_negative_zero)
    if tag == "float32":
        return "FLOAT", st.floats(width=32), st.floats(width=32, allow_nan=False).filter(_not_negative_zero)
    if tag == "bool":
        return "BOOLEAN", st.booleans(), st.booleans()
    if tag == "string":
        text = st.text(max_size=12)
        return "STRING", text, text
    if tag == "binary":
        data = st.binary(max_size=12)
        return "BINARY", data, data
    if tag == "date":
        dates = st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))
        return "DATE", dates, dates
    if tag == "timestamp":
        instants = st.datetimes(dt.datetime(1, 1, 2), dt.datetime(9999, 12, 30)).map(
            lambda d: d.replace(tzinfo=UTC))
        return "TIMESTAMP", instants, instants
    if tag == "timestamp_ntz":
        walls = st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31))
        return "TIMESTAMP_NTZ", walls, walls
    raise ValueError(tag)


SCALARS = ("int8", "int16", "int32", "int64", "float32", "float64", "bool", "string", "binary",
           "date", "timestamp", "timestamp_ntz")


@st.composite
def decimal_kind(draw: Callable[..., Any]) -> tuple[K.Kind, str, st.SearchStrategy[Any], Any]:
    p = draw(st.integers(1, 38))
    s = draw(st.integers(0, p))
    # exact: scaleb rounds to its context's precision (28 digits by default), which would
    # turn 32 nines into 1E+32, a value decimal(32, s) cannot hold
    values = st.integers(-(10**p - 1), 10**p - 1).map(lambda n: Decimal(n).scaleb(-s, EXACT))
    return K.decimal(p, s), f"DECIMAL({p},{s})", values, values


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@st.composite
def kinds(draw: Callable[..., Any], depth: int = 2) -> tuple[K.Kind, str, st.SearchStrategy[Any]]:
    """A random kind, its Spark DDL type and a strategy of decoded values (or None)."""
    choice = draw(st.sampled_from(("scalar",) * 4 + ("decimal", "list", "struct", "map")
                                  if depth > 0 else ("scalar", "decimal")))
    if choice == "scalar":
        tag = draw(st.sampled_from(SCALARS))
        ddl, values, _ = _scalar(tag)
        return K.scalar(tag), ddl, st.none() | values
    if choice == "decimal":
        kind, ddl, values, _ = draw(decimal_kind())
        return kind, ddl, st.none() | values
    if choice == "list":
        ek, eddl, evalues = draw(kinds(depth - 1))
        return K.list_of(ek), f"ARRAY<{eddl}>", st.none() | st.lists(evalues, max_size=4)
    if choice == "struct":
        names = draw(st.lists(st.text(NAME_CHARS, min_size=1, max_size=4), min_size=1, max_size=3,
                              unique_by=str.lower))
        fields = [(n, draw(kinds(depth - 1))) for n in names]
        kind = K.struct_of([(n, f[0]) for n, f in fields])
        ddl = "STRUCT<" + ", ".join(f"{quoted(n)}: {f[1]}" for n, f in fields) + ">"
        values = st.fixed_dictionaries({n: f[2] for n, f in fields})
        return kind, ddl, st.none() | values
    # map: scalar or decimal keys (unique by value), any value kind
    if draw(st.booleans()):
        tag = draw(st.sampled_from(SCALARS))
        kddl, _, keys = _scalar(tag)
        kkind = K.scalar(tag)
    else:
        kkind, kddl, _, keys = draw(decimal_kind())
    vk, vddl, vvalues = draw(kinds(depth - 1))
    pairs = st.lists(st.tuples(keys, vvalues), max_size=4, unique_by=lambda kv: kv[0])
    return K.map_of(kkind, vk), f"MAP<{kddl}, {vddl}>", st.none() | pairs


@st.composite
def tables(draw: Callable[..., Any]) -> tuple[list[tuple[str, K.Kind, str]], list[tuple[Any, ...]]]:
    names = draw(st.lists(st.text(NAME_CHARS, min_size=1, max_size=6), min_size=1, max_size=5,
                          unique=True))
    columns = [(n, *draw(kinds())) for n in names]
    n_rows = draw(st.integers(0, 40))
    rows = [tuple(draw(c[3]) for c in columns) for _ in range(n_rows)]
    return [(n, k, ddl) for n, k, ddl, _ in columns], rows


def pandas_frame(columns: list[tuple[str, K.Kind, str]], rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    arrays = [pa.array([r[i] for r in rows], type=kind_to_arrow(k)) for i, (_, k, _) in enumerate(columns)]
    table = pa.Table.from_arrays(arrays, names=[n for n, _, _ in columns])
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def spark_frame(spark: Any, columns: list[tuple[str, K.Kind, str]], rows: list[tuple[Any, ...]]) -> Any:
    ddl = ", ".join(f"{quoted(n)} {t}" for n, _, t in columns)
    data = [tuple(spark_value(v, k) for v, (_, k, _) in zip(row, columns)) for row in rows]
    return spark.createDataFrame(data, ddl)


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(table=tables())
def test_random_tables_hash_the_same_on_native_fallback_and_pandas(spark: Any, table: Any) -> None:
    columns, rows = table
    expected = ubunye.fingerprint(pandas_frame(columns, rows))
    assert expected.error is None and expected.row_count == len(rows), expected
    df = spark_frame(spark, columns, rows)
    for engine in ("spark-native", "spark-sql"):
        fp = fingerprint_spark(df, engine=engine)
        assert (fp.error, fp.schema_hash, fp.data_hash) == (
            None, expected.schema_hash, expected.data_hash), (engine, columns)


def test_the_strategy_covers_nested_kinds() -> None:
    """The generator reaches maps, structs, lists and decimals (guards against a narrowed strategy)."""
    seen: set[str] = set()

    @settings(max_examples=200, derandomize=True, database=None)
    @given(table=tables())
    def collect(table: Any) -> None:
        for _, kind, _ in table[0]:
            seen.add(kind.tag)

    collect()
    assert {"map", "struct", "list", "decimal", "timestamp", "float32"} <= seen
