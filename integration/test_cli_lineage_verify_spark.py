"""``ubunye lineage verify`` re-hashing with Spark: a Spark run's record (auto engine) and a pandas run's."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.recorder import LineageRecorder

CSV = "id,name,age\n1,Thabo,34\n2,Anna,17\n3,Sipho,52\n"


def verify(folder: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["lineage", "verify", "-d", str(folder), "--json", *args])
    assert "Traceback" not in result.stderr, result.stderr
    return result


def record_spark_run(spark: Any, folder: Path) -> None:
    """A Spark-backend run that read people.csv and wrote adults (parquet), recorded by the recorder."""
    (folder / "data").mkdir()
    (folder / "data" / "people.csv").write_text(CSV, encoding="utf-8")
    people = spark.read.option("header", "true").option("inferSchema", "true").csv(str(folder / "data/people.csv"))
    adults = people.where("age >= 18")
    adults.write.mode("overwrite").parquet(str(folder / "out" / "adults"))
    written = spark.read.parquet(str(folder / "out" / "adults"))
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=folder,
                         run_id=str(uuid.uuid4()), backend="spark", spark=spark, time_zone="UTC")
    recorder = LineageRecorder()
    recorder.task_start(context=context)
    record = recorder.task_end(
        context=context,
        inputs=[DataEvent("people", "input", "csv", str(folder / "data" / "people.csv"), frame=people)],
        outputs=[DataEvent("adults", "output", "parquet", str(folder / "out" / "adults"), frame=written)],
        status="success", duration_sec=1.0)
    assert all(s.data_hash for s in record.steps), record.steps


def test_spark_run_verifies_with_spark_then_pandas_and_catches_a_rewrite(spark: Any, tmp_path: Path) -> None:
    record_spark_run(spark, tmp_path)
    auto = verify(tmp_path)
    assert auto.exit_code == 0, auto.stdout
    doc = json.loads(auto.stdout)
    assert doc["run"]["engine"] == "spark"  # auto: the run's backend was Spark
    assert {s["engine"] for s in doc["steps"]} <= {"spark-native", "spark-sql"}
    # the same files re-hashed by pandas/Arrow prove the same rows (one rows-v1 across engines)
    assert verify(tmp_path, "--engine", "pandas").exit_code == 0

    spark.createDataFrame([(9, "Nobody", 99)], "id INT, name STRING, age INT").write.mode("overwrite").parquet(
        str(tmp_path / "out" / "adults"))
    rewritten = verify(tmp_path)
    assert rewritten.exit_code == 1
    adults = json.loads(rewritten.stdout)["steps"][1]
    assert adults["verdict"] == "changed" and adults["row_count"]["b"] == 1
