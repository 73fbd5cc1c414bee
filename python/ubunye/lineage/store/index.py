"""A SQLite index of a record store: a checked cache, never the truth.

The JSON records stay the truth. The index holds, per run, what ``list``, ``search`` and
"the newest runs" need (start time, status, rows, the data hashes of its steps, and where
its object is), so those answers do not parse every record. Where it lives:

- a local folder store: ``<root>/.index/records.sqlite3`` (beside the records; a dot folder,
  so the store never lists it);
- an object store: a local cache, ``$XDG_CACHE_HOME/ubunye/index/<sha256 of the URL>.sqlite3``.

Checked, not trusted:

- Per task, the index keeps a stamp: the modification times of the task's folder and of its
  ``_started`` folder (a new, removed or renamed record changes them). When the stamp
  differs, or is within :data:`CLOCK_SLACK` of now (a change in the same clock tick would
  not show), the task's folder is listed again and only new or changed objects (by size
  and modification time) are read. An object store has no such stamp: it is listed only from
  the task's horizon on (below), and still only new or changed objects are read.
- On an object store, listing a task of a million records is a thousand requests, so after a
  full listing the index keeps a horizon per task: the oldest key a new or finished run can
  still have. Run ids are UUID7 (:mod:`.runids`: their text sorts by the millisecond they were
  made), so the horizon is the id floor of the newest run's time less :data:`SKEW` (writers'
  clocks), lowered to the id of any run still running (its final record comes later under its
  start-time id) that started within :data:`RUNNING_FOR`. The next refresh lists the task's
  final and ``_started`` keys from the horizon on (``start-after``): a few requests, whatever
  the size. A full listing comes back after :data:`FULL_EVERY` and whenever there is no
  horizon (no UUID7 run yet): it sees removed records and runs whose ids do not sort by time
  (given by a caller, or UUID4 ids of earlier versions), which the ranged listing may not.
- The records an answer names are loaded from the store and must say what the index says,
  else the caller falls back to reading every record (:class:`Stale`).
- A damaged object is indexed as damaged with its modification time, so the rule that a
  damaged newest record is never passed over still holds; before it is named or skipped it
  is read again (restored: the records answer).
- Below :data:`INDEX_FROM` runs the records answer. Above it, a record edited in place
  (same name, folder unchanged) is seen only when it is one the answer names or when the
  folder next changes: records are written once, so only damage or tampering does that.
- A missing, unreadable or foreign database is deleted and rebuilt; one of version 1 gains the
  horizon columns and keeps its rows.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ubunye.lineage.errors import UnreadableRecord
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store.blobs import BlobInfo
from ubunye.lineage.store.runids import id_floor, millis_of

if TYPE_CHECKING:
    from ubunye.lineage.store.records import RecordStore

SCHEMA_VERSION = 2
INDEX_DIR = ".index"
SUFFIX = ".json"
# Below this many runs in the tasks asked about, the records themselves answer: reading them
# is fast there, and it sees what no folder stamp shows (a record edited in place).
INDEX_FROM = 1000
# An object store's tasks: listed whole at least this often (seconds), and from their horizon in
# between; the horizon's allowance for writers' clocks, and how long a running run holds it back.
FULL_EVERY = 600.0
SKEW = 600_000  # ms
RUNNING_FOR = 7 * 24 * 3600 * 1000  # ms
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS tasks (task TEXT PRIMARY KEY, stamp TEXT, horizon TEXT, full_at REAL);
CREATE TABLE IF NOT EXISTS runs (
    task TEXT NOT NULL, run_id TEXT NOT NULL, key TEXT NOT NULL, size INTEGER, modified REAL,
    started TEXT, has_start INTEGER, status TEXT, damaged TEXT, summary TEXT,
    PRIMARY KEY (task, run_id));
CREATE INDEX IF NOT EXISTS runs_order ON runs (task, started DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, started DESC);
CREATE INDEX IF NOT EXISTS runs_unplaced ON runs (task) WHERE has_start = 0;
CREATE INDEX IF NOT EXISTS runs_damaged ON runs (task) WHERE damaged IS NOT NULL;
CREATE TABLE IF NOT EXISTS hashes (data_hash TEXT NOT NULL, task TEXT NOT NULL, run_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hashes_hash ON hashes (data_hash);
CREATE INDEX IF NOT EXISTS hashes_run ON hashes (task, run_id);
"""


