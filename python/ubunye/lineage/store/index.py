"""A SQLite index of a record store: a checked cache, never the truth.

The JSON records stay the truth. The index holds, per run, what ``list``, ``search`` and
"the newest runs" need, in columns (start time, status, duration, rows in and out, the data
hashes of its steps, and where its object is), so those answers parse no record and no JSON.
Where it lives:

- a local folder store: ``<root>/.index/records.sqlite3`` (beside the records; a dot folder,
  so the store never lists it);
- an object store: a local cache, ``$XDG_CACHE_HOME/ubunye/index/<sha256 of the URL>.sqlite3``.

Checked, not trusted:

- Per task, the index keeps a stamp: the modification times of the task's folder and of its
  ``_started`` folder (a new, removed or renamed record changes them). When the stamp
  differs, or is within :data:`CLOCK_SLACK` of now (a change in the same clock tick would
  not show), the task's folder is listed again and only new or changed objects (by size
  and modification time) are read.
- An object store has no such stamp, and listing a task of a million records is a thousand
  requests. So each record object is written with a marker (:func:`marker_key`): an object
  under ``<task>/_order/`` whose name begins with the writer's UTC time, created just before
  the record. After a full listing that saw the task's ``_order`` folder, the index keeps a
  horizon per task: the marker name of the listing's own start time less :data:`SKEW`
  (writers' clocks, writes in flight). The next refresh lists the markers from the horizon on
  (``start-after``: a few requests, whatever the size), asks for the final object, else the
  start object, of each run they name, and moves the horizon up. A run that starts or ends
  after a listing writes a marker stamped no earlier than that listing's start less the
  writers' clock error, so it is never passed over. A task without markers (records of
  earlier versions) is listed whole on every refresh; every task is listed whole at least
  every :data:`FULL_EVERY` seconds, which sees removed records and records written by
  writers that make no markers.
- The records an answer names are loaded from the store and must say what the index says,
  else the caller falls back to reading every record (:class:`Stale`).
- A damaged object is indexed as damaged with its modification time, so the rule that a
  damaged newest record is never passed over still holds; before it is named or skipped it
  is read again (restored: the records answer).
- Below :data:`INDEX_FROM` runs the records answer. Above it, a record edited in place
  (same name, folder unchanged) is seen only when it is one the answer names or when the
  folder next changes: records are written once, so only damage or tampering does that.
- A missing, unreadable or foreign database, or one of another version, is deleted and rebuilt.

It also remembers each task's longest chain of signed records seen to hold (``chains``: written by
``lineage verify --chain``, :mod:`ubunye.lineage.attestation.chain`), so a later check sees the
newest records deleted together with their chain places. For an object store it is a local file
the store's writers cannot reach; in a local folder store, whoever can delete records can delete
it too.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, Protocol, Union

from ubunye._names import INDEX_DIR
from ubunye.lineage.errors import UnreadableRecord
from ubunye.lineage.record import RunRecord
from ubunye.lineage.store.blobs import BlobError, BlobInfo, Blobs
from ubunye.lineage.store.layout import CLOCK_SLACK, STARTED, SUFFIX, started
from ubunye.lineage.summary import RunSummary

SCHEMA_VERSION = 4  # 4: start times with four-digit years (an index of 3 may hold year 999 as "999")
ORDER = "_order"  # the markers' folder under a task (object stores)
MARK = "%Y%m%dT%H%M%S.%fZ"  # a marker name's time: fixed width, so names sort by it
MARK_WIDTH = 23
# Below this many runs in the tasks asked about, the records themselves answer: reading them
# is fast there, and it sees what no folder stamp shows (a record edited in place).
INDEX_FROM = 1000
# An object store's tasks: listed whole at least this often (seconds), and from their horizon in
# between; the horizon's allowance for writers' clocks and for writes in flight (seconds).
FULL_EVERY = 600.0
SKEW = 600.0
BATCH = 5000  # objects read, and rows written, a batch at a time
PARALLEL_FROM = 20_000  # a local store's first build from this many objects: one process per core
SUMMARY = ("run_id", "task_path", "started_at", "status", "duration_sec", "rows_in", "rows_out")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS tasks (task TEXT PRIMARY KEY, stamp TEXT, horizon TEXT, full_at REAL);
CREATE TABLE IF NOT EXISTS runs (
    task TEXT NOT NULL, run_id TEXT NOT NULL, key TEXT NOT NULL, size INTEGER, modified REAL,
    started TEXT, has_start INTEGER, status TEXT, damaged TEXT,
    task_path TEXT, started_at TEXT, duration_sec, rows_in, rows_out,
    PRIMARY KEY (task, run_id));
CREATE INDEX IF NOT EXISTS runs_order ON runs (task, started DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, started DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS runs_unplaced ON runs (task) WHERE has_start = 0;
CREATE INDEX IF NOT EXISTS runs_damaged ON runs (task) WHERE damaged IS NOT NULL;
CREATE TABLE IF NOT EXISTS hashes (data_hash TEXT NOT NULL, task TEXT NOT NULL, run_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hashes_hash ON hashes (data_hash);
CREATE INDEX IF NOT EXISTS hashes_run ON hashes (task, run_id);
CREATE TABLE IF NOT EXISTS chains (task TEXT PRIMARY KEY, length INTEGER, run_id TEXT, sha256 TEXT, seen REAL);
"""


