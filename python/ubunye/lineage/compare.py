"""Compare two run records field by field: what changed between two runs.

``compare_records(a, b)`` returns a :class:`Comparison`: a verdict with both
values for the status, config, code, environment (which packages moved),
variables, every input and output (row count, schema hash, data hash), every
expectation and every timing (with the ratio ``b / a``).

Data hashes follow ``shared/spec/run-record.md``:

- a hash missing on either side is ``unknown`` with the reason (two missing
  hashes are never ``unchanged``);
- hashes made by different methods, or by a method older than rows-v1, are
  ``not comparable`` (never ``changed``);
- otherwise ``unchanged`` or ``changed``.

The verdict is :func:`ubunye.lineage.verdict.decide`'s (the one rule of "proven the
same"): only when both runs succeeded, they are two runs (not one run twice) and every
input and output is present in both runs with its row count, schema hash and data
hash ``unchanged``; :attr:`Comparison.problems` says in one line each why not. A run
whose record still says ``running`` (it has not ended, or was killed before it could
write its end) or that ended in ``error`` or ``interrupted`` proves nothing about
its data, whatever its steps say.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ubunye.lineage.ending import ABANDONED, abandoned_reason, shown_status
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.verdict import Trust, Verdict, decide

ROWS_V1 = "rows-v1"
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")

UNCHANGED = "unchanged"
CHANGED = "changed"
UNKNOWN = "unknown"
NOT_COMPARABLE = "not comparable"
MISSING = "missing"

SUCCESS = "success"

# When a step's parts disagree, the step takes the most serious verdict.
_SEVERITY = {UNCHANGED: 0, UNKNOWN: 1, NOT_COMPARABLE: 2, MISSING: 3, CHANGED: 4}


@dataclass
class FieldDiff:
    """One compared value: its verdict, both values, and why when not decided."""

    name: str
    verdict: str
    a: Any = None
    b: Any = None
    reason: Optional[str] = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "verdict": self.verdict, "a": self.a, "b": self.b}
        if self.reason is not None:
            d["reason"] = self.reason
        d.update(self.detail)
        return d


@dataclass
class StepDiff:
    """One input or output matched by (direction, name) across the two runs."""

    direction: str
    name: str
    verdict: str
    row_count: FieldDiff
    schema_hash: FieldDiff
    data_hash: FieldDiff
    location: FieldDiff
    reason: Optional[str] = None
    # The reader settings (options and schema) of an input: they explain a change, so they
    # are reported (``reason``) but never decide the verdict, which the hashes decide.
    reader: Optional[FieldDiff] = None
    # Which rows differ (a changed data hash, both steps with a sketch): see lineage/localise.py.
    where: Optional[Any] = None
    # The partitions whose rows changed (both steps with per-partition sums of the same
    # columns): [{"partition", "rows_before", "rows_after"}], see hashing/partition_sums.py.
    partitions: Optional[list[dict[str, Any]]] = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "direction": self.direction,
            "name": self.name,
            "verdict": self.verdict,
            "row_count": self.row_count.to_dict(),
            "schema_hash": self.schema_hash.to_dict(),
            "data_hash": self.data_hash.to_dict(),
            "location": self.location.to_dict(),
        }
        if self.reader is not None:
            d["reader"] = self.reader.to_dict()
        if self.where is not None:
            d["where"] = self.where.to_dict()
        if self.partitions is not None:
            d["partitions"] = [dict(p) for p in self.partitions]
        if self.reason is not None:
            d["reason"] = self.reason
        return d


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


def run_identity(record: RunRecord) -> dict[str, Any]:
    """The few fields that name a run in a comparison or a search result."""
    return {
        "run_id": record.run_id,
        "task_path": record.task_path or f"{record.usecase}/{record.package}/{record.task_name}",
        "started_at": record.started_at,
        "status": record.status,
        "record_version": record.record_version,
        "engine_version": record.engine_version,
    }


def status_problem(record: RunRecord, label: str) -> Optional[str]:
    """One line when ``record`` is not of a run that succeeded, else None."""
    if record.status == SUCCESS:
        return None
    if shown_status(record) == ABANDONED:
        return (f"{label} was abandoned (status running, but {abandoned_reason(record)}: it was stopped "
                "before it could record its end): its record is not final")
    if record.status == "running":
        return (f"{label} has not ended (status running: still running, or stopped before it "
                "could record its end): its record is not final")
    return f"{label} did not succeed (status {record.status})"


def compare_records(a: RunRecord, b: RunRecord, *, trust: Optional[Trust] = None) -> Comparison:
    """Compare run ``a`` (the older, usually) with run ``b``, field by field; the verdict is
    :func:`ubunye.lineage.verdict.decide`'s (``trust``: its hook)."""
    from ubunye.lineage.compare_checks import compare_expectations, compare_timings

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


