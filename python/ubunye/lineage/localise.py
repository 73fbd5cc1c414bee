"""Where two runs' data differ, from their records alone (``ubunye lineage diff``): per step, the
data hash's verdict and the rows-v1 sketches decoded (:func:`~ubunye.lineage.step_diff.locate`,
spec: ``docs/spec/rows-v1-localise.md``), which never decide *same* or *changed*: the data hash does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ubunye.lineage.step_diff import CHANGED, compare_run_steps, no_sketch_reason, run_identity
from ubunye.lineage.step_diff import Where, locate  # noqa: F401 (handed on: where rows differ)
from ubunye.lineage.verdict import decide


@dataclass
class StepChange:
    """One step of :func:`diff_records`: its data hash verdict and, when changed, where."""

    direction: str
    name: str
    verdict: str  # the data hash's: unchanged, changed, unknown, not comparable, missing
    where: Optional[Where] = None
    reason: Optional[str] = None  # why the rows cannot be named (no sketch ...) or the hash not compared
    partitions: Optional[list[dict[str, Any]]] = None  # the partitions whose rows changed

    @property
    def differs(self) -> bool:
        return self.verdict in ("changed", "missing")

    @property
    def proven_same(self) -> bool:
        """Its data hash is unchanged; any other verdict (changed, missing, unknown, not comparable)
        is named by ``diff`` and ``diff --rows``, whatever else differs."""
        return self.verdict == "unchanged"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"direction": self.direction, "name": self.name, "data_hash": self.verdict,
                             "removed": [], "added": [], "complete": None, "partitions": None}
        if self.where is not None:
            d.update(self.where.to_dict())
        if self.partitions is not None:
            d["partitions"] = [dict(p) for p in self.partitions]
        if self.reason is not None:
            d["reason"] = self.reason
        return d


@dataclass
class RunDiff:
    """What ``ubunye lineage diff`` reports: per step of two runs, the rows that differ."""

    run_a: dict[str, Any]
    run_b: dict[str, Any]
    steps: list[StepChange]
    verdict: Any = None  # ubunye.lineage.verdict.Verdict of these steps: exit 0 only when proven the same

    @property
    def differs(self) -> bool:
        return any(s.differs for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "differs": self.differs,
                "proven_same": bool(self.verdict is not None and self.verdict.proven_same),
                "verdict": self.verdict.outcome if self.verdict is not None else None,
                "problems": list(self.verdict.reasons) if self.verdict is not None else [],
                "steps": [s.to_dict() for s in self.steps]}


class UnknownStep(LookupError):
    """``--name`` names no input or output of either run."""


def diff_records(a: Any, b: Any, name: Optional[str] = None, *, trust: Any = None) -> RunDiff:
    """Per input and output of runs ``a`` and ``b`` (``name``: only that step), the data
    hash's verdict and, where it changed, the rows removed and added; the verdict over
    those steps is :func:`ubunye.lineage.verdict.decide`'s (``trust``: its hook)."""
    steps = []
    chosen = [d for d in compare_run_steps(a, b) if name is None or d.name == name]
    for diff in chosen:
        change = StepChange(diff.direction, diff.name, diff.data_hash.verdict, reason=diff.data_hash.reason)
        if diff.data_hash.verdict == CHANGED:
            sa = next(s for s in (a.inputs if diff.direction == "input" else a.outputs) if s.name == diff.name)
            sb = next(s for s in (b.inputs if diff.direction == "input" else b.outputs) if s.name == diff.name)
            change.where, change.partitions = diff.where, diff.partitions
            if diff.where is None:
                change.reason = no_sketch_reason(sa, sb) or "the sketches cannot be decoded"
        elif diff.verdict == "missing":
            change.verdict, change.reason = "missing", diff.reason
        steps.append(change)
    if name is not None and not steps:
        raise UnknownStep(f"no input or output named {name!r} in run {a.run_id} or run {b.run_id}")
    return RunDiff(run_identity(a), run_identity(b), steps, decide(a, b, steps=chosen, trust=trust))