class Indexed(Protocol):
    """What the index reads of its store (:class:`.records.RecordStore`)."""

    root: Union[Path, str]
    blobs: Blobs

    def task_key(self, usecase: str, package: str, task: str) -> str: ...

    def listing(self, usecase: str, package: str, task: str) -> tuple[list[BlobInfo], list[str]]: ...

    def _load_many(self, objects: list[BlobInfo], usecase: str, package: str, task: str) -> list[Any]: ...

    @staticmethod
    def rows_worker(job: tuple[str, str, list[BlobInfo], tuple[str, str, str]]
                    ) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]: ...


class Stale(Exception):
    """The index disagrees with the records: answer by reading the records instead."""


def started_key(record: RunRecord) -> str:
    """The start time as sortable text (UTC, microseconds); the oldest for none or a bad one."""
    return _sortable(started(record))


def _sortable(moment: datetime) -> str:
    """A time as UTC text whose order is the time order: the year in four digits (``%Y`` writes
    year 999 as ``999`` on glibc, which sorts after ``2026``)."""
    utc = moment.astimezone(timezone.utc)
    return f"{utc.year:04d}" + utc.strftime("-%m-%dT%H:%M:%S.%f")


def marker_key(task_key: str, run_id: str, final: bool, at: Optional[float] = None) -> str:
    """The marker of a record object of ``run_id`` (its start record, or with ``final`` its final
    one), written at ``at`` (Unix seconds; now):
    ``<task>/_order/<YYYYMMDDTHHMMSS.ffffffZ>_<started|final>_<run_id>`` (UTC)."""
    kind = "final" if final else "started"
    return f"{task_key}/{ORDER}/{_mark_time(time.time() if at is None else at)}_{kind}_{run_id}"


def _marked_run(name: str) -> Optional[str]:
    """The run id a marker's name ends with (None: not a marker)."""
    kind, _, run_id = name[MARK_WIDTH + 1:].partition("_")
    if name[MARK_WIDTH:MARK_WIDTH + 1] != "_" or kind not in ("started", "final") or not run_id \
            or run_id.startswith("."):
        return None
    return run_id


def _mark_time(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).strftime(MARK)


def _modified(info: BlobInfo) -> float:
    return info.modified.timestamp()


def default_path(store: Indexed) -> Path:
    if isinstance(store.root, Path):
        return store.root / INDEX_DIR / "records.sqlite3"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    name = hashlib.sha256(str(store.root).encode("utf-8")).hexdigest()[:32]
    return cache / "ubunye" / "index" / f"{name}.sqlite3"


