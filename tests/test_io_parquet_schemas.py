"""The parquet reader reads a folder in the one schema Spark reads it with (mergeSchema,
differing parts, explicit schemas), unsigned integers as Spark's types, and refuses names
that differ only by case with the line both engine backends give."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye.io import UnreadablePath, read_arrow
from ubunye.io.names import DuplicateColumns, from_spark_error, message


def parts(folder: Path, *tables: pa.Table) -> Path:
    folder.mkdir()
    for i, table in enumerate(tables):
        pq.write_table(table, folder / f"part-{i}.parquet")
    return folder


@pytest.fixture
def differing(tmp_path: Path) -> Path:
    return parts(tmp_path / "d", pa.table({"a": pa.array([1, 2], pa.int64())}),
                 pa.table({"a": pa.array([3], pa.int64()), "b": ["x"]}), pa.table({"c": [5.0]}))


def test_without_merge_schema_the_first_part_in_path_order_decides(differing: Path) -> None:
    table = read_arrow(differing, "parquet")
    assert table.column_names == ["a"]
    assert table.column("a").to_pylist() == [1, 2, 3, None]  # b dropped, the part without a is null
    assert read_arrow(differing, "parquet", options={"mergeSchema": "false"}).equals(table)


def test_the_first_part_is_the_first_path_not_the_first_written(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    pq.write_table(pa.table({"z": [1]}), folder / "b.parquet")
    pq.write_table(pa.table({"y": [2]}), folder / "A.parquet")  # 'A' sorts before 'b', as Spark sorts paths
    assert read_arrow(folder, "parquet").column_names == ["y"]


def test_merge_schema_reads_the_union_in_part_order(differing: Path) -> None:
    table = read_arrow(differing, "parquet", options={"MERGESCHEMA": True})
    assert table.column_names == ["a", "b", "c"]
    assert table.to_pylist()[2:] == [{"a": 3, "b": "x", "c": None}, {"a": None, "b": None, "c": 5.0}]


def test_merge_schema_refuses_one_column_of_two_types(tmp_path: Path) -> None:
    folder = parts(tmp_path / "d", pa.table({"a": pa.array([1], pa.int32())}),
                   pa.table({"a": pa.array(["x"])}))
    with pytest.raises(UnreadablePath, match="parts give column 'a' different types"):
        read_arrow(folder, "parquet", options={"mergeSchema": "true"})
    with pytest.raises(UnreadablePath, match="column 'a' is string, which Spark does not read as int32"):
        read_arrow(folder, "parquet")


def test_merge_schema_merges_names_ignoring_case_and_struct_fields(tmp_path: Path) -> None:
    folder = parts(tmp_path / "d",
                   pa.table({"a": [1], "s": pa.array([{"x": 1}], pa.struct([("x", pa.int64())]))}),
                   pa.table({"A": [2], "s": pa.array([{"y": "q"}], pa.struct([("y", pa.string())]))}))
    table = read_arrow(folder, "parquet", options={"mergeSchema": "true"})
    assert table.column_names == ["a", "s"]
    assert table.to_pylist() == [{"a": 1, "s": {"x": 1, "y": None}}, {"a": 2, "s": {"x": None, "y": "q"}}]


def test_unsigned_integers_read_as_spark_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"u8": pa.array([255], pa.uint8()), "u16": pa.array([65535], pa.uint16()),
                             "u32": pa.array([2**32 - 1], pa.uint32()), "u64": pa.array([2**64 - 1], pa.uint64()),
                             "l": pa.array([[1]], pa.list_(pa.uint8()))}), path)
    table = read_arrow(path)
    assert table.schema.types == [pa.int16(), pa.int32(), pa.int64(), pa.decimal128(20, 0), pa.list_(pa.int16())]
    assert table.to_pylist() == [{"u8": 255, "u16": 65535, "u32": 2**32 - 1, "u64": Decimal(2**64 - 1), "l": [1]}]


def test_names_that_differ_only_by_case_are_refused_with_the_shared_line(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"a": [1], "A": [2]}), path)
    with pytest.raises(UnreadablePath) as info:
        read_arrow(path)
    assert isinstance(info.value.__cause__, DuplicateColumns)
    assert str(info.value.__cause__) == message("a")


def test_spark_errors_about_duplicate_columns_map_to_the_same_line() -> None:
    spark41 = ("[COLUMN_ALREADY_EXISTS] The column `a` already exists. Choose another name or rename the "
               "existing column. SQLSTATE: 42711")
    spark35 = "[COLUMN_ALREADY_EXISTS] The column `a` already exists. Consider to choose another name"
    assert from_spark_error(spark41) == from_spark_error(spark35) == message("A")
    assert from_spark_error("[CANNOT_MERGE_SCHEMAS] Failed merging schemas") is None


def test_an_explicit_schema_finds_columns_ignoring_case_and_widens_as_spark_4(differing: Path) -> None:
    table = read_arrow(differing, "parquet", schema="A DECIMAL(25,0), b STRING, missing INT")
    assert table.column_names == ["A", "b", "missing"]
    assert table.schema.types == [pa.decimal128(25, 0), pa.string(), pa.int32()]
    assert table.column("A").to_pylist() == [1, 2, 3, None]
    with pytest.raises(UnreadablePath, match="column 'a' is int64, which Spark does not read as int32"):
        read_arrow(differing, "parquet", schema="a INT")


def test_an_option_the_parquet_reader_does_not_follow_is_refused(differing: Path) -> None:
    with pytest.raises(UnreadablePath, match="option 'datetimerebasemode' is not followed"):
        read_arrow(differing, "parquet", options={"datetimeRebaseMode": "CORRECTED"})
