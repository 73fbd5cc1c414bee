"""Monitors get the new evidence only when their signature asks for it."""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pandas as pd

from ubunye.lineage.context import DataEvent, RunContext
from ubunye.lineage.monitors import accepted_kwargs, call_task_end, call_task_start
from ubunye.lineage.recorder import LineageRecorder
from ubunye.lineage.store import open_store


class OldMonitor:
    """Written for the older signature: no inputs, expectations or timings."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def task_start(self, *, context: RunContext, config: dict[str, Any]) -> None:
        self.seen["start"] = context.run_id

    def task_end(self, *, context: RunContext, config: dict[str, Any], outputs: list[DataEvent], status: str,
                 duration_sec: float) -> None:
        self.seen.update(outputs=outputs, status=status, duration_sec=duration_sec)


class KwargsMonitor:
    """Takes whatever it is given."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def task_end(self, **kwargs: Any) -> None:
        self.seen.update(kwargs)


class NamedMonitor:
    """Names one of the new parameters only."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def task_end(self, context: RunContext, outputs: list[DataEvent], status: str, timings: list[dict[str, Any]]) -> None:
        self.seen.update(status=status, timings=timings)


def _kwargs(tmp_path: Path) -> dict[str, Any]:
    context = RunContext(usecase="shop", package="orders", task="clean", usecase_dir=tmp_path,
                         run_id=str(uuid.uuid4()))
    frame = pd.DataFrame({"id": [1, 2]})
    return dict(
        context=context, config={}, status="success", duration_sec=0.5, error=None,
        outputs=[DataEvent(name="out", direction="output", frame=frame)],
        inputs=[DataEvent(name="in", direction="input", frame=frame)],
        expectations=[{"rule": "r", "passed": True}],
        timings=[{"step": "Transform:t", "seconds": 0.1}],
    )


def test_old_signature_monitor_keeps_working(tmp_path: Path) -> None:
    monitor = OldMonitor()
    kwargs = _kwargs(tmp_path)
    call_task_start(monitor, context=kwargs["context"], config={})
    call_task_end(monitor, **kwargs)
    assert monitor.seen["start"] == kwargs["context"].run_id
    assert monitor.seen["status"] == "success" and monitor.seen["outputs"] == kwargs["outputs"]
    assert set(monitor.seen) == {"start", "outputs", "status", "duration_sec"}


def test_kwargs_monitor_gets_the_new_evidence(tmp_path: Path) -> None:
    monitor = KwargsMonitor()
    kwargs = _kwargs(tmp_path)
    call_task_end(monitor, **kwargs)
    assert monitor.seen == kwargs


def test_monitor_naming_some_new_parameters_gets_exactly_those(tmp_path: Path) -> None:
    monitor = NamedMonitor()
    kwargs = _kwargs(tmp_path)
    call_task_end(monitor, **kwargs)
    assert monitor.seen == {"status": "success", "timings": kwargs["timings"]}
    assert set(accepted_kwargs(NamedMonitor().task_end, kwargs)) == {"context", "outputs", "status", "timings"}


def test_missing_hook_is_skipped(tmp_path: Path) -> None:
    assert call_task_start(KwargsMonitor(), context=None, config={}) is None


def test_the_recorder_is_a_new_signature_monitor(tmp_path: Path) -> None:
    kwargs = _kwargs(tmp_path)
    record = call_task_end(LineageRecorder(), **kwargs)
    assert [s.name for s in record.inputs] == ["in"] and record.inputs[0].data_hash is not None
    assert record.timings == kwargs["timings"] and record.expectations == kwargs["expectations"]
    assert open_store(tmp_path).find("shop", "orders", "clean").run_id == kwargs["context"].run_id
