"""Partition discovery, typing and partitioned writes (ubunye.io.partitions, ubunye.io.partition_write).

Expected values are what Spark 4.1 gives for the same folders (integration/test_parity_partitions.py
checks them against Spark itself)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from ubunye.io import UnreadablePath, read_arrow
from ubunye.hashing.javatext import double_text as java_double
from ubunye.io.partition_write import PartitionWriteError, escape, value_text, write_partitioned
from ubunye.io.partitions import attach, discover, infer, resolve, unescape

CSV = "x\n1\n"


def lay_out(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("raw,expected", [
    ("1", "int"), ("01", "int"), ("+1", "int"), ("١٢", "int"), ("2147483648", "long"),
    ("9223372036854775808", ("decimal", 19)), ("1e5", ("decimal", 6)), ("0e5", ("decimal", 6)),
    ("1.5e3", ("decimal", 4)), ("5.", ("decimal", 1)), ("1e38", "double"), ("1" * 39, "double"),
    ("1.0", "double"), ("1.0d", "double"), ("1f", "double"), (" 1", "double"), ("0x1p3", "double"),
    ("NaN", "double"), ("-Infinity", "double"), ("0x10", "string"), ("1_000", "string"), ("١.٥", "string"),
    ("Infinityd", "string"), ("2024-01-01", "date"), ("2024-02-30", "string"), ("2024-1-1", "string"),
    ("2024-01-01 00%3A00%3A00", "timestamp"), ("2024-01-01 00%3A00%3A00.5", "timestamp"),
    ("2024-01-01 00%3A00%3A00.12", "string"), ("2024-01-01T00%3A00%3A00", "string"),
    ("2024-01-01 24%3A00%3A00", "string"), ("true", "string"), ("__HIVE_DEFAULT_PARTITION__", "null"),
])
def test_each_value_is_typed_as_spark_types_it(raw: str, expected: object) -> None:
    assert infer(raw) == expected


@pytest.mark.parametrize("raws,expected", [
    (["1", "2147483648"], "long"), (["01", "1.5"], "double"), (["2147483648", "1.5"], "string"),
    (["9223372036854775808", "1.5"], "string"), (["1", "1e5"], ("decimal", 10)),
    (["2147483648", "9223372036854775808"], ("decimal", 20)), (["2024-01-01", "2024-01-02 00%3A00%3A00"], "timestamp"),
    (["2024-01-01", "01"], "string"), (["__HIVE_DEFAULT_PARTITION__", "1"], "int"),
    (["__HIVE_DEFAULT_PARTITION__"], "null"), (["1e5", "2024-01-01"], "string"),
])
def test_values_widen_as_spark_widens_them(raws: list[str], expected: object) -> None:
    assert resolve(raws) == expected


def test_escapes_are_decoded_as_spark_decodes_them() -> None:
    assert unescape("a%2Fb%3Ac%25d") == "a/b:c%d"
    assert unescape("%C3%A9") == "Ã©"  # one character per %XX, as Spark
    assert unescape("a%zzb%4") == "a%zzb%4"


def test_two_levels_append_typed_columns_in_folder_order(tmp_path: Path) -> None:
    lay_out(tmp_path, {"a=1/b=x%2Fy/p.csv": CSV, "a=2/b=__HIVE_DEFAULT_PARTITION__/p.csv": "x\n2\n3\n",
                       "a=1/b=x%2Fy/_SUCCESS": "", "_tmp/p.csv": CSV, ".h/p.csv": CSV})
    table = read_arrow(tmp_path, "csv")
    assert table.schema.names == ["x", "a", "b"]
    assert table.schema.field("a").type == pa.int32()
    assert sorted(zip(*[table.column(n).to_pylist() for n in table.column_names])) == [
        (1, 1, "x/y"), (2, 2, None), (3, 2, None)]


def test_typed_values_dates_timestamps_decimals(tmp_path: Path) -> None:
    lay_out(tmp_path, {"d=2024-01-01/t=2024-01-01 12%3A30%3A00.5/n=1e5/p.csv": CSV,
                       "d=2024-02-29/t=2024-01-02/n=3/p.csv": CSV})
    table = read_arrow(tmp_path, "csv")
    assert table.schema.field("d").type == pa.date32()
    assert table.schema.field("t").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("n").type == pa.decimal128(10, 0)
    rows = sorted(table.to_pylist(), key=lambda r: r["d"])
    assert [r["d"] for r in rows] == [dt.date(2024, 1, 1), dt.date(2024, 2, 29)]
    assert [r["t"] for r in rows] == [dt.datetime(2024, 1, 1, 12, 30, 0, 500000, tzinfo=dt.timezone.utc),
                                      dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc)]
    assert [r["n"] for r in rows] == [Decimal(100000), Decimal(3)]


def test_root_file_beside_partitions_is_not_read_and_subfolder_under_partition_is(tmp_path: Path) -> None:
    lay_out(tmp_path, {"a=1/sub/p.csv": CSV, "a=2/p.csv": "x\n2\n", "root.csv": "x\n9\n"})
    assert sorted(read_arrow(tmp_path, "csv").to_pylist(), key=lambda r: r["x"]) == [
        {"x": 1, "a": 1}, {"x": 2, "a": 2}]


def test_plain_subfolders_without_partitions_are_not_read(tmp_path: Path) -> None:
    lay_out(tmp_path, {"p.csv": CSV, "sub/p.csv": "x\n2\n"})
    assert read_arrow(tmp_path, "csv").to_pylist() == [{"x": 1}]


@pytest.mark.parametrize("files,reason", [
    ({"a=1/p.csv": CSV, "other/p.csv": CSV}, "conflicting directory structures"),
    ({"a=1/p.csv": CSV, "a=2/b=3/p.csv": CSV}, "conflicting partition column names"),
    ({"a=/p.csv": CSV}, "empty partition column value"),
    ({"=1/p.csv": CSV}, "empty partition column name"),
    ({"a=1/A=2/p.csv": CSV}, "appears twice"),
    ({"a=1/p.csv": CSV, "A=2/p.csv": CSV}, "spell the column"),
])
def test_layouts_spark_refuses_or_cannot_be_followed_are_refused_in_one_line(
        tmp_path: Path, files: dict[str, str], reason: str) -> None:
    lay_out(tmp_path, files)
    with pytest.raises(UnreadablePath) as info:
        read_arrow(tmp_path, "csv")
    assert reason in str(info.value) and "\n" not in str(info.value)


def test_base_path_option(tmp_path: Path) -> None:
    lay_out(tmp_path, {"a=1/b=2/p.csv": CSV, "a=3/b=4/p.csv": CSV})
    assert read_arrow(tmp_path / "a=1", "csv").to_pylist() == [{"x": 1, "b": 2}]
    assert read_arrow(tmp_path / "a=1", "csv", options={"basePath": str(tmp_path)}).to_pylist() == [
        {"x": 1, "a": 1, "b": 2}]
    assert read_arrow(tmp_path / "a=1/b=2/p.csv", "csv", options={"BASEPATH": str(tmp_path)}).to_pylist() == [
        {"x": 1, "a": 1, "b": 2}]
    for bad, reason in ((tmp_path / "a=3", "does not hold"), (tmp_path / "a=1/b=2/p.csv", "must be a folder"),
                        (tmp_path / "nowhere", "no such folder")):
        with pytest.raises(UnreadablePath, match=reason):
            read_arrow(tmp_path / "a=1", "csv", options={"basePath": str(bad)})


def test_a_partition_column_also_in_the_data_keeps_the_data_place_with_the_folder_value(tmp_path: Path) -> None:
    lay_out(tmp_path, {"A=x/p.csv": "x,a\n1,9\n"})
    table = read_arrow(tmp_path, "csv")
    assert table.schema.names == ["x", "A"] and table.to_pylist() == [{"x": 1, "A": "x"}]


def test_an_explicit_schema_gives_partition_columns_their_type_and_puts_them_last(tmp_path: Path) -> None:
    layout = discover(lay_out(tmp_path, {"a=01/p.csv": CSV, "a=abc/q.csv": CSV}))
    data = pa.table({"x": pa.array([1, 2], pa.int32())})
    schema = pa.schema([("A", pa.string()), ("x", pa.int32())])
    got = attach(data, [1, 1], layout, schema)
    assert got.schema.names == ["x", "A"] and got.column("A").to_pylist() == ["01", "abc"]
    with pytest.raises(ValueError, match="failed to cast value 'abc'"):
        attach(data, [1, 1], layout, pa.schema([("a", pa.int32())]))


# --- writes ------------------------------------------------------------------------------
def test_folder_text_is_spark_s() -> None:
    assert escape("x y=z%#?*[]{}^'\"\\\x01é<>|") == "x y%3Dz%25%23%3F%2A%5B%5D%7B}%5E%27%22%5C%01é<>|"
    assert [java_double(x) for x in (1e10, 1e-5, 2.5, float("nan"), -0.0, 1e7, 0.001, 123.0)] == [
        "1.0E10", "1.0E-5", "2.5", "NaN", "-0.0", "1.0E7", "0.001", "123.0"]
    utc = dt.timezone.utc
    assert value_text(dt.datetime(2024, 1, 1, 12, 30, 0, 500000, tzinfo=utc), pa.timestamp("us", "UTC")) == \
        "2024-01-01 12%3A30%3A00.5"
    assert value_text(Decimal("1.5"), pa.decimal128(10, 2)) == "1.50"
    assert value_text(True, pa.bool_()) == "true"
    assert value_text("", pa.string()) == value_text(None, pa.int32()) == "__HIVE_DEFAULT_PARTITION__"


def test_partitioned_write_reads_back_the_same_table(tmp_path: Path) -> None:
    from ubunye.io import write_table

    table = pa.table({"id": [1, 2, 3], "s": ["a/b", None, "a/b"], "n": pa.array([1, 2, None], pa.int32())})
    written = write_partitioned(table, tmp_path, ["s", "n"], lambda part, sub: write_table(part, sub / "p.csv"))
    assert sorted(str(p.relative_to(tmp_path)) for p in written) == [
        "s=__HIVE_DEFAULT_PARTITION__/n=2", "s=a%2Fb/n=1", "s=a%2Fb/n=__HIVE_DEFAULT_PARTITION__"]
    assert (tmp_path / "s=a%2Fb/n=1/p.csv").read_text().splitlines()[0] == "id"
    back = read_arrow(tmp_path, "csv")
    assert sorted(back.to_pylist(), key=lambda r: r["id"]) == sorted(table.to_pylist(), key=lambda r: r["id"])


@pytest.mark.parametrize("columns,reason", [(["zz"], "not a column"), (["id", "s"], "every column"),
                                            (["s", "S"], "twice"), (["l"], "cannot be a partition column")])
def test_partitioned_writes_spark_refuses_are_refused(tmp_path: Path, columns: list[str], reason: str) -> None:
    table = pa.table({"id": [1], "s": ["a"]}) if reason == "every column" else pa.table(
        {"id": [1], "s": ["a"], "l": [[1]]})
    with pytest.raises(PartitionWriteError, match=reason):
        write_partitioned(table, tmp_path, columns, lambda part, sub: None)


def test_pandas_backend_writes_partition_by_and_refuses_before_touching_the_output(tmp_path: Path) -> None:
    import pandas as pd

    from ubunye.engine.backends.pandas_backend import PandasBackend
    from ubunye.engine.config import IOSpec
    from ubunye.engine.errors import IOSpecError

    backend = PandasBackend()
    out = tmp_path / "out"
    spec = IOSpec(name="o", direction="output", format="parquet", path=str(out), partition_by=("day",))
    backend.check_spec(spec)
    frame = pd.DataFrame({"id": [1, 2], "day": ["2024-01-01", "2024-01-02"]})
    assert backend.write(frame, spec).written
    assert sorted(p.name for p in out.iterdir()) == ["_SUCCESS", "day=2024-01-01", "day=2024-01-02"]
    back = backend.read(IOSpec(name="i", direction="input", format="parquet", path=str(out))).frame
    assert sorted(map(tuple, back.astype(str).values.tolist())) == [("1", "2024-01-01"), ("2", "2024-01-02")]
    bad = IOSpec(name="o", direction="output", format="parquet", path=str(out), partition_by=("nope",))
    with pytest.raises(IOSpecError, match="output 'o': partition column 'nope' is not a column"):
        backend.write(frame, bad)
    assert (out / "day=2024-01-01").is_dir()  # what was there is kept