def _plain(name: str, a: Any, b: Any) -> FieldDiff:
    return FieldDiff(name, UNCHANGED if a == b else CHANGED, a, b)


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


def _ratio(a: Any, b: Any) -> Optional[float]:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0:
        return round(float(b) / float(a), 4)
    return None


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


# ---------------------------------------------------------------- inputs and outputs


def _method(step: Step) -> str:
    return step.hash_method or "none recorded"


def _why_no_hash(step: Step) -> str:
    if step.hash_error:
        return f"hash failed: {step.hash_error}"
    if step.hash_method is None and step.row_count is None:
        return "not hashed when the run was recorded"
    return "no data hash recorded"


def _hash_diff(name: str, sa: Step, sb: Step, va: Optional[str], vb: Optional[str],
               labels: tuple[str, str] = ("run A", "run B")) -> FieldDiff:
    failed = [f"{label}: hash failed: {s.hash_error}" for label, s in zip(labels, (sa, sb)) if s.hash_error]
    if name == "data_hash" and failed and va is not None and vb is not None:  # a hash beside its failure
        return FieldDiff(name, UNKNOWN, va, vb, reason="; ".join(failed))
    if va is None or vb is None:
        parts = []
        if va is None:
            parts.append(f"{labels[0]}: {_why_no_hash(sa)}")
        if vb is None:
            parts.append(f"{labels[1]}: {_why_no_hash(sb)}")
        return FieldDiff(name, UNKNOWN, va, vb, reason="; ".join(parts))
    ma, mb = _method(sa), _method(sb)
    if ma != mb:
        return FieldDiff(name, NOT_COMPARABLE, va, vb,
                         reason=f"hashed by different methods: {ma} vs {mb}",
                         detail={"method_a": sa.hash_method, "method_b": sb.hash_method})
    if ma != ROWS_V1:
        return FieldDiff(name, NOT_COMPARABLE, va, vb,
                         reason=f"both hashed by a method older than rows-v1 ({ma}); the hash does not prove the rows",
                         detail={"method_a": sa.hash_method, "method_b": sb.hash_method})
    malformed = [label for label, v in zip(labels, (va, vb)) if not _SHA256.fullmatch(v)]
    if malformed:  # a damaged or forged record: an empty or short "hash" proves nothing
        return FieldDiff(name, NOT_COMPARABLE, va, vb,
                         reason=f"not a rows-v1 hash (sha256:<64 hex digits>) in {' and '.join(malformed)}")
    return _plain(name, va, vb)


def _rows_diff(sa: Step, sb: Step, labels: tuple[str, str] = ("run A", "run B")) -> FieldDiff:
    if sa.row_count is None or sb.row_count is None:
        both = sa.row_count is None and sb.row_count is None
        reason = (f"recorded in neither {labels[0]} nor {labels[1]}" if both
                  else f"not recorded in {labels[0] if sa.row_count is None else labels[1]}")
        return FieldDiff("row_count", UNKNOWN, sa.row_count, sb.row_count, reason=reason)
    return _plain("row_count", sa.row_count, sb.row_count)


def compare_steps(direction: str, name: str, sa: Step, sb: Step,
                  labels: tuple[str, str] = ("run A", "run B")) -> StepDiff:
    """Compare one input or output of two runs (row count, schema and data hash).

    ``labels`` name the two sides in the reasons (``verify`` uses "recorded"/"now").
    """
    rows = _rows_diff(sa, sb, labels)
    schema = _hash_diff("schema_hash", sa, sb, sa.schema_hash, sb.schema_hash, labels)
    data = _hash_diff("data_hash", sa, sb, sa.data_hash, sb.data_hash, labels)
    location = _plain("location", sa.location, sb.location)
    verdict = max((rows.verdict, schema.verdict, data.verdict), key=lambda v: _SEVERITY[v])
    where = parts = None
    if data.verdict == CHANGED:  # the hash decides; the sketch and the partition sums only say where
        from ubunye.hashing.partition_sums import changed
        from ubunye.lineage.localise import locate

        where = locate(sa, sb)
        parts = changed(sa.partitions, sb.partitions)
    return StepDiff(direction, name, verdict, rows, schema, data, location, reader=_reader_diff(sa, sb, labels),
                    where=where, partitions=parts)


