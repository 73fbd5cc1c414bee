"""One line per run (:class:`~ubunye.lineage.summary.RunSummary`): the runs of one task (``list``)
or across tasks (``search``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional, Protocol

from ubunye.lineage.ending import shown_status
from ubunye.lineage.record import RunRecord, parse_moment
from ubunye.lineage.store.layout import run_order  # the one order of runs
from ubunye.lineage.summary import RunSummary


class RunSource(Protocol):
    """What the summaries need from a store (``ubunye.lineage.store.FileStore``)."""

    def list_runs(self, usecase: str, package: str, task: str) -> list[RunRecord]: ...

    def iter_tasks(self) -> list[tuple[str, str, str]]: ...


@dataclass
class RunList:
    """Runs, newest first, and the filters that selected them."""

    runs: list[RunSummary]
    filters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"filters": dict(self.filters), "count": len(self.runs), "runs": [r.to_dict() for r in self.runs]}


def parse_since(text: str) -> datetime:
    """``YYYY-MM-DD`` or an ISO-8601 date-time; naive values are taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since {text!r} is not a date (YYYY-MM-DD) or an ISO-8601 date-time") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _started(record: RunRecord) -> Optional[datetime]:
    return parse_moment(record.started_at)


def _newest_first(records: list[RunRecord]) -> list[RunRecord]:
    return sorted(records, key=run_order, reverse=True)


def list_task_runs(store: RunSource, usecase: str, package: str, task: str,
                   limit: Optional[int] = None) -> RunList:
    """The runs of one task, newest first (the store's order); ``limit``: the newest that many."""
    filters = {"usecase": usecase, "package": package, "task": task}
    indexed = _indexed(store, [(usecase, package, task)], limit=limit)
    if indexed is not None:
        return RunList(indexed, filters)
    records = store.list_runs(usecase, package, task)
    return RunList([RunSummary.of(r) for r in records][:limit], filters)


def _indexed(store: Any, tasks: list[tuple[str, str, str]], **query: Any) -> Optional[list[RunSummary]]:
    """Summaries from the store's index when it has one (None: read the records)."""
    summaries = getattr(store, "summaries", None)
    rows = summaries(tasks, **query) if summaries is not None else None
    return None if rows is None else [RunSummary(**row) for row in rows]


def search_runs(
    store: RunSource,
    *,
    status: Optional[str] = None,
    since: Optional[datetime] = None,
    usecase: Optional[str] = None,
    package: Optional[str] = None,
    task: Optional[str] = None,
) -> RunList:
    """Runs across tasks, newest first, filtered by status, start time and task.

    ``package`` needs ``usecase`` and ``task`` needs both (a ValueError says so).
    A run without a start time is left out when ``since`` is given.
    """
    if package is not None and usecase is None:
        raise ValueError("a package (-p) needs its usecase (-u)")
    if task is not None and (usecase is None or package is None):
        raise ValueError("a task (-t) needs its usecase (-u) and package (-p)")
    filters: dict[str, Any] = {"status": status, "since": since.isoformat() if since else None,
                               "usecase": usecase, "package": package, "task": task}
    tasks = [(u, p, t) for u, p, t in store.iter_tasks() if not (
        (usecase is not None and u != usecase) or (package is not None and p != package)
        or (task is not None and t != task))]
    indexed = _indexed(store, tasks, status=status, since=since)
    if indexed is not None:
        return RunList(indexed, filters)
    selected: list[RunRecord] = []
    for u, p, t in tasks:
        for record in store.list_runs(u, p, t):
            if status is not None and shown_status(record) != status:  # --status abandoned finds them
                continue
            if since is not None:
                started = _started(record)
                if started is None or started < since:
                    continue
            selected.append(record)
    return RunList([RunSummary.of(r) for r in _newest_first(selected)], filters)


def runs_with_data_hash(store: RunSource, data_hash: str) -> RunList:
    """Runs that read or wrote data with this hash (``sha256:...``), newest first.

    Through the store's index when it has one (each run it names is loaded and must hold the
    hash), else by reading every record."""
    filters: dict[str, Any] = {"data_hash": data_hash}
    records: list[RunRecord] = []
    index = getattr(store, "index", None)
    found = None
    if index is not None:
        try:
            for u, p, t in store.iter_tasks():
                index.refresh(u, p, t)
            found = [tuple(key.split("/")) + (run_id,) for key, run_id in index.with_data_hash(data_hash)]
        except Exception:  # noqa: BLE001 - the index is a cache: the records answer instead
            found = None
    if found is not None:
        for u, p, t, run_id in found:
            record = store.find(u, p, t, run_id)  # type: ignore[attr-defined]
            if any(s.data_hash == data_hash for s in record.steps):
                records.append(record)
    else:
        for u, p, t in store.iter_tasks():
            records.extend(r for r in store.list_runs(u, p, t) if any(s.data_hash == data_hash for s in r.steps))
    return RunList([RunSummary.of(r) for r in _newest_first(records)], filters)
