"""ubunye-engine 0.8.0 connectors on Spark: unity/hive tables qualified by ENGINE.catalog and
schema_name, delta by path and by table with versions, s3 with partitionBy (same hashes as
pandas), jdbc against an embedded Derby database (its driver ships with pyspark) with the
password kept out of records and logs."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

pytestmark = pytest.mark.spark

PASSWORD = "Derby-s3cr3t-pw"
COPY_CODE = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        names = sorted(sources)
        out = sources[names[0]]
        for other in names[1:]:  # Spark frames only (the pandas runs here have one input)
            out = out.unionByName(sources[other])
        return {name: out for name in self.params["outputs"]}
"""


def people() -> Any:
    return pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()), "day": pa.array(["a", "b", "a", "c"]),
                     "score": pa.array([1.5, None, -2.0, 7.25], pa.float64())})


def make_task(root: Path, name: str, config: str) -> Path:
    task = root / "uc" / "shop" / "orders" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config)
    (task / "transformations.py").write_text(COPY_CODE)
    return task


def record_of(result: Any) -> dict[str, Any]:
    return json.loads(Path(result.record_path).read_text())


def steps(record: dict[str, Any]) -> dict[str, Any]:
    return {s["name"]: s for s in [*record["inputs"], *record["outputs"]]}


@pytest.fixture
def engine_spark(spark: Any) -> Iterator[Any]:
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


@pytest.fixture
def database(engine_spark: Any) -> Iterator[str]:
    name = f"ubunye_conn_{uuid.uuid4().hex[:8]}"
    engine_spark.sql(f"CREATE DATABASE {name}")
    try:
        yield name
    finally:
        engine_spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


TABLES_WRITE = """
ENGINE:
  profiles:
    DEV: {catalog: spark_catalog, schema_name: "{{ db }}"}
CONFIG:
  inputs:
    src: {format: s3, path: "{{ data }}", file_format: parquet}
  transform: {type: noop, params: {outputs: [u, h]}}
  outputs:
    u: {format: unity, table: people_u, file_format: parquet, mode: overwrite,
        options: {comment: "People's table", tblproperties: {quality: bronze}}}
    h: {format: hive, db_name: "{{ db }}", tbl_name: people_h, file_format: parquet}
"""
TABLES_READ = """
ENGINE:
  catalog: spark_catalog
  schema_name: "{{ db }}"
CONFIG:
  inputs:
    u: {format: unity, table: people_u}
  transform: {params: {outputs: [o]}}
  outputs:
    o: {format: s3, path: "{{ out }}", file_format: parquet, partitionBy: [day]}
"""


def test_unity_and_hive_tables_are_qualified_by_catalog_and_schema_name(engine_spark: Any, database: str,
                                                                        tmp_path: Path) -> None:
    pq.write_table(people(), tmp_path / "people.parquet")
    variables = {"db": database, "data": str(tmp_path / "people.parquet"), "out": str(tmp_path / "out")}
    written = run_task(make_task(tmp_path, "write", TABLES_WRITE), spark=engine_spark, lineage=True,
                       variables=variables)
    got = steps(record_of(written))
    assert got["u"]["location"] == f"spark_catalog.{database}.people_u" and got["u"]["format"] == "table"
    assert got["h"]["location"] == f"spark_catalog.{database}.people_h"
    assert engine_spark.table(f"{database}.people_u").count() == 4
    described = {r[0]: r[1] for r in engine_spark.sql(f"DESCRIBE TABLE EXTENDED {database}.people_u").collect()}
    assert described["Comment"] == "People's table" and "quality=bronze" in described["Table Properties"]
    assert "comment" not in described.get("Storage Properties", "")  # not passed on as a writer option
    assert engine_spark.table(f"{database}.people_h").count() == 4
    read = run_task(make_task(tmp_path, "read", TABLES_READ), spark=engine_spark, lineage=True, variables=variables)
    got = steps(record_of(read))
    assert got["u"]["location"] == f"spark_catalog.{database}.people_u" and got["u"]["row_count"] == 4
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == ["day=a", "day=b", "day=c"]
    assert got["o"]["row_count"] == 4 and got["o"]["data_hash"] == got["u"]["data_hash"]


DELTA_WRITE = """
ENGINE: {schema_name: "{{ db }}"}
CONFIG:
  inputs:
    src: {format: s3, path: "{{ data }}"}
  transform: {params: {outputs: [by_path, by_table]}}
  outputs:
    by_path: {format: delta, path: "{{ lake }}", mode: "{{ wmode }}", partitionBy: [day]}
    by_table: {format: delta, table: lake_t, mode: "{{ wmode }}"}
"""
DELTA_READ = """
ENGINE: {schema_name: "{{ db }}"}
CONFIG:
  inputs:
    first: {format: delta, path: "{{ lake }}", version: 0}
    tbl: {format: delta, table: lake_t, version: 1}
  transform: {params: {outputs: [o]}}
  outputs:
    o: {format: s3, path: "{{ out }}", file_format: json}
"""


