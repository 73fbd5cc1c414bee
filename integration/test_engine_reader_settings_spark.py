"""The same task with reader options and a schema on Spark and on pandas: the same input hash,
the settings recorded alike; names differing only by case refused with the same line."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import run_task

pytestmark = pytest.mark.spark

COPY = """
from ubunye import Task


class Copy(Task):
    def transform(self, sources):
        return {"out": sources["raw"]}
"""
CONFIG = """
CONFIG:
  inputs:
    raw: {format: parquet, path: "{{ data }}", options: {mergeSchema: true}, schema: "%s"}
  outputs:
    out: {format: parquet, path: "{{ out }}"}
"""


@pytest.fixture
def engine_spark(spark: Any) -> Iterator[Any]:
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


def task_dir(tmp_path: Path, schema: str) -> Path:
    task = tmp_path / "shop" / "orders" / "copy"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG % schema, encoding="utf-8")
    (task / "transformations.py").write_text(COPY, encoding="utf-8")
    return task


def test_options_and_schema_give_the_same_input_hash_on_both_backends(engine_spark: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64()), "u": pa.array([1, 255], pa.uint8())}),
                   data / "part-0.parquet")
    pq.write_table(pa.table({"A": pa.array([3], pa.int64()), "b": ["x"]}), data / "part-1.parquet")
    task = task_dir(tmp_path, "a BIGINT, u SMALLINT, b STRING")
    steps = {}
    for label, kwargs in {"spark": dict(backend="spark", spark=engine_spark), "pandas": dict(backend="pandas")}.items():
        result = run_task(task, lineage=True, variables={"data": str(data), "out": str(tmp_path / label)}, **kwargs)
        assert result.status == "success", result.error
        (steps[label],) = json.loads(Path(result.record_path).read_text())["inputs"]
    for key in ("row_count", "schema_hash", "data_hash", "options", "schema"):
        assert steps["spark"][key] == steps["pandas"][key], key
    assert steps["pandas"]["options"] == {"mergeschema": "true"} and steps["pandas"]["row_count"] == 3


def test_names_differing_only_by_case_are_refused_with_the_same_line(engine_spark: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"a": [1], "A": [2]}), data / "part-0.parquet")
    task = tmp_path / "shop" / "orders" / "copy"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG.replace(', options: {mergeSchema: true}, schema: "%s"', ""),
                                      encoding="utf-8")
    (task / "transformations.py").write_text(COPY, encoding="utf-8")
    errors = {}
    for label, kwargs in {"spark": dict(backend="spark", spark=engine_spark), "pandas": dict(backend="pandas")}.items():
        result = run_task(task, raise_on_error=False, variables={"data": str(data), "out": str(tmp_path / label)},
                          **kwargs)
        assert result.status == "error"
        errors[label] = str(result.error)
    assert errors["spark"] == errors["pandas"], errors
    assert errors["pandas"].startswith("input 'raw': column 'a' appears more than once when case is ignored")