def _settings(step: Step) -> Optional[dict[str, Any]]:
    if step.options is None and step.schema is None:
        return None
    return {"options": dict(step.options or {}), "schema": step.schema}


def reader_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What moved between two steps' reader settings, one phrase each (``option sep ',' -> ';'``)."""
    out = []
    oa, ob = a["options"], b["options"]
    for key in sorted(oa.keys() | ob.keys()):
        if key not in ob:
            out.append(f"option {key} {oa[key]!r} removed")
        elif key not in oa:
            out.append(f"option {key} {ob[key]!r} added")
        elif oa[key] != ob[key]:
            out.append(f"option {key} {oa[key]!r} -> {ob[key]!r}")
    if a["schema"] != b["schema"]:
        def shown(ddl: Optional[str]) -> str:
            return "inferred" if ddl is None else repr(ddl)

        out.append(f"schema {shown(a['schema'])} -> {shown(b['schema'])}")
    return out


def _reader_diff(sa: Step, sb: Step, labels: tuple[str, str]) -> Optional[FieldDiff]:
    """The inputs' reader settings (options, schema); None when neither step has any (outputs)."""
    a, b = _settings(sa), _settings(sb)
    if a is None and b is None:
        return None
    if a is None or b is None:
        return FieldDiff("reader", UNKNOWN, a, b,
                         reason=f"reader settings not recorded in {labels[0] if a is None else labels[1]}")
    changes = reader_changes(a, b)
    if not changes:
        return FieldDiff("reader", UNCHANGED, a, b)
    return FieldDiff("reader", CHANGED, a, b, reason="; ".join(changes))


def _absent_step(direction: str, name: str, sa: Optional[Step], sb: Optional[Step]) -> StepDiff:
    side = "run A" if sa is None else "run B"
    present = sa or sb
    assert present is not None

    def half(attr: str) -> FieldDiff:
        va = getattr(sa, attr) if sa is not None else None
        vb = getattr(sb, attr) if sb is not None else None
        return FieldDiff(attr, MISSING, va, vb, reason=f"not in {side}")

    return StepDiff(direction, name, MISSING, half("row_count"), half("schema_hash"), half("data_hash"),
                    half("location"), reason=f"{direction} {name!r} is not in {side}")


def _twice(direction: str, name: str, sides: list[str]) -> StepDiff:
    """A name that one run's record gives to two of its inputs (or outputs): which of them to
    compare is not known, so nothing about it is proven (a damaged or forged record)."""
    why = f"{direction} {name!r} appears more than once in {' and '.join(sides)}: the record is ambiguous"
    parts = [FieldDiff(f, NOT_COMPARABLE, reason=why) for f in ("row_count", "schema_hash", "data_hash", "location")]
    return StepDiff(direction, name, NOT_COMPARABLE, *parts, reason=why)


def compare_run_steps(a: RunRecord, b: RunRecord) -> list[StepDiff]:
    """Every input and output of two runs matched by (direction, name), compared."""
    out: list[StepDiff] = []
    for direction, la, lb in (("input", a.inputs, b.inputs), ("output", a.outputs, b.outputs)):
        da = {s.name: s for s in la}
        db = {s.name: s for s in lb}
        names = list(da) + [n for n in db if n not in da]
        for name in names:
            sa, sb = da.get(name), db.get(name)
            twice = [side for side, lx in (("run A", la), ("run B", lb)) if [s.name for s in lx].count(name) > 1]
            if twice:
                out.append(_twice(direction, name, twice))
            elif sa is not None and sb is not None:
                out.append(compare_steps(direction, name, sa, sb))
            else:
                out.append(_absent_step(direction, name, sa, sb))
    return out


def describe_problem(step: StepDiff) -> str:
    """One line: why this step is not proven the same."""
    if step.reason:
        return step.reason
    parts = []
    for f in (step.row_count, step.schema_hash, step.data_hash):
        if f.verdict != UNCHANGED:
            text = f"{f.name.replace('_', ' ')} {f.verdict}"
            if f.verdict == CHANGED:
                text += f" ({f.a} -> {f.b})"
            elif f.reason:
                text += f" ({f.reason})"
            parts.append(text)
    line = f"{step.direction} {step.name!r}: " + ", ".join(parts)
    if step.where is not None:
        line += f"; {step.where.summary}"
    if step.partitions:
        from ubunye.hashing.partition_sums import describe

        line += "; partitions changed: " + ", ".join(describe(p) for p in step.partitions)
    if step.reader is not None and step.reader.verdict == CHANGED:
        line += f"; reader settings changed: {step.reader.reason}"
    return line
