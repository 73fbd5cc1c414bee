"""OpenLineage: the ``parent`` run facet of a pipeline's tasks, the ``schema`` dataset facet
from the record's columns, and dataset names of every form of the naming spec."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ubunye
from ubunye.cli.app import cli
from ubunye.engine.execution import DEFAULT_LINEAGE_DIR
from ubunye.lineage.openlineage import dataset_name, run_events
from ubunye.lineage.record import MalformedRecord, RunRecord, Step
from ubunye.lineage.store import open_store

import ol_schemas
from test_compat_080_cli import make_task



def _records(root: Path) -> dict[str, RunRecord]:
    store = open_store(root, DEFAULT_LINEAGE_DIR)
    return {t: r for u, p, t in store.iter_tasks() for r in store.list_runs(u, p, t)}


def _end(record: RunRecord, root: Path) -> dict[str, Any]:
    events = run_events(record, base=root)
    assert [ol_schemas.errors(e) for e in events] == [[]] * len(events)  # every event valid, facets included
    return events[-1]


def test_tasks_of_a_cli_pipeline_name_its_run_as_parent(tmp_path: Path) -> None:
    for name in ("first", "second"):
        make_task(tmp_path, name=name)
    result = CliRunner().invoke(cli, ["run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "first",
                                      "-t", "second", "--lineage"])
    assert result.exit_code == 0, result.stderr
    records = _records(tmp_path)
    parents = [_end(records[t], tmp_path)["run"]["facets"]["parent"] for t in ("first", "second")]
    assert parents[0] == parents[1]
    run_id = parents[0]["run"]["runId"]
    assert uuid.UUID(run_id).version == 7 and run_id == records["first"].pipeline["run_id"]
    assert parents[0]["job"] == {"namespace": "ubunye", "name": "shop.daily"}
    # each START carries it too (a live sender sends it before the task ends)
    assert run_events(records["first"], base=tmp_path)[0]["run"]["facets"]["parent"] == parents[0]
    # a second pipeline run is another parent
    CliRunner().invoke(cli, ["run", "-d", str(tmp_path), "-u", "shop", "-p", "daily", "-t", "first", "-t", "second", "--lineage"])
    again = open_store(tmp_path, DEFAULT_LINEAGE_DIR).list_runs("shop", "daily", "first")[0]
    assert again.pipeline["run_id"] != run_id


def test_run_pipeline_names_its_run_and_a_lone_task_has_no_parent(tmp_path: Path) -> None:
    for name in ("first", "second"):
        make_task(tmp_path, name=name)
    results = ubunye.run_pipeline(tmp_path, "shop", "daily", ["first", "second"], lineage=True)
    ids = {r.record.pipeline["run_id"] for r in results}
    assert len(ids) == 1
    assert {_end(r.record, tmp_path)["run"]["facets"]["parent"]["run"]["runId"] for r in results} == ids
    alone = ubunye.run_task(tmp_path / "shop" / "daily" / "first", lineage=True)
    assert alone.record.pipeline is None and "pipeline" not in json.loads(alone.record.to_json())
    assert "parent" not in _end(alone.record, tmp_path)["run"]["facets"]


def test_a_pipeline_that_is_no_uuid_gives_no_parent() -> None:
    record = RunRecord(run_id="r", task_path="a/b/c", status="success", started_at="2026-11-30T14:20:47+00:00",
                       pipeline={"run_id": "not-a-uuid", "name": "a.b"})
    assert "parent" not in run_events(record)[-1]["run"]["facets"]
    with pytest.raises(MalformedRecord, match="pipeline.run_id must be a string"):
        RunRecord.from_dict({"run_id": "r", "pipeline": {"run_id": 5}})


def test_pandas_columns_are_recorded_and_become_the_schema_facet(tmp_path: Path) -> None:
    make_task(tmp_path)
    record = ubunye.run_task(tmp_path / "shop" / "daily" / "totals", lineage=True).record
    # the pandas backend reads csv as Spark does (int), in Arrow-backed columns
    expected = [{"name": "id", "type": "int32[pyarrow]"}, {"name": "amount", "type": "int32[pyarrow]"}]
    assert record.inputs[0].columns == expected and record.outputs[0].columns == expected
    loaded = RunRecord.from_json(record.to_json())
    assert loaded.outputs[0].columns == expected
    end = _end(loaded, tmp_path)
    for dataset in end["inputs"] + end["outputs"]:
        assert dataset["facets"]["schema"]["fields"] == expected


def test_records_without_columns_load_and_have_no_schema_facet() -> None:
    step = Step(name="x", direction="output", location="/srv/x", data_hash=None)
    assert "columns" not in step.to_dict()
    record = RunRecord.from_dict({"run_id": "r", "status": "success", "outputs": [step.to_dict()]})
    assert record.outputs[0].columns is None
    assert "schema" not in run_events(record)[-1]["outputs"][0]["facets"]
    with pytest.raises(MalformedRecord, match=r"outputs\[0\].columns\[0\].type must be a string"):
        RunRecord.from_dict({"run_id": "r", "outputs": [{"name": "x", "columns": [{"name": "a", "type": 1}]}]})


@pytest.mark.parametrize("location, fmt, expected", [
    ("/srv/data/x.parquet", "parquet", ("file", "/srv/data/x.parquet")),
    ("data/../out/x.csv", "csv", ("file", "/srv/uc/out/x.csv")),  # relative: against the usecase folder
    ("file:///srv/x.csv", "csv", ("file", "/srv/x.csv")),
    ("s3://bucket/a/b.parquet", "parquet", ("s3://bucket", "a/b.parquet")),
    ("s3a://AKIA:se/cret@bucket/a", "parquet", ("s3://bucket", "a")),  # credentials never reach a name
    ("gs://b/t/x.parquet", "parquet", ("gs://b", "t/x.parquet")),
    ("abfss://c@acct.dfs.core.windows.net/d/t", "delta", ("abfss://c@acct.dfs.core.windows.net", "d/t")),
    ("wasbs://c@acct.blob.core.windows.net/d", "csv", ("wasbs://c@acct.blob.core.windows.net", "d")),
    ("hdfs://nn:8020/w/t", "parquet", ("hdfs://nn:8020", "w/t")),
    ("dbfs:/mnt/x", "delta", ("dbfs", "/mnt/x")),
    ("sales.orders", "table", ("hive", "sales.orders")),
    ("orders", "table", ("hive", "default.orders")),
    ("spark_catalog.Sales.Orders", "table", ("hive", "sales.orders")),
    ("hive_metastore.sales.orders", "table", ("hive", "sales.orders")),
    ("main.`sales`.orders", "table", ("databricks", "main.sales.orders")),
])
def test_dataset_names_by_the_naming_spec(location: str, fmt: str, expected: tuple[str, str]) -> None:
    assert dataset_name(location, "x", base=Path("/srv/uc"), format=fmt) == expected


def test_table_namespaces_name_the_metastore_and_the_workspace(tmp_path: Path) -> None:
    steps = [Step(name="hive", direction="input", format="table", location="sales.orders"),
             Step(name="uc", direction="output", format="table", location="Main.Sales.Totals")]
    record = RunRecord(run_id="r", task_path="a/b/c", status="success", started_at="2026-11-30T14:20:47+00:00",
                       ended_at="2026-11-30T14:20:48+00:00", inputs=steps[:1], outputs=steps[1:])
    events = run_events(record, hive_metastore="metastore.internal:9083",
                        databricks_workspace="adb-123.4.azuredatabricks.net")
    end = events[-1]
    assert (end["inputs"][0]["namespace"], end["inputs"][0]["name"]) == ("hive://metastore.internal:9083",
                                                                         "sales.orders")
    assert (end["outputs"][0]["namespace"], end["outputs"][0]["name"]) == (
        "databricks://adb-123.4.azuredatabricks.net", "main.sales.totals")
    assert [ol_schemas.errors(e) for e in events] == [[], []]
    # the export command takes them as options
    store = open_store(tmp_path, DEFAULT_LINEAGE_DIR)
    record.task_path, record.usecase, record.package, record.task_name = "a/b/c", "a", "b", "c"
    store.write(record)
    result = CliRunner().invoke(cli, ["lineage", "openlineage", "-d", str(tmp_path), "--hive-metastore", "ms:9083",
                                      "--databricks-workspace", "ws.example"], env={"UBUNYE_OPENLINEAGE_URL": ""})
    assert result.exit_code == 0, result.stderr
    last = json.loads(result.stdout.splitlines()[-1])
    assert [d["namespace"] for d in last["inputs"] + last["outputs"]] == ["hive://ms:9083", "databricks://ws.example"]
