"""Parity of Spark and the pandas reader on parquet schemas: mergeSchema, parts with different
schemas, unsigned integers, names that differ only by case, explicit schemas (parquet, csv, json).

Spark 3.5 reads some explicit parquet schemas differently: it does not widen a part's column
on read (int -> bigint/double/decimal, float -> double, a decimal's scale, date -> timestamp_ntz);
Spark 4.x does, as the pandas reader does. Those cases are in SPARK35_DIFFERS.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parity import allowed, check

I64 = pa.int64()
FOLDERS = {
    "same": [{"a": pa.array([1, 2], I64)}, {"a": pa.array([3], I64)}],
    "differing": [{"a": pa.array([1, 2], I64)}, {"a": pa.array([3], I64), "b": pa.array(["x"])},
                  {"c": pa.array([5.0])}],
    "differing-wider-first": [{"a": pa.array([3], I64), "b": pa.array(["x"])}, {"a": pa.array([1], I64)}],
    "type-conflict": [{"a": pa.array([1], pa.int32())}, {"a": pa.array(["x"])}],
    "case-across-parts": [{"a": pa.array([1], I64)}, {"A": pa.array([2], I64)}],
    "nested-differing": [{"s": pa.array([{"x": 1}], pa.struct([("x", I64)]))},
                         {"s": pa.array([{"y": "q"}], pa.struct([("y", pa.string())]))}],
    "unsigned": [{"u8": pa.array([0, 255], pa.uint8()), "u16": pa.array([1, 65535], pa.uint16()),
                  "u32": pa.array([None, 2**32 - 1], pa.uint32()), "u64": pa.array([0, 2**64 - 1], pa.uint64())}],
    "unsigned-nested": [{"l": pa.array([[1, 255]], pa.list_(pa.uint8())),
                         "s": pa.array([{"x": 2**32 - 1}], pa.struct([("x", pa.uint32())]))}],
    "case-only-names": [{"a": pa.array([1], I64), "A": pa.array([2], I64)}],
    "widen": [{"i": pa.array([1, None], pa.int32()), "f": pa.array([1.5, 2.25], pa.float32()),
               "d": pa.array([Decimal("1.25"), None], pa.decimal128(5, 2)), "t": pa.array([dt.date(2020, 1, 2), None]),
               "s": pa.array(["x", None]), "l": pa.array([7, 8], I64)}],
}

CASES = {  # case: (folder, options, schema)
    "parquet-same": ("same", {}, None),
    "parquet-differing-default": ("differing", {}, None),
    "parquet-differing-merge-false": ("differing", {"mergeSchema": "false"}, None),
    "parquet-differing-merge-true": ("differing", {"mergeSchema": "true"}, None),
    "parquet-differing-wider-first": ("differing-wider-first", {}, None),
    "parquet-type-conflict": ("type-conflict", {}, None),
    "parquet-type-conflict-merge": ("type-conflict", {"mergeSchema": "true"}, None),
    "parquet-case-across-parts": ("case-across-parts", {}, None),
    "parquet-case-across-parts-merge": ("case-across-parts", {"mergeSchema": "true"}, None),
    "parquet-nested-differing-merge": ("nested-differing", {"mergeSchema": "true"}, None),
    "parquet-unsigned": ("unsigned", {}, None),
    "parquet-unsigned-nested": ("unsigned-nested", {}, None),
    "parquet-case-only-names": ("case-only-names", {}, None),
    "parquet-schema-subset-and-missing": ("differing", {}, "a BIGINT, b STRING, zz INT"),
    "parquet-schema-case-insensitive": ("differing", {}, "A BIGINT"),
    "parquet-schema-narrowing": ("differing", {}, "a INT"),
    "parquet-schema-duplicate": ("differing", {}, "a BIGINT, A STRING"),
    "parquet-schema-exact": ("widen", {}, "i INT, f FLOAT, d DECIMAL(5,2), t DATE, s STRING, l BIGINT"),
    "parquet-schema-widen-int": ("widen", {}, "i BIGINT, l BIGINT"),
    "parquet-schema-widen-to-double": ("widen", {}, "i DOUBLE, f DOUBLE"),
    "parquet-schema-widen-decimal": ("widen", {}, "d DECIMAL(10,4), i DECIMAL(12,0)"),
    "parquet-schema-date-to-ntz": ("widen", {}, "t TIMESTAMP_NTZ"),
    "parquet-schema-string-as-binary": ("widen", {}, "s BINARY"),
    "parquet-schema-long-to-double": ("widen", {}, "l DOUBLE"),
    "parquet-schema-date-to-timestamp": ("widen", {}, "t TIMESTAMP"),
}
# Spark 3.5 refuses these widenings on read; Spark 4.x and the pandas reader read them.
SPARK35_DIFFERS = {"parquet-schema-widen-int", "parquet-schema-widen-to-double", "parquet-schema-widen-decimal",
                   "parquet-schema-date-to-ntz"}

TEXT_CASES = {  # explicit schemas on csv and json: followed once their readers follow schemas
    "csv-schema": ("csv", "a,b\n1,x\n2,y\n", "a BIGINT, b STRING"),
    "json-schema": ("json", '{"a": 1, "b": "x"}\n{"a": 2}\n', "a BIGINT, b STRING"),
}


def write_folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    for i, columns in enumerate(FOLDERS[name]):
        pq.write_table(pa.table(columns), folder / f"part-{i:05d}.parquet")
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("parquet-parity")
    return {name: write_folder(root, name) for name in FOLDERS}


# Cases Spark refuses, and the pandas reader too (in one line of its own); every other case must
# agree, so a reader that refuses everything fails (integration/parity.py).
BOTH_REFUSE = {"parquet-case-only-names", "parquet-schema-date-to-timestamp", "parquet-schema-duplicate",
               "parquet-schema-long-to-double", "parquet-schema-narrowing", "parquet-type-conflict",
               "parquet-type-conflict-merge"}


def expected(spark: Any, case: str) -> tuple[str, ...]:
    if case in SPARK35_DIFFERS and spark.version.startswith("3.5"):
        return ("differ",)
    return allowed(case, BOTH_REFUSE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_parquet_schemas_read_as_spark_reads_them(spark: Any, folders: dict[str, Path], case: str) -> None:
    folder, options, schema = CASES[case]
    outcome = check(spark, folders[folder], "parquet", options, schema, case=case)
    assert outcome.kind in expected(spark, case), str(outcome)
    if case in SPARK35_DIFFERS and spark.version.startswith("3.5"):
        assert "only Spark refused" in outcome.detail, str(outcome)


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_explicit_schemas_on_text_formats(spark: Any, tmp_path: Path, case: str) -> None:
    fmt, text, schema = TEXT_CASES[case]
    path = tmp_path / f"data.{fmt}"
    path.write_text(text)
    outcome = check(spark, path, fmt, None, schema, case=case)
    assert outcome.kind == "agree", str(outcome)


def test_the_both_refuse_list_names_cases_of_this_suite() -> None:
    assert BOTH_REFUSE <= set(CASES)
