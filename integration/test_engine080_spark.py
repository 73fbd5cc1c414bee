"""ubunye-engine 0.8.0 task folders run unchanged with `ubunye run` on Spark (issue 16).

- ``titanic/pipeline/clean_data`` (rules, quarantine, reconcile) on Spark and on pandas:
  the two records' receipts (each input's and output's rows-v1 hash, row count and
  schema hash; every expectation result) are identical, and the quarantine output on
  Spark holds the breaking rows with ``_ubunye_failed_rules``.
- ``titanic/analytics/survival_by_class`` (Spark only): a ``format: unity`` output
  with an unqualified table name lands in the DEV profile's ``catalog`` and
  ``schema_name``.

The pandas side alone is ``tests/test_engine080_pandas.py``.
"""
from __future__ import annotations

import csv
import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

import ubunye
from ubunye.cli.app import cli

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "engine080"
DATA = FIXTURES / "data" / "titanic.csv"


@pytest.fixture
def engine_spark(spark: Any) -> Iterator[Any]:
    """The shared session, its settings restored after each test."""
    keep = {k: spark.conf.get(k) for k in ("spark.sql.session.timeZone", "spark.sql.shuffle.partitions")}
    catalog, database = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    try:
        yield spark
    finally:
        for key, value in keep.items():
            spark.conf.set(key, value)
        spark.catalog.setCurrentCatalog(catalog)
        spark.catalog.setCurrentDatabase(database)


def ubunye_run(package: str, task: str, backend: str, records: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["run", "-d", str(FIXTURES), "-u", "titanic", "-p", package, "-t", task,
                                      "--backend", backend, "-m", "DEV", "-dt", "2024-01-02", "--lineage",
                                      "--lineage-dir", str(records), *extra])
    return result.exit_code, result.stdout + result.stderr


def only_record(records: Path, package: str, task: str) -> dict[str, Any]:
    (path,) = (records / "titanic" / package / task).glob("*.json")
    return json.loads(path.read_text())


def receipts(record: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on the backend: each step's hashes and counts, every expectation."""
    return {
        "steps": [(s["name"], s["direction"], s["row_count"], s["schema_hash"], s["data_hash"])
                  for s in record["inputs"] + record["outputs"]],
        "expectations": record["expectations"],
    }


def test_clean_data_leaves_the_same_receipts_on_spark_and_pandas(
    engine_spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TITANIC_INPUT_PATH", str(DATA))
    records = {}
    for backend in ("spark", "pandas"):
        monkeypatch.setenv("TITANIC_CLEAN_PATH", str(tmp_path / backend / "cleaned"))
        # a lineage folder per backend: each hashes its input itself (no hash reused from the other's record)
        code, output = ubunye_run("pipeline", "clean_data", backend, tmp_path / backend / "records")
        assert code == 0, output
        records[backend] = only_record(tmp_path / backend / "records", "pipeline", "clean_data")
    spark_rec, pandas_rec = records["spark"], records["pandas"]
    assert (spark_rec["backend"], pandas_rec["backend"]) == ("spark", "pandas")
    assert spark_rec["status"] == pandas_rec["status"] == "success"
    assert all(step[4] is not None for step in receipts(spark_rec)["steps"]), receipts(spark_rec)
    assert [step[0] for step in receipts(spark_rec)["steps"]] == ["titanic", "cleaned", "rejected"]
    assert receipts(spark_rec) == receipts(pandas_rec)
    kinds = {e["kind"] for e in spark_rec["expectations"]}
    assert {"columns", "not_null", "unique", "between", "one_of", "row_count", "reconcile"} <= kinds

    # the quarantine output on Spark: the breaking rows, each with the rules it broke
    written = f"{tmp_path}/spark/cleaned_rejected/mode=DEV/dt=2024-01-02"
    rejected = engine_spark.read.parquet(written)
    got = {r["PassengerId"]: r["_ubunye_failed_rules"] for r in rejected.collect()}
    with DATA.open(newline="", encoding="utf-8") as f:
        rows = {int(r["PassengerId"]): r for r in csv.DictReader(f)}
    assert set(got) == {i for i, r in rows.items() if r["Sex"] not in ("male", "female")
                        or (r["Age"] != "" and not 0 <= float(r["Age"]) <= 110)}
    assert sorted(got.values()) == ["Age_between", "Age_between,Sex_one_of", "Sex_one_of"]
    step = {s["name"]: s for s in spark_rec["outputs"]}["rejected"]
    assert ubunye.fingerprint(rejected).data_hash == step["data_hash"]


def test_survival_by_class_writes_the_profile_catalog_delta_table(
    engine_spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = f"titanic_{uuid.uuid4().hex[:8]}"
    engine_spark.sql(f"CREATE DATABASE {schema}")
    monkeypatch.setenv("TITANIC_INPUT_PATH", str(DATA))
    monkeypatch.setenv("TITANIC_CATALOG", "spark_catalog")
    monkeypatch.setenv("TITANIC_SCHEMA", schema)
    try:
        code, output = ubunye_run("analytics", "survival_by_class", "spark", tmp_path / "records")
        assert code == 0, output
        table = engine_spark.table(f"spark_catalog.{schema}.survival_by_class")  # DEV's catalog and schema_name
        with DATA.open(newline="", encoding="utf-8") as f:
            known = [r for r in csv.DictReader(f) if r["Survived"] != ""]
        want = {}
        for cls in sorted({int(r["Pclass"]) for r in known}):
            of_class = [r for r in known if int(r["Pclass"]) == cls]
            survivors = sum(int(r["Survived"]) for r in of_class)
            want[cls] = (len(of_class), survivors, round(survivors / len(of_class), 4))
        got = {r["Pclass"]: (r["passenger_count"], r["survivors_count"], r["survival_rate"]) for r in table.collect()}
        assert got == want
        record = only_record(tmp_path / "records", "analytics", "survival_by_class")
        (out,) = record["outputs"]
        assert out["row_count"] == len(want)
        assert out["data_hash"] == ubunye.fingerprint(table).data_hash
        assert not engine_spark.catalog.tableExists("default.survival_by_class")
    finally:
        engine_spark.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
