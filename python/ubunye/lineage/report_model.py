"""What the lineage report shows, gathered from the records alone.

:func:`build_report` reads every task of a store (``-u/-p/-t`` and ``--since`` narrow it)
and returns a :class:`Report`: the graph of tasks and datasets, every run of every task
(oldest first) with the compare verdict of each step against the run before it, and each
run's whole record, masked. :mod:`ubunye.lineage.report_html` renders it; the notebook view
(:mod:`ubunye.lineage.view`) shows the same.

The graph is drawn as the newest run of each task saw it: a step's location names its
dataset (a local path normalised, a URL or table name as written), so a dataset written by
one task and read by another joins them. A step without a location is a dataset of its own
(``<task>:<direction>:<name>``). Nodes are placed in layers by the longest path from a
source (datasets feed tasks feed datasets), and ordered within a layer by the mean position
of their neighbours in the layer before (two sweeps), which keeps edges short and mostly
uncrossed without a layout library.
"""
from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Optional

from ubunye._names import visible
from ubunye.lineage.compare import (
    CHANGED, MISSING, NOT_COMPARABLE, UNCHANGED, UNKNOWN, compare_run_steps, describe_problem,
)
from ubunye.lineage.ending import shown_status
from ubunye.lineage.masking import mask_text
from ubunye.masking import current
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.search import RunSource, parse_since
from ubunye.lineage.verdict import decide

# The verdict words of the report (compare's five collapse to three).
SAME, CHANGED_WORD, UNKNOWN_WORD = "same", "changed", "unknown"
_VERDICT = {UNCHANGED: SAME, CHANGED: CHANGED_WORD, MISSING: CHANGED_WORD,
            UNKNOWN: UNKNOWN_WORD, NOT_COMPARABLE: UNKNOWN_WORD}

# How many of each task's newest runs the report shows in full (``lineage report --runs``).
FULL_RUNS = 50

# How many characters of whole records one page holds at most (forged or huge records included).
RECORD_BYTES = 64 * 2**20

# Layout, in SVG user units.
NODE_W, NODE_H, GAP_X, GAP_Y = 170, 44, 56, 18


@dataclass
class Report:
    """The report's data: ``tasks``, ``datasets``, ``edges``, ``layout`` and the masked ``records``."""

    tasks: list[dict[str, Any]]
    datasets: list[dict[str, Any]]
    edges: list[tuple[str, str]]
    layout: dict[str, tuple[float, float]]
    size: tuple[float, float]
    records: dict[str, str] = field(default_factory=dict)  # record key -> masked record JSON
    filters: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # what the page leaves out (damaged files, records), one line each

    @property
    def run_count(self) -> int:
        """Every run the report covers: those shown in full and the older ones counted."""
        return sum(task_runs(t) for t in self.tasks)

    def data(self) -> dict[str, Any]:
        """Everything but the records, as the page's scripts read it."""
        return {
            "filters": self.filters,
            "tasks": self.tasks,
            "datasets": self.datasets,
            "edges": [list(e) for e in self.edges],
            "layout": {k: [round(x, 1), round(y, 1)] for k, (x, y) in self.layout.items()},
            "size": [round(self.size[0], 1), round(self.size[1], 1)],
            "skipped": self.skipped,
        }


def _started(record: RunRecord) -> str:
    return record.started_at or ""


def dataset_key(task_path: str, step: Step) -> str:
    """The dataset a step reads or writes: its location (a local path normalised), else its own."""
    location = (step.location or "").strip()
    if not location:
        return f"{task_path}:{step.direction}:{step.name}"
    from ubunye.locations import local_path  # a file: URL and its plain path are one dataset

    local = local_path(location)
    if local is None:
        return location.rstrip("/") or location
    return posixpath.normpath(local)


def _rows(steps: list[Step]) -> Optional[int]:
    counts = [s.row_count for s in steps]
    if not counts or any(not isinstance(c, int) or isinstance(c, bool) for c in counts):
        return None
    return sum(counts)  # type: ignore[arg-type]


def _expectations(record: RunRecord) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "warned": 0}
    for rule in record.expectations:
        ok = rule.get("passed")
        if ok is None:
            ok = rule.get("success", rule.get("ok"))
        if ok is True:
            counts["passed"] += 1
        elif rule.get("severity") == "warn":
            counts["warned"] += 1
        else:
            counts["failed"] += 1
    return counts


def _engines(record: RunRecord) -> str:
    found = sorted({s.hash_engine for s in record.steps if s.hash_engine})
    return ", ".join(found)


