"""The run record (version 2) as typed data, read and written as JSON.

Spec: ``shared/spec/run-record.md``. Loading is lenient in the way the spec asks:
missing fields take their empty value, unknown fields are ignored, and a record
without ``record_version`` is version 1. Writing produces every v2 field.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Optional

RECORD_VERSION = 2


def _jsonable(value: Any) -> Any:
    """JSON form of values json cannot write (numpy scalars, dates, paths ...)."""
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):
        return isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class Step:
    """One input or output of a run."""

    name: str
    direction: str  # "input" | "output"
    format: Optional[str] = None
    location: Optional[str] = None
    row_count: Optional[int] = None
    schema_hash: Optional[str] = None
    data_hash: Optional[str] = None
    hash_method: Optional[str] = None
    hash_error: Optional[str] = None
    hash_seconds: Optional[float] = None
    hash_engine: Optional[str] = None
    # How the hash was taken: "same-pass" (observed on the write), "second-pass"
    # (read again), "materialised" (hashed in memory), or None when not hashed.
    hash_pass: Optional[str] = None
    # Where a reused hash comes from: "<direction>:<name>" of a step of the same
    # run (the same frame is hashed once per run), or
    # "<task_path>/<run_id>:<direction>:<name>" of an earlier run's step whose
    # files were exactly these (hash_pass "reused").
    hash_reused_from: Optional[str] = None
    delta_version: Optional[int] = None
    # What was on storage when the step was read or written ("files:sha256:..."
    # over names, sizes and modification times, or "delta:<version>:sha256:..."),
    # for formats and specs where the files alone decide the rows; else None.
    storage_signature: Optional[str] = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Step":
        d = _known(cls, data)
        d.setdefault("name", "")
        d.setdefault("direction", "")
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunRecord:
    """One task run. Field meanings: ``shared/spec/run-record.md``."""

    run_id: str
    task_path: str = ""
    usecase: str = ""
    package: str = ""
    task_name: str = ""
    record_version: int = RECORD_VERSION
    profile: Optional[str] = None
    model: Optional[str] = None
    version: Optional[str] = None
    config_hash: Optional[str] = None
    started_at: Optional[str] = None
    ended_at: Optional[str] = None
    duration_sec: Optional[float] = None
    status: str = "running"
    error: Optional[str] = None
    engine_version: Optional[str] = None
    backend: Optional[str] = None
    variables: dict[str, Any] = field(default_factory=dict)
    time_zone: Optional[str] = None
    code_hash: Optional[str] = None
    environment: dict[str, Any] = field(default_factory=dict)
    environment_hash: Optional[str] = None
    timings: list[dict[str, Any]] = field(default_factory=list)
    expectations: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[Step] = field(default_factory=list)
    outputs: list[Step] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunRecord":
        if not isinstance(data, dict):
            raise ValueError("a run record must be a JSON object")
        if "run_id" not in data:
            raise ValueError("a run record needs a run_id")
        d = _known(cls, data)
        d["record_version"] = int(data.get("record_version") or 1)
        for key in ("inputs", "outputs"):
            d[key] = [Step.from_dict(s) for s in (data.get(key) or [])]
        for key in ("variables", "environment"):
            d[key] = dict(data.get(key) or {})
        for key in ("timings", "expectations"):
            d[key] = list(data.get(key) or [])
        d.setdefault("status", "unknown")
        return cls(**d)

    @classmethod
    def from_json(cls, text: str) -> "RunRecord":
        return cls.from_dict(json.loads(text))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["inputs"] = [s.to_dict() for s in self.inputs]
        d["outputs"] = [s.to_dict() for s in self.outputs]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, default=_jsonable) + "\n"

    @property
    def steps(self) -> list[Step]:
        return [*self.inputs, *self.outputs]
