"""One input or output of two runs compared (row count, schema hash, data hash, reader settings),
and where their rows differ: the lower module that :mod:`.compare`, :mod:`.verdict` and
:mod:`.localise` share.

Data hashes follow ``shared/spec/run-record.md``:

- a hash missing on either side is ``unknown`` with the reason (two missing
  hashes are never ``unchanged``);
- hashes made by different methods, or by a method older than rows-v1, are
  ``not comparable`` (never ``changed``);
- otherwise ``unchanged`` or ``changed``.

Where rows differ (:func:`locate`) is the rows-v1 sketches decoded (spec:
``docs/spec/rows-v1-localise.md``): which rows were removed and added, by name (``sha256:`` and
the first 32 hex digits of the row digest), or about how many differ when the difference is too
large to decode. It never decides *same* or *changed*: the data hash does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ubunye.lineage.ending import ABANDONED, abandoned_reason, shown_status
from ubunye.lineage.record import RunRecord, Step

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
    # Which rows differ (a changed data hash, both steps with a sketch): :func:`locate`.
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

def _plain(name: str, a: Any, b: Any) -> FieldDiff:
    return FieldDiff(name, UNCHANGED if a == b else CHANGED, a, b)


def _ratio(a: Any, b: Any) -> Optional[float]:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0:
        return round(float(b) / float(a), 4)
    return None

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


# ---------------------------------------------------------------- where rows differ


@dataclass
class Where:
    """The decoded difference of one step between two runs."""

    complete: bool
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    estimate: Optional[int] = None  # when not complete: about how many rows differ
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"complete": self.complete, "summary": self.summary,
                             "removed": list(self.removed), "added": list(self.added)}
        if not self.complete:
            d["estimate"] = self.estimate
        return d


def no_sketch_reason(sa: Step, sb: Step) -> Optional[str]:
    """Why the two steps cannot be localised, or None when both carry a usable sketch."""
    from ubunye.hashing.sketch import parse_record

    for label, step in (("run A", sa), ("run B", sb)):
        if step.sketch is None:
            return f"{label} recorded no sketch of its rows"
        try:
            parse_record(step.sketch)
        except ValueError as exc:
            return f"{label}'s sketch cannot be read: {exc}"
    if (sa.sketch.get("cells"), sa.sketch.get("k")) != (sb.sketch.get("cells"), sb.sketch.get("k")):
        return "the two runs' sketches are of different sizes"
    return None


def locate(sa: Step, sb: Step) -> Optional[Where]:
    """The rows removed (in A, not B) and added (in B, not A); None without two usable sketches."""
    from ubunye.hashing.sketch import difference

    if no_sketch_reason(sa, sb) is not None:
        return None
    got = difference(sa.sketch, sb.sketch)
    if got is None:
        return None
    if not got.complete:
        return Where(False, estimate=got.estimate, summary=got.summary())
    return Where(True, got.removed_names, got.added_names, summary=got.summary())
