"""What a task run did (:class:`TaskResult`) and where a task's own code raised."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ubunye.engine.errors import EngineError
from ubunye.masking import current


@dataclass
class TaskResult:
    """What a task run did: its status, its record and, on failure, why."""

    task_path: str
    run_id: str
    status: str = "running"
    error: Optional[BaseException] = None
    record: Any = None  # RunRecord, when recorded
    record_path: Optional[Path] = None
    record_errors: list[Any] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    expectations: list[dict[str, Any]] = field(default_factory=list)
    timings: list[dict[str, Any]] = field(default_factory=list)
    raised_at: Optional[str] = None  # "file.py:line in function" of the task's code that raised
    # Why an engine other than the preferred one hashed: {"spark-sql": fp.reason} (the first
    # step's reason), for the terminal; the record keeps each step's hash_engine and hash_pass.
    hash_reasons: dict[str, str] = field(default_factory=dict)
    masker: Any = field(default=None, repr=False, compare=False)  # the run's (ubunye.masking.Masker)

    @property
    def ok(self) -> bool:
        return self.status == "success" and not self.record_errors

    def note_hash_reasons(self, events: list[Any]) -> None:
        """Keep, per engine, the first reason a step's fingerprint gave (why the fallback hashed)."""
        for event in events:
            fp = getattr(event, "fingerprint", None)
            if getattr(fp, "engine", None) and getattr(fp, "reason", None):
                self.hash_reasons.setdefault(str(fp.engine), str(fp.reason))

    # ubunye-engine 0.8.0's run_task returned the outputs dict: a result reads like one
    # (result["name"], keys(), items(), values(), in, iteration over output names).
    def __getitem__(self, name: str) -> Any:
        if name not in self.outputs:
            raise KeyError(f"{self.task_path}: no output {name!r} (outputs: {', '.join(self.outputs) or 'none'})")
        return self.outputs[name]

    def __contains__(self, name: object) -> bool:
        return name in self.outputs

    def __iter__(self) -> Any:
        return iter(self.outputs)

    def keys(self) -> Any:
        return self.outputs.keys()

    def items(self) -> Any:
        return self.outputs.items()

    def values(self) -> Any:
        return self.outputs.values()

    def reason(self) -> str:
        """One line, masked (by the run's masker): why the run failed, or why its record is missing."""
        mask = (self.masker or current()).text
        if self.error is not None:
            from ubunye.lineage.ending import describe

            if isinstance(self.error, Exception):
                text = str(self.error) if isinstance(self.error, EngineError) else describe(self.error)
                text = " ".join(mask(text).split()).rstrip(": ")
                return mask(f"{self.raised_at}: {text}" if self.raised_at else text)
            return mask(" ".join(describe(self.error, self.raised_at).split()))  # SystemExit, a signal: says where
        if self.record_errors:
            return mask(" ".join(mask(self.record_errors[0]).split()))
        return self.status

    def __repr__(self) -> str:  # a notebook shows it: the error's text is masked like the reason
        mask = (self.masker or current()).text
        error = None if self.error is None else f"{type(self.error).__name__}({mask(self.error)!r})"
        return mask(f"TaskResult(task_path={self.task_path!r}, run_id={self.run_id!r}, status={self.status!r}, "
                    f"error={error}, record_path={self.record_path!r}, outputs={list(self.outputs)!r})")


def task_frame(exc: BaseException, task_dir: Path) -> str:
    """Where in the task folder ``exc`` was raised: ``file.py:line in function`` of the
    innermost frame under ``task_dir`` (the task's own code), else ``the transform``."""
    root = Path(task_dir).resolve()
    found = "the transform"
    tb = exc.__traceback__
    while tb is not None:
        file = Path(tb.tb_frame.f_code.co_filename)
        try:
            relative = file.resolve().relative_to(root)
        except (OSError, ValueError):
            relative = None
        if relative is not None:
            found = f"{relative}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return found
