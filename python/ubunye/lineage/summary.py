"""What ``list`` and ``search`` show of one run, below the store and its index (which keep it).

A :class:`RunSummary` never shows a false 0: a row count that any input (or
output) did not record is ``None`` for the whole side, shown as ``-``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ubunye.lineage.ending import shown_status
from ubunye.lineage.record import RunRecord, Step


def _rows(steps: Sequence[Step]) -> Optional[int]:
    """The total row count, or None when there is no step or any step lacks a whole-number one."""
    counts = [s.row_count for s in steps]
    if not counts or not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        return None
    return sum(c for c in counts if c is not None)


@dataclass(frozen=True)
class RunSummary:
    """What ``list`` and ``search`` show of one run."""

    run_id: str
    task_path: str
    started_at: Optional[str]
    status: str
    duration_sec: Optional[float]
    rows_in: Optional[int]
    rows_out: Optional[int]

    @classmethod
    def of(cls, record: RunRecord) -> "RunSummary":
        task_path = record.task_path or f"{record.usecase}/{record.package}/{record.task_name}"
        return cls(record.run_id, task_path, record.started_at, shown_status(record), record.duration_sec,
                   _rows(record.inputs), _rows(record.outputs))

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "task_path": self.task_path,
            "started_at": self.started_at,
            "status": self.status,
            "duration_sec": self.duration_sec,
            "rows_in": self.rows_in,
            "rows_out": self.rows_out,
        }
