"""``ubunye lineage diff`` and ``compare`` name the rows that differ from the records alone
(the rows-v1 sketch, docs/spec/rows-v1-localise.md), on the pandas engine."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.hashing import canonical_lines

CONFIG = """
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {format: csv, path: "{{ task_dir }}/../../../data/people.csv"}
  outputs:
    adults: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/adults"}
"""
CODE = """
from ubunye import Task


class Clean(Task):
    def transform(self, sources):
        people = sources["people"]
        return {"adults": people[people["age"] >= 18].reset_index(drop=True)}
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


def write_people(folder: Path, rows: list[tuple[int, str, int]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["id", "name", "age"])
    frame.to_csv(folder / "data" / "people.csv", index=False)
    return frame


def names(frame: pd.DataFrame) -> set[str]:
    return {"sha256:" + hashlib.sha256(line.encode("utf-8")).hexdigest()[:32] for line in canonical_lines(frame)}


@pytest.fixture()
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    task = tmp_path / "shop" / "orders" / "clean"
    task.mkdir(parents=True)
    (task / "config.yaml").write_text(CONFIG, encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    return tmp_path


def test_diff_names_one_updated_one_added_one_removed_row_after_the_data_is_gone(usecase: Path) -> None:
    rows = [(i, f"person {i}", 20 + i % 50) for i in range(100)]
    old = write_people(usecase, rows)
    run_task(usecase, "2024-01-01")
    same = lineage(usecase, "diff")  # one run only: nothing to diff against
    assert same.exit_code == 2 and same.stderr.endswith("has 1 readable run(s): diff needs two\n"), same.stderr
    changed = [r for r in rows if r[0] != 40]  # removed
    changed[10] = (10, "person ten", 30)  # updated
    changed.append((100, "person 100", 61))  # added
    new = write_people(usecase, changed)
    run_task(usecase, "2024-01-02")
    shutil.rmtree(usecase / "out" / "2024-01-01")  # the first run's output is gone

    result = lineage(usecase, "diff", "--json")
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    steps = {(s["direction"], s["name"]): s for s in doc["steps"]}
    removed, added = names(old) - names(new), names(new) - names(old)
    assert len(removed) == len(added) == 2
    for key in (("input", "people"), ("output", "adults")):
        step = steps[key]
        assert step["data_hash"] == "changed" and step["complete"] is True
        assert set(step["removed"]) == removed and set(step["added"]) == added

    text = lineage(usecase, "diff", "--name", "people")
    assert text.exit_code == 1
    assert "input 'people': 2 rows removed, 2 added" in text.stdout
    assert all(f"- {n}" in text.stdout for n in removed) and all(f"+ {n}" in text.stdout for n in added)
    assert "adults" not in text.stdout
    compare = json.loads(lineage(usecase, "compare", "--json").stdout)
    assert any("2 rows removed, 2 added" in p for p in compare["problems"])
    assert lineage(usecase, "diff", "--name", "nope").exit_code == 2


def test_diff_of_two_runs_on_the_same_data_exits_0(usecase: Path) -> None:
    write_people(usecase, [(i, f"p{i}", 30) for i in range(10)])
    run_task(usecase, "2024-01-01")
    run_task(usecase, "2024-01-02")
    result = lineage(usecase, "diff", "--json")
    assert result.exit_code == 0, result.stdout
    assert [s["data_hash"] for s in json.loads(result.stdout)["steps"]] == ["unchanged", "unchanged"]
    assert "no input or output differs" in lineage(usecase, "diff").stdout
