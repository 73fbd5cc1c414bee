"""``ubunye lineage`` on records written by this project's recorder, and its cold start."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from ubunye.cli.app import cli
from ubunye.lineage.compare import compare_records
from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.recorder import LineageRecorder
from ubunye.lineage.store import open_store

PEOPLE = pd.DataFrame({"id": [1, 2, 3], "name": ["Thabo", "Anna", "Sipho"], "age": [34, 17, 52]})


def record_run(usecase_dir: Path, adults: pd.DataFrame, *, dt: str) -> str:
    """One run of shop/orders/clean written by LineageRecorder; returns its run id."""
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=usecase_dir,
                         run_id=str(uuid.uuid4()), backend="pandas", variables={"dt": dt}, time_zone="UTC")
    recorder = LineageRecorder()
    recorder.task_start(context=context, config={"MODEL": "etl"})
    recorder.task_end(
        context=context,
        config={"MODEL": "etl"},
        inputs=[DataEvent("people", "input", "csv", str(usecase_dir / "people.csv"), frame=PEOPLE)],
        outputs=[DataEvent("adults", "output", "parquet", str(usecase_dir / "adults"), frame=adults)],
        status="success",
        duration_sec=0.25,
        expectations=[{"output": "adults", "rule": "age_18", "kind": "between", "severity": "fail",
                       "column": "age", "failed": int((adults["age"] < 18).sum()), "total": len(adults),
                       "passed": bool((adults["age"] >= 18).all())}],
        timings=[{"step": "Reader:csv", "input": "people", "seconds": 0.1},
                 {"step": "Transform:clean", "seconds": 0.05},
                 {"step": "Writer:parquet", "output": "adults", "seconds": 0.1}],
    )
    assert not recorder.failed
    return context.run_id


@pytest.fixture(scope="module")
def usecase(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("usecase")
    adults = PEOPLE[PEOPLE["age"] >= 18].reset_index(drop=True)
    ids = [record_run(folder, adults, dt="2024-01-01"), record_run(folder, adults.copy(), dt="2024-01-02"),
           record_run(folder, PEOPLE, dt="2024-01-03")]  # the third forgot the filter
    return folder, ids


def run(folder: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["lineage", args[0], "-d", str(folder), *args[1:]])
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_list_shows_the_project_records(usecase: tuple[Path, list[str]]) -> None:
    folder, ids = usecase
    doc = json.loads(run(folder, "list", "--json").stdout)  # the only task is the default
    assert [r["run_id"] for r in doc["runs"]] == ids[::-1]
    assert [(r["rows_in"], r["rows_out"], r["status"]) for r in doc["runs"]] == [
        (3, 3, "success"), (3, 2, "success"), (3, 2, "success")]


def test_identical_runs_compare_unchanged_exit_0(usecase: tuple[Path, list[str]]) -> None:
    folder, ids = usecase
    result = run(folder, "compare", "--run-id1", ids[0], "--run-id2", ids[1], "--json")
    assert result.exit_code == 0, result.stdout
    store = open_store(folder)
    expected = compare_records(store.find("shop", "orders", "clean", ids[0]),
                               store.find("shop", "orders", "clean", ids[1])).to_dict()
    assert json.loads(result.stdout) == {"schema_version": 1, "command": "compare", **expected}
    assert all(s["verdict"] == "unchanged" for s in expected["steps"])


def test_changed_output_exits_1_and_says_what(usecase: tuple[Path, list[str]]) -> None:
    folder, ids = usecase
    result = run(folder, "compare", "--json")  # latest against the one before
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    adults = [s for s in doc["steps"] if s["name"] == "adults"][0]
    assert (adults["row_count"]["a"], adults["row_count"]["b"]) == (2, 3)
    assert adults["data_hash"]["verdict"] == "changed"
    assert [s["verdict"] for s in doc["steps"] if s["name"] == "people"] == ["unchanged"]
    rule = doc["expectations"][0]
    assert rule["verdict"] == "changed" and rule["outcome_changed"] is True
    human = run(folder, "compare")
    assert human.exit_code == 1 and "output 'adults'" in human.stdout


def test_trace_show_and_search_on_project_records(usecase: tuple[Path, list[str]]) -> None:
    folder, ids = usecase
    trace = run(folder, "trace", "--run-id", ids[0][:8])
    assert trace.exit_code == 0 and "rows 3" in trace.stdout and "rows-v1" in trace.stdout
    shown = json.loads(run(folder, "show", "--run-id", ids[2]).stdout)
    assert shown["run_id"] == ids[2] and shown["record_version"] == 2
    found = json.loads(run(folder, "search", "--status", "success", "-u", "shop", "--json").stdout)
    assert len(found["runs"]) == 3


COLD = textwrap.dedent("""
    import sys
    from ubunye.cli.app import main
    code = main(["lineage", sys.argv[1], "-d", sys.argv[2], "--json"])
    heavy = sorted(m for m in ("pandas", "pyarrow", "pyspark", "numpy", "polars") if m in sys.modules)
    print("HEAVY", heavy, "EXIT", code, file=sys.stderr)
""")


@pytest.mark.parametrize("command", ["list", "show", "compare", "trace", "search"])
def test_commands_start_without_pandas_pyarrow_or_pyspark(usecase: tuple[Path, list[str]], command: str) -> None:
    folder, _ = usecase
    proc = subprocess.run([sys.executable, "-c", COLD, command, str(folder)], capture_output=True, text=True,
                          check=False)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("HEAVY [] EXIT"), proc.stderr
    json.loads(proc.stdout)  # the command really ran
