"""The run record (version 2) as typed data, read and written as JSON.

Spec: ``shared/spec/run-record.md``. Loading is lenient in the way the spec asks:
missing fields take their empty value, unknown fields are ignored, and a record
without ``record_version`` is version 1. A known field of the wrong type (``"outputs":
5``, a step that is not an object, a start time that is no date) is damage, not a
value: loading raises :class:`MalformedRecord` (a ``ValueError``) in one line naming
the field. Writing produces every v2 field.

Every record this package writes carries a ``seal``: ``sha256:`` over the record's
own content (the decoded JSON without ``seal``, written with sorted keys and no
spaces). Loading a sealed record whose content does not match its seal raises
:class:`MalformedRecord`, so a flipped byte that still parses (a changed name, a
digit of a row count, a key renamed so that its field goes missing) is damage, never
another claim. Records without a seal (other writers, ubunye-engine 0.8.0, version 1)
load as before; other writers ignore the field, as the spec asks of unknown fields.

Every record is loaded masked (:func:`ubunye.lineage.remask.reread`, after its seal is checked): a
record another program wrote, or one this package wrote before a masking rule was added, is
masked by today's rules and the secret-named variables it carries before anything shows it.
A record masked when it was written loads unchanged.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Optional

from ubunye.lineage.remask import reread

RECORD_VERSION = 2
SEAL_FIELD = "seal"


class MalformedRecord(ValueError):
    """A record whose known fields do not have their types (one line naming the field)."""


_NUMBER = "a number"
_COUNT = "a whole number >= 0"
_TEXT = "a string"
_SCALAR = "a string or a number"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _check(where: str, value: Any, want: str) -> Any:
    """``value`` if it is null or of kind ``want``, else :class:`MalformedRecord`."""
    if value is None:
        return None
    kind = type(value)
    if want == _TEXT:  # (the common kinds first: a million records are read through here)
        ok = kind is str or isinstance(value, str)
    elif want == _COUNT:
        ok = isinstance(value, int) and kind is not bool and value >= 0
    elif want == _NUMBER:
        ok = _is_number(value)
    elif want == _SCALAR:
        ok = isinstance(value, str) or _is_number(value)
    else:
        raise KeyError(want)
    if not ok:
        shown = f"{value!r}"[:40] if _is_number(value) or isinstance(value, bool) else _kind(value)
        raise MalformedRecord(f"{where} must be {want}, not {shown}")
    return value


def _container(where: str, value: Any, kind: type, item: Optional[type] = None) -> Any:
    """A dict or list (null: empty), every item of kind ``item`` when given."""
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise MalformedRecord(f"{where} must be {'an object' if kind is dict else 'a list'}, not {_kind(value)}")
    if item is not None:
        for i, element in enumerate(value):
            if not isinstance(element, item):
                raise MalformedRecord(f"{where}[{i}] must be an object, not {_kind(element)}")
    return kind(value)


def parse_moment(text: Any) -> Optional[datetime]:
    """A record's ISO-8601 date-time text (``started_at``, ``ended_at``; ``Z`` or an offset) as an
    aware datetime, naive values taken as UTC; None when it is not such a text. The one parser
    of record times (store order, abandoned runs, search, OpenLineage ids)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _moment(where: str, value: Any) -> Optional[str]:
    """An ISO-8601 date-time text (or null): a start time that is no time cannot order runs."""
    if _check(where, value, _TEXT) is None:
        return None
    if parse_moment(value) is None:
        raise MalformedRecord(f"{where} {value[:40]!r} is not an ISO-8601 date-time")
    return value


_STEP_TEXT = ("format", "location", "schema_hash", "data_hash", "hash_method", "hash_error", "hash_engine",
              "hash_pass", "hash_reused_from", "storage_signature", "schema")
_RECORD_TEXT = ("config_hash", "error", "engine_version", "backend", "time_zone", "code_hash",
                "environment_hash")
_TIMING_TEXT = ("step", "input", "output")


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
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = frozenset(f.name for f in fields(cls))
    return {k: v for k, v in data.items() if k in names}


