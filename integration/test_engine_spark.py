"""The task engine on Spark: backend conformance, the same task on Spark (native),
Spark (fallback) and pandas leaving identical hashes, Delta versions, catalog
tables, expectations on Spark."""
from __future__ import annotations

import datetime as dt
import json
import sys
import uuid
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task
from ubunye.engine.backends.spark_backend import SparkBackend
from ubunye.testing.backend_conformance import BackendConformance

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "safety"))

from harness import task_folder  # noqa: E402

pytestmark = pytest.mark.spark


@pytest.fixture
def engine_spark(spark: Any) -> Iterator[Any]:
    """The shared session (``integration/conftest.py``), its time zone restored after each test
    (the engine sets the session time zone a task's config asks for)."""
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


class TestSparkBackend(BackendConformance):
    @pytest.fixture
    def backend(self, engine_spark: Any) -> SparkBackend:
        return SparkBackend(engine_spark, time_zone="UTC")


def people_table() -> Any:
    """Nested types, NaN beside null, awkward text, instants."""
    utc = dt.timezone.utc
    return pa.table(
        {
            "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
            "name": pa.array(['Anna "Annie"\\', "Zoë 😀\u2028", "tab\tnl\n", None, "x,y"], pa.string()),
            "score": pa.array([71.5, float("nan"), None, -0.0, 1e23], pa.float64()),
            "tags": pa.array([["a", None], [], None, ["ü"], ["b"]], pa.list_(pa.string())),
            "where": pa.array([{"city": "Durban", "zip": 4001}, None, {"city": None, "zip": 1},
                               {"city": "Soweto", "zip": None}, {"city": "", "zip": 0}],
                              pa.struct([("city", pa.string()), ("zip", pa.int32())])),
            "attrs": pa.array([[("k", 1.5)], [], None, [("z", float("nan")), ("a", None)], [("m", 0.0)]],
                              pa.map_(pa.string(), pa.float64())),
            "seen": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=utc), None,
                              dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=utc),
                              dt.datetime(2024, 3, 31, 1, 30, tzinfo=utc), dt.datetime(2000, 1, 1, tzinfo=utc)],
                             pa.timestamp("us", tz="UTC")),
        }
    )


PROOF_CONFIG = """
ENGINE:
  time_zone: America/Sao_Paulo
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    kept: {format: parquet, path: "{{ out }}/kept"}
    kept_json: {format: json, path: "{{ out }}/kept_json"}
  expectations:
    people:
      - {kind: unique, column: id}
      - {kind: between, column: score, min: -1, severity: warn}
    kept:
      - {kind: not_null, column: id}
      - {kind: columns, columns: {id: int64, score: float64, attrs: "map<string,float64>"}}
"""
PROOF_CODE = """
from ubunye import Task


class Keep(Task):
    def transform(self, sources):
        people = sources["people"]
        kept = people[people["id"] > 1]
        return {"kept": kept, "kept_json": kept[["id", "name", "score", "tags", "where", "seen"]]}
"""


def make_task(root: Path, name: str, config: str, code: str) -> Path:
    return task_folder(root / "uc", name, config, code, usecase="proof", package="pkg")


def only_record(folder: Path, run_id: str) -> dict[str, Any]:
    return json.loads(next(folder.glob(f"{run_id}.json")).read_text())


def test_same_task_on_native_fallback_and_pandas_leaves_identical_hashes(engine_spark: Any, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "keep", PROOF_CONFIG, PROOF_CODE)
    runs = {
        "native": dict(backend="spark", spark=engine_spark),
        "fallback": dict(backend="spark", spark=engine_spark, hash_engine="spark-sql"),
        "pandas": dict(backend="pandas"),
    }
    records = {}
    for label, options in runs.items():
        # reuse_hashes=False: each engine hashes the input itself (no hash taken from the run before)
        result = run_task(task, lineage=True, variables={"data": str(tmp_path / "data"), "out": str(tmp_path / label)},
                          reuse_hashes=False, **options)
        records[label] = only_record(tmp_path / "uc/.ubunye/lineage/proof/pkg/keep", result.run_id)
    native = records["native"]
    assert "reused" not in {s["hash_pass"] for s in native["inputs"] + records["pandas"]["inputs"]}
    assert native["time_zone"] == "America/Sao_Paulo" and records["pandas"]["time_zone"] == "UTC"
    # kept_json: hashed from the json written (read back with the written schema), not the frame
    assert [s["hash_pass"] for s in native["outputs"]] == ["same-pass", "second-pass"]
    assert {s["hash_engine"] for s in native["outputs"]} == {"spark-native"}
    assert [s["hash_pass"] for s in records["fallback"]["outputs"]] == ["second-pass", "second-pass"]
    assert {s["hash_engine"] for s in records["fallback"]["outputs"]} == {"spark-sql"}
    # pandas too: the json output's hash is of the files it wrote, read back (issue 19)
    assert [s["hash_pass"] for s in records["pandas"]["outputs"]] == ["materialised", "second-pass"]

    def digests(rec: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(s["name"], s["row_count"], s["schema_hash"], s["data_hash"]) for s in rec["inputs"] + rec["outputs"]]

    assert all(d[3] is not None for d in digests(native)), digests(native)
    assert digests(records["fallback"]) == digests(native)
    assert digests(records["pandas"]) == digests(native)
    assert [d[1] for d in digests(native)] == [5, 4, 4]
    assert native["expectations"] == records["pandas"]["expectations"] == records["fallback"]["expectations"]
    assert [(e["output"], e["passed"]) for e in native["expectations"]][:2] == [("people", True), ("people", False)]
    assert native["inputs"][0]["hash_engine"] == "spark-native"  # hashed in the scan that checked it


