"""Compare two run records field by field: what changed between two runs.

``compare_records(a, b)`` returns a :class:`Comparison`: a verdict with both
values for the status, config, code, environment (which packages moved),
variables, every input and output (row count, schema hash, data hash), every
expectation and every timing (with the ratio ``b / a``).

Inputs and outputs are compared by :mod:`.step_diff` (the rules of data hashes are there),
expectations and timings by :mod:`.compare_checks`.

The verdict is :func:`ubunye.lineage.verdict.decide`'s (the one rule of "proven the
same"): only when both runs succeeded, they are two runs (not one run twice) and every
input and output is present in both runs with its row count, schema hash and data
hash ``unchanged``; :attr:`Comparison.problems` says in one line each why not. A run
whose record still says ``running`` (it has not ended, or was killed before it could
write its end) or that ended in ``error`` or ``interrupted`` proves nothing about
its data, whatever its steps say.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ubunye.lineage.compare_checks import compare_expectations, compare_timings
from ubunye.lineage.record import RunRecord
# the step comparison's names, handed on to the callers that import them from here
from ubunye.lineage.step_diff import (CHANGED, MISSING, NOT_COMPARABLE, ROWS_V1, SUCCESS, UNCHANGED, UNKNOWN,  # noqa: F401
                                      FieldDiff, StepDiff, _plain, _ratio, compare_run_steps, compare_steps,
                                      describe_problem, reader_changes, run_identity, status_problem)
from ubunye.lineage.verdict import Trust, Verdict, decide


@dataclass
class Comparison:
    """The result of :func:`compare_records`."""

    run_a: dict[str, Any]
    run_b: dict[str, Any]
    fields: list[FieldDiff]
    steps: list[StepDiff]
    expectations: list[FieldDiff]
    timings: list[FieldDiff]
    problems: list[str]
    verdict: Optional[Verdict] = None  # the problems are its reasons

    @property
    def data_proven_same(self) -> bool:
        """True only when the verdict is proven the same (every input and output, two runs that succeeded)."""
        return self.verdict is not None and self.verdict.proven_same

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "data_proven_same": self.data_proven_same,
            "verdict": self.verdict.outcome if self.verdict is not None else None,
            "problems": list(self.problems),
            "fields": [f.to_dict() for f in self.fields],
            "steps": [s.to_dict() for s in self.steps],
            "expectations": [e.to_dict() for e in self.expectations],
            "timings": [t.to_dict() for t in self.timings],
        }


def compare_records(a: RunRecord, b: RunRecord, *, trust: Optional[Trust] = None) -> Comparison:
    """Compare run ``a`` (the older, usually) with run ``b``, field by field; the verdict is
    :func:`ubunye.lineage.verdict.decide`'s (``trust``: its hook)."""
    steps = compare_run_steps(a, b)
    verdict = decide(a, b, steps=steps, trust=trust)
    return Comparison(
        run_a=run_identity(a),
        run_b=run_identity(b),
        fields=_compare_fields(a, b),
        steps=steps,
        expectations=compare_expectations(a.expectations, b.expectations),
        timings=compare_timings(a, b),
        problems=list(verdict.reasons),
        verdict=verdict,
    )


# ---------------------------------------------------------------- top-level fields


def _recorded(name: str, a: Any, b: Any) -> FieldDiff:
    """A hash-like value: both missing or one missing is unknown, not a change."""
    if a is None or b is None:
        reason = ("recorded in neither run A nor run B" if a is None and b is None
                  else f"not recorded in {'run A' if a is None else 'run B'}")
        return FieldDiff(name, UNKNOWN, a, b, reason=reason)
    return _plain(name, a, b)


def _dict_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    moved = [{"name": k, "from": a[k], "to": b[k]} for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]
    added = [{"name": k, "value": b[k]} for k in sorted(b.keys() - a.keys())]
    removed = [{"name": k, "value": a[k]} for k in sorted(a.keys() - b.keys())]
    return {"moved": moved, "added": added, "removed": removed}


def _environment(a: RunRecord, b: RunRecord) -> FieldDiff:
    pa_, pb_ = dict(a.environment.get("packages") or {}), dict(b.environment.get("packages") or {})
    packages = _dict_diff(pa_, pb_)
    rest_a = {k: v for k, v in a.environment.items() if k != "packages"}
    rest_b = {k: v for k, v in b.environment.items() if k != "packages"}
    platform = _dict_diff(rest_a, rest_b)
    differs = any(packages[k] for k in packages) or any(platform[k] for k in platform)
    if not a.environment and not b.environment:
        verdict, reason = UNKNOWN, "recorded in neither run A nor run B"
    elif not a.environment or not b.environment:
        verdict, reason = UNKNOWN, f"not recorded in run {'A' if not a.environment else 'B'}"
    else:
        verdict, reason = (CHANGED if differs or a.environment_hash != b.environment_hash else UNCHANGED), None
    return FieldDiff(
        "environment", verdict, a.environment_hash, b.environment_hash, reason=reason,
        detail={"packages": packages, "platform": platform},
    )


def _variables(a: RunRecord, b: RunRecord) -> FieldDiff:
    diff = _dict_diff(a.variables, b.variables)
    changed = any(diff[k] for k in diff)
    return FieldDiff("variables", CHANGED if changed else UNCHANGED, a.variables, b.variables,
                     detail={"keys": diff})



def _handed_in(record: RunRecord) -> list[str]:
    """The outputs the caller handed in (``write(outputs=...)``) rather than the transform made."""
    return [s.name for s in record.outputs if s.handed_in]


def _compare_fields(a: RunRecord, b: RunRecord) -> list[FieldDiff]:
    duration = _plain("duration_sec", a.duration_sec, b.duration_sec)
    duration.detail["ratio"] = _ratio(a.duration_sec, b.duration_sec)
    return [
        _plain("task", run_identity(a)["task_path"], run_identity(b)["task_path"]),
        _plain("status", a.status, b.status),
        _plain("error", a.error, b.error),
        _recorded("config", a.config_hash, b.config_hash),
        _recorded("code", a.code_hash, b.code_hash),
        _environment(a, b),
        _variables(a, b),
        _plain("profile", a.profile, b.profile),
        _plain("backend", a.backend, b.backend),
        _plain("engine_version", a.engine_version, b.engine_version),
        _plain("time_zone", a.time_zone, b.time_zone),
        _plain("outputs_handed_in", _handed_in(a), _handed_in(b)),
        duration,
    ]
