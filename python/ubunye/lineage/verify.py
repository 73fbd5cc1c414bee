"""Is the data still what the run read and wrote? Re-hash every recorded location now.

``verify_record(record)`` reads each input and output at its recorded location
with the recorded format, hashes it with rows-v1 and compares row count, schema
hash and data hash with the record (the rules of :mod:`ubunye.lineage.compare`,
with the sides named "recorded" and "now").

Reading and hashing are exactly ``ubunye hash``'s: the same engine registry
(``ubunye.io.hash_engines.resolve_engine``: ``pandas`` and ``arrow`` read with
``ubunye.io.read_table``, ``spark`` with a local session in UTC) and the same
formats (the recorded one when it is a file format, else from the file
names). A run that did not succeed (``running``, ``error``, ``interrupted``) is
never proven the same: its record is not, or not all, of what it meant to write.
``"auto"`` takes Spark when the run's backend was Spark and pyspark is
installed, else pandas. Those modules are imported only when a step is
actually re-hashed.
"""
from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ubunye.lineage.compare import (
    MISSING,
    UNCHANGED,
    UNKNOWN,
    StepDiff,
    compare_steps,
    describe_problem,
    status_problem,
)
from ubunye.lineage.masking import MASK
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.verdict import Trust, distrust

FILE_FORMATS = ("csv", "parquet", "json")
SPARK_ONLY_FORMATS = ("delta",)
ENGINES = ("auto", "pandas", "arrow", "spark")
_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json", ".jsonl": "json",
             ".ndjson": "json"}

# (location, format or None to detect, engine[, options=, schema=]) -> the fingerprint now
# (ubunye.hashing.Fingerprint); options and schema are passed only for a step that recorded them
Hasher = Callable[..., Any]


class VerifyError(ValueError):
    """A verify that cannot start (an unknown engine)."""


@dataclass
class StepCheck:
    """One recorded input or output against the data at its location now."""

    direction: str
    name: str
    location: Optional[str]
    format: Optional[str]
    engine: Optional[str]
    verdict: str
    diff: Optional[StepDiff]
    now: Optional[dict[str, Any]]
    reason: Optional[str] = None
    seconds: Optional[float] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "name": self.name,
            "location": self.location,
            "format": self.format,
            "engine": self.engine,
            "verdict": self.verdict,
            "reason": self.reason,
            "seconds": self.seconds,
            "now": self.now,
            "row_count": self.diff.row_count.to_dict() if self.diff else None,
            "schema_hash": self.diff.schema_hash.to_dict() if self.diff else None,
            "data_hash": self.diff.data_hash.to_dict() if self.diff else None,
        }


@dataclass
class Verification:
    """The result of :func:`verify_record`."""

    run: dict[str, Any]
    steps: list[StepCheck]
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def data_proven_same(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"run": dict(self.run), "data_proven_same": self.data_proven_same,
                "problems": list(self.problems), "notes": list(self.notes),
                "steps": [s.to_dict() for s in self.steps]}


def file_format(step: Step, path: Optional[Path]) -> Optional[str]:
    """The readable format of a step: its recorded format, else from file suffixes."""
    fmt = (step.format or "").lower()
    if fmt in FILE_FORMATS or fmt in SPARK_ONLY_FORMATS:
        return fmt
    if path is None:
        return None
    if path.is_file():
        return _SUFFIXES.get(path.suffix.lower())
    if path.is_dir():
        if (path / "_delta_log").is_dir():
            return "delta"
        found = {_SUFFIXES.get(p.suffix.lower()) for p in path.rglob("*")
                 if p.is_file() and not p.name.startswith((".", "_"))}
        found.discard(None)
        if len(found) == 1:
            return found.pop()
    return None


def choose_engine(record: RunRecord, engine: str) -> str:
    """``auto`` -> ``spark`` for a Spark run when pyspark is installed, else ``pandas``."""
    if engine not in ENGINES:
        raise VerifyError(f"unknown engine {engine!r}: use {', '.join(ENGINES)}")
    if engine != "auto":
        return engine
    if (record.backend or "").lower() == "spark" and importlib.util.find_spec("pyspark") is not None:
        return "spark"
    return "pandas"


def default_hasher(location: str, fmt: Optional[str], engine: str, options: Optional[dict[str, str]] = None,
                   schema: Optional[str] = None) -> Any:
    """Read and hash ``location`` with the engine ``ubunye hash --engine`` would use, with the
    reader options and schema the run read it with."""
    from ubunye.io.hash_engines import resolve_engine, run_engine

    return run_engine(resolve_engine(engine), Path(location), fmt, options, schema)