def _verdicts(before: Optional[RunRecord], record: RunRecord,
              distrust: Optional[str] = None) -> Optional[dict[str, Any]]:
    """Each step's verdict against the run before (None for a task's first run); ``distrust``:
    why either record is not proven by its signature (then nothing is proven the same)."""
    if before is None:
        return None
    steps = []
    counts = {SAME: 0, CHANGED_WORD: 0, UNKNOWN_WORD: 0}
    for diff in compare_run_steps(before, record):
        word = _VERDICT.get(diff.verdict, UNKNOWN_WORD)
        if word == SAME and distrust:
            word = UNKNOWN_WORD
        counts[word] += 1
        entry: dict[str, Any] = {"direction": diff.direction, "name": diff.name, "verdict": word}
        if word != SAME:
            entry["rows"] = [diff.row_count.a, diff.row_count.b]
            entry["reason"] = mask_text(distrust or describe_problem(diff))  # compare's own line
        steps.append(entry)
    verdict = decide(before, record)  # the one rule: green only when proven the same
    return {"before": before.run_id, "counts": counts, "steps": steps, "outcome": verdict.outcome,
            "problems": [mask_text(p) for p in verdict.reasons]}


def _run_summary(key: str, before: Optional[RunRecord], record: RunRecord,
                 distrust: Optional[str] = None) -> dict[str, Any]:
    return {
        "key": key,
        "run_id": record.run_id,
        "status": shown_status(record),  # a running record whose process is gone: abandoned
        "started_at": record.started_at,
        "duration_sec": record.duration_sec,
        "backend": record.backend,
        "engine": _engines(record),
        "rows_in": _rows(record.inputs),
        "rows_out": _rows(record.outputs),
        "expectations": _expectations(record),
        "error": mask_text(record.error) if record.error else None,
        "vs_before": _verdicts(before, record, distrust),
    }


def trust(source: Any, *records: RunRecord) -> Optional[str]:
    """Why one of ``records`` is not proven by its signature where the store's policy requires it
    (:func:`ubunye.lineage.attestation.trust_reason`), or None."""
    if not hasattr(source, "blobs"):
        return None  # not a record store: nothing to check signatures against
    from ubunye.lineage.attestation import trust_reason

    return next((line for line in (trust_reason(r, source, warn=False) for r in records) if line), None)


def build_report(source: RunSource, *, usecase: Optional[str] = None, package: Optional[str] = None,
                 task: Optional[str] = None, since: Optional[str] = None, full_runs: int = FULL_RUNS) -> Report:
    """The report of every task in ``source`` matching the filters (``since``: ``YYYY-MM-DD`` or
    an ISO time; runs started before it are left out, the one just before still gives the
    first shown its verdict). Each task's newest ``full_runs`` runs are shown in full; older
    ones are only counted (``older``), so the page stays bounded however many runs there are."""
    if full_runs < 1:
        raise ValueError(f"full_runs must be at least 1, not {full_runs}")
    floor = parse_since(since) if since else None
    tasks: list[dict[str, Any]] = []
    records: dict[str, str] = {}
    held, left_out = 0, 0
    datasets: dict[str, dict[str, Any]] = {}
    edges: set[tuple[str, str]] = set()
    for u, p, t in source.iter_tasks():
        if (usecase and u != usecase) or (package and p != package) or (task and t != task):
            continue
        runs = sorted(source.list_runs(u, p, t), key=lambda r: (_started(r), r.run_id))
        chosen = [i for i, record in enumerate(runs)
                  if floor is None or (moment := _moment(record)) is None or moment >= floor]
        if not chosen:
            continue
        task_path = f"{u}/{p}/{t}"
        task_id = f"t{len(tasks)}"
        shown, kept = [], []
        for i in chosen[-full_runs:]:
            key = f"{task_id}-{i}"
            pair = (runs[i - 1], runs[i]) if i else ()
            shown.append(_run_summary(key, runs[i - 1] if i else None, runs[i], trust(source, *pair)))
            kept.append(runs[i])
            text = json.dumps(_masked_doc(runs[i]), ensure_ascii=False, separators=(",", ":"), default=str)
            if held + len(text) <= RECORD_BYTES:
                records[key] = text
                held += len(text)
            else:  # the page's records are bounded too: this run's table row stays, its record does not
                left_out += 1
        entry = {"id": task_id, "path": task_path, "status": shown_status(kept[-1]), "runs": shown}
        if len(chosen) > full_runs:
            entry["older"] = _older([runs[i] for i in chosen[:-full_runs]])
        tasks.append(entry)
        _add_datasets(task_id, task_path, kept, datasets, edges)
    layout, size = layout_graph([t["id"] for t in tasks], [d["id"] for d in datasets.values()], sorted(edges))
    tasks.sort(key=lambda t: (layout[t["id"]], t["path"]))  # upstream tasks first, as drawn
    filters = {k: v for k, v in (("usecase", usecase), ("package", package), ("task", task),
                                  ("since", since)) if v}
    for node in datasets.values():
        del node["_seen"]
    skipped = [f"{left_out} runs' whole records left out (the page holds at most {RECORD_BYTES // 2**20} MB "
               "of records): ubunye lineage show prints them"] if left_out else []
    return Report(tasks, list(datasets.values()), sorted(edges), layout, size, records, filters, skipped)