_NAMES: dict[type, frozenset[str]] = {}  # the field names of each record class, looked up once


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
    # Inputs: the reader settings the step was read with, as Spark's reader took them:
    # ``options`` (lower-case names, Spark's string values, the engine's defaults
    # included) and ``schema`` (the explicit Spark DDL schema, or None). Outputs: null,
    # except csv/json outputs hashed by Spark from their written files: the settings they
    # were read back with (lineage verify reads them the same way). Null in records of
    # other writers, which ignore both.
    options: Optional[dict[str, str]] = None
    schema: Optional[str] = None
    # The rows-v1 localisation sketch of the same rows as the data hash
    # (docs/spec/rows-v1-localise.md: {"version", "cells", "k", "data"}), or None.
    # Optional: records without it compare as before; it never decides same or changed.
    sketch: Optional[dict[str, Any]] = None
    # The row count and lane sums of each partition folder of the same rows
    # (docs/spec/rows-v1-localise.md section 7: {"version", "columns", "sums"}), for an
    # output written with partition_by or a partitioned input (key=value folders; on Spark
    # also partitioned Delta and catalog tables: section 7 lists them); else None.
    partitions: Optional[dict[str, Any]] = None
    # The columns as the engine knew them: [{"name", "type"}] (pandas dtypes, Spark's type
    # strings), or None when not known. Optional: records without it load as before.
    columns: Optional[list[dict[str, str]]] = None
    # Outputs: true when the rows were handed in by the caller (the notebook's or the API's
    # ``write(outputs=...)``), not made by the task's transform in this run; absent otherwise
    # (records without it, and readers that do not know it, are as before).
    handed_in: Optional[bool] = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "step") -> "Step":
        if not isinstance(data, dict):
            raise MalformedRecord(f"{where} must be an object, not {_kind(data)}")
        d = _known(cls, data)
        for key in ("name", "direction"):
            d[key] = _check(f"{where}.{key}", d.get(key), _TEXT) or ""
        for key in _STEP_TEXT:
            _check(f"{where}.{key}", d.get(key), _TEXT)
        _check(f"{where}.row_count", d.get("row_count"), _COUNT)
        _check(f"{where}.delta_version", d.get("delta_version"), _COUNT)
        _check(f"{where}.hash_seconds", d.get("hash_seconds"), _NUMBER)
        if d.get("options") is not None:
            d["options"] = _container(f"{where}.options", d["options"], dict)
            for key, value in d["options"].items():
                _check(f"{where}.options.{key}", value, _TEXT)
        for key in ("sketch", "partitions"):
            if d.get(key) is not None:
                d[key] = _container(f"{where}.{key}", d[key], dict)
        if d.get("handed_in") not in (None, True, False):
            raise MalformedRecord(f"{where}.handed_in must be true, false or null, not {_kind(d['handed_in'])}")
        if d.get("columns") is not None:
            d["columns"] = _container(f"{where}.columns", d["columns"], list, dict)
            for i, column in enumerate(d["columns"]):
                for key in ("name", "type"):
                    _check(f"{where}.columns[{i}].{key}", column.get(key), _TEXT)
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("sketch", "partitions", "columns", "handed_in"):  # records without them stay as written
            if d.get(key) is None:
                d.pop(key, None)
        return d


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
    # who runs it (host, pid, boot_id, start_ticks): lets a reader tell a running record whose
    # process is gone (lineage/ending.py shown_status); {} in records from before
    process: dict[str, Any] = field(default_factory=dict)
    # the pipeline run this task run belongs to: {"run_id" (a UUIDv7), "name" ("usecase.package")};
    # None for a task run on its own (and absent from its record)
    pipeline: Optional[dict[str, Any]] = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunRecord":
        """The record of a decoded JSON document, masked (:func:`ubunye.lineage.remask.reread`);
        :class:`MalformedRecord` when it is not one."""
        record = cls._checked(data)
        shown = reread(data)
        if shown is data:
            return record
        return cls._checked({k: v for k, v in shown.items() if k != SEAL_FIELD})  # the seal was checked

    @classmethod
    def _checked(cls, data: dict[str, Any]) -> "RunRecord":
        if not isinstance(data, dict):
            raise MalformedRecord(f"a run record must be a JSON object, not {_kind(data)}")
        if "run_id" not in data:
            raise MalformedRecord("a run record needs a run_id")
        d = _known(cls, data)
        if not _check("run_id", d["run_id"], _TEXT):
            raise MalformedRecord("run_id must be a non-empty string")
        for key in ("task_path", "usecase", "package", "task_name"):
            d[key] = _check(key, d.get(key), _TEXT) or ""
        version = _check("record_version", data.get("record_version"), _COUNT)
        d["record_version"] = version or 1
        for key in ("profile", "model", "version"):
            value = _check(key, d.get(key), _SCALAR)
            d[key] = None if value is None else str(value)
        for key in _RECORD_TEXT:
            _check(key, d.get(key), _TEXT)
        for key in ("started_at", "ended_at"):
            _moment(key, d.get(key))
        _check("duration_sec", d.get("duration_sec"), _NUMBER)
        d["status"] = _check("status", d.get("status"), _TEXT) or "unknown"
        for key, direction in (("inputs", "input"), ("outputs", "output")):
            steps = _container(key, data.get(key), list)
            d[key] = [Step.from_dict(s, f"{key}[{i}]") for i, s in enumerate(steps)]
            for i, step in enumerate(d[key]):  # the list says it; a step that says otherwise is damaged
                if not step.direction:
                    step.direction = direction
                elif step.direction != direction:
                    raise MalformedRecord(f"{key}[{i}].direction must be {direction!r}, not {step.direction[:20]!r}")
        for key in ("variables", "environment", "process"):
            d[key] = _container(key, data.get(key), dict)
        _container("environment.packages", d["environment"].get("packages"), dict)
        if d.get("pipeline") is not None:
            d["pipeline"] = _container("pipeline", d["pipeline"], dict)
            for key in ("run_id", "name"):
                _check(f"pipeline.{key}", d["pipeline"].get(key), _TEXT)
        for key in ("timings", "expectations"):
            d[key] = _container(key, data.get(key), list, dict)
        for i, timing in enumerate(d["timings"]):
            for key in _TIMING_TEXT:
                _check(f"timings[{i}].{key}", timing.get(key), _TEXT)
            _check(f"timings[{i}].seconds", timing.get("seconds"), _NUMBER)
        for i, rule in enumerate(d["expectations"]):
            for key in ("output", "rule", "severity"):
                _check(f"expectations[{i}].{key}", rule.get(key), _TEXT)
        if SEAL_FIELD in data:  # after the type checks, which name the field
            check_seal(data)
        return cls(**d)

    @classmethod
    def from_json(cls, text: str) -> "RunRecord":
        return cls.from_dict(json.loads(text))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["inputs"] = [s.to_dict() for s in self.inputs]
        d["outputs"] = [s.to_dict() for s in self.outputs]
        if d.get("pipeline") is None:  # a task run on its own: as records were written before
            d.pop("pipeline", None)
        return d

    def to_json(self) -> str:
        """The record as written: every field, and its :func:`seal`."""
        data = self._written()
        data[SEAL_FIELD] = seal(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def _written(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.to_dict(), ensure_ascii=False, default=_jsonable))  # type: ignore[no-any-return]

    def digest(self) -> str:
        """The record's canonical digest: the hex sha256 of its seal (the record as this
        package writes it, without ``seal``, sorted keys, compact). A signed statement names
        it (``docs/spec/record-attestation.md``)."""
        return seal(self._written())[len("sha256:"):]

    @property
    def steps(self) -> list[Step]:
        return [*self.inputs, *self.outputs]


def seal(data: dict[str, Any]) -> str:
    """``sha256:`` over a decoded record without its ``seal`` (sorted keys, compact)."""
    body = {k: v for k, v in data.items() if k != SEAL_FIELD}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_seal(data: dict[str, Any]) -> None:
    """:class:`MalformedRecord` unless ``data`` matches its ``seal``."""
    written = data.get(SEAL_FIELD)
    if not isinstance(written, str) or written != seal(data):
        raise MalformedRecord("the record does not match its seal: it was changed or damaged after it was written")