class Stale(Exception):
    """The index disagrees with the records: answer by reading the records instead."""


def started_key(record: RunRecord) -> str:
    """The start time as sortable text (UTC, microseconds); the oldest for none or a bad one."""
    from ubunye.lineage.store.records import _started

    return _started(record).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


def _modified(info: BlobInfo) -> float:
    return info.modified.timestamp()


def default_path(store: "RecordStore") -> Path:
    if isinstance(store.root, Path):
        return store.root / INDEX_DIR / "records.sqlite3"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    name = hashlib.sha256(str(store.root).encode("utf-8")).hexdigest()[:32]
    return cache / "ubunye" / "index" / f"{name}.sqlite3"


class RecordIndex:
    """The index of one store (opened lazily; every failure of its own falls back to the records)."""

    def __init__(self, store: "RecordStore", path: Optional[Path] = None) -> None:
        self.store = store
        self.path = path or default_path(store)
        self._db: Optional[sqlite3.Connection] = None

    # --- the database --------------------------------------------------------
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        if isinstance(self.store.root, Path) and not self.store.root.is_dir():
            raise FileNotFoundError(str(self.store.root))  # no store yet: never made by a reader
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for attempt in (1, 2):
            try:
                db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?), ('store', ?)",
                               (str(SCHEMA_VERSION), str(self.store.root)))
                elif row[0] == "1":  # version 1 lacks the horizon: add it (a million rows are not read again)
                    db.executescript("BEGIN IMMEDIATE; ALTER TABLE tasks ADD COLUMN horizon TEXT; "
                                     "ALTER TABLE tasks ADD COLUMN full_at REAL; "
                                     "UPDATE meta SET value = '2' WHERE key = 'version'; COMMIT;")
                elif row[0] != str(SCHEMA_VERSION):
                    raise sqlite3.DatabaseError(f"index version {row[0]}")
                return db
            except sqlite3.DatabaseError:
                if attempt == 2:
                    raise
                for suffix in ("", "-wal", "-shm"):  # damaged or foreign: rebuilt from the records
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        raise AssertionError("unreachable")

    # --- keeping it fresh ----------------------------------------------------
    def _stamp(self, key: str) -> Optional[str]:
        """The task folders' modification times, or None when they cannot vouch (object stores,
        a change within the clock slack of now)."""
        root = self.store.root
        if not isinstance(root, Path):
            return None
        from ubunye.lineage.store.records import CLOCK_SLACK, STARTED

        times = []
        for folder in (root / key, root / key / STARTED):
            try:
                times.append(folder.stat().st_mtime_ns)
            except OSError:
                times.append(0)
        if time.time_ns() - max(times) < CLOCK_SLACK.total_seconds() * 1e9:
            return None
        return ":".join(map(str, times))

    def refresh(self, usecase: str, package: str, task: str, *, small: bool = True) -> None:
        """Bring one task's rows up to date, reading only new or changed objects. ``small=False``:
        a task with fewer than :data:`INDEX_FROM` runs is left out (:class:`Stale`): its records
        answer, so reading them for the index too would only double the work."""
        key = self.store.task_key(usecase, package, task)
        stamp = self._stamp(key)
        known = None
        if self._db is not None or self.path.exists():
            known = self.db().execute("SELECT stamp, horizon, full_at FROM tasks WHERE task = ?", (key,)).fetchone()
        if stamp is not None and known is not None and known[0] == stamp:
            return
        ranged = self._ranged(key, known)
        if ranged is None:
            listed = {i.name[: -len(SUFFIX)]: i for i in self.store.run_objects(usecase, package, task)}
            if not small and len(listed) < INDEX_FROM:
                raise Stale(key)  # (before the database is made: a small store gets none)
        else:
            listed = ranged
        db = self.db()
        rows = {r[0]: (r[1], r[2], r[3]) for r in db.execute(
            "SELECT run_id, key, size, modified FROM runs WHERE task = ?", (key,))}
        changed = [i for r, i in listed.items() if rows.get(r) != (i.key, i.size, _modified(i))]
        gone = [r for r in rows if r not in listed] if ranged is None else []
        loaded = self.store._load_many(changed, usecase, package, task)
        full_at = time.time() if ranged is None else known[2]  # type: ignore[index]
        db.execute("BEGIN IMMEDIATE")
        try:
            for run_id in gone:
                db.execute("DELETE FROM runs WHERE task = ? AND run_id = ?", (key, run_id))
                db.execute("DELETE FROM hashes WHERE task = ? AND run_id = ?", (key, run_id))
            for info, got in zip(changed, loaded):
                self._put(db, key, info, got)
            horizon = _horizon(db, key) if hasattr(self.store.blobs, "list_after") else None
            db.execute("INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?)", (key, stamp, horizon, full_at))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _ranged(self, key: str, known: Optional[tuple[Any, ...]]) -> Optional[dict[str, BlobInfo]]:
        """A task's record objects from its horizon on (run id -> the final object, else the start
        one), or None when the task must be listed whole."""
        lister = getattr(self.store.blobs, "list_after", None)
        if lister is None or known is None or not known[1] or time.time() - (known[2] or 0) >= FULL_EVERY:
            return None
        from ubunye.lineage.store.records import STARTED, _is_record

        horizon = known[1]
        try:
            finals = lister(key, f"{key}/{horizon}", stop=f"{key}/{STARTED}/")
            started = lister(f"{key}/{STARTED}", f"{key}/{STARTED}/{horizon}")
        except OSError as exc:
            raise UnreadableRecord(self.store.blobs.locate(key), str(exc)) from exc
        out: dict[str, BlobInfo] = {}
        for info in started + finals:  # a final object replaces its run's start object
            if _is_record(info) and info.key.count("/") in (3, 4):
                out[info.name[: -len(SUFFIX)]] = info
        return out

    @staticmethod
    def _put(db: sqlite3.Connection, key: str, info: BlobInfo, got: Any) -> None:
        run_id = info.name[: -len(".json")]
        db.execute("DELETE FROM hashes WHERE task = ? AND run_id = ?", (key, run_id))
        if isinstance(got, UnreadableRecord):
            db.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?)",
                       (key, run_id, info.key, info.size, _modified(info), None, 0, None, got.reason, None))
            return
        record: RunRecord = got
        from ubunye.lineage.search import RunSummary

        summary = json.dumps(RunSummary.of(record).to_dict())
        db.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (key, run_id, info.key, info.size, _modified(info), started_key(record),
                    int(isinstance(record.started_at, str) and bool(record.started_at)), record.status, None,
                    summary))
        hashes = {s.data_hash for s in record.steps if isinstance(s.data_hash, str) and s.data_hash}
        db.executemany("INSERT INTO hashes VALUES (?, ?, ?)", [(h, key, run_id) for h in hashes])

    # --- answers -------------------------------------------------------------
    def newest(self, usecase: str, package: str, task: str, count: int,
               before: Optional[tuple[str, str]] = None) -> tuple[list[tuple[str, str, str, int]],
                                                                 list[tuple[str, float, str]]]:
        """The ``count`` newest readable runs (run id, key, started, has_start), ordered before
        ``before`` (started, run id) if given; and every damaged object (key, modified, reason)."""
        self.refresh(usecase, package, task, small=False)
        key = self.store.task_key(usecase, package, task)
        db = self.db()
        if not _at_least(db, "task = ?", (key,), INDEX_FROM):
            raise Stale(key)
        where, args = "task = ? AND damaged IS NULL", [key]
        if before is not None:
            where += " AND (started < ? OR (started = ? AND run_id < ?))"
            args += [before[0], before[0], before[1]]
        rows = db.execute(f"SELECT run_id, key, started, has_start FROM runs WHERE {where} "
                          "ORDER BY started DESC, run_id DESC LIMIT ?", (*args, count)).fetchall()
        damaged = db.execute("SELECT key, modified, damaged FROM runs WHERE task = ? AND damaged IS NOT NULL",
                             (key,)).fetchall()
        return rows, damaged

    def unplaced_after(self, usecase: str, package: str, task: str, skip: Sequence[str]) -> list[tuple[str, float, str]]:
        """Readable runs without a start time, not among ``skip``: (key, modified, run id)."""
        key = self.store.task_key(usecase, package, task)
        rows = self.db().execute("SELECT key, modified, run_id FROM runs WHERE task = ? AND damaged IS NULL "
                                 "AND has_start = 0", (key,)).fetchall()
        return [r for r in rows if r[2] not in skip]

    def summaries(self, tasks: Iterable[tuple[str, str, str]], *, status: Optional[str] = None,
                  since: Optional[datetime] = None, limit: Optional[int] = None
                  ) -> tuple[list[tuple[dict[str, Any], str]], list[tuple[str, str]]]:
        """Run summaries of these tasks (with their object keys), newest first, and their damaged
        objects (key, reason)."""
        tasks = list(tasks)
        keys = []
        for u, p, t in tasks:
            self.refresh(u, p, t, small=len(tasks) > 1)  # one task: as for the newest runs
            keys.append(self.store.task_key(u, p, t))
        if not keys:
            return [], []
        db = self.db()
        db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (task TEXT PRIMARY KEY)")
        db.execute("DELETE FROM wanted")
        db.executemany("INSERT OR IGNORE INTO wanted VALUES (?)", [(k,) for k in keys])
        if not _at_least(db, "task IN (SELECT task FROM wanted)", (), INDEX_FROM):
            raise Stale("few runs")
        where, args = ["damaged IS NULL", "task IN (SELECT task FROM wanted)"], []
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if since is not None:
            where.append("has_start = 1 AND started >= ?")
            args.append(since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f"))
        sql = f"SELECT summary, key FROM runs WHERE {' AND '.join(where)} ORDER BY started DESC, run_id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = [(json.loads(r[0]), r[1]) for r in db.execute(sql, args)]
        damaged = db.execute("SELECT key, damaged FROM runs WHERE damaged IS NOT NULL AND "
                             "task IN (SELECT task FROM wanted) ORDER BY key").fetchall()
        return rows, damaged

    def by_prefix(self, usecase: str, package: str, task: str, prefix: str) -> list[tuple[str, str]]:
        """(run id, key) of the runs whose id is ``prefix`` or starts with it (at most 2)."""
        self.refresh(usecase, package, task, small=False)
        key = self.store.task_key(usecase, package, task)
        db = self.db()
        if not _at_least(db, "task = ?", (key,), INDEX_FROM):
            raise Stale(key)
        exact = db.execute("SELECT run_id, key FROM runs WHERE task = ? AND run_id = ?", (key, prefix)).fetchall()
        return exact or db.execute("SELECT run_id, key FROM runs WHERE task = ? AND substr(run_id, 1, ?) = ? "
                                   "AND run_id >= ? ORDER BY run_id LIMIT 2",
                                   (key, len(prefix), prefix, prefix)).fetchall()

    def with_data_hash(self, data_hash: str) -> list[tuple[str, str]]:
        """(task key, run id) of every indexed run with a step of this data hash (refresh first)."""
        return self.db().execute("SELECT DISTINCT task, run_id FROM hashes WHERE data_hash = ?",
                                 (data_hash,)).fetchall()


def _horizon(db: sqlite3.Connection, key: str) -> Optional[str]:
    """The oldest key text a new or finishing run of this task can have (see the module's
    docstring); None unless every run of the task has a UUID7 id."""
    from ubunye.lineage.store.records import STARTED

    if db.execute("SELECT 1 FROM runs WHERE task = ? AND NOT (length(run_id) = 36 AND substr(run_id, 15, 1) = '7') "
                  "LIMIT 1", (key,)).fetchone():
        return None  # a run id that is not placed by time: every refresh lists the task whole
    newest = None
    for (run_id,) in db.execute("SELECT run_id FROM runs WHERE task = ? AND substr(run_id, 15, 1) = '7' AND "
                                "length(run_id) = 36 ORDER BY run_id DESC LIMIT 20", (key,)):
        newest = millis_of(run_id)  # (the newest UUID7: other ids may sort above them)
        if newest is not None:
            break
    if newest is None:
        return None
    floor = id_floor(newest - SKEW)
    for (run_id,) in db.execute("SELECT run_id FROM runs WHERE task = ? AND run_id >= ? AND key LIKE ? "
                                "ORDER BY run_id LIMIT 1", (key, id_floor(newest - RUNNING_FOR),
                                                            f"%/{STARTED}/%")):
        floor = min(floor, run_id)
    return floor


def _at_least(db: sqlite3.Connection, where: str, args: tuple[Any, ...], count: int) -> bool:
    """Whether at least ``count`` runs match (without counting them all)."""
    return db.execute(f"SELECT 1 FROM runs WHERE {where} LIMIT 1 OFFSET ?", (*args, count - 1)).fetchone() is not None