class RecordIndex:
    """The index of one store (opened lazily; every failure of its own falls back to the records)."""

    def __init__(self, store: Indexed, path: Optional[Path] = None) -> None:
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
                db.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last commit is rebuilt
                db.execute("PRAGMA cache_size=-262144")  # up to 256 MiB: a first build's index pages stay in memory
                db.execute("PRAGMA temp_store=MEMORY")
                db.executescript(_SCHEMA)
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?), ('store', ?)",
                               (str(SCHEMA_VERSION), str(self.store.root)))
                elif row[0] != str(SCHEMA_VERSION):  # another version's columns: rebuilt from the records
                    db.close()
                    raise sqlite3.DatabaseError(f"index version {row[0]}")
                return db
            except sqlite3.DatabaseError:
                if attempt == 2:
                    raise
                for suffix in ("", "-wal", "-shm"):  # damaged, foreign or another version: rebuilt
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        raise AssertionError("unreachable")

    # --- keeping it fresh ----------------------------------------------------
    def _stamp(self, key: str) -> Optional[str]:
        """The task folders' modification times, or None when they cannot vouch (object stores,
        a change within the clock slack of now)."""
        root = self.store.root
        if not isinstance(root, Path):
            return None
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
        began = time.time()
        ranged = self._ranged(key, known)
        if ranged is None:
            objects, folders = self.store.listing(usecase, package, task)
            listed = {i.name[: -len(SUFFIX)]: i for i in objects}
            if not small and len(listed) < INDEX_FROM:
                raise Stale(key)  # (before the database is made: a small store gets none)
            marked = ORDER in folders
        else:
            listed, marked = ranged, True
        db = self.db()
        rows = {r[0]: (r[1], r[2], r[3]) for r in db.execute(
            "SELECT run_id, key, size, modified FROM runs WHERE task = ?", (key,))}
        changed = [i for r, i in listed.items() if rows.get(r) != (i.key, i.size, _modified(i))]
        gone = [r for r in rows if r not in listed] if ranged is None else []
        full_at = began if ranged is None else known[2]  # type: ignore[index]
        horizon = _mark_time(began - SKEW) if marked and _ranges(self.store) else None
        db.execute("BEGIN IMMEDIATE")
        try:
            if gone:
                db.executemany("DELETE FROM runs WHERE task = ? AND run_id = ?", [(key, r) for r in gone])
                db.executemany("DELETE FROM hashes WHERE task = ? AND run_id = ?", [(key, r) for r in gone])
            for runs, hashes in self._rows(key, changed, (usecase, package, task)):
                if rows:  # rows of these runs may be there (changed objects): their hashes go first
                    db.executemany("DELETE FROM hashes WHERE task = ? AND run_id = ?", [(key, r[1]) for r in runs])
                db.executemany(f"INSERT OR REPLACE INTO runs VALUES ({','.join('?' * 14)})", runs)
                db.executemany("INSERT INTO hashes VALUES (?, ?, ?)", hashes)
            db.execute("INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?)", (key, stamp, horizon, full_at))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _ranged(self, key: str, known: Optional[tuple[Any, ...]]) -> Optional[dict[str, BlobInfo]]:
        """A task's record objects named by its markers from its horizon on (run id -> the final
        object, else the start one), or None when the task must be listed whole."""
        blobs = self.store.blobs
        if not _ranges(self.store) or known is None or not known[1] or time.time() - (known[2] or 0) >= FULL_EVERY:
            return None
        folder = f"{key}/{ORDER}"
        try:
            marks = blobs.list_after(folder, f"{folder}/{known[1]}")  # type: ignore[attr-defined]
            ids = sorted({r for r in (_marked_run(m.name) for m in marks) if r})

            def newest(run_id: str) -> Optional[BlobInfo]:
                return (blobs.head(f"{key}/{run_id}{SUFFIX}")  # type: ignore[attr-defined]
                        or blobs.head(f"{key}/{STARTED}/{run_id}{SUFFIX}"))  # type: ignore[attr-defined]

            with ThreadPoolExecutor(max(1, min(16, len(ids)))) as pool:
                found = list(pool.map(newest, ids))
        except OSError as exc:
            raise UnreadableRecord(blobs.locate(key), str(exc)) from exc
        return {run_id: info for run_id, info in zip(ids, found) if info is not None}

    def _rows(self, key: str, changed: list[BlobInfo], task: tuple[str, str, str]
              ) -> Iterable[tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]]:
        """The rows of these objects, a batch at a time. Many objects of a local store (a first
        build) are read and parsed by one process per core, in name order."""
        batches = [changed[start:start + BATCH] for start in range(0, len(changed), BATCH)]
        workers = min(os.cpu_count() or 1, len(batches))
        if isinstance(self.store.root, Path) and len(changed) >= PARALLEL_FROM and workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                yield from pool.map(self.store.rows_worker, [(str(self.store.root), key, b, task) for b in batches])
            return
        for batch in batches:
            yield _rows_of(key, batch, self.store._load_many(batch, *task))

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
        if status is not None:  # a shown "abandoned" is a stored "running" (the caller tells them apart)
            where.append("status = ?")
            args.append("running" if status == "abandoned" else status)
        if since is not None:
            where.append("has_start = 1 AND started >= ?")
            args.append(_sortable(since))
        sql = (f"SELECT {', '.join(SUMMARY)}, key FROM runs WHERE {' AND '.join(where)} "
               "ORDER BY started DESC, run_id DESC")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = [(dict(zip(SUMMARY, r)), r[-1]) for r in db.execute(sql, args)]
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

    def chain_seen(self, task: str) -> Optional[tuple[int, str, str, float]]:
        """The longest chain of ``task`` this index saw hold (``lineage verify --chain``): its
        length, the run and digest of its last place, when; None when it saw none. The one memory
        that shows a task's newest records deleted with their chain places (the store cannot)."""
        row = self.db().execute("SELECT length, run_id, sha256, seen FROM chains WHERE task = ?", (task,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), str(row[2]), float(row[3]))

    def chain_saw(self, task: str, length: int, run_id: str, sha256: str) -> None:
        """Remember that ``task``'s chain held up to place ``length`` (never shortened)."""
        seen = self.chain_seen(task)
        if seen is None or length >= seen[0]:
            self.db().execute("INSERT OR REPLACE INTO chains VALUES (?, ?, ?, ?, ?)",
                              (task, length, run_id, sha256, time.time()))

    def with_data_hash(self, data_hash: str) -> list[tuple[str, str]]:
        """(task key, run id) of every indexed run with a step of this data hash (refresh first)."""
        return self.db().execute("SELECT DISTINCT task, run_id FROM hashes WHERE data_hash = ?",
                                 (data_hash,)).fetchall()


