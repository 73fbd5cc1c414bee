"""One run as a story: what it read, how it transformed, what it wrote, with what.

``trace_run(record)`` returns a :class:`Trace` whose sections follow the data:
inputs (location, rows, schema and data hash, or why there is none), the
transform steps, outputs; then code, environment, timings and expectations.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ubunye.lineage.record import RunRecord, Step

ROWS_V1 = "rows-v1"


def why_no_hash(step: Step, record_version: int) -> Optional[str]:
    """Why a step has no rows-v1 data hash, or None when it has one."""
    if step.data_hash is not None and step.hash_method == ROWS_V1:
        return None
    if step.data_hash is not None:
        method = step.hash_method or "no hash_method"
        return (f"hashed by a method older than rows-v1 ({method}, record version {record_version}); "
                "its data hash does not prove the rows")
    if step.hash_error:
        return f"hash failed: {step.hash_error}"
    if step.row_count is None and step.hash_method is None:
        return "not hashed when the run was recorded (inputs not hashed, or nothing was written)"
    return "no data hash recorded"


@dataclass
class TraceStep:
    """One input or output in the story."""

    name: str
    direction: str
    format: Optional[str]
    location: Optional[str]
    row_count: Optional[int]
    schema_hash: Optional[str]
    data_hash: Optional[str]
    method: Optional[str]
    engine: Optional[str]
    hash_pass: Optional[str]
    hash_seconds: Optional[float]
    no_hash_reason: Optional[str]
    seconds: Optional[float]  # the read or write time from the timings
    hash_reused_from: Optional[str] = None  # the step whose hash this one took
    handed_in: bool = False  # an output handed in by the caller (write(outputs=...)), not transformed

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Trace:
    """The result of :func:`trace_run`."""

    run: dict[str, Any]
    inputs: list[TraceStep]
    transform: list[dict[str, Any]]
    outputs: list[TraceStep]
    code: dict[str, Any]
    environment: dict[str, Any]
    timings: list[dict[str, Any]]
    expectations: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": dict(self.run),
            "inputs": [s.to_dict() for s in self.inputs],
            "transform": list(self.transform),
            "outputs": [s.to_dict() for s in self.outputs],
            "code": dict(self.code),
            "environment": dict(self.environment),
            "timings": list(self.timings),
            "expectations": list(self.expectations),
            "notes": list(self.notes),
        }


def _io_seconds(record: RunRecord, step: Step) -> Optional[float]:
    key = "input" if step.direction == "input" else "output"
    for t in record.timings:
        if t.get(key) == step.name and isinstance(t.get("seconds"), (int, float)):
            return float(t["seconds"])
    return None


def _step(record: RunRecord, step: Step) -> TraceStep:
    return TraceStep(
        name=step.name, direction=step.direction, format=step.format, location=step.location,
        row_count=step.row_count, schema_hash=step.schema_hash, data_hash=step.data_hash,
        method=step.hash_method, engine=step.hash_engine, hash_pass=step.hash_pass,
        hash_seconds=step.hash_seconds, no_hash_reason=why_no_hash(step, record.record_version),
        seconds=_io_seconds(record, step), hash_reused_from=step.hash_reused_from,
        handed_in=bool(step.handed_in),
    )


def trace_run(record: RunRecord) -> Trace:
    """Tell one run's story from its record."""
    run = {
        "run_id": record.run_id,
        "task_path": record.task_path or f"{record.usecase}/{record.package}/{record.task_name}",
        "status": record.status,
        "error": record.error,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "duration_sec": record.duration_sec,
        "profile": record.profile,
        "backend": record.backend,
        "time_zone": record.time_zone,
        "variables": dict(record.variables),
        "record_version": record.record_version,
        "engine_version": record.engine_version,
    }
    transform = [dict(t) for t in record.timings if str(t.get("step", "")).startswith("Transform:")]
    code = {"code_hash": record.code_hash, "config_hash": record.config_hash,
            "model": record.model, "version": record.version}
    environment = {"environment_hash": record.environment_hash, **record.environment}
    notes: list[str] = []
    if record.record_version < 2:
        notes.append("record version 1: written before rows-v1; its hashes do not prove the rows")
    if record.code_hash is None:
        notes.append("no code hash: the run was not made from a task folder (a notebook run?)")
    if not record.timings:
        notes.append("no timings recorded")
    return Trace(
        run=run,
        inputs=[_step(record, s) for s in record.inputs],
        transform=transform,
        outputs=[_step(record, s) for s in record.outputs],
        code=code,
        environment=environment,
        timings=[dict(t) for t in record.timings],
        expectations=[dict(e) for e in record.expectations],
        notes=notes,
    )
