"""Errors of the run-record store and recorder.

Every error names its culprit (a path, a run id prefix, a name) in one line, so
the CLI can print ``str(exc)`` as it is.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from ubunye.masking import MaskedError, mask


class LineageError(MaskedError):
    """Base class of every run-record error; its texts are masked when it is made."""


class InvalidName(LineageError, ValueError):
    """A usecase, package or task name that cannot be a single folder name."""

    def __init__(self, kind: str, name: str, reason: str) -> None:
        self.kind = kind
        self.name = name
        super().__init__(f"invalid {kind} name {name!r}: {reason}")


class RecordNotFound(LineageError, LookupError):
    """No record matches a task (and run id prefix)."""

    def __init__(self, task_path: str, run_id_prefix: Optional[str], where: Path) -> None:
        self.task_path = task_path
        self.run_id_prefix = run_id_prefix
        self.where = where
        what = f"run {run_id_prefix!r} of {task_path}" if run_id_prefix else f"run of {task_path}"
        super().__init__(f"no {what} in {where}")


class AmbiguousRunId(LineageError, LookupError):
    """A run id prefix that matches more than one record."""

    def __init__(self, task_path: str, run_id_prefix: str, matches: Sequence[str]) -> None:
        self.task_path = task_path
        self.run_id_prefix = run_id_prefix
        self.matches = list(matches)
        shown = ", ".join(sorted(self.matches)[:5])
        more = f" and {len(self.matches) - 5} more" if len(self.matches) > 5 else ""
        super().__init__(
            f"run id prefix {run_id_prefix!r} of {task_path} matches {len(self.matches)} runs: "
            f"{shown}{more}; give more characters"
        )


class UnreadableRecord(LineageError):
    """A record file that is not a readable run record."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = mask(reason)
        super().__init__(f"unreadable run record {path}: {reason}")


class RecordWriteError(LineageError):
    """A record that could not be written (the run itself may have succeeded)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = mask(reason)
        super().__init__(f"could not write run record {path}: {reason}")


class RecordUnsigned(RecordWriteError):
    """A final record that was written but could not be signed (the key cannot be used): kept,
    and still an error of the write, so the run exits non-zero naming why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = mask(reason)
        LineageError.__init__(self, f"run record {path} was written unsigned: {reason}")
