"""Per-partition sums of inputs (``docs/spec/rows-v1-localise.md`` section 7) on Spark: the
partition columns come from Spark's analyzed plan (``ubunye.spark._compat.read_partition_columns``),
so a partitioned Delta table, a partitioned catalog table and ``key=value`` folders all record
them, on the native engine (the plugin's planner node) and on the fallback, and each partition's
row count is the count Spark's ``groupBy`` gives."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from test_diff_rows_spark import CODE, cli_run  # the task: adults (and history) from people
from test_partition_sums_spark import ROOT, steps_in

pytestmark = pytest.mark.spark

COLUMNS = ["team", "age"]  # folder order
TEAMS = ["a", "b", "c", None]  # None: the __HIVE_DEFAULT_PARTITION__ folder


def people(spark: Any) -> Any:
    rows = [(i, f"person {i}", 16 + i % 5, TEAMS[i % 7 % 4]) for i in range(120)]
    return spark.createDataFrame(rows, "id INT, name STRING, age INT, team STRING").repartition(3)


def test_read_partition_columns_of_folders_and_catalog_tables(spark: Any, tmp_path: Path, spark_conf: Any) -> None:
    """Which plans name partition columns (no Delta: this runs on every line, 4.3 too): one
    relation under row-keeping nodes, the columns still the relation's own in the frame's output."""
    from pyspark.sql import functions as F

    from ubunye.spark._compat import read_partition_columns

    df = people(spark)
    df.write.partitionBy(*COLUMNS).parquet(str(tmp_path / "folders"))
    df.write.format("parquet").partitionBy("age").saveAsTable("inparts_plan_parquet")
    try:
        folders = spark.read.parquet(str(tmp_path / "folders"))
        assert read_partition_columns(folders) == COLUMNS
        assert read_partition_columns(spark.read.option("basePath", str(tmp_path / "folders"))
                                      .parquet(str(tmp_path / "folders" / "team=a"))) == COLUMNS
        assert read_partition_columns(spark.read.option("recursiveFileLookup", "true")
                                      .parquet(str(tmp_path / "folders"))) == []
        assert read_partition_columns(spark.table("inparts_plan_parquet")) == ["age"]
        # rows and values of the relation kept: the columns stay (named as the relation names them)
        assert read_partition_columns(folders.where("id > 3").select("AGE", "id", "team").limit(50)) == COLUMNS
        assert read_partition_columns(folders.orderBy("id").distinct()) == COLUMNS
        # a column dropped, renamed or replaced, several relations, rows not of the relation: none
        assert read_partition_columns(folders.drop("age")) == []
        assert read_partition_columns(folders.withColumnRenamed("team", "squad")) == []
        assert read_partition_columns(folders.withColumn("team", F.upper("team"))) == []
        assert read_partition_columns(folders.join(spark.table("inparts_plan_parquet"), "id")) == []
        assert read_partition_columns(folders.unionByName(folders)) == []
        assert read_partition_columns(folders.groupBy(*COLUMNS).count()) == []
        assert read_partition_columns(df) == []
        with spark_conf({"spark.sql.sources.useV1SourceList": ""}):  # a DataSourceV2Relation (FileTable)
            v2 = spark.read.parquet(str(tmp_path / "folders"))
            assert "RelationV2" in v2._jdf.queryExecution().analyzed().toString()
            assert read_partition_columns(v2) == COLUMNS
    finally:
        spark.sql("DROP TABLE IF EXISTS inparts_plan_parquet")


def test_read_partition_columns_of_delta_tables(spark: Any, tmp_path: Path) -> None:
    """A Delta table by path, by version and by name (a LogicalRelation over Delta's own
    HadoopFsRelation); a table written without partitions has none."""
    from ubunye.spark._compat import read_partition_columns

    df = people(spark)
    df.write.format("delta").partitionBy(*COLUMNS).save(str(tmp_path / "delta"))
    df.write.format("delta").save(str(tmp_path / "flat-delta"))
    df.write.format("delta").partitionBy("team").saveAsTable("inparts_plan_delta")
    try:
        delta = spark.read.format("delta").load(str(tmp_path / "delta"))
        assert read_partition_columns(delta) == COLUMNS
        assert read_partition_columns(spark.read.format("delta").option("versionAsOf", 0)
                                      .load(str(tmp_path / "delta"))) == COLUMNS
        assert read_partition_columns(spark.read.format("delta").load(str(tmp_path / "flat-delta"))) == []
        assert read_partition_columns(spark.table("inparts_plan_delta")) == ["team"]
        assert read_partition_columns(delta.where("id > 3").select("AGE", "id", "team")) == COLUMNS
        assert read_partition_columns(delta.drop("age")) == []
    finally:
        spark.sql("DROP TABLE IF EXISTS inparts_plan_delta")


CONFIG = f"""
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {{people}}
  outputs:
    adults: {{format: parquet, path: "{ROOT}/out/adults", mode: overwrite}}
    history: {{format: parquet, path: "{ROOT}/out/history", mode: overwrite}}
{{expectations}}"""
RULES = """  expectations:
    people:
      rules:
        - not_null: id
