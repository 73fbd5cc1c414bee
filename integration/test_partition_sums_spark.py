"""Per-partition sums (``docs/spec/rows-v1-localise.md`` section 7) on the native Spark
engine: the plugin's planner node records the same ``partitions`` field as the
``mapInArrow`` fallback, byte for byte, for a partitioned output written in the same pass
and for an input read from ``key=value`` folders; ``lineage diff --json`` and ``compare``
then list the changed partitions of a native run exactly."""
from __future__ import annotations

import importlib.util

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from test_diff_rows_spark import CODE, cli_run  # the same task: adults (and history) from people

pytestmark = pytest.mark.spark

PARTITION_BY = ["s", "d", "ts", "m", "f", "n", "t"]


def frame(spark: Any) -> Any:
    """Partition columns of every kind with folder text, escapes, nulls and empty text."""
    from pyspark.sql.types import (BooleanType, DateType, DecimalType, DoubleType, IntegerType, LongType,
                                   StringType, StructField, StructType, TimestampType)

    texts = ["a/b", "x=y:%#", "", None, "plain", "é ü"]
    rows = [(texts[i % 6], dt.date(2024, 1, 30) + dt.timedelta(days=i % 3),
             dt.datetime(2024, 1, 2, 3, 4, 5, 500000 * (i % 2), tzinfo=dt.timezone.utc),
             Decimal(i % 4) / 4, 1e10 if i % 7 == 0 else 0.5, i % 3, i % 2 == 0, i) for i in range(240)]
    schema = StructType([StructField("s", StringType()), StructField("d", DateType()),
                         StructField("ts", TimestampType()), StructField("m", DecimalType(5, 2)),
                         StructField("f", DoubleType()), StructField("n", IntegerType()),
                         StructField("t", BooleanType()), StructField("v", LongType())])
    return spark.createDataFrame(rows, schema).repartition(3)


def test_native_records_the_fallbacks_partitions(spark: Any) -> None:
    """fingerprint_spark with partition_by: the native pass (planner node) == the fallback."""
    from ubunye.spark import fingerprint_spark

    df = frame(spark)
    native = fingerprint_spark(df, engine="spark-native", partition_by=PARTITION_BY)
    fallback = fingerprint_spark(df, engine="spark-sql", partition_by=PARTITION_BY)
    assert native.engine == "spark-native" and fallback.engine == "spark-sql"
    assert native.data_hash == fallback.data_hash and native.partitions is not None
    assert json.dumps(native.partitions) == json.dumps(fallback.partitions)
    assert len(native.partitions["sums"]) > 20
    assert sum(v[0] for v in native.partitions["sums"].values()) == 240
    by_case = fingerprint_spark(df, engine="spark-native", partition_by=["N"])  # matched ignoring case
    assert list(by_case.partitions["sums"]) == ["n=0", "n=1", "n=2"]
    assert by_case.partitions == fingerprint_spark(df, engine="spark-sql", partition_by=["N"]).partitions
    empty = df.where("v < 0")
    assert fingerprint_spark(empty, engine="spark-native", partition_by=["n"]).partitions == \
        fingerprint_spark(empty, engine="spark-sql", partition_by=["n"]).partitions


ROOT = "{{ task_dir }}/../../.."
CONFIG = f"""
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {{format: parquet, path: "{ROOT}/data/{{{{ dt }}}}/people"}}
  outputs:
    adults: {{format: parquet, path: "{ROOT}/out/{{{{ dt }}}}/adults", partition_by: [team, age]}}
    history: {{format: {{history_format}}, path: "{ROOT}/out/history", mode: overwrite, partition_by: [team]}}
"""
# Delta where delta-spark is installed (not on Spark 4.3: no release for it), else parquet,
# whose sums take the same paths (observed in the write, or read back on the fallback)
HISTORY_FORMAT = "delta" if importlib.util.find_spec("delta") is not None else "parquet"


