"""Human output of the ``ubunye lineage`` results (``--json`` prints ``to_dict()`` instead)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from ubunye.cli.render import cell, echo, paint, short_hash, table

if TYPE_CHECKING:  # only the command that needs a result type imports its module
    from ubunye.lineage.compare import Comparison, FieldDiff
    from ubunye.lineage.search import RunList
    from ubunye.lineage.trace import Trace, TraceStep
    from ubunye.lineage.verify import Verification

_HASHES = ("schema_hash", "data_hash", "config", "code", "environment")


def _when(text: Optional[str]) -> str:
    """``2026-11-30 14:20:46`` from an ISO-8601 time (UTC as written)."""
    if not text:
        return "-"
    return str(text).replace("T", " ")[:19]


def _secs(value: Any) -> str:
    return f"{value:.3f}s" if isinstance(value, (int, float)) else "-"


def _value(name: str, value: Any, width: int = 40) -> str:
    """A value for a table cell: hashes shortened, long texts cut at ``width``."""
    if name in _HASHES and isinstance(value, str):
        return short_hash(value)
    if isinstance(value, dict):
        text = json.dumps(value, sort_keys=True)
    elif isinstance(value, float):
        text = f"{value:.4f}"
    else:
        text = " ".join(cell(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def run_list(result: RunList, *, with_task: bool) -> None:
    """``list`` / ``search``: one aligned row per run."""
    if not result.runs:
        echo("no runs")
        return
    headers = (["TASK"] if with_task else []) + ["RUN", "STARTED", "STATUS", "DURATION", "ROWS IN", "ROWS OUT"]
    rows: list[list[Any]] = [
        ([r.task_path] if with_task else []) + [r.run_id[:8], _when(r.started_at), r.status,
                                                _secs(r.duration_sec), r.rows_in, r.rows_out]
        for r in result.runs]
    echo(table(headers, rows, colour_column=3 if with_task else 2))


def _diff_rows(diffs: list[FieldDiff], key: Optional[str] = None) -> list[list[Any]]:
    rows = []
    for d in diffs:
        note = d.reason or ""
        if "ratio" in d.detail and d.detail["ratio"] is not None:
            note = f"x{d.detail['ratio']}"
        rows.append([d.name, d.verdict, _value(key or d.name, d.a), _value(key or d.name, d.b), note])
    return rows


def comparison(result: Comparison) -> None:
    """``compare``: every field, step, expectation and timing with both values."""
    a, b = result.run_a, result.run_b
    echo(f"A: {a['run_id']}  {_when(a['started_at'])}  {a['task_path']}  (record v{a['record_version']})")
    echo(f"B: {b['run_id']}  {_when(b['started_at'])}  {b['task_path']}  (record v{b['record_version']})")
    echo()
    echo(table(["FIELD", "VERDICT", "A", "B", "NOTE"], _diff_rows(result.fields), colour_column=1))
    env = next((f for f in result.fields if f.name == "environment"), None)
    if env is not None:
        for kind in ("moved", "added", "removed"):
            for item in env.detail["packages"][kind]:
                text = (f"{item['from']} -> {item['to']}" if kind == "moved" else item["value"])
                echo(f"  package {kind}: {item['name']} {text}")
    variables = next((f for f in result.fields if f.name == "variables"), None)
    if variables is not None:
        for kind in ("moved", "added", "removed"):
            for item in variables.detail["keys"][kind]:
                text = (f"{item['from']!r} -> {item['to']!r}" if kind == "moved" else repr(item["value"]))
                echo(f"  variable {'changed' if kind == 'moved' else kind}: {item['name']} {text}")
    echo()
    rows = []
    for s in result.steps:
        for part in (s.row_count, s.schema_hash, s.data_hash):
            rows.append([f"{s.direction} {s.name}", part.name, part.verdict, _value(part.name, part.a),
                         _value(part.name, part.b), part.reason or ""])
        if s.reader is not None and s.reader.verdict != "unchanged":  # options or schema moved: why
            rows.append([f"{s.direction} {s.name}", "reader", s.reader.verdict, "", "", s.reader.reason or ""])
    echo(table(["STEP", "PART", "VERDICT", "A", "B", "NOTE"], rows, colour_column=2) if rows else "no steps")
    if result.expectations:
        echo()
        echo(table(["EXPECTATION", "VERDICT", "A", "B", "NOTE"],
                   [[e.name, e.verdict, _outcome(e.a), _outcome(e.b), _rule_note(e)] for e in result.expectations],
                   colour_column=1))
    if result.timings:
        echo()
        echo(table(["TIMING", "VERDICT", "A", "B", "RATIO"],
                   [[t.name, t.verdict, _secs(t.a), _secs(t.b), t.detail.get("ratio")] for t in result.timings],
                   colour_column=1))
    echo()
    _proof(result.data_proven_same, result.problems)


def _rule_note(e: FieldDiff) -> str:
    """What moved in an expectation: its outcome, its failure count, or only the rows checked."""
    if e.reason or e.verdict != "changed":
        return e.reason or ""
    notes = []
    if e.detail.get("outcome_changed"):
        notes.append("outcome changed")
    if e.detail.get("failed_changed"):
        notes.append(f"failures {cell(e.a['failed'])} -> {cell(e.b['failed'])}")
    if e.a.get("total") != e.b.get("total"):
        notes.append(f"rows checked {cell(e.a['total'])} -> {cell(e.b['total'])}")
    return ", ".join(notes) or "severity changed"


def _outcome(value: Any) -> str:
    if not isinstance(value, dict):
        return "-"
    verdict = "passed" if value.get("passed") else "FAILED"
    return f"{verdict} ({cell(value.get('failed'))} of {cell(value.get('total'))} failed)"


def _proof(same: bool, problems: list[str]) -> None:
    if same:
        echo(paint("data proven the same: every input and output matches", "same"))
        return
    echo(paint("data NOT proven the same:", "no"))
    for p in problems:
        echo(f"  - {p}")


def _story_step(s: TraceStep) -> None:
    echo(f"  {s.name}  ({s.format or '-'})  {s.location or '-'}")
    if s.no_hash_reason is None:
        echo(f"    rows {cell(s.row_count)}, schema {short_hash(s.schema_hash)}, data {short_hash(s.data_hash)}"
             f"  [{s.method}{', ' + s.engine if s.engine else ''}{', ' + s.hash_pass if s.hash_pass else ''}]")
    else:
        echo(f"    rows {cell(s.row_count)}; no proof of the rows: {s.no_hash_reason}")
    if s.hash_reused_from and s.hash_pass == "reused":
        echo(f"    hash taken from {s.hash_reused_from} (the same files)")
    if s.handed_in:
        echo("    handed in by the caller (write(outputs=...)): not made by the task's transform in this run")
    if s.seconds is not None:
        echo(f"    {'read' if s.direction == 'input' else 'written'} in {_secs(s.seconds)}")


def trace(result: Trace) -> None:
    """``trace``: the run as a story, in the order the data moved."""
    r = result.run
    echo(f"Run {r['run_id']} of {r['task_path']}: {paint(r['status'])}")
    echo(f"  started {_when(r['started_at'])}, took {_secs(r['duration_sec'])}, profile {cell(r['profile'])}, "
         f"backend {cell(r['backend'])}, time zone {cell(r['time_zone'])}")
    if r["error"]:
        echo(f"  error: {r['error'].splitlines()[0]}")
    if r["variables"]:
        echo("  variables: " + ", ".join(f"{k}={v}" for k, v in r["variables"].items()))
    echo("Read:" if result.inputs else "Read: nothing recorded")
    for s in result.inputs:
        _story_step(s)
    echo("Transform:" if result.transform else "Transform: no timing recorded")
    for t in result.transform:
        echo(f"  {t.get('step')} in {_secs(t.get('seconds'))}")
    echo("Wrote:" if result.outputs else "Wrote: nothing recorded")
    for s in result.outputs:
        _story_step(s)
    c = result.code
    echo(f"Code: {short_hash(c['code_hash'])}, config {short_hash(c['config_hash'])}, "
         f"model {cell(c['model'])} {cell(c['version'])}")
    env = result.environment
    packages = env.get("packages") or {}
    echo(f"Environment: {short_hash(env.get('environment_hash'))}, python {cell(env.get('python'))} on "
         f"{cell(env.get('platform'))}/{cell(env.get('machine'))}; "
         + ", ".join(f"{k} {v}" for k, v in packages.items()))
    if result.timings:
        echo("Timings:")
        for t in result.timings:
            target = t.get("input") or t.get("output")
            echo(f"  {t.get('step')}{'(' + target + ')' if target else ''}: {_secs(t.get('seconds'))}")
    if result.expectations:
        echo("Expectations:")
        rows = [[e.get("output"), e.get("rule"), e.get("severity"),
                 "passed" if e.get("passed") else "FAILED", f"{cell(e.get('failed'))}/{cell(e.get('total'))}"]
                for e in result.expectations]
        echo(table(["ON", "RULE", "SEVERITY", "RESULT", "FAILED"], rows))
    for note in result.notes:
        echo(f"Note: {note}")


def verification(result: Verification) -> None:
    """``verify``: step by step, is the data still what the run read and wrote?"""
    r = result.run
    echo(f"Verifying run {r['run_id']} of {r['task_path']} with {r['engine']}")
    for s in result.steps:
        echo(f"{s.direction} {s.name}: {paint(s.verdict)}  {s.location or '-'}")
        if s.diff is None:
            echo(f"    {s.reason}")
            continue
        for part in (s.diff.row_count, s.diff.schema_hash, s.diff.data_hash):
            note = f"  ({part.reason})" if part.reason else ""
            echo(f"    {part.name}: {part.verdict}: recorded {_value(part.name, part.a)}, "
                 f"now {_value(part.name, part.b)}{note}")
    for note in result.notes:
        echo(f"Note: {note}")
    echo()
    _proof(result.data_proven_same, result.problems)


def json_lines(events: list[dict[str, Any]]) -> None:
    """``openlineage``: one compact JSON document per line."""
    for event in events:
        echo(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