"""
INPUTS = {  # how people is stored, and its input spec
    "delta": f'{{format: delta, path: "{ROOT}/data/people"}}',
    "parquet-table": '{format: table, table: "{table}"}',
    "folders": f'{{format: parquet, path: "{ROOT}/data/people"}}',
    "csv-folders": f'{{format: csv, path: "{ROOT}/data/people"}}',  # read with header and inferSchema
    # checked by rules: on the native engine hashed beside the rule counts, but for its partitions
    "folders-rules": f'{{format: parquet, path: "{ROOT}/data/people"}}',
    # Spark reads the folders without partition columns: none recorded (the folder names say team)
    "folders-recursive": f'{{format: parquet, path: "{ROOT}/data/people", options: {{recursiveFileLookup: "true"}}}}',
}


@pytest.mark.parametrize("engine", ["spark-native", "spark-sql"])
@pytest.mark.parametrize("kind", list(INPUTS))
def test_input_records_exact_partition_sums(spark: Any, tmp_path: Path, kind: str, engine: str) -> None:
    from ubunye.spark import fingerprint_spark, native_available

    assert native_available(spark)
    table = f"inparts_people_{kind.replace('-', '_')}_{engine.replace('-', '_')}"
    # read recursively the frame has no team column (the task filters on age: kept in the files)
    writer = people(spark).write.partitionBy(*(["team"] if kind == "folders-recursive" else COLUMNS))
    if kind == "delta":
        writer.format("delta").save(str(tmp_path / "data" / "people"))
        stored = spark.read.format("delta").load(str(tmp_path / "data" / "people"))
    elif kind == "parquet-table":
        writer.format("parquet").saveAsTable(table)
        stored = spark.table(table)
    elif kind == "csv-folders":
        writer.option("header", True).csv(str(tmp_path / "data" / "people"))
        stored = spark.read.options(header=True, inferSchema=True).csv(str(tmp_path / "data" / "people"))
    else:
        writer.parquet(str(tmp_path / "data" / "people"))
        stored = spark.read.parquet(str(tmp_path / "data" / "people"))
    counted = Counter({f"team={r['team'] or '__HIVE_DEFAULT_PARTITION__'}/age={r['age']}": r["count"]
                       for r in stored.groupBy(*COLUMNS).count().collect()})
    expected = fingerprint_spark(stored, engine="spark-sql", partition_by=COLUMNS)  # lanes as the fallback sums them
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG.replace("{people}", INPUTS[kind].replace("{table}", table))
                                      .replace("{expectations}", RULES if kind == "folders-rules" else ""), encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    lineage = ("-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean")
    try:
        ran = cli_run("run", *lineage, "--backend", "spark", "--hash-engine", engine, "--lineage")
        assert ran.exit_code == 0, ran.stderr
        step = {s["name"]: s for s in steps_in(json.loads(cli_run("lineage", "show", *lineage, "--json").stdout))}["people"]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")
    assert step["hash_engine"] == engine and step["data_hash"] and step["row_count"] == 120, step
    if kind == "folders-recursive":
        assert step.get("partitions") is None, step
        return
    parts = step["partitions"]
    assert parts["columns"] == COLUMNS
    assert {key: value[0] for key, value in parts["sums"].items()} == counted and len(counted) == 20
    assert parts == json.loads(json.dumps(expected.partitions)) and step["data_hash"] == expected.data_hash
    assert step["hash_pass"] == ("same-pass" if engine == "spark-native" and kind != "folders-rules" else "second-pass")
