"""A record written by a Spark run and one written by a pandas run of the same
data carry the same data hashes."""
from __future__ import annotations

import datetime as dt
import os
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ubunye.lineage
import ubunye.spark
from ubunye.lineage.store import open_store

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def records_spark(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The shared session from ``integration/conftest.py`` when there is one, else a local one."""
    try:
        shared = request.getfixturevalue("spark")
    except pytest.FixtureLookupError:
        shared = None
    if shared is not None:
        yield shared
        return
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers must import ubunye
    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.pyspark.python", sys.executable)
        .appName("ubunye-records-test")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    try:  # the native plugin when its jar is built, else the SQL fallback
        builder = ubunye.spark.configure(builder)
    except ubunye.spark.JarError:
        pass
    session = builder.getOrCreate()
    yield session
    session.stop()


def _people(path: Path) -> Path:
    table = pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": ["Mokoena, Thabo", 'Anna "Annie" Dlamini', "Sipho", None],
        "age": pa.array([34, 17, 52, 70], pa.int32()),
        "score": [71.5, None, 88.0, 0.1],
        "passed": [True, False, None, True],
        "day": pa.array([dt.date(2024, 1, 2), dt.date(2024, 2, 29), None, dt.date(1999, 12, 31)], pa.date32()),
        "seen": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5), None, dt.datetime(2024, 2, 29, 23, 59, 59, 123456),
                          dt.datetime(1970, 1, 1)], pa.timestamp("us", tz="UTC")),
        "amount": pa.array([Decimal("1.50"), Decimal("-2.25"), None, Decimal("0.00")], pa.decimal128(10, 2)),
    })
    file = path / "people.parquet"
    pq.write_table(table, file)
    return file


# pandas keeps no decimal precision (a column of Decimal objects is typed by
# Arrow's inference, decimal(3,2) here, while Spark reads decimal(10,2)), so the
# default read drops that column; the Arrow-backed read keeps every column.
READS: dict[str, dict[str, Any]] = {
    "numpy-backed": {"columns": ["id", "name", "age", "score", "passed", "day", "seen"]},
    "arrow-backed": {"dtype_backend": "pyarrow"},
}


@pytest.mark.parametrize("read", sorted(READS))
def test_spark_and_pandas_runs_of_the_same_data_carry_the_same_hashes(
        records_spark: Any, tmp_path: Path, read: str) -> None:
    source = _people(tmp_path)
    usecase_dir = tmp_path / "usecase"
    columns = READS[read].get("columns")

    with ubunye.lineage.run("shop/orders/clean", usecase_dir=usecase_dir, variables={"engine": "spark"}) as spark_run:
        people = records_spark.read.parquet(str(source))
        if columns:
            people = people.select(*columns)
        spark_run.input("people", people, location=str(source), format="parquet")
        adults = people.where("age >= 18")
        spark_run.output("adults", adults, location="memory", format="parquet")

    with ubunye.lineage.run("shop/orders/clean", usecase_dir=usecase_dir, variables={"engine": "pandas"}) as pandas_run:
        frame = pd.read_parquet(source, **READS[read])
        pandas_run.input("people", frame, location=str(source), format="parquet")
        grown = frame[frame["age"] >= 18]
        pandas_run.output("adults", grown, location="memory", format="parquet")

    store = open_store(usecase_dir)
    by_engine = {r.variables["engine"]: r for r in store.list_runs("shop", "orders", "clean")}
    spark_record, pandas_record = by_engine["spark"], by_engine["pandas"]
    assert spark_record.run_id == spark_run.run_id and pandas_record.run_id == pandas_run.run_id

    for spark_step, pandas_step in zip(spark_record.steps, pandas_record.steps):
        assert spark_step.hash_error is None and pandas_step.hash_error is None
        assert spark_step.data_hash is not None
        assert (spark_step.name, spark_step.data_hash, spark_step.schema_hash, spark_step.row_count) == (
            pandas_step.name, pandas_step.data_hash, pandas_step.schema_hash, pandas_step.row_count)
        assert spark_step.hash_engine in ("spark-native", "spark-sql")
        assert pandas_step.hash_engine == "arrow"
    assert [s.row_count for s in spark_record.steps] == [4, 3]

    assert spark_record.backend == "spark" and pandas_record.backend == "pandas"
    assert spark_record.time_zone == "UTC"
    env = spark_record.environment
    assert env["spark"] == records_spark.version
    assert env["java"]  # a classic session reaches its JVM
    assert env["ubunye_spark_plugin"]
    native = {s.hash_engine for s in spark_record.steps} == {"spark-native"}
    assert (env["ubunye_spark_plugin"] != "fallback") == native
    assert "spark" not in pandas_record.environment
    assert spark_record.environment_hash != pandas_record.environment_hash
