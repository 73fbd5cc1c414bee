"""The direct API: ``with ubunye.lineage.run(...) as run``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ubunye.lineage
from ubunye.hashing import fingerprint
from ubunye.lineage.errors import InvalidName
from ubunye.lineage.evidence import code_hash, config_hash
from ubunye.lineage.store import open_store


def _task_dir(root: Path) -> Path:
    task_dir = root / "jobs" / "clean"
    task_dir.mkdir(parents=True)
    (task_dir / "job.py").write_text("print('clean')\n", encoding="utf-8")
    (task_dir / "config.yaml").write_text("MODEL: etl\n", encoding="utf-8")
    return task_dir


def test_run_writes_the_same_complete_record(tmp_path: Path) -> None:
    task_dir = _task_dir(tmp_path)
    people = pd.DataFrame({"id": [1, 2, 3], "age": [34, 17, 52]})
    with ubunye.lineage.run("shop/orders/clean", usecase_dir=tmp_path, task_dir=task_dir,
                            variables={"dt": "2024-01-02", "db_password": "hunter22"}) as run:
        running = json.loads(open_store(tmp_path).started_path_for("shop", "orders", "clean", run.run_id).read_text())
        run.input("people", people, location="s3://k:hunter22@bucket/people.csv", format="csv")
        adults = people[people.age >= 18]
        with run.timed("Transform:adults"):
            adults = adults.reset_index(drop=True)
        run.output("adults", adults, location="/out/adults", format="parquet")
    assert running["status"] == "running"
    record = open_store(tmp_path).find("shop", "orders", "clean", run.run_id[:8])
    assert record == run.record
    assert record.status == "success" and record.error is None and record.backend == "pandas"
    assert record.code_hash == code_hash(task_dir) is not None
    assert record.config_hash == config_hash(task_dir) is not None
    assert record.variables == {"dt": "2024-01-02", "db_password": "***"}
    assert record.inputs[0].location == "s3://k:***@bucket/people.csv"
    assert record.inputs[0].data_hash == fingerprint(people).data_hash
    assert record.outputs[0].data_hash == fingerprint(adults).data_hash
    assert record.outputs[0].row_count == 2
    assert [t["step"] for t in record.timings] == ["Reader:csv", "Transform:adults", "Writer:parquet"]
    assert record.timings[0]["input"] == "people" and record.timings[2]["output"] == "adults"
    assert all(t["seconds"] >= 0 for t in record.timings)
    assert record.duration_sec is not None and record.duration_sec >= sum(t["seconds"] for t in record.timings)
    assert record.environment_hash and record.engine_version == ubunye.__version__


def test_frames_are_hashed_when_handed_over(tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": [1, 2]})
    before = fingerprint(frame).data_hash
    with ubunye.lineage.run("shop/orders/clean", usecase_dir=tmp_path) as run:
        run.output("out", frame)
        frame.loc[0, "id"] = 99  # changed in place afterwards
    assert run.record is not None and run.record.outputs[0].data_hash == before
    assert run.record.code_hash is None  # no task_dir


def test_an_exception_is_recorded_and_not_swallowed(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        with ubunye.lineage.run("shop/orders/clean", usecase_dir=tmp_path, variables={"token": "abcd-1234"}) as run:
            run.input("people", pd.DataFrame({"id": [1]}))
            raise KeyError("missing column with abcd-1234")
    record = open_store(tmp_path).find("shop", "orders", "clean")
    assert record.status == "error" and record.error == "KeyError: 'missing column with ***'"
    assert record.inputs[0].row_count == 1 and record.timings[0]["step"] == "Reader:frame"


def test_keyboard_interrupt_is_recorded_as_interrupted(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with ubunye.lineage.run("shop/orders/clean", usecase_dir=tmp_path):
            raise KeyboardInterrupt()
    assert open_store(tmp_path).find("shop", "orders", "clean").status == "interrupted"


def test_hash_inputs_false_and_moved_lineage_dir(tmp_path: Path) -> None:
    with ubunye.lineage.run("shop/orders/clean", usecase_dir=tmp_path, hash_inputs=False,
                            lineage_dir="records") as run:
        run.input("people", pd.DataFrame({"id": [1]}))
    assert run.path == tmp_path / "records" / "shop" / "orders" / "clean" / f"{run.run_id}.json"
    assert run.record is not None and run.record.inputs[0].data_hash is None and not run.write_errors


@pytest.mark.parametrize("task_path", ["shop/orders", "shop/../clean/x", "a/b/c/d", "shop//clean"])
def test_bad_task_paths_are_refused(tmp_path: Path, task_path: str) -> None:
    with pytest.raises(InvalidName):
        with ubunye.lineage.run(task_path, usecase_dir=tmp_path):
            pass
    assert not (tmp_path / ".ubunye").exists()


def test_importing_lineage_and_listing_stays_light(tmp_path: Path) -> None:
    code = (
        "import sys, ubunye.lineage as l\n"
        "store = l.open_store(sys.argv[1]); store.list_runs('shop', 'orders', 'clean'); store.iter_tasks()\n"
        "l.LineageRecorder; l.run; l.RunRecord\n"
        "heavy = [m for m in ('pandas', 'pyarrow', 'pyspark', 'numpy', 'polars') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