def _rows_of(key: str, infos: list[BlobInfo], loaded: list[Any]
             ) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]:
    """Rows of ``runs`` and ``hashes`` for these objects (read as ``loaded``: a record, or why it
    is unreadable)."""
    runs, hashes = [], []
    for info, got in zip(infos, loaded):
        run_id = info.name[: -len(SUFFIX)]
        if isinstance(got, UnreadableRecord):
            runs.append((key, run_id, info.key, info.size, _modified(info), None, 0, None, got.reason,
                         None, None, None, None, None))
            continue
        record: RunRecord = got
        summary = RunSummary.of(record)
        runs.append((key, run_id, info.key, info.size, _modified(info), started_key(record),
                     int(isinstance(record.started_at, str) and bool(record.started_at)), record.status, None,
                     summary.task_path, summary.started_at, *map(_fits, (summary.duration_sec,
                                                                         summary.rows_in, summary.rows_out))))
        found = sorted({s.data_hash for s in record.steps if isinstance(s.data_hash, str) and s.data_hash})
        hashes.extend((h, key, run_id) for h in found)
    return runs, hashes


def _fits(value: Any) -> Any:
    """A number SQLite can hold as itself (a count beyond 64 bits is kept as its text)."""
    return str(value) if isinstance(value, int) and not -2**63 <= value < 2**63 else value


def _ranges(store: Indexed) -> bool:
    """Whether the store's backend lists from a key on (object stores): markers are written there."""
    return hasattr(store.blobs, "list_after") and hasattr(store.blobs, "head")


def _at_least(db: sqlite3.Connection, where: str, args: tuple[Any, ...], count: int) -> bool:
    """Whether at least ``count`` runs match (without counting them all)."""
    return db.execute(f"SELECT 1 FROM runs WHERE {where} LIMIT 1 OFFSET ?", (*args, count - 1)).fetchone() is not None
