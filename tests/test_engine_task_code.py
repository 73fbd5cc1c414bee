"""Each task runs its own code: same-named helpers of two tasks of one pipeline,
the interpreter's module table left as found, and a code hash that covers the
helpers the run loaded."""
from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ubunye import notebook, run_pipeline, run_task
from ubunye.cli.app import cli
from ubunye.lineage.evidence import code_hash

CONFIG = """
MODEL: etl
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    tagged: {format: parquet, path: "{{ task_dir }}/../../../out/{{ task }}"}
  transform: {params: {task: "{{ task }}"}}
"""

# helpers imported when the task is loaded; lib.more (a sub-package) only inside transform
CODE = """
from ubunye import Task
import helpers


class Tag(Task):
    def transform(self, sources):
        from lib.more import SUFFIX
        people = sources["people"]
        return {"tagged": people.assign(tag=helpers.TAG + SUFFIX)}
"""


def make_task(root: Path, name: str, tag: str, suffix: str) -> Path:
    task = root / "shop" / "orders" / name
    (task / "lib").mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(CONFIG.replace("{{ task }}", name), encoding="utf-8")
    (task / "transformations.py").write_text(CODE, encoding="utf-8")
    (task / "helpers.py").write_text(f"TAG = {tag!r}\n", encoding="utf-8")
    (task / "lib" / "__init__.py").write_text("", encoding="utf-8")
    (task / "lib" / "more.py").write_text(f"SUFFIX = {suffix!r}\n", encoding="utf-8")
    return task


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), tmp_path / "data" / "people.parquet")
    make_task(tmp_path, "a", "A", "-1")
    make_task(tmp_path, "b", "B", "-2")
    return tmp_path


def tags(usecase: Path, task: str) -> set[str]:
    return set(pq.read_table(usecase / "out" / task).column("tag").to_pylist())


def records(usecase: Path, task: str) -> list[dict[str, Any]]:
    folder = usecase / ".ubunye/lineage/shop/orders" / task
    found = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    return sorted(found, key=lambda r: r["started_at"])


def module_table() -> tuple[dict[str, Any], list[str]]:
    return dict(sys.modules), list(sys.path)


def assert_left_as_found(before: tuple[dict[str, Any], list[str]]) -> None:
    modules, path = before
    assert sys.path == path
    assert not {"helpers", "lib", "lib.more"} & set(sys.modules)
    assert not [n for n in sys.modules if n.startswith("ubunye_task_")]
    assert all(sys.modules.get(n) is m for n, m in modules.items() if n in ("helpers", "lib"))


def test_cli_run_two_tasks_each_with_its_own_helpers(usecase: Path) -> None:
    before = module_table()
    result = CliRunner().invoke(cli, ["run", "-d", str(usecase), "-u", "shop", "-p", "orders", "-t", "a", "-t", "b",
                                      "--backend", "pandas", "--lineage"])
    assert result.exit_code == 0, result.stderr
    assert tags(usecase, "a") == {"A-1"}
    assert tags(usecase, "b") == {"B-2"}
    assert_left_as_found(before)
    for task in ("a", "b"):
        assert records(usecase, task)[0]["code_hash"] == code_hash(usecase / "shop/orders" / task)


def test_run_pipeline_two_tasks_each_with_its_own_helpers(usecase: Path) -> None:
    before = module_table()
    results = run_pipeline(usecase, "shop", "orders", ["a", "b", "a"], backend="pandas")
    assert [r.status for r in results] == ["success"] * 3
    assert tags(usecase, "a") == {"A-1"} and tags(usecase, "b") == {"B-2"}
    assert_left_as_found(before)


def test_run_task_and_notebooks_side_by_side(usecase: Path) -> None:
    before = module_table()
    nb_a = notebook(usecase / "shop/orders/a", backend="pandas")
    nb_b = notebook(usecase / "shop/orders/b", backend="pandas")  # loaded while a's is open
    out_b = nb_b.transform()
    out_a = nb_a.transform()
    assert set(out_a["tagged"]["tag"]) == {"A-1"}
    assert set(out_b["tagged"]["tag"]) == {"B-2"}
    nb_b.close()  # its run holds output b's writer lock (one writer per output) until it ends
    run_task(usecase / "shop/orders/b", backend="pandas")
    assert tags(usecase, "b") == {"B-2"}
    assert_left_as_found(before)


def test_callers_own_same_named_module_is_set_aside_and_put_back(usecase: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    mine = types.ModuleType("helpers")
    mine.TAG = "caller"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "helpers", mine)
    path = list(sys.path)
    run_task(usecase / "shop/orders/a", backend="pandas")
    assert tags(usecase, "a") == {"A-1"}
    assert sys.modules["helpers"] is mine
    assert sys.path == path


def rewrite_keeping_stat(file: Path, text: str) -> None:
    """Same size, same modification time: a cached .pyc would look valid."""
    old = file.stat()
    assert len(text.encode()) == old.st_size
    file.write_text(text, encoding="utf-8")
    os.utime(file, ns=(old.st_atime_ns, old.st_mtime_ns))


@pytest.mark.parametrize("changed", ["helpers.py", "lib/more.py"])
def test_changed_helper_runs_changes_the_code_hash_and_compare_names_it(usecase: Path, changed: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # a .pyc of the old bytes would be there
    task = usecase / "shop/orders/a"
    args = ["run", "-d", str(usecase), "-u", "shop", "-p", "orders", "-t", "a", "--backend", "pandas", "--lineage"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    file = task / changed
    rewrite_keeping_stat(file, file.read_text().replace("'A'", "'Z'").replace("'-1'", "'-9'"))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.stderr
    assert tags(usecase, "a") == ({"Z-1"} if changed == "helpers.py" else {"A-9"})  # the new code ran
    first, second = records(usecase, "a")
    assert first["code_hash"] != second["code_hash"]
    assert second["code_hash"] == code_hash(task)
    compared = CliRunner().invoke(cli, ["lineage", "compare", "-d", str(usecase), "-u", "shop", "-p", "orders",
                                       "-t", "a", "--json"])
    diff = {f["name"]: f for f in json.loads(compared.stdout)["fields"]}
    assert diff["code"]["verdict"] == "changed"
    assert diff["config"]["verdict"] == "unchanged"
    text = CliRunner().invoke(cli, ["lineage", "compare", "-d", str(usecase), "-u", "shop", "-p", "orders", "-t", "a"])
    assert any(line.lstrip().startswith("code") and "changed" in line for line in text.stdout.splitlines()), text.stdout


def test_code_hash_takes_the_bytes_that_ran(tmp_path: Path) -> None:
    (tmp_path / "transformations.py").write_text("x = 1\n")
    on_disk = code_hash(tmp_path)
    assert code_hash(tmp_path, {("transformations.py",): b"x = 1\n"}) == on_disk
    assert code_hash(tmp_path, {("transformations.py",): b"x = 2\n"}) != on_disk
    gone = code_hash(tmp_path, {("helpers.py",): b"y = 1\n"})  # loaded, deleted since: still covered
    assert gone not in (None, on_disk)
