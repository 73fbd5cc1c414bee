"""What an entry point (run_task, the notebook helper, ``ubunye.lineage.run``)
hands to the recorder: the identity of the run and each input/output it touched.

These two dataclasses are the contract between the task engine
(``ubunye.engine``) and the recorder (``ubunye.lineage.recorder``).
"""
from __future__ import annotations

import secrets
import time
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional


def uuid7(millis: int, rest: int) -> str:
    """The UUIDv7 (RFC 9562) of a 48-bit millisecond time and 74 other bits (version and variant set)."""
    from ubunye.lineage.store.runids import uuid7 as made

    return made(millis, rest)


@dataclass(frozen=True)
class PipelineRun:
    """One run of several tasks (``run_pipeline``, ``ubunye run`` of several tasks): the parent
    of each task's run. ``run_id`` is a UUIDv7, ``name`` is ``usecase.package``."""

    run_id: str
    name: str

    def to_record(self) -> dict[str, str]:
        return {"run_id": self.run_id, "name": self.name}


_PIPELINE: ContextVar[Optional[PipelineRun]] = ContextVar("ubunye_pipeline_run", default=None)


@contextmanager
def pipeline_run(usecase: str, package: str) -> Iterator[PipelineRun]:
    """Tasks run inside this block record it as the pipeline run they belong to."""
    run = PipelineRun(uuid7(time.time_ns() // 10**6, secrets.randbits(74)), f"{usecase}.{package}")
    token = _PIPELINE.set(run)
    try:
        yield run
    finally:
        _PIPELINE.reset(token)


def current_pipeline() -> Optional[PipelineRun]:
    """The pipeline run being run in this context, or None."""
    return _PIPELINE.get()


@dataclass
class RunContext:
    """Identity and settings of one task run."""

    usecase: str
    package: str
    task: str
    usecase_dir: Path
    run_id: str
    task_dir: Optional[Path] = None  # code_hash / config_hash come from here
    profile: str = "DEV"  # the run mode
    model: Optional[str] = None  # config MODEL
    version: Optional[str] = None  # config VERSION
    backend: Optional[str] = None  # "spark" | "pandas" | ...
    variables: dict[str, Any] = field(default_factory=dict)
    time_zone: Optional[str] = None
    spark: Any = None  # the SparkSession, when the backend is Spark
    # the task folder's files the run compiled (relative path parts -> bytes), when the
    # engine imported them: the code hash takes these bytes (what ran) for those files
    code_files: Optional[Mapping[tuple[str, ...], bytes]] = None
    # the pipeline run this task run belongs to ({"run_id", "name"}), or None
    pipeline: Optional[dict[str, str]] = None

    @property
    def task_path(self) -> str:
        return f"{self.usecase}/{self.package}/{self.task}"


@dataclass
class DataEvent:
    """One input read or output written during a run.

    ``frame`` is the native frame (Spark or pandas DataFrame, Arrow table ...)
    to hash, or None when it is not available. When the engine already hashed
    it (for example in the same pass as a Spark write) it passes
    ``fingerprint`` and ``hash_pass="same-pass"`` and the recorder does not
    hash again.
    """

    name: str
    direction: str  # "input" | "output"
    format: Optional[str] = None
    location: Optional[str] = None
    frame: Any = None
    fingerprint: Any = None  # ubunye.hashing.Fingerprint, precomputed
    hash_pass: Optional[str] = None  # "same-pass" | "second-pass" | "materialised" | "reused"
    hash_seconds: Optional[float] = None
    delta_version: Optional[int] = None
    hash_reused_from: Optional[str] = None  # with hash_pass "reused": the step it came from
    handed_in: Optional[bool] = None  # outputs: handed in by the caller (write(outputs=...)), not transformed
    storage_signature: Optional[str] = None  # see ubunye.engine.snapshots
    # inputs: the reader options (Spark's string values) and explicit schema (Spark DDL), if any;
    # csv/json outputs on Spark: the settings their written files were read back and hashed with
    options: Optional[dict[str, str]] = None
    schema: Optional[str] = None
    columns: Optional[list[dict[str, str]]] = None  # [{"name", "type"}] as the engine knows them
