"""run_task, run_pipeline and the notebook helper on the pandas backend."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ubunye import notebook, run_pipeline, run_task
from ubunye.engine.errors import ConfigError, IOSpecError, TaskLoadError
from ubunye.engine.runner import TaskFailed
from ubunye.hashing import fingerprint

PEOPLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": pa.array(["Thabo", 'Anna "Annie"', None, "Zoë\n😀"], pa.string()),
        "age": pa.array([34.0, 17.0, float("nan"), None], pa.float64()),
        "tags": pa.array([["a"], [], None, ["b", "c"]], pa.list_(pa.string())),
    }
)

CLEAN_CONFIG = """
MODEL: etl
VERSION: "0.1.0"
CONFIG:
  inputs:
    people: {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
  outputs:
    adults: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/adults"}
  transform: {params: {min_age: 18}}
  expectations:
    people:
      - {kind: columns, columns: {id: int64, age: float64}}
    adults:
      - {kind: not_null, column: name, severity: warn}
      - {kind: between, column: age, min: 18, max: 130}
"""

CLEAN_CODE = """
from ubunye import Task


class Clean(Task):
    def transform(self, sources):
        people = sources["people"]
        keep = (people["age"] >= self.params["min_age"]).fillna(False).astype(bool)
        return {"adults": people[keep].reset_index(drop=True)}
"""


def make_task(root: Path, name: str, config: str, code: str) -> Path:
    task = root / "shop" / "orders" / name
    task.mkdir(parents=True, exist_ok=True)
    (task / "config.yaml").write_text(config, encoding="utf-8")
    (task / "transformations.py").write_text(code, encoding="utf-8")
    return task


@pytest.fixture
def usecase(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    pq.write_table(PEOPLE, tmp_path / "data" / "people.parquet")
    make_task(tmp_path, "clean", CLEAN_CONFIG, CLEAN_CODE)
    return tmp_path


def records(usecase: Path, task: str = "clean", lineage_dir: str = ".ubunye/lineage") -> list[dict[str, Any]]:
    folder = usecase / lineage_dir / "shop" / "orders" / task
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def expected_adults() -> Any:
    return PEOPLE.filter(pa.array([True, False, False, False]))


def test_run_task_writes_output_and_complete_record(usecase: Path) -> None:
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="2024-01-02", lineage=True)
    assert result.status == "success" and result.ok
    written = pq.read_table(usecase / "out/2024-01-02/adults")
    assert written.to_pylist() == expected_adults().to_pylist()
    (rec,) = records(usecase)
    assert rec["run_id"] == result.run_id and rec["status"] == "success" and rec["backend"] == "pandas"
    assert rec["task_path"] == "shop/orders/clean" and rec["variables"]["dt"] == "2024-01-02"
    assert rec["code_hash"].startswith("sha256:") and rec["config_hash"].startswith("sha256:")
    assert [t["step"] for t in rec["timings"]] == ["Reader:parquet", "Transform:Clean", "Writer:parquet"]
    assert [(e["output"], e["rule"], e["passed"]) for e in rec["expectations"]] == [
        ("people", "columns", True), ("adults", "name_not_null", True), ("adults", "age_between", True)]
    (inp,) = rec["inputs"]
    (out,) = rec["outputs"]
    assert inp["data_hash"] == fingerprint(PEOPLE).data_hash and inp["row_count"] == 4
    assert out["data_hash"] == fingerprint(expected_adults()).data_hash and out["row_count"] == 1
    assert out["hash_pass"] == inp["hash_pass"] == "materialised"
    assert out["location"].endswith("out/2024-01-02/adults")


def test_failing_expectation_stops_before_any_write_and_is_recorded(usecase: Path) -> None:
    code = CLEAN_CODE.replace('>= self.params["min_age"]', ">= 0")
    make_task(usecase, "clean", CLEAN_CONFIG, code)
    with pytest.raises(TaskFailed) as err:
        run_task(usecase / "shop/orders/clean", backend="pandas", dt="d1", lineage=True)
    assert "adults: age_between (between) broken by 1 of 2" in str(err.value)
    assert not (usecase / "out").exists()
    (rec,) = records(usecase)
    assert rec["status"] == "error" and rec["error"].startswith("ExpectationError: ")
    assert [t["step"] for t in rec["timings"]] == ["Reader:parquet", "Transform:Clean"]
    broken = [e for e in rec["expectations"] if not e["passed"]]
    assert [(e["rule"], e["failed"], e["total"]) for e in broken] == [("age_between", 1, 2)]
    assert len(rec["expectations"]) == 3
    (out,) = rec["outputs"]
    assert out["data_hash"] is None and out["row_count"] is None
    assert rec["inputs"][0]["data_hash"] == fingerprint(PEOPLE).data_hash


def test_warn_expectation_is_recorded_but_does_not_stop(usecase: Path) -> None:
    code = CLEAN_CODE.replace('people["age"] >= self.params["min_age"]', 'people["id"] == 3')
    config = CLEAN_CONFIG.replace("min: 18, max: 130", "min: 18, max: 130, severity: warn")
    make_task(usecase, "clean", config, code)
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d1", lineage=True)
    assert result.status == "success"
    broken = {e["rule"] for e in records(usecase)[0]["expectations"] if not e["passed"]}
    assert broken == {"name_not_null", "age_between"}


def test_transform_error_keeps_timings_and_reason(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace("people = ", "raise KeyError('zip')\n        people = "))
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True, raise_on_error=False)
    assert result.status == "error" and result.reason() == "transformations.py:7 in transform: KeyError: 'zip'"
    (rec,) = records(usecase)
    assert rec["error"] == "KeyError: 'zip'"
    assert [t["step"] for t in rec["timings"]] == ["Reader:parquet", "Transform:Clean"]


def test_wrong_outputs_from_transform_are_named(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace('{"adults":', '{"adult":'))
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", raise_on_error=False)
    assert "Clean.transform returned no 'adults'" in result.reason()


def test_invalid_config_or_code_refused_before_anything_runs(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG.replace("format: parquet, path: \"{{ task_dir }}/../../../out",
                                                    "format: xls, path: \"{{ task_dir }}/../../../out"), CLEAN_CODE)
    with pytest.raises(ConfigError, match="CONFIG.outputs.adults.format: expected one of"):
        run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    make_task(usecase, "clean", CLEAN_CONFIG.replace("format: parquet, path: \"{{ task_dir }}/../../../out",
                                                    "format: delta, path: \"{{ task_dir }}/../../../out"), CLEAN_CODE)
    with pytest.raises(IOSpecError, match="output 'adults': format 'delta' is not supported on the pandas backend"):
        run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    make_task(usecase, "clean", CLEAN_CONFIG, "from ubunye import Task\nclass A(Task): pass\nclass B(Task): pass\n")
    with pytest.raises(TaskLoadError, match=r"2 Task subclasses \(A, B\)"):
        run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    assert not (usecase / ".ubunye").exists() and not (usecase / "out").exists()


def test_task_code_failing_while_it_loads_is_a_failed_run_with_its_record(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG, "from ubunye import Task\nx = 1 / 0\n")
    with pytest.raises(TaskLoadError, match=r"transformations.py:2: import failed: ZeroDivisionError"):
        run_task(usecase / "shop/orders/clean", backend="pandas", dt="d")  # no record asked: raised, nothing ran
    assert not (usecase / ".ubunye").exists()
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True, raise_on_error=False)
    assert result.status == "error" and "import failed: ZeroDivisionError" in result.reason()
    (rec,) = records(usecase)
    assert rec["status"] == "error" and "transformations.py:2: import failed: ZeroDivisionError" in rec["error"]
    assert [s["data_hash"] for s in rec["outputs"]] == [None] and not (usecase / "out").exists()


def test_old_monitors_config_records_without_flag_and_skips_inputs(usecase: Path) -> None:
    config = CLEAN_CONFIG + "  monitors:\n    - {type: lineage, params: {hash_inputs: false}}\n"
    make_task(usecase, "clean", config, CLEAN_CODE)
    run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage_dir="records")
    (rec,) = records(usecase, lineage_dir="records")
    assert rec["inputs"][0]["data_hash"] is None and rec["inputs"][0]["row_count"] is None
    assert rec["outputs"][0]["data_hash"] == fingerprint(expected_adults()).data_hash


def test_no_lineage_writes_no_record(usecase: Path) -> None:
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d")
    assert result.record is None and not (usecase / ".ubunye").exists()
    assert [t["step"] for t in result.timings] == ["Reader:parquet", "Transform:Clean", "Writer:parquet"]


SUMMARY_CONFIG = """
CONFIG:
  inputs:
    adults: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/adults"}
  outputs:
    summary: {format: parquet, path: "{{ task_dir }}/../../../out/{{ dt }}/summary"}
"""
SUMMARY_CODE = """
import pandas as pd
from ubunye import Task


class Summary(Task):
    def transform(self, sources):
        adults = sources["adults"]
        return {"summary": pd.DataFrame({"adults": pd.array([len(adults)], dtype="int64[pyarrow]")})}
"""


def test_run_pipeline_one_record_per_task(usecase: Path) -> None:
    make_task(usecase, "summary", SUMMARY_CONFIG, SUMMARY_CODE)
    results = run_pipeline(usecase, "shop", "orders", ["clean", "summary"], backend="pandas", dt="d", lineage=True)
    assert [r.status for r in results] == ["success", "success"]
    (clean,) = records(usecase, "clean")
    (summary,) = records(usecase, "summary")
    assert summary["inputs"][0]["data_hash"] == clean["outputs"][0]["data_hash"]
    assert pq.read_table(usecase / "out/d/summary").to_pylist() == [{"adults": 1}]


def test_run_pipeline_stops_at_first_failure(usecase: Path) -> None:
    make_task(usecase, "summary", SUMMARY_CONFIG, SUMMARY_CODE)
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace(">= self.params", "> -1 + 0 * self.params"))
    results = run_pipeline(usecase, "shop", "orders", ["clean", "summary"], backend="pandas", dt="d",
                           lineage=True, raise_on_error=False)
    assert [r.status for r in results] == ["error"]
    assert records(usecase, "summary") == []


def test_notebook_record_as_complete_as_run_task(usecase: Path) -> None:
    run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    nb = notebook(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    sources = nb.read()
    assert list(sources) == ["people"] and len(sources["people"]) == 4
    outputs = nb.transform()
    assert len(outputs["adults"]) == 1
    result = nb.write()
    assert result.status == "success"
    by_id = {r["run_id"]: r for r in records(usecase)}
    assert len(by_id) == 2
    first, second = (by_id[k] for k in sorted(by_id, key=lambda k: k == nb.run_id))
    for key in ("code_hash", "config_hash", "task_path", "backend"):
        assert first[key] == second[key]
    for side in ("inputs", "outputs"):
        assert [s["data_hash"] for s in first[side]] == [s["data_hash"] for s in second[side]]
    assert [t["step"] for t in second["timings"]] == [t["step"] for t in first["timings"]]
    assert len(second["expectations"]) == len(first["expectations"]) == 3


def test_notebook_step_error_closes_the_run(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace("people = ", "raise ValueError('bad')\n        people = "))
    nb = notebook(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True)
    nb.read()
    with pytest.raises(ValueError, match="bad"):
        nb.transform()
    (rec,) = records(usecase)
    assert rec["status"] == "error" and rec["error"] == "ValueError: bad"
    with pytest.raises(RuntimeError, match="already finished"):
        nb.write()


def test_failing_input_expectation_stops_after_the_read_with_the_input_hashed(usecase: Path) -> None:
    make_task(usecase, "clean", CLEAN_CONFIG.replace("{id: int64, age: float64}", "{id: int32}"), CLEAN_CODE)
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", lineage=True, raise_on_error=False)
    assert result.reason() == ("expectations failed, nothing written: people: columns (columns) broken by 1 of 1 "
                               "(id is int64, expected int32)")
    (rec,) = records(usecase)
    assert [t["step"] for t in rec["timings"]] == ["Reader:parquet"]
    assert rec["inputs"][0]["data_hash"] == fingerprint(PEOPLE).data_hash
    assert [(e["output"], e["side"], e["passed"]) for e in rec["expectations"]] == [("people", "input", False)]


def test_a_bare_error_in_the_tasks_code_is_reported_with_its_line(usecase: Path, capsys: Any) -> None:
    """An error with no message (a failed assert, pyspark called on a pandas frame) still says
    where: the innermost line of the task's own code, not of the libraries it called."""
    code = CLEAN_CODE.replace("from ubunye import Task\n", "import json\n\nfrom ubunye import Task\n\n\n"
                              "def check(frame):\n    assert len(frame) > 99\n    return frame\n")
    code = code.replace('people = sources["people"]', 'people = check(sources["people"])')
    make_task(usecase, "clean", CLEAN_CONFIG, code)
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", raise_on_error=False)
    assert result.reason() == "transformations.py:8 in check: AssertionError"
    make_task(usecase, "clean", CLEAN_CONFIG, CLEAN_CODE.replace('people = sources["people"]',
                                                                 'people = json.loads(b"{")'
                                                                 ).replace("from ubunye", "import json\nfrom ubunye"))
    result = run_task(usecase / "shop/orders/clean", backend="pandas", dt="d", raise_on_error=False)
    assert result.reason().startswith("transformations.py:8 in transform: JSONDecodeError: Expecting property name")
