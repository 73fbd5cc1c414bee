"""The issue-22 done-when case on Spark: ``lineage diff`` names 2 removed and 2 added rows
for a csv input and the outputs written from it, the changed partition exactly, and
``--rows`` reads each run's data (a Delta output by time travel) and prints the 4 rows,
through the plugin's native pass and through the mapInArrow fallback (the runs hashed by
the native engine, and by the fallback); after the first run's data is deleted it says so.
The two passes answer the same."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.spark import diff_scan

pytestmark = pytest.mark.spark

ROOT = "{{ task_dir }}/../../.."
CONFIG = f"""
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {{format: csv, path: "{ROOT}/data/{{{{ dt }}}}/people.csv"}}
  outputs:
    adults: {{format: parquet, path: "{ROOT}/out/{{{{ dt }}}}/adults", partition_by: [team]}}
    history: {{format: delta, path: "{ROOT}/out/history", mode: overwrite}}
"""
CODE = """
from ubunye import Task


class Clean(Task):
    def transform(self, sources):
        adults = sources["people"].filter("age >= 18")
        return {"adults": adults, "history": adults}
"""


def cli_run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result


def lineage(folder: Path, *args: str) -> Result:
    return cli_run("lineage", args[0], "-d", str(folder), "-u", "shop", "-p", "orders", "-t", "clean", *args[1:])


def write_people(folder: Path, dt: str, rows: list[tuple[int, str, int, str]]) -> None:
    (folder / "data" / dt).mkdir(parents=True)
    text = "id,name,age,team\n" + "".join(f"{i},{n},{a},{t}\n" for i, n, a, t in rows)
    (folder / "data" / dt / "people.csv").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("pass_", ["native", "fallback"])
def test_done_when_on_spark(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pass_: str) -> None:
    import ubunye.spark.native as native

    assert native.find_available(spark)  # the fixture's session has the jar
    if pass_ == "fallback":  # a session without the find aggregate: the mapInArrow pass
        monkeypatch.setattr(native, "find_available", lambda _spark: False)
    used: list[str] = []
    real_find, real_fallback = native.native_find, diff_scan.fallback_scan
    monkeypatch.setattr(native, "native_find", lambda *a: used.append("native") or real_find(*a))
    monkeypatch.setattr(diff_scan, "fallback_scan", lambda *a: used.append("fallback") or real_fallback(*a))
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    rows = [(i, f"person {i}", 20 + i % 50, "abc"[i % 3]) for i in range(100)]
    changed = [r for r in rows if r[0] != 40]  # removed (team b)
    changed[10] = (10, "person ten", 30, "b")  # updated (team b)
    changed.append((100, "person 100", 61, "b"))  # added (team b)
    engine = "spark-native" if pass_ == "native" else "spark-sql"  # the runs hashed by the same engine
    for dt, data in (("2024-01-01", rows), ("2024-01-02", changed)):
        write_people(tmp_path, dt, data)
        ran = cli_run("run", "-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "spark",
                      "--hash-engine", engine, "-dt", dt, "--lineage")
        assert ran.exit_code == 0, ran.stderr
    shown = json.loads(lineage(tmp_path, "show", "--json").stdout)["record"]
    assert {s["name"]: s["hash_engine"] for s in shown["inputs"] + shown["outputs"]} == dict.fromkeys(
        ("people", "adults", "history"), engine)

    doc = json.loads(lineage(tmp_path, "diff", "--json").stdout)
    steps = {s["name"]: s for s in doc["steps"]}
    for name in ("people", "adults", "history"):
        assert steps[name]["complete"] is True and len(steps[name]["removed"]) == len(steps[name]["added"]) == 2
    assert steps["adults"]["partitions"] == [{"partition": "team=b", "rows_before": 33, "rows_after": 33}]

    for name in ("people", "adults", "history"):  # history: version 0 read back by time travel
        shown = lineage(tmp_path, "diff", "--name", name, "--rows")
        assert shown.exit_code == 1 and shown.stderr == "", shown.stderr
        lines = [json.loads(line[2:]) | {"sign": line[0]} for line in shown.stdout.splitlines()]
        assert sorted((r["sign"], r["row"]["id"]) for r in lines) == [("+", 10), ("+", 100), ("-", 10), ("-", 40)]
        named = {n[7:] for n in steps[name]["removed"] + steps[name]["added"]}
        assert {r["digest"][7:39] for r in lines} == named
    assert set(used) == {pass_}

    shutil.rmtree(tmp_path / "out" / "2024-01-01")  # the first run's data deleted: its output and its input
    shutil.rmtree(tmp_path / "data" / "2024-01-01")
    after = json.loads(lineage(tmp_path, "diff", "--json").stdout)
    assert {s["name"]: len(s["removed"]) for s in after["steps"]} == {"people": 2, "adults": 2, "history": 2}
    gone = lineage(tmp_path, "diff", "--name", "adults", "--rows")
    assert gone.exit_code == 1 and [line[0] for line in gone.stdout.splitlines()] == ["+", "+"]
    assert gone.stderr.splitlines() == [line for line in gone.stderr.splitlines() if "run A's data is gone" in line]
    assert len(gone.stderr.splitlines()) == 1


def test_the_native_pass_answers_what_the_fallback_pass_answers(spark: Any, tmp_path: Path) -> None:
    """Every copy of a named row, lines of many types, the data hash of all rows; an empty
    wish list; a table with no row."""
    import hashlib

    from ubunye.lineage.diff_rows import lanes_of

    rows = [(i, f"n{i % 7}", i * 0.5, None if i % 5 else "x\u00e9\"q", i % 3 == 0) for i in range(300)]
    df = spark.createDataFrame(rows + rows[:40], "id bigint, name string, score double, note string, flag boolean")
    df = df.selectExpr("*", "date_add(DATE'2024-01-01', CAST(id AS INT)) AS day", "array(id, id + 1) AS pair",
                       "named_struct('k', name, 'v', CAST(id AS DECIMAL(10, 2))) AS st", "map(name, id) AS m")
    df.repartition(4).write.parquet(str(tmp_path / "t"))
    lines = [r[0] for r in spark.read.parquet(str(tmp_path / "t")).selectExpr("ubunye_row_line(*)").collect()]
    pick = sorted(set(lines))[::37]
    names = {"sha256:" + hashlib.sha256(line.encode()).hexdigest()[:32] for line in pick}
    wanted = {lanes_of(n) for n in names} | {(1, 2)}
    args = ("parquet", str(tmp_path / "t"), False, None, None, None)
    native = diff_scan.spark_scan(*args, wanted, spark=spark, engine="spark-native")
    fallback = diff_scan.spark_scan(*args, wanted, spark=spark, engine="spark-sql")
    assert native[0] == fallback[0] and native[0] is not None
    assert sorted(native[1], key=lambda x: x[1]) == sorted(fallback[1], key=lambda x: x[1])
    assert sorted(line for _, line in native[1]) == sorted(line for line in lines if line in set(pick))
    assert diff_scan.spark_scan(*args, set(), spark=spark, engine="spark-native") == (native[0], [])
    spark.read.parquet(str(tmp_path / "t")).where("false").write.parquet(str(tmp_path / "empty"))
    empty = ("parquet", str(tmp_path / "empty"), False, None, None, None)
    assert diff_scan.spark_scan(*empty, wanted, spark=spark, engine="spark-native") == \
        diff_scan.spark_scan(*empty, wanted, spark=spark, engine="spark-sql")
