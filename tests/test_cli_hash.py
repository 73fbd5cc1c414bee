"""``ubunye hash``: output, --json, engines and exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.cli.commands import hash as hash_cmd
from ubunye.hashing import Fingerprint, fingerprint
from ubunye.io import read_table, write_table
from ubunye.testing import load_fixtures
from ubunye.testing.fixtures import write_reference_csv

REFERENCE = {fx.name: fx for fx in load_fixtures()}["reference_3rows"]


@pytest.fixture
def reference_csv(tmp_path: Path) -> Path:
    return write_reference_csv(tmp_path)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["hash", *args])


def test_text_output(reference_csv: Path) -> None:
    result = invoke(str(reference_csv))
    assert result.exit_code == 0, result.output
    lines = dict(line.split(":", 1) for line in result.output.strip().splitlines())
    assert lines["rows"].strip() == "3"
    assert lines["schema_hash"].strip() == REFERENCE.expect.schema_hash
    assert lines["data_hash"].strip() == REFERENCE.expect.data_hash
    assert lines["engine"].strip() == "arrow"


@pytest.mark.parametrize("engine", ["pandas", "arrow"])
def test_json_output_equals_the_library(reference_csv: Path, engine: str) -> None:
    result = invoke(str(reference_csv), "--json", "--engine", engine, "--format", "csv")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    expected = fingerprint(read_table(reference_csv, "csv", engine=engine)).to_dict()
    assert {k: out[k] for k in expected} == expected
    assert out["data_hash"] == REFERENCE.expect.data_hash
    assert out["path"] == str(reference_csv) and out["format"] == "csv"


def test_parquet_folder(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    fx = {f.name: f for f in load_fixtures()}["mixed_random_1000"]
    table = fx.arrow_table()
    write_table(table.slice(0, 400), folder / "part-00000.parquet")
    write_table(table.slice(400), folder / "part-00001.parquet")
    (folder / "_SUCCESS").write_text("")
    out = json.loads(invoke(str(folder), "--json").output)
    assert (out["row_count"], out["data_hash"]) == (1000, fx.expect.data_hash)


def test_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2, "b": "x"}\n', encoding="utf-8")
    out = json.loads(invoke(str(path), "--json").output)
    table = pa.table({"a": pa.array([1, 2], pa.int64()), "b": pa.array([None, "x"])})
    assert out["data_hash"] == fingerprint(table).data_hash


@pytest.mark.parametrize("case", ["missing", "bad_parquet", "bad_extension", "bad_utf8_csv"])
def test_unreadable_path_is_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    path = tmp_path / "missing.csv"
    if case == "bad_parquet":
        path = tmp_path / "bad.parquet"
        path.write_bytes(b"nope")
    elif case == "bad_extension":
        path = tmp_path / "data.bin"
        path.write_bytes(b"x")
    elif case == "bad_utf8_csv":
        path = tmp_path / "bad.csv"
        path.write_bytes(b"a\n\xff\xfe\n")
    result = CliRunner().invoke(cli, ["hash", str(path)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert str(path) in result.output


def test_unknown_engine_and_format_are_usage_errors(reference_csv: Path) -> None:
    assert invoke(str(reference_csv), "--engine", "nope").exit_code == 2
    assert invoke(str(reference_csv), "--format", "xml").exit_code == 2


def test_unhashable_data_exits_1_with_error(tmp_path: Path) -> None:
    path = tmp_path / "u.parquet"
    write_table(pa.table({"u": pa.array([1], pa.time32("s"))}), path)
    result = invoke(str(path), "--json")
    assert result.exit_code == 1
    out = json.loads(result.output)
    assert out["data_hash"] is None and "'u'" in out["error"] and "time32" in out["error"]


def test_registered_engine_is_used(reference_csv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Path, object]] = []

    def fake(path: Path, fmt: object) -> Fingerprint:
        calls.append((path, fmt))
        return Fingerprint("sha256:s", "sha256:d", 7, engine="fake")

    monkeypatch.setitem(hash_cmd.ENGINES, "fake", fake)
    out = json.loads(invoke(str(reference_csv), "--engine", "fake", "--json").output)
    assert calls == [(reference_csv, None)]
    assert (out["row_count"], out["engine"]) == (7, "fake")


def test_folder_of_csv_and_json_is_refused_in_one_line(tmp_path: Path) -> None:
    """It used to read both as csv (the json line became a header) and exit 0."""
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "part-0.csv").write_text("id\n1\n", encoding="utf-8")
    (folder / "part-1.json").write_text('{"id": 2}\n', encoding="utf-8")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    for engine in ("pandas", "arrow"):
        result = invoke(str(folder), "--engine", engine)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "part-0.csv" in lines[0] and "part-1.json" in lines[0]
        assert str(folder) in lines[0] and "--format" in lines[0]


def test_readme_beside_csv_parts_is_refused_and_format_reads_every_file(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "part-0.csv").write_text("id\n1\n2\n", encoding="utf-8")
    (folder / "README.txt").write_text("id\n3\n", encoding="utf-8")
    result = invoke(str(folder), "--json")
    assert result.exit_code == 2 and "README.txt" in result.output and "part-0.csv" in result.output
    result = invoke(str(folder), "--format", "csv", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    table = pa.table({"id": pa.array([3, 1, 2], pa.int32())})
    assert (out["row_count"], out["data_hash"]) == (3, fingerprint(table).data_hash)


def test_the_spark_engine_detects_the_format_by_the_same_rule(tmp_path: Path) -> None:
    from ubunye.io import UnreadablePath
    from ubunye.spark.cli import spark_format

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "part-0.snappy.parquet").write_bytes(b"")
    (folder / "part-1.parquet").write_bytes(b"")
    assert spark_format(folder, None) == "parquet"
    (folder / "part-2.json").write_text("{}\n", encoding="utf-8")
    with pytest.raises(UnreadablePath, match="part-0.snappy.parquet: parquet, part-2.json: json"):
        spark_format(folder, None)
    assert spark_format(folder, "json") == "json"


def test_hash_takes_reader_options_and_a_schema_as_spark_does(tmp_path: Path) -> None:
    """--option and --schema reach the reader: mergeSchema reads both parts' columns, the schema
    widens a column; an option the reader does not follow, or a pair without '=', is refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from click.testing import CliRunner

    from ubunye.cli.app import cli

    parts = tmp_path / "parts"
    parts.mkdir()
    pq.write_table(pa.table({"a": pa.array([1], pa.int64())}), parts / "part-0.parquet")
    pq.write_table(pa.table({"a": pa.array([2], pa.int64()), "b": ["x"]}), parts / "part-1.parquet")
    runner = CliRunner()

    def schema_hash(*args: str) -> str:
        result = runner.invoke(cli, ["hash", str(parts), "--json", *args])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["schema_hash"]

    plain, merged = schema_hash(), schema_hash("--option", "mergeSchema=true")
    widened = schema_hash("--option", "mergeSchema=true", "--schema", "a DECIMAL(20,0), b STRING")
    assert len({plain, merged, widened}) == 3
    refused = runner.invoke(cli, ["hash", str(parts), "--option", "sep=;"])
    assert refused.exit_code == 2 and "option 'sep' is not followed" in refused.stderr
    bad = runner.invoke(cli, ["hash", str(parts), "--option", "mergeSchema"])
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output