DELTA_CONFIG = """
CONFIG:
  inputs:
    src: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    lake: {format: delta, path: "{{ out }}/lake", mode: "{{ wmode }}"}
    tbl: {format: table, table: "{{ table }}", mode: "{{ wmode }}", options: {using: delta}}
"""
DELTA_CODE = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        src = sources["src"].select("id", "name", "score")
        return {"lake": src, "tbl": src}
"""
READ_DELTA_CONFIG = """
CONFIG:
  inputs:
    lake: {format: delta, path: "{{ out }}/lake"}
    first: {format: delta, path: "{{ out }}/lake", version: 0}
    tbl: {format: table, table: "{{ table }}"}
  outputs:
    n: {format: csv, path: "{{ out }}/n"}
"""
READ_DELTA_CODE = """
from pyspark.sql import functions as F
from ubunye import Task


class Count(Task):
    def transform(self, sources):
        return {"n": sources["lake"].agg(F.count("*").alias("rows"))}
"""


def test_delta_and_catalog_table_versions_and_modes(engine_spark: Any, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    write_task = make_task(tmp_path, "copy", DELTA_CONFIG, DELTA_CODE)
    read_task = make_task(tmp_path, "count", READ_DELTA_CONFIG, READ_DELTA_CODE)
    table = f"ubunye_engine_test_{uuid.uuid4().hex[:8]}"
    variables = {"data": str(tmp_path / "data"), "out": str(tmp_path / "out"), "table": table}
    folder = tmp_path / "uc/.ubunye/lineage/proof/pkg"
    try:
        first = run_task(write_task, spark=engine_spark, lineage=True, variables={**variables, "wmode": "overwrite"})
        second = run_task(write_task, spark=engine_spark, lineage=True, variables={**variables, "wmode": "append"})
        ignored = run_task(write_task, spark=engine_spark, lineage=True, variables={**variables, "wmode": "ignore"})
        with pytest.raises(Exception, match="already exists"):
            run_task(write_task, spark=engine_spark, variables={**variables, "wmode": "errorifexists"})
        rec1 = only_record(folder / "copy", first.run_id)
        rec2 = only_record(folder / "copy", second.run_id)
        rec3 = only_record(folder / "copy", ignored.run_id)
        assert [s["delta_version"] for s in rec1["outputs"]] == [0, 0]
        assert [s["delta_version"] for s in rec2["outputs"]] == [1, 1]
        assert [s["hash_pass"] for s in rec2["outputs"]] == ["same-pass", "same-pass"]
        assert rec2["outputs"][0]["data_hash"] == rec1["outputs"][0]["data_hash"]  # the rows this run wrote
        assert [s["hash_error"] for s in rec3["outputs"]] == ["not written: mode ignore found data already there"] * 2
        read = run_task(read_task, spark=engine_spark, lineage=True, variables=variables)
        rec = only_record(folder / "count", read.run_id)
        versions = {s["name"]: (s["delta_version"], s["row_count"]) for s in rec["inputs"]}
        assert versions == {"lake": (1, 10), "first": (0, 5), "tbl": (1, 10)}
        assert engine_spark.read.csv(str(tmp_path / "out/n"), header=True).collect()[0]["rows"] == "10"
    finally:
        engine_spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_spark_expectations_count_like_pandas(engine_spark: Any) -> None:
    import pandas as pd

    from ubunye.engine.checks_pandas import evaluate_pandas
    from ubunye.engine.checks_spark import evaluate_spark
    from ubunye.engine.expectations import parse_rule

    table = people_table()
    rules = [
        parse_rule(r, Path("c.yaml"), "r")
        for r in [
            {"kind": "not_null", "column": "score"},
            {"kind": "unique", "column": "id"},
            {"kind": "unique", "columns": ["name", "id"]},
            {"kind": "between", "column": "score", "min": -1, "max": 100},
            {"kind": "one_of", "column": "name", "values": ["x,y", None]},
            {"kind": "matches", "column": "name", "pattern": "[A-Z].*"},
            {"kind": "row_count", "min": 6},
            {"kind": "columns", "columns": {"id": "int64", "where": "struct<city:string,zip:int32>"}},
            {"kind": "not_null", "column": "missing"},
        ]
    ]
    from ubunye.spark._compat import frame_from_arrow

    spark_out = evaluate_spark(frame_from_arrow(engine_spark, table), rules)  # pyspark 3.5 takes no Arrow table
    pandas_out = evaluate_pandas(table.to_pandas(types_mapper=pd.ArrowDtype), rules)
    assert spark_out == pandas_out
    assert [o.failed for o in spark_out] == [1, 0, 0, 2, 3, 2, 1, 0, 5]


def test_notebook_on_spark_records_same_pass(engine_spark: Any, tmp_path: Path) -> None:
    from ubunye import notebook

    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "keep", PROOF_CONFIG, PROOF_CODE)
    nb = notebook(task, spark=engine_spark, lineage=True,
                  variables={"data": str(tmp_path / "data"), "out": str(tmp_path / "nb")})
    result = nb.run()
    rec = only_record(tmp_path / "uc/.ubunye/lineage/proof/pkg/keep", result.run_id)
    assert rec["code_hash"] and len(rec["timings"]) == 4
    assert rec["inputs"][0]["hash_pass"] == "second-pass" and rec["inputs"][0]["row_count"] == 5
    assert [s["hash_pass"] for s in rec["outputs"]] == ["same-pass", "second-pass"]  # json: its files


def test_ubunye_run_on_spark_exit_codes(engine_spark: Any, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ubunye.cli.app import cli

    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    make_task(tmp_path, "keep", PROOF_CONFIG, PROOF_CODE)
    args = ["run", "-d", str(tmp_path / "uc"), "-u", "proof", "-p", "pkg", "-t", "keep", "--backend", "spark",
            "--lineage", "--var", f"data={tmp_path / 'data'}", "--var", f"out={tmp_path / 'cli'}"]
    ok = CliRunner().invoke(cli, args)
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.startswith("ok   proof/pkg/keep (")
    rec = json.loads(Path(ok.stdout.split(", record ")[1].split(")")[0]).read_text())
    said = dict.fromkeys(f"{s['hash_engine']} {s['hash_pass']}" for s in rec["inputs"] + rec["outputs"])
    assert ok.stdout.rstrip().endswith("); hashed: " + ", ".join(said)) and "spark-native" in ok.stdout, ok.stdout
    forced = CliRunner().invoke(cli, [*args, "--hash-engine", "spark-sql"])  # the fallback, and why, on the ok line
    assert forced.exit_code == 0, forced.output  # its input reused from the run above: "spark-native reused"
    assert "spark-sql fallback second-pass (fallback: engine='spark-sql' was asked for)" in forced.stdout, forced.stdout
    config = PROOF_CONFIG.replace("{kind: not_null, column: id}", "{kind: not_null, column: id}\n      - {kind: row_count, max: 2}")
    make_task(tmp_path, "keep", config, PROOF_CODE)
    failed = CliRunner().invoke(cli, args)
    assert failed.exit_code == 1
    assert failed.stderr.splitlines() == [
        "FAIL proof/pkg/keep: expectations failed, nothing written: kept: row_count (row_count) broken by 1 of 1 (4 rows)",
        "warn proof/pkg/keep: people: score_between (between) broken by 1 of 5",
    ]


def test_spark_connect_without_plugin_falls_back_with_same_hashes(connect_plain: Any, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "keep", PROOF_CONFIG, PROOF_CODE)
    folder = tmp_path / "uc/.ubunye/lineage/proof/pkg/keep"
    data = str(tmp_path / "data")
    try:
        connect = run_task(task, spark=connect_plain, lineage=True, variables={"data": data, "out": str(tmp_path / "c")})
    finally:
        connect_plain.conf.set("spark.sql.session.timeZone", "UTC")
    pandas = run_task(task, backend="pandas", lineage=True, variables={"data": data, "out": str(tmp_path / "p")})
    rec_c, rec_p = only_record(folder, connect.run_id), only_record(folder, pandas.run_id)
    assert [s["hash_pass"] for s in rec_c["outputs"]] == ["second-pass", "second-pass"]
    assert {s["hash_engine"] for s in rec_c["inputs"] + rec_c["outputs"]} == {"spark-sql"}
    for side in ("inputs", "outputs"):
        assert [(s["row_count"], s["schema_hash"], s["data_hash"]) for s in rec_c[side]] == \
               [(s["row_count"], s["schema_hash"], s["data_hash"]) for s in rec_p[side]]


SAME_PASS_CONFIG = """
CONFIG:
  inputs:
    full: {format: parquet, path: "{{ data }}/people.parquet"}
    part: {format: parquet, path: "{{ data }}/people.parquet"}
    unused: {format: parquet, path: "{{ data }}/people.parquet"}
  outputs:
    a: {format: parquet, path: "{{ out }}/a", partition_by: [id]}
    b: {format: parquet, path: "{{ out }}/b"}