def test_delta_by_path_and_by_table_with_versions(engine_spark: Any, database: str, tmp_path: Path) -> None:
    pytest.importorskip("delta")
    pq.write_table(people(), tmp_path / "people.parquet")
    variables = {"db": database, "data": str(tmp_path / "people.parquet"), "lake": str(tmp_path / "lake"),
                 "out": str(tmp_path / "out")}
    for wmode in ("overwrite", "append"):
        result = run_task(make_task(tmp_path, "write", DELTA_WRITE), spark=engine_spark, lineage=True,
                          variables={**variables, "wmode": wmode})
    got = steps(record_of(result))
    assert got["by_table"]["location"] == f"{database}.lake_t" and got["by_table"]["delta_version"] == 1
    assert got["by_path"]["delta_version"] == 1
    assert engine_spark.sql(f"DESCRIBE DETAIL {database}.lake_t").collect()[0]["format"] == "delta"
    read = run_task(make_task(tmp_path, "read", DELTA_READ), spark=engine_spark,
                    lineage=True, variables=variables)
    got = steps(record_of(read))
    assert (got["first"]["delta_version"], got["first"]["row_count"]) == (0, 4)
    assert (got["tbl"]["delta_version"], got["tbl"]["row_count"]) == (1, 8)


S3_TASK = """
CONFIG:
  inputs:
    src: {format: s3, path: "file://{{ data }}", file_format: csv, options: {header: "true", inferSchema: "true"}}
  transform: {type: noop, params: {outputs: [o]}}
  outputs:
    o: {format: s3, path: "{{ out }}", file_format: parquet, partitionBy: [day]}
"""


def test_s3_with_partition_by_leaves_the_same_hashes_on_spark_and_pandas(engine_spark: Any, tmp_path: Path) -> None:
    (tmp_path / "people.csv").write_text("id,day,score\n1,a,1.5\n2,b,\n3,a,-2.0\n4,c,7.25\n")
    task = make_task(tmp_path, "s3", S3_TASK)
    hashes = {}
    for backend in ("spark", "pandas"):
        variables = {"data": str(tmp_path / "people.csv"), "out": str(tmp_path / backend)}
        result = run_task(task, backend=backend, spark=engine_spark if backend == "spark" else None, lineage=True,
                          variables=variables)
        got = steps(record_of(result))
        assert got["src"]["location"] == f"file://{tmp_path / 'people.csv'}"
        assert sorted(p.name for p in (tmp_path / backend).iterdir() if p.is_dir()) == ["day=a", "day=b", "day=c"]
        hashes[backend] = [(s["row_count"], s["schema_hash"], s["data_hash"]) for s in got.values()]
    assert hashes["spark"] == hashes["pandas"] and hashes["spark"][0][0] == 4


JDBC_WRITE = """
CONFIG:
  inputs:
    src: {format: s3, path: "{{ data }}"}
  transform: {params: {outputs: [db]}}
  outputs:
    db: {format: jdbc, url: "jdbc:derby:{{ derby }};create=true", table: PEOPLE, user: etl,
         password: "{{ env.UBUNYE_TEST_DERBY_PASSWORD }}", mode: overwrite}
"""
JDBC_READ = """
CONFIG:
  inputs:
    by_table: {format: jdbc, url: "jdbc:derby:{{ derby }}", table: "{{ table }}", user: etl,
               password: "{{ env.UBUNYE_TEST_DERBY_PASSWORD }}", fetchsize: 2}
    by_sql: {format: jdbc, url: "jdbc:derby:{{ derby }}", sql: 'SELECT * FROM PEOPLE WHERE "id" > 2', user: etl,
             password: "{{ env.UBUNYE_TEST_DERBY_PASSWORD }}"}
  transform: {params: {outputs: [o]}}
  outputs:
    o: {format: s3, path: "{{ out }}"}
"""


def test_jdbc_on_derby_keeps_the_password_out_of_records_and_logs(engine_spark: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capfd: pytest.CaptureFixture[str],
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("UBUNYE_TEST_DERBY_PASSWORD", PASSWORD)
    pq.write_table(people(), tmp_path / "people.parquet")
    derby = tmp_path / "derby" / "people_db"
    variables = {"data": str(tmp_path / "people.parquet"), "derby": str(derby), "out": str(tmp_path / "out")}
    written = run_task(make_task(tmp_path, "jdbc_write", JDBC_WRITE), spark=engine_spark, lineage=True,
                       variables=variables)
    out = steps(record_of(written))["db"]
    assert out["format"] == "jdbc" and out["location"] == f"jdbc:derby:{derby};create=true table PEOPLE"
    assert out["row_count"] == 4
    read_task = make_task(tmp_path, "jdbc_read", JDBC_READ)
    read = run_task(read_task, spark=engine_spark, lineage=True, variables={**variables, "table": "PEOPLE"})
    got = steps(record_of(read))
    assert got["by_table"]["location"] == f"jdbc:derby:{derby} table PEOPLE"
    assert got["by_table"]["options"] == {"fetchsize": "2"}
    assert got["by_sql"]["location"] == f"jdbc:derby:{derby} sql SELECT * FROM PEOPLE WHERE \"id\" > 2"
    assert (got["by_table"]["row_count"], got["by_sql"]["row_count"]) == (4, 2)
    assert got["by_table"]["data_hash"] == out["data_hash"]  # the rows written are the rows read back
    failed = run_task(read_task, spark=engine_spark, lineage=True, raise_on_error=False,
                      variables={**variables, "table": "NO_SUCH_TABLE"})
    assert failed.status == "error" and "NO_SUCH_TABLE" in failed.reason() and " at org." not in failed.reason()
    texts = [Path(r.record_path).read_text() for r in (written, read, failed)]
    logs = "".join(capfd.readouterr()) + caplog.text + failed.reason()
    for text in [*texts, logs]:
        assert PASSWORD not in text
