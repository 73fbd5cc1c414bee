"""The issue-22 done-when case on Spark (the mapInArrow fallback engine): ``lineage diff``
names 2 removed and 2 added rows for a csv input and the outputs written from it, the
changed partition exactly, and ``--rows`` reads each run's data (a Delta output by time
travel) and prints the 4 rows; after the first run's data is deleted it says so."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli

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


def test_done_when_on_spark_fallback(spark: Any, tmp_path: Path) -> None:
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    rows = [(i, f"person {i}", 20 + i % 50, "abc"[i % 3]) for i in range(100)]
    changed = [r for r in rows if r[0] != 40]  # removed (team b)
    changed[10] = (10, "person ten", 30, "b")  # updated (team b)
    changed.append((100, "person 100", 61, "b"))  # added (team b)
    for dt, data in (("2024-01-01", rows), ("2024-01-02", changed)):
        write_people(tmp_path, dt, data)
        ran = cli_run("run", "-d", str(tmp_path), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "spark",
                      "--hash-engine", "spark-sql", "-dt", dt, "--lineage")
        assert ran.exit_code == 0, ran.stderr

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

    shutil.rmtree(tmp_path / "out" / "2024-01-01")
    after = json.loads(lineage(tmp_path, "diff", "--json").stdout)
    assert {s["name"]: len(s["removed"]) for s in after["steps"]} == {"people": 2, "adults": 2, "history": 2}
    gone = lineage(tmp_path, "diff", "--name", "adults", "--rows")
    assert gone.exit_code == 1 and [line[0] for line in gone.stdout.splitlines()] == ["+", "+"]
    assert gone.stderr.splitlines() == [line for line in gone.stderr.splitlines() if "run A's data is gone" in line]
    assert len(gone.stderr.splitlines()) == 1
