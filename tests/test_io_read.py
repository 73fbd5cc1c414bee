"""ubunye.io: Spark-compatible reading of CSV, parquet and JSON lines."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye.hashing import canonical_kinds, canonical_lines, fingerprint
from ubunye.io import UnreadablePath, read_arrow, read_table, write_table
from ubunye.io.csv import infer_value, split_record
from ubunye.testing import load_fixtures
from ubunye.testing.fixtures import REFERENCE_CSV, write_reference_csv

FIXTURES = {fx.name: fx for fx in load_fixtures()}
REFERENCE = FIXTURES["reference_3rows"]



@pytest.fixture
def reference_csv(tmp_path: Path) -> Path:
    return write_reference_csv(tmp_path)


@pytest.mark.parametrize("engine", ["pandas", "arrow"])
def test_reference_csv_reads_like_spark(reference_csv: Path, engine: str) -> None:
    frame = read_table(reference_csv, engine=engine)
    assert canonical_kinds(frame) == [
        ("id", "int32"), ("name", "string"), ("score", "float64"),
        ("passed", "bool"), ("day", "date"), ("seen", "timestamp"),
    ]
    assert canonical_lines(frame) == REFERENCE.expect.lines
    fp = fingerprint(frame)
    assert (fp.row_count, fp.schema_hash, fp.data_hash) == (
        3, REFERENCE.expect.schema_hash, REFERENCE.expect.data_hash)


def test_split_record_follows_spark_quotes() -> None:
    assert split_record('a,"b, c",,"x\\"y"') == ["a", "b, c", None, 'x"y']
    assert split_record('"Anna ""Annie"" Dlamini",2') == ['"Anna ""Annie"" Dlamini"', "2"]
    assert split_record("1,") == ["1", None]


@pytest.mark.parametrize(
    "values, kind",
    [
        (["1", "2147483647"], "int32"),
        (["1", "2147483648"], "int64"),
        (["1", "99999999999999999999"], "decimal(20,0)"),
        (["1", "2.5"], "float64"),
        (["NaN", "Inf", "1e3"], "float64"),
        (["2024-01-02", "2024-01-03"], "date"),
        (["2024-01-02", "2024-01-03 04:05:06"], "timestamp"),
        (["2024-01-02T04:05:06.123Z"], "timestamp"),
        (["TRUE", "false"], "bool"),
        (["1", "true"], "string"),
        (["2024-13-40"], "string"),
    ],
)
def test_csv_inference(tmp_path: Path, values: list[str], kind: str) -> None:
    path = tmp_path / "x.csv"
    path.write_text("v\n" + "\n".join(values) + "\n", encoding="utf-8")
    assert canonical_kinds(read_arrow(path)) == [("v", kind)]


def test_csv_all_null_column_is_string_and_header_names(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,,a\n,1,2\n", encoding="utf-8")
    assert canonical_kinds(read_arrow(path)) == [("a0", "string"), ("_c1", "int32"), ("a2", "int32")]


def test_infer_value_chain() -> None:
    assert infer_value(None, "7") == "int"
    assert infer_value("double", "7") == "double"
    assert infer_value("bool", "7") == "string"


def test_csv_folder_of_parts(tmp_path: Path, reference_csv: Path) -> None:
    lines = REFERENCE_CSV.splitlines()
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "part-0.csv").write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    (folder / "part-1.csv").write_text("\n".join([lines[0], *lines[2:]]) + "\n", encoding="utf-8")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    assert fingerprint(read_table(folder)).data_hash == REFERENCE.expect.data_hash


@pytest.mark.parametrize("name", ["mixed_random_1000", "maps", "structs", "decimals", "timestamps", "timestamp_ntz"])
def test_parquet_round_trip_keeps_every_fixture_digest(tmp_path: Path, name: str) -> None:
    fx = FIXTURES[name]
    path = tmp_path / f"{name}.parquet"
    write_table(fx.arrow_table(), path)
    for engine in ("arrow", "pandas"):
        fp = fingerprint(read_table(path, engine=engine))
        assert (fp.row_count, fp.data_hash) == (fx.expect.row_count, fx.expect.data_hash), engine


def test_parquet_folder_and_spark_int96_instants(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    t = pa.table({"at": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5)], pa.timestamp("ns"))})
    pq.write_table(t, folder / "part-0.parquet", use_deprecated_int96_timestamps=True)
    pq.write_table(t, folder / "part-1.parquet", use_deprecated_int96_timestamps=True)
    frame = read_arrow(folder)
    assert canonical_kinds(frame) == [("at", "timestamp")]
    assert canonical_lines(frame) == ['{"at":"2024-01-02T03:04:05.000000Z"}'] * 2


def test_json_lines_inference_like_spark(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(
        '{"id": 1, "x": 1.5, "s": "a", "o": {"z": 1, "a": true}, "l": [1, 2], "mixed": 1}\n'
        '{"id": 99999999999999999999, "x": 2, "o": {"b": "q"}, "l": [], "mixed": "t", "n": null}\n',
        encoding="utf-8",
    )
    table = read_arrow(path)
    assert canonical_kinds(table) == [
        ("id", "decimal(20,0)"), ("l", "list<int64>"), ("mixed", "string"), ("n", "string"),
        ("o", "struct<a:bool,b:string,z:int64>"), ("s", "string"), ("x", "float64"),
    ]
    assert canonical_lines(table)[1] == (
        '{"id":99999999999999999999,"l":[],"mixed":"t","o":{"b":"q"},"x":2.0}')
    assert canonical_lines(table)[0] == (
        '{"id":1,"l":[1,2],"mixed":"1","o":{"a":true,"z":1},"s":"a","x":1.5}')


def test_pandas_engine_keeps_int_kind_with_nulls(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("i\n1\n\n3\n,\n", encoding="utf-8")
    df = read_table(path, engine="pandas")
    assert isinstance(df, pd.DataFrame)
    assert canonical_kinds(df) == [("i", "int32")]


def test_write_csv_round_trip(tmp_path: Path) -> None:
    table = pa.table({
        "s": ['a "q"', "x,y", None, "plain"],
        "d": pa.array([Decimal("1"), Decimal("22"), None, Decimal("3")], pa.decimal128(5, 0)),
        "f": [1.5, None, float("nan"), 1e300],
    })
    path = write_table(table, tmp_path / "t.csv")
    back = read_arrow(path)
    assert canonical_lines(back) == [
        '{"d":1,"f":1.5,"s":"a \\"q\\""}', '{"d":22,"s":"x,y"}', '{"f":"NaN"}',
        '{"d":3,"f":1.0E300,"s":"plain"}',
    ]


@pytest.mark.parametrize("make", ["missing", "empty_folder", "bad_parquet", "nested_folder"])
def test_unreadable_paths(tmp_path: Path, make: str) -> None:
    path = tmp_path / "p"
    if make == "empty_folder":
        path.mkdir()
    elif make == "bad_parquet":
        path = tmp_path / "bad.parquet"
        path.write_bytes(b"not parquet")
    elif make == "nested_folder":
        (path / "k=1").mkdir(parents=True)
    with pytest.raises(UnreadablePath) as info:
        read_table(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_write_json_lines_round_trip_keeps_digits(tmp_path: Path) -> None:
    table = pa.table({
        "d": pa.array([Decimal("12345678901234567.5"), None], pa.decimal128(20, 1)),
        "s": ["é\n\"", None],
        "o": pa.array([{"a": 1, "b": None}, None], pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "l": pa.array([[1, 2], []], pa.list_(pa.int64())),
    })
    path = write_table(table, tmp_path / "t.json")
    assert path.read_text(encoding="utf-8").splitlines()[0] == (
        '{"d":12345678901234567.5,"s":"é\\n\\"","o":{"a":1},"l":[1,2]}')
    back = read_arrow(path)
    assert canonical_lines(back) == [
        '{"d":1.2345678901234568E16,"l":[1,2],"o":{"a":1},"s":"é\\n\\""}', '{"l":[]}']


def test_write_csv_refuses_binary_and_nested(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'b'"):
        write_table(pa.table({"b": [b"x"]}), tmp_path / "t.csv")


# ---------------------------------------------------------------- folders, as Spark reads them


def _reference_parts(folder: Path, *names: str) -> None:
    """The reference table in two csv parts (each with the header), under ``names``."""
    lines = REFERENCE_CSV.splitlines()
    folder.mkdir(exist_ok=True)
    texts = ["\n".join(lines[:2]) + "\n", "\n".join([lines[0], *lines[2:]]) + "\n"]
    for name, text in zip(names, texts):
        if name.endswith(".gz"):
            import gzip

            (folder / name).write_bytes(gzip.compress(text.encode("utf-8")))
        elif name.endswith(".bz2"):
            import bz2

            (folder / name).write_bytes(bz2.compress(text.encode("utf-8")))
        else:
            (folder / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "extra, named",
    [
        ({"part-1.json": '{"id": 9}\n'}, ("part-0.csv", "part-1.json")),
        ({"README.txt": "about these files\n"}, ("README.txt", "part-0.csv")),
        ({"part-2": "id\n7\n"}, ("part-0.csv", "part-2")),
    ],
    ids=["csv-and-json", "readme-beside-csv", "no-suffix"],
)
def test_folder_of_mixed_formats_is_refused_naming_two_files(
    tmp_path: Path, extra: dict[str, str], named: tuple[str, str]
) -> None:
    folder = tmp_path / "out"
    _reference_parts(folder, "part-0.csv")
    for name, text in extra.items():
        (folder / name).write_text(text, encoding="utf-8")
    with pytest.raises(UnreadablePath) as info:
        read_table(folder)
    message = str(info.value)
    assert "\n" not in message and str(folder) in message and "different formats" in message
    assert all(name in message for name in named), message


def test_hidden_and_underscore_files_are_ignored_as_spark_ignores_them(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    _reference_parts(folder, "part-0.csv", "part-1.csv")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    (folder / ".part-0.csv.crc").write_bytes(b"\x00crc")
    (folder / "_committed_1").write_text("{}", encoding="utf-8")
    (folder / ".hidden").mkdir()
    assert fingerprint(read_table(folder)).data_hash == REFERENCE.expect.data_hash


def test_with_a_format_every_visible_file_is_read_in_it(tmp_path: Path) -> None:
    """Spark with ``format("csv")`` reads README.txt as csv too: so does ``read_table``."""
    folder = tmp_path / "out"
    _reference_parts(folder, "part-0.csv", "part-1.txt")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    assert fingerprint(read_table(folder, "csv")).data_hash == REFERENCE.expect.data_hash
    (folder / "notes").write_text("id,name\n99,x\n", encoding="utf-8")
    table = read_arrow(folder, "csv")
    # its header 'id,name' is not the first file's header line: Spark's inference reads it as a
    # record ('id' in column id), so the column is a string column (checked against Spark 4.1)
    assert sorted(table.column("id").to_pylist()) == ["1", "2", "3", "99"]


@pytest.mark.parametrize("names", [("part-0.csv.gz", "part-1.csv"), ("part-0.csv.bz2", "part-1.csv.gz")])
def test_compressed_csv_parts_are_one_format_and_decompressed(tmp_path: Path, names: tuple[str, str]) -> None:
    folder = tmp_path / "out"
    _reference_parts(folder, *names)
    assert fingerprint(read_table(folder)).data_hash == REFERENCE.expect.data_hash


def test_compressed_json_lines(tmp_path: Path) -> None:
    import gzip

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "part-0.json.gz").write_bytes(gzip.compress(b'{"a": 1}\n'))
    (folder / "part-1.json").write_text('{"a": 2}\n', encoding="utf-8")
    assert canonical_lines(read_arrow(folder)) == ['{"a":1}', '{"a":2}']


def test_a_compression_this_reader_cannot_read_is_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    _reference_parts(folder, "part-0.csv", "part-1.csv")
    (folder / "part-2.csv.zst").write_bytes(b"(\xb5/\xfd")
    with pytest.raises(UnreadablePath) as info:
        read_table(folder)
    assert "part-2.csv.zst" in str(info.value) and ".zst" in str(info.value)


def test_snappy_parquet_and_plain_parquet_parts_are_one_format(tmp_path: Path) -> None:
    fx = FIXTURES["mixed_random_1000"]
    table = fx.arrow_table()
    folder = tmp_path / "out"
    folder.mkdir()
    pq.write_table(table.slice(0, 400), folder / "part-0.snappy.parquet", compression="snappy")
    pq.write_table(table.slice(400), folder / "part-1.parquet", compression="none")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    fp = fingerprint(read_table(folder))
    assert (fp.row_count, fp.data_hash) == (fx.expect.row_count, fx.expect.data_hash)
    (folder / "part-2.csv").write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(UnreadablePath, match="part-0.snappy.parquet: parquet, part-2.csv: csv"):
        read_table(folder)


def test_a_single_file_with_a_data_suffix_before_another_is_not_taken_for_it(tmp_path: Path) -> None:
    path = tmp_path / "table.csv.txt"
    path.write_text(REFERENCE_CSV, encoding="utf-8")
    with pytest.raises(UnreadablePath, match="cannot tell the format"):
        read_table(path)
    assert fingerprint(read_table(path, "csv")).data_hash == REFERENCE.expect.data_hash