def task_runs(task: dict[str, Any]) -> int:
    """How many runs a task of the report has: shown in full and older ones counted."""
    return len(task["runs"]) + task.get("older", {}).get("count", 0)


def _older(runs: list[RunRecord]) -> dict[str, Any]:
    """The runs not shown in full, counted: how many, by status, the first and last start."""
    statuses: dict[str, int] = {}
    for record in runs:
        status = str(shown_status(record))
        statuses[status] = statuses.get(status, 0) + 1
    return {"count": len(runs), "statuses": dict(sorted(statuses.items())),
            "first": runs[0].started_at, "last": runs[-1].started_at}


def _masked_doc(record: RunRecord) -> dict[str, Any]:
    """The record's fields as stored, every text masked (a shallow read: no dataclass deep copy)."""
    doc = dict(vars(record))
    doc["inputs"] = [dict(vars(s)) for s in record.inputs]
    doc["outputs"] = [dict(vars(s)) for s in record.outputs]
    return current().doc(doc)  # the one masking path (ids, hashes and the seal skipped)


def _moment(record: RunRecord) -> Optional[datetime]:
    if not record.started_at:
        return None
    try:
        return parse_since(record.started_at)
    except ValueError:
        return None


def _add_datasets(task_id: str, task_path: str, runs: list[RunRecord], datasets: dict[str, dict[str, Any]],
                  edges: set[tuple[str, str]]) -> None:
    """Every dataset any run of the task read or wrote, joined to the task; a dataset shows what
    its newest writer wrote (or, never written here, what its newest reader read)."""
    for record in runs:  # oldest first: a newer run's values replace an older one's
        for step in record.steps:
            key = dataset_key(task_path, step)
            node = datasets.get(key)
            if node is None:
                node = {"id": f"d{len(datasets)}", "name": mask_text(key), "format": step.format,
                        "rows": None, "data_hash": None, "writer": None, "status": None, "_seen": ("", "")}
                datasets[key] = node
            output = step.direction == "output"
            rank = ("1" if output else "0", _started(record))
            if rank >= node["_seen"]:
                node.update(rows=step.row_count, data_hash=step.data_hash, _seen=rank,
                            writer=task_path if output else node["writer"],
                            status=record.status if output else node["status"])
            edges.add((task_id, node["id"]) if output else (node["id"], task_id))


def layout_graph(task_ids: Iterable[str], dataset_ids: Iterable[str],
                 edges: list[tuple[str, str]]) -> tuple[dict[str, tuple[float, float]], tuple[float, float]]:
    """Top-left corners of every node, in layers left to right, and the drawing's size."""
    nodes = [*task_ids, *dataset_ids]
    preds: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        preds[b].append(a)
    layer: dict[str, int] = {}

    for n in nodes:
        _iterative_depth(n, preds, layer)
    layers: dict[int, list[str]] = {}
    for n in nodes:
        layers.setdefault(layer[n], []).append(n)
    order: dict[str, float] = {}
    for k in sorted(layers):
        members = layers[k]
        for pos, n in enumerate(members):
            parents = [order[p] for p in preds[n] if p in order]
            order[n] = sum(parents) / len(parents) if parents else float(pos)
        members.sort(key=lambda n: (order[n], n))
        for pos, n in enumerate(members):
            order[n] = float(pos)
    layout = {}
    for k, members in layers.items():
        for pos, n in enumerate(members):
            layout[n] = (20 + k * (NODE_W + GAP_X), 20 + pos * (NODE_H + GAP_Y))
    width = 40 + (max(layers) + 1 if layers else 0) * (NODE_W + GAP_X) - GAP_X
    height = 40 + max((len(m) for m in layers.values()), default=0) * (NODE_H + GAP_Y) - GAP_Y
    return layout, (max(width, 0), max(height, 0))


def _iterative_depth(start: str, preds: dict[str, list[str]], layer: dict[str, int]) -> None:
    """Longest path from a source to ``start`` (without recursion: 10,000 nodes deep is fine);
    an edge closing a cycle is ignored."""
    if start in layer:
        return
    stack: list[tuple[str, int]] = [(start, 0)]
    on_path: set[str] = {start}
    while stack:
        node, i = stack[-1]
        parents = preds[node]
        if i < len(parents):
            stack[-1] = (node, i + 1)
            parent = parents[i]
            if parent not in layer and parent not in on_path:
                on_path.add(parent)
                stack.append((parent, 0))
            continue
        layer[node] = 1 + max((layer[p] for p in parents if p in layer), default=-1)
        on_path.discard(node)
        stack.pop()


def script_safe(text: str) -> str:
    """A JSON text made safe inside a ``<script>`` element (no ``</script>``, no ``<!--``); a
    direction control inside a string becomes the text ``\\u202e`` (the page shows it, never
    applies it)."""
    text = visible(text, "\\\\")
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def to_json_text(data: Any) -> str:
    """``data`` as JSON, safe inside a ``<script>`` element."""
    return script_safe(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
