"""End to end: ``ubunye run --lineage`` writes records; ``ubunye lineage`` reads, compares and verifies them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli

CSV = "id,name,age\n1,Thabo,34\n2,Anna,17\n3,Sipho,52\n"
CONFIG = """
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {format: csv, path: "{{ task_dir }}/../../../data/people.csv"}
  outputs:
    adults: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/adults"}
  transform: {params: {min_age: 18}}
  expectations:
    adults:
      - {kind: between, column: age, min: 18, max: 130}
"""
CODE = """
from ubunye import Task


class Clean(Task):
    def transform(self, sources):
        people = sources["people"]
        return {"adults": people[people["age"] >= self.params["min_age"]].reset_index(drop=True)}
"""


def cli_run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result


def run_task(folder: Path, dt: str) -> None:
    result = cli_run("run", "-d", str(folder), "-u", "shop", "-p", "orders", "-t", "clean", "--backend", "pandas",
                     "-dt", dt, "--lineage")
    assert result.exit_code == 0, result.stderr


def lineage(folder: Path, *args: str) -> Result:
    return cli_run("lineage", args[0], "-d", str(folder), "-u", "shop", "-p", "orders", "-t", "clean", *args[1:])


@pytest.fixture()
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "people.csv").write_text(CSV, encoding="utf-8")
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    return tmp_path


def test_run_twice_compare_verify_then_change_the_input(usecase: Path) -> None:
    run_task(usecase, "2024-01-01")
    run_task(usecase, "2024-01-02")
    listed = json.loads(lineage(usecase, "list", "--json").stdout)["runs"]
    assert [(r["rows_in"], r["rows_out"], r["status"]) for r in listed] == [(3, 2, "success")] * 2

    same = lineage(usecase, "compare")
    assert same.exit_code == 0, same.stdout
    doc = json.loads(lineage(usecase, "compare", "--json").stdout)
    assert [s["verdict"] for s in doc["steps"]] == ["unchanged", "unchanged"]
    assert [f["verdict"] for f in doc["fields"] if f["name"] in ("code", "config", "environment")] == [
        "unchanged"] * 3
    assert lineage(usecase, "verify").exit_code == 0

    (usecase / "data" / "people.csv").write_text(CSV + "4,Lerato,40\n", encoding="utf-8")
    stale = lineage(usecase, "verify", "--json")  # the latest run read 3 rows, the file now has 4
    assert stale.exit_code == 1
    people = json.loads(stale.stdout)["steps"][0]
    assert (people["row_count"]["a"], people["row_count"]["b"]) == (3, 4)

    run_task(usecase, "2024-01-03")
    changed = lineage(usecase, "compare", "--json")
    assert changed.exit_code == 1
    steps = {s["name"]: s for s in json.loads(changed.stdout)["steps"]}
    assert steps["people"]["row_count"]["verdict"] == "changed"
    assert steps["adults"]["data_hash"]["verdict"] == "changed"
    story = lineage(usecase, "trace")
    assert story.exit_code == 0 and "rows 4" in story.stdout and "rows 3" in story.stdout
