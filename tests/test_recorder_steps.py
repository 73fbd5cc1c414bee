"""The recorder: running record, final record, per-step evidence."""
from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from ubunye.hashing import Fingerprint, fingerprint
from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.errors import InvalidName, RecordWriteError
from ubunye.lineage.evidence import code_hash, config_hash, environment_hash
from ubunye.lineage.recorder import LineageRecorder
from ubunye.lineage.store import open_store


def _task(usecase_dir: Path) -> Path:
    task_dir = usecase_dir / "shop" / "orders" / "clean"
    task_dir.mkdir(parents=True)
    (task_dir / "config.yaml").write_bytes(b"MODEL: etl\r\nVERSION: 0.1.0\r\n")
    (task_dir / "transformations.py").write_text("def transform(x):\n    return x\n", encoding="utf-8")
    return task_dir


def _context(usecase_dir: Path, **extra: Any) -> RunContext:
    return RunContext(usecase="shop", package="orders", task="clean", usecase_dir=usecase_dir,
                      run_id=str(uuid.uuid4()), **extra)


def _people() -> pd.DataFrame:
    return pd.DataFrame({"id": [1, 2, 3], "name": ["Thabo", "Anna", None], "age": [34, 17, 52]})


class CountingFingerprint:
    """The real rows-v1 fingerprint, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, frame: Any) -> Fingerprint:
        self.calls += 1
        return fingerprint(frame)


def test_task_start_writes_a_running_record_with_evidence(tmp_path: Path) -> None:
    task_dir = _task(tmp_path)
    context = _context(tmp_path, task_dir=task_dir, backend="pandas", profile="PROD",
                       variables={"dt": "2024-01-02", "mode": "PROD", "db_password": "hunter22"})
    record = LineageRecorder().task_start(context=context, config={"MODEL": "etl", "VERSION": "0.1.0"})
    path = open_store(tmp_path).started_path_for("shop", "orders", "clean", context.run_id)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["status"] == "running" and data["record_version"] == 2
    assert data["task_path"] == "shop/orders/clean" and data["profile"] == "PROD"
    assert (data["model"], data["version"]) == ("etl", "0.1.0")
    assert data["code_hash"] == code_hash(task_dir) is not None
    assert data["config_hash"] == config_hash(task_dir) is not None
    assert data["environment_hash"] == environment_hash(data["environment"])
    assert data["variables"] == {"dt": "2024-01-02", "mode": "PROD", "db_password": "***"}
    assert data["started_at"].endswith("+00:00") and data["ended_at"] is None
    assert data["engine_version"] and record.run_id == context.run_id


def test_task_end_hashes_inputs_exactly_like_outputs(tmp_path: Path) -> None:
    context = _context(tmp_path, backend="pandas")
    recorder = LineageRecorder()
    recorder.task_start(context=context, config={})
    people = _people()
    same_rows = people.copy()
    timings = [{"step": "Reader:csv", "input": "people", "seconds": 0.1}]
    expectations = [{"output": "adults", "rule": "r", "kind": "not_null", "severity": "warn", "column": "name",
                     "failed": 1, "total": 3, "passed": False}]
    record = recorder.task_end(
        context=context, config={}, status="success", duration_sec=1.25,
        inputs=[DataEvent(name="people", direction="input", format="csv", location="/d/people.csv", frame=people)],
        outputs=[DataEvent(name="copy", direction="output", format="parquet", location="/d/out", frame=same_rows)],
        timings=timings, expectations=expectations,
    )
    expected = fingerprint(people)
    for step in record.steps:
        assert (step.data_hash, step.schema_hash, step.row_count) == (
            expected.data_hash, expected.schema_hash, expected.row_count)
        assert step.hash_method == "rows-v1" and step.hash_engine == expected.engine
        assert step.hash_error is None and step.hash_seconds is not None and step.hash_seconds >= 0
    stored = open_store(tmp_path).find("shop", "orders", "clean", context.run_id)
    assert stored == record
    assert stored.status == "success" and stored.duration_sec == 1.25 and stored.ended_at
    assert stored.timings == timings and stored.expectations == expectations


def test_hash_inputs_false_lists_inputs_without_hashing(tmp_path: Path) -> None:
    counting = CountingFingerprint()
    context = _context(tmp_path)
    record = LineageRecorder(hash_inputs=False, fingerprint=counting).task_end(
        context=context, status="success", duration_sec=0.0,
        inputs=[DataEvent(name="people", direction="input", location="/d/p.csv", frame=_people())],
        outputs=[DataEvent(name="adults", direction="output", frame=_people().head(2))],
    )
    step = record.inputs[0]
    assert (step.row_count, step.data_hash, step.hash_method, step.hash_error) == (None, None, None, None)
    assert step.location == "/d/p.csv"
    assert record.outputs[0].row_count == 2 and counting.calls == 1


def test_the_same_frame_used_twice_is_hashed_once(tmp_path: Path) -> None:
    counting = CountingFingerprint()
    people = _people()
    record = LineageRecorder(fingerprint=counting).task_end(
        context=_context(tmp_path), status="success", duration_sec=0.0,
        inputs=[DataEvent(name="people", direction="input", frame=people)],
        outputs=[DataEvent(name="a", direction="output", frame=people),
                 DataEvent(name="b", direction="output", frame=people.copy())],
    )
    assert counting.calls == 2  # people once, its copy once
    first, again, copy = record.inputs[0], record.outputs[0], record.outputs[1]
    assert again.data_hash == first.data_hash == copy.data_hash
    assert again.hash_reused_from == "input:people" and again.hash_seconds == 0.0
    assert copy.hash_reused_from is None


def test_a_failed_hash_leaves_data_hash_null_and_says_why(tmp_path: Path) -> None:
    durations = pd.DataFrame({"id": [1, 2], "took": pd.to_timedelta([1, 2], unit="s")})
    record = LineageRecorder().task_end(
        context=_context(tmp_path), status="success", duration_sec=0.0,
        outputs=[DataEvent(name="durations", direction="output", frame=durations),
                 DataEvent(name="weird", direction="output", frame=object()),
                 DataEvent(name="nothing", direction="output")],
    )
    assert record.status == "success"
    durations_step, weird, nothing = record.outputs
    assert durations_step.data_hash is None and durations_step.row_count is None
    assert "took" in (durations_step.hash_error or "") and durations_step.hash_method == "rows-v1"
    assert weird.data_hash is None and (weird.hash_error or "").startswith("TypeError: ")
    assert nothing.data_hash is None and nothing.hash_error == "no frame was given to hash"


def test_a_precomputed_fingerprint_is_used_as_is(tmp_path: Path) -> None:
    counting = CountingFingerprint()
    table = pa.table({"id": [1, 2, 3]})
    fp = fingerprint(table)
    record = LineageRecorder(fingerprint=counting).task_end(
        context=_context(tmp_path), status="success", duration_sec=0.0,
        outputs=[DataEvent(name="t", direction="output", frame=table, fingerprint=fp,
                           hash_pass="same-pass", hash_seconds=0.5, delta_version=7)],
    )
    step = record.outputs[0]
    assert counting.calls == 0
    assert (step.data_hash, step.row_count, step.hash_engine) == (fp.data_hash, 3, fp.engine)
    assert (step.hash_pass, step.hash_seconds, step.delta_version) == ("same-pass", 0.5, 7)


def test_locations_variables_and_errors_are_masked(tmp_path: Path) -> None:
    context = _context(tmp_path, variables={"dt": "2024-01-02", "api_token": "tok-998877"})
    record = LineageRecorder().task_end(
        context=context, status="error", duration_sec=0.0,
        error=RuntimeError("HTTP 401 from https://svc:pw123@api/x with tok-998877 " + "z" * 5000),
        inputs=[DataEvent(name="src", direction="input",
                          location="jdbc:postgresql://db/shop?user=etl&password=hunter22")],
    )
    text = open_store(tmp_path).path_for("shop", "orders", "clean", context.run_id).read_text(encoding="utf-8")
    for secret in ("hunter22", "pw123", "tok-998877"):
        assert secret not in text
    assert record.variables["api_token"] == "***"
    assert record.error is not None and record.error.startswith("RuntimeError: HTTP 401")
    assert record.error.endswith("z" * 5000)  # the record keeps the whole error (lines are capped)


def test_sample_fraction_is_accepted_but_ignored_with_a_deprecation_warning(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match="sample_fraction"):
        recorder = LineageRecorder(sample_fraction=0.01)
    record = recorder.task_end(context=_context(tmp_path), status="success", duration_sec=0.0,
                               outputs=[DataEvent(name="p", direction="output", frame=_people())])
    assert record.outputs[0].row_count == 3 and record.outputs[0].data_hash == fingerprint(_people()).data_hash


def test_unknown_store_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="'s3'"):
        LineageRecorder(store="s3")


def test_invalid_names_are_refused_before_the_run(tmp_path: Path) -> None:
    context = RunContext(usecase="shop", package="../..", task="clean", usecase_dir=tmp_path, run_id="r1")
    with pytest.raises(InvalidName, match=r"package name '\.\./\.\.'"):
        LineageRecorder().task_start(context=context, config={})
    assert not any(tmp_path.rglob("*.json"))


def test_a_record_that_cannot_be_written_fails_nothing_but_is_reported(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "blocked").write_text("not a folder", encoding="utf-8")
    recorder = LineageRecorder(base_dir="blocked/lineage")
    context = _context(tmp_path)
    with caplog.at_level(logging.ERROR, logger="ubunye.lineage"):
        recorder.task_start(context=context, config={})
        record = recorder.task_end(context=context, config={}, outputs=[], status="success", duration_sec=0.1)
    assert record.status == "success"
    assert recorder.failed and len(recorder.write_errors) == 2
    assert all(isinstance(e, RecordWriteError) for e in recorder.write_errors)
    folder = tmp_path / "blocked" / "lineage" / "shop" / "orders" / "clean"
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all("Not a directory" in m for m in errors)
    assert str(folder / "_started" / f"{context.run_id}.json") in errors[0]  # the running record
    assert str(folder / f"{context.run_id}.json") in errors[1]  # the final one
    assert recorder.last_path is None


def test_absolute_base_dir_is_used_as_is(tmp_path: Path) -> None:
    elsewhere = tmp_path / "central"
    recorder = LineageRecorder(base_dir=elsewhere)
    context = _context(tmp_path / "usecase")
    recorder.task_start(context=context, config={})
    assert recorder.last_path == elsewhere / "shop" / "orders" / "clean" / "_started" / f"{context.run_id}.json"
    recorder.task_end(context=context, config={}, outputs=[], status="success", duration_sec=0.1)
    assert recorder.last_path == elsewhere / "shop" / "orders" / "clean" / f"{context.run_id}.json"


def test_prebuilt_steps_pass_through_with_their_location_masked(tmp_path: Path) -> None:
    from ubunye.lineage.record import Step

    step = Step(name="src", direction="input", format="jdbc", location="postgresql://etl:pw-777@db/shop")
    record = LineageRecorder().task_end(context=_context(tmp_path), status="success", duration_sec=0.0,
                                        inputs=[step])
    assert record.inputs[0].location == "postgresql://etl:***@db/shop"
    assert record.inputs[0].name == "src" and record.inputs[0].format == "jdbc"
    assert step.location == "postgresql://etl:pw-777@db/shop"  # the caller's step is not changed


def test_unreadable_code_file_costs_the_code_hash_not_the_run(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    task_dir = _task(tmp_path)
    (task_dir / "gone.py").symlink_to(task_dir / "missing-target.py")
    context = _context(tmp_path, task_dir=task_dir)
    with caplog.at_level(logging.WARNING, logger="ubunye.lineage"):
        record = LineageRecorder().task_start(context=context, config={})
    assert record.code_hash is None and record.config_hash == config_hash(task_dir)
    assert any("code_hash" in r.getMessage() and "gone.py" in r.getMessage() for r in caplog.records)


def test_a_record_that_is_not_json_is_a_reported_write_error(tmp_path: Path) -> None:
    loop: list[Any] = []
    loop.append(loop)
    recorder = LineageRecorder()
    record = recorder.task_end(context=_context(tmp_path), status="success", duration_sec=0.0,
                               expectations=[{"rule": "r", "detail": loop}])
    assert record.status == "success"
    assert len(recorder.write_errors) == 1 and "not JSON" in str(recorder.write_errors[0])


def test_task_end_without_task_start_dates_the_start_from_the_duration(tmp_path: Path) -> None:
    from datetime import datetime

    record = LineageRecorder().task_end(context=_context(tmp_path), status="success", duration_sec=3600.0)
    assert record.started_at is not None and record.ended_at is not None
    started, ended = datetime.fromisoformat(record.started_at), datetime.fromisoformat(record.ended_at)
    assert 3600 <= (ended - started).total_seconds() < 3600 + 60
    assert record.started_at.endswith("+00:00")