"""
SAME_PASS_CODE = """
from ubunye import Task


class Split(Task):
    def transform(self, sources):
        return {"a": sources["full"].where("id > 1"), "b": sources["part"].limit(2)}
"""


def test_inputs_hashed_by_the_write_only_when_it_read_every_row(engine_spark: Any, tmp_path: Path) -> None:
    from ubunye.spark import fingerprint_spark

    (tmp_path / "data").mkdir()
    pq.write_table(people_table(), tmp_path / "data" / "people.parquet")
    task = make_task(tmp_path, "split", SAME_PASS_CONFIG, SAME_PASS_CODE)
    result = run_task(task, spark=engine_spark, lineage=True,
                      variables={"data": str(tmp_path / "data"), "out": str(tmp_path / "out")})
    rec = only_record(tmp_path / "uc/.ubunye/lineage/proof/pkg/split", result.run_id)
    expected = fingerprint_spark(engine_spark.read.parquet(str(tmp_path / "data" / "people.parquet")))
    steps = {s["name"]: s for s in rec["inputs"]}
    assert {n: s["hash_pass"] for n, s in steps.items()} == {
        "full": "same-pass", "part": "second-pass", "unused": "second-pass"}
    for step in steps.values():
        assert (step["row_count"], step["data_hash"]) == (5, expected.data_hash)
    assert {s["name"]: s["row_count"] for s in rec["outputs"]} == {"a": 4, "b": 2}
    people = engine_spark.read.parquet(str(tmp_path / "data" / "people.parquet"))
    assert rec["outputs"][0]["data_hash"] == fingerprint_spark(people.where("id > 1")).data_hash
    assert sorted(p.name for p in (tmp_path / "out" / "a").glob("id=*")) == ["id=2", "id=3", "id=4", "id=5"]


def test_arrow_tables_in_and_out_on_every_line(engine_spark: Any) -> None:
    """pyspark 3.5 takes no Arrow table and has no ``toArrow`` (4.0+): ``_compat`` does what 4.x
    does, a naive timestamp (at any depth) being wall-clock time in the session time zone."""
    from ubunye.spark._compat import frame_from_arrow, frame_to_arrow

    engine_spark.conf.set("spark.sql.session.timeZone", "America/Sao_Paulo")
    naive = dt.datetime(2024, 1, 2, 3, 4, 5)
    table = pa.table({
        "ts": pa.array([naive, None, naive], pa.timestamp("us")),
        "nest": pa.array([[{"a": naive}], None, []], pa.list_(pa.struct([("a", pa.timestamp("us"))]))),
        "m": pa.array([[("k", naive)], [], None], pa.map_(pa.string(), pa.timestamp("us"))),
    })
    rows = frame_to_arrow(frame_from_arrow(engine_spark, table)).to_pylist()
    instant = dt.datetime(2024, 1, 2, 6, 4, 5, tzinfo=dt.timezone.utc)
    assert rows == [{"ts": instant, "nest": [{"a": instant}], "m": [("k", instant)]},
                    {"ts": None, "nest": None, "m": []}, {"ts": instant, "nest": [], "m": None}]
    empty = frame_to_arrow(frame_from_arrow(engine_spark, table).limit(0))
    assert (empty.num_rows, empty.schema.field("ts").type) == (0, pa.timestamp("us", tz="UTC"))