def steps_in(doc: Any) -> list[dict[str, Any]]:
    """Every step (a dict with a ``name`` and a ``hash_engine``) anywhere in a shown record."""
    if isinstance(doc, dict):
        own = [doc] if "name" in doc and "hash_engine" in doc else []
        return own + [s for v in doc.values() for s in steps_in(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in steps_in(v)]
    return []


def write_people(spark: Any, folder: Path, dt_: str, rows: list[tuple[int, str, int, str]]) -> None:
    """``people`` as parquet in ``key=value`` folders: ``team=<t>/``."""
    spark.createDataFrame(rows, "id INT, name STRING, age INT, team STRING").coalesce(1).write \
        .partitionBy("team").parquet(str(folder / "data" / dt_ / "people"))


@pytest.mark.parametrize("engine", ["spark-native", "spark-sql"])
def test_run_records_partitions_and_diff_names_them(spark: Any, tmp_path: Path, engine: str) -> None:
    """A run with the jar (the write observed by the planner node, the key=value input hashed
    natively) records the sums the fallback records; diff and compare list the changed
    partitions with their rows before and after."""
    from ubunye.spark import native_available

    assert native_available(spark)
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG.replace("{history_format}", HISTORY_FORMAT), encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    rows = [(i, f"person {i}", 16 + i % 6, "abc"[i % 3]) for i in range(100)]
    changed = [r for r in rows if r[0] != 40]  # removed: team b, age 20
    changed[10] = (10, "person ten", 21, "b")  # updated: team b, age 20 -> 21
    changed.append((100, "person 100", 19, "c"))  # added: team c, age 19
    for dt_, data in (("2024-01-01", rows), ("2024-01-02", changed)):
        write_people(spark, tmp_path, dt_, data)
        ran = cli_run("run", "-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "spark",
                      "--hash-engine", engine, "-dt", dt_, "--lineage")
        assert ran.exit_code == 0, ran.stderr
    lineage = ("-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean")
    doc = json.loads(cli_run("lineage", "diff", *lineage, "--json").stdout)
    steps = {s["name"]: s for s in doc["steps"]}
    assert steps["people"]["partitions"] == changed_partitions(rows, changed, lambda r: f"team={r[3]}") == [
        {"partition": "team=b", "rows_before": 33, "rows_after": 32},
        {"partition": "team=c", "rows_before": 33, "rows_after": 34}]
    assert steps["adults"]["partitions"] == changed_partitions(
        [r for r in rows if r[2] >= 18], [r for r in changed if r[2] >= 18], lambda r: f"team={r[3]}/age={r[2]}")
    assert [p["partition"] for p in steps["adults"]["partitions"]] == ["team=b/age=20", "team=b/age=21",
                                                                       "team=c/age=19"]
    assert steps["history"]["partitions"] == changed_partitions(  # Delta (or parquet): observed, or read back
        [r for r in rows if r[2] >= 18], [r for r in changed if r[2] >= 18], lambda r: f"team={r[3]}")
    compared = cli_run("lineage", "compare", *lineage)
    assert "partitions changed: team=b/age=20 (" in compared.stdout, compared.stdout
    shown = json.loads(cli_run("lineage", "show", *lineage, "--json").stdout)
    latest = {s["name"]: s for s in steps_in(shown)}
    for name in ("people", "adults", "history"):  # hashed by the engine asked for; with the jar the output in the write's pass
        assert latest[name]["hash_engine"] == engine and latest[name]["partitions"]["columns"], latest[name]
    for name in ("adults", "history"):
        assert latest[name]["hash_pass"] == ("same-pass" if engine == "spark-native" else "second-pass")


def changed_partitions(before: list[Any], after: list[Any], key: Any) -> list[dict[str, Any]]:
    """What compare must list: per key whose rows differ, the counts before and after."""
    keys = sorted({key(r) for r in before} | {key(r) for r in after})
    out = []
    for k in keys:
        a, b = sorted(r for r in before if key(r) == k), sorted(r for r in after if key(r) == k)
        if a != b:
            out.append({"partition": k, "rows_before": len(a) or None, "rows_after": len(b) or None})
    return out