def _local_path(location: str, base_dir: Optional[Path]) -> Optional[Path]:
    """A local location (relative ones against the usecase folder, as the run wrote them:
    :mod:`ubunye.locations`); None for a remote URI (only Spark can read it)."""
    from ubunye.locations import absolute, local_path

    local = local_path(location)
    if local is None:
        return None
    return Path(local if base_dir is None else absolute(local, base_dir))


def _check(step: Step, record: RunRecord, engine: str, base_dir: Optional[Path], hasher: Hasher) -> StepCheck:
    def unknown(reason: str, fmt: Optional[str] = None, verdict: str = UNKNOWN) -> StepCheck:
        return StepCheck(step.direction, step.name, step.location, fmt, engine, verdict, None, None, reason)

    if not step.location:
        return unknown("no location recorded")
    path = _local_path(step.location, base_dir)
    if path is not None and not path.exists():
        return unknown(f"{path} no longer exists", verdict=MISSING)
    if path is None and engine != "spark":
        return unknown(f"{step.location} is remote: re-hash it with --engine spark")
    fmt = file_format(step, path)
    if fmt is None:
        return unknown(f"cannot tell the file format of {step.location} (recorded format {step.format!r})")
    if fmt in SPARK_ONLY_FORMATS and engine != "spark":
        return unknown(f"format {fmt} needs --engine spark", fmt)
    settings: dict[str, Any] = {}
    if step.options or step.schema:  # read again as the run read it (an input's options and schema)
        masked = sorted(k for k, v in (step.options or {}).items() if v == MASK)
        if masked:
            return unknown(f"the run's reader option {masked[0]!r} is masked in the record: it cannot be "
                           "read again as the run read it", fmt)
        settings = {"options": dict(step.options or {}), "schema": step.schema}
    start = time.perf_counter()
    try:
        fp = hasher(str(path) if path is not None else step.location, fmt, engine, **settings)
    except Exception as exc:  # noqa: BLE001 - any reader failure is a verdict, not a crash
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        return unknown(f"could not read it now: {reason}", fmt)
    seconds = round(time.perf_counter() - start, 6)
    now = Step(step.name, step.direction, fmt, step.location, fp.row_count, fp.schema_hash, fp.data_hash,
               fp.method, fp.error)
    diff = compare_steps(step.direction, step.name, step, now, labels=("recorded", "now"))
    now_dict = {"row_count": fp.row_count, "schema_hash": fp.schema_hash, "data_hash": fp.data_hash,
                "method": fp.method, "engine": fp.engine, "error": fp.error}
    return StepCheck(step.direction, step.name, step.location, fmt, fp.engine or engine, diff.verdict, diff,
                     now_dict, None, seconds)


def verify_record(
    record: RunRecord,
    *,
    engine: str = "auto",
    base_dir: Optional[Path] = None,
    hasher: Optional[Hasher] = None,
    trust: Optional[Trust] = None,
) -> Verification:
    """Re-hash every input and output of ``record`` where it was, and compare.

    ``base_dir`` resolves relative locations (the usecase folder); ``hasher``
    replaces the reading and hashing (tests, other engines); ``trust``: the hook of
    :func:`ubunye.lineage.verdict.decide` (a record it refuses is never proven the same).
    """
    chosen = choose_engine(record, engine)
    checks = [_check(s, record, chosen, base_dir, hasher or default_hasher) for s in record.steps]
    problems: list[str] = [p for p in [distrust(record, "the run", trust), status_problem(record, "the run")] if p]
    for c in checks:
        if c.verdict == UNCHANGED:
            continue
        if c.diff is not None:
            problems.append(describe_problem(c.diff))
        else:
            problems.append(f"{c.direction} {c.name!r}: {c.verdict} ({c.reason})")
    if not checks:
        problems.append("the run recorded no input or output")
    run = {"run_id": record.run_id, "task_path": record.task_path, "started_at": record.started_at,
           "status": record.status, "backend": record.backend, "engine": chosen}
    notes = []
    if record.time_zone and record.time_zone.upper() not in ("UTC", "ETC/UTC", "Z"):
        notes.append(f"the run used time zone {record.time_zone}; files are re-read in UTC as `ubunye hash` "
                     "reads them, so a text timestamp column may hash differently")
    return Verification(run, checks, problems, notes)
