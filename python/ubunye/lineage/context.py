"""What an entry point (run_task, the notebook helper, ``ubunye.lineage.run``)
hands to the recorder: the identity of the run and each input/output it touched.

These two dataclasses are the contract between the task engine
(``ubunye.engine``) and the recorder (``ubunye.lineage.recorder``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional


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
    storage_signature: Optional[str] = None  # see ubunye.engine.snapshots
    options: Optional[dict[str, str]] = None  # inputs: the reader options (Spark's string values)
    schema: Optional[str] = None  # inputs: the explicit schema (Spark DDL), if any
