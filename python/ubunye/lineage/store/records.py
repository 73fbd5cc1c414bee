"""The run-record store: one JSON object per run, each written once, over any byte backend.

Layout under the store's root (a folder or an object-store URL)::

    <usecase>/<package>/<task>/<run_id>.json             the final record
    <usecase>/<package>/<task>/_started/<run_id>.json    the ``running`` record
    <usecase>/<package>/<task>/_order/<time>_<kind>_<run_id>   a marker (object stores: :mod:`.index`)

Both are created only if absent (:meth:`Blobs.put_new`), so no backend ever needs a
rename or an overwrite. A run with a start record and no final record reads as
``running``. Stores written before this layout (a ``running`` record replaced in place
by the final one) read the same, and older readers keep reading new stores: the final
record keeps its name, and they list only the files of the task folder.

Order: start time, then run id (:func:`run_order`). Listing skips a damaged object with
a warning naming it, but :meth:`RecordStore.latest_runs` (what ``compare`` and ``verify``
take by default) never does: a damaged object is placed by its modification time, which
is never earlier than the start of the run that wrote it, and when it may be one of the
runs asked for, :class:`LatestUnknown` names it instead of answering with older runs.
"""
from __future__ import annotations

import json
import sqlite3
import warnings
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, Union

from ubunye._names import validate_name
from ubunye.lineage.errors import (AmbiguousRunId, LineageError, RecordNotFound, RecordUnsigned, RecordWriteError,
                                   UnreadableRecord)
from ubunye.lineage.record import RunRecord
# the built-in backends join open_blobs's scheme table (in this order: its messages name them so)
from ubunye.lineage.store import posix as _posix, objects as _objects, filesapi as _filesapi  # noqa: F401,I001
from ubunye.lineage.store.blobs import AlreadyExists, BlobError, BlobInfo, Blobs, Where, join, open_blobs
from ubunye.lineage.store.index import RecordIndex, Stale, _ranges, _rows_of, marker_key, started_key
from ubunye.lineage.store.layout import CLOCK_SLACK, OLDEST as _OLDEST, STARTED, SUFFIX, run_order
from ubunye.lineage.store.layout import started as _started
from ubunye.lineage.summary import RunSummary
from ubunye.userfiles import UserFileError, load_json

CHECKED = 50  # index answers of up to this many runs are confirmed against their records


class UnreadableRecordWarning(UserWarning):
    """A record file was skipped because it could not be read."""


class LatestUnknown(LineageError):
    """The runs asked for cannot be told: a file that may be one of them cannot be placed."""

    def __init__(self, what: str, task_path: str, path: Where, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{what} of {task_path} may be {path}, which {reason}")


Listed = tuple[RunRecord, BlobInfo]


class RecordStore:
    """Run records under one lineage folder or URL ``root`` (or over a given backend)."""

    def __init__(self, root: Union[str, Path, Blobs], *, index: bool = False) -> None:
        self.blobs: Blobs = open_blobs(root) if isinstance(root, (str, Path)) else root
        self.root: Where = self.blobs.root
        self.index: Optional[RecordIndex] = RecordIndex(self) if index else None

    def __repr__(self) -> str:
        return f"RecordStore({str(self.root)!r})"

    # --- keys and where they are ---------------------------------------------
    @staticmethod
    def task_key(usecase: str, package: str, task: str) -> str:
        return "/".join((validate_name("usecase", usecase), validate_name("package", package),
                         validate_name("task", task)))

    def task_dir(self, usecase: str, package: str, task: str) -> Where:
        """The folder holding one task's records (names validated)."""
        return self.blobs.locate(self.task_key(usecase, package, task))

    def _key(self, usecase: str, package: str, task: str, run_id: str, started: bool = False) -> str:
        name = validate_name("run id", run_id) + SUFFIX
        return "/".join((self.task_key(usecase, package, task), *((STARTED,) if started else ()), name))

    def path_for(self, usecase: str, package: str, task: str, run_id: str) -> Where:
        """Where the final record of ``run_id`` lives."""
        return self.blobs.locate(self._key(usecase, package, task, run_id))

    def started_path_for(self, usecase: str, package: str, task: str, run_id: str) -> Where:
        """Where the ``running`` record of ``run_id`` lives."""
        return self.blobs.locate(self._key(usecase, package, task, run_id, started=True))

    def record_path(self, record: RunRecord) -> Where:
        """Where ``record`` is (or will be) stored."""
        return self.blobs.locate(self._record_key(record))

    def _record_key(self, record: RunRecord) -> str:
        return self._key(record.usecase, record.package, record.task_name, record.run_id,
                         started=record.status == "running")

    # --- writing -----------------------------------------------------------
    def write(self, record: RunRecord) -> Where:
        """Store ``record`` once: a ``running`` record as the start object, any other status as
        the final one. Raises :class:`RecordWriteError` naming where and why (also when that
        object is already stored: records are never replaced)."""
        key = self._record_key(record)
        where = self.blobs.locate(key)
        try:
            data = record.to_json().encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:  # e.g. a circular structure
            raise RecordWriteError(where, f"the record is not JSON: {exc}") from exc  # type: ignore[arg-type]
        unsigned = self._sign(record, key) if record.status != "running" else None
        try:
            if _ranges(self):  # an object store: its marker first, so the index never passes the run over
                self._mark(record, key)
            self.blobs.put_new(key, data)
        except AlreadyExists:
            raise RecordWriteError(where, "a record of this run is already stored there "  # type: ignore[arg-type]
                                          "(records are written once)") from None
        except OSError as exc:
            raise RecordWriteError(where, exc.strerror or str(exc)) from exc  # type: ignore[arg-type]
        if unsigned:  # the record is kept; that it is unsigned is an error of the write
            raise RecordUnsigned(where, unsigned)  # type: ignore[arg-type]
        return where

    def _sign(self, record: RunRecord, key: str) -> Optional[str]:
        """Sign a final record before it is stored (:mod:`ubunye.lineage.attestation`); None when
        signed or signing is off, else why it could not be."""
        from ubunye.lineage.attestation.envelopes import sign_record
        from ubunye.lineage.attestation.keys import SigningKeyError, optional_signer

        try:
            signer = optional_signer()
            if signer is not None:
                sign_record(self.blobs, record, signer)
        except AlreadyExists:
            return "an envelope of this run is already stored (envelopes are written once)"
        except (SigningKeyError, OSError) as exc:
            return str(exc) if isinstance(exc, SigningKeyError) else (exc.strerror or str(exc))
        return None

    start = end = write

    def _mark(self, record: RunRecord, key: str) -> None:
        """The record's marker (:func:`.index.marker_key`), holding the record's key (one already
        there is the same record's, from an attempt whose record was refused: as good)."""
        try:
            self.blobs.put_new(marker_key(self.task_key(record.usecase, record.package, record.task_name),
                                          record.run_id, record.status != "running"), key.encode("utf-8"))
        except AlreadyExists:
            pass

    # --- reading -----------------------------------------------------------
    def load(self, path: Union[str, Path]) -> RunRecord:
        """Read one record file (a local path, or a key's location in this store)."""
        text_path = str(path)
        root = str(self.root)
        if text_path.startswith(root + "/") and not isinstance(self.root, Path):
            return self._parse(text_path, self._get(text_path[len(root) + 1:]))
        path = Path(path)
        try:
            doc = load_json(path)  # a regular UTF-8 file of at most 10 MB (never /dev/zero or a FIFO)
        except UserFileError as exc:
            raise UnreadableRecord(path, exc.reason) from None
        if not isinstance(doc, dict):
            raise UnreadableRecord(path, f"expected a JSON object; got {type(doc).__name__}")
        try:
            return RunRecord.from_dict(doc)
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            raise UnreadableRecord(path, _one_line(str(exc)) or type(exc).__name__) from exc

    def _get(self, key: str) -> bytes:
        try:
            return self.blobs.get(key)
        except OSError as exc:
            raise UnreadableRecord(self.blobs.locate(key), _one_line(exc.strerror or str(exc))) from exc  # type: ignore[arg-type]

    @staticmethod
    def _parse(where: Where, data: bytes) -> RunRecord:
        try:
            return RunRecord.from_dict(json.loads(data.decode("utf-8")))
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            raise UnreadableRecord(where, _one_line(str(exc)) or type(exc).__name__) from exc  # type: ignore[arg-type]

    def _load_listed(self, info: BlobInfo, usecase: str, package: str, task: str) -> RunRecord:
        """A record object of the store: it must also be the run its name and folder say."""
        where = self.blobs.locate(info.key)
        record = self._parse(where, self._get(info.key))
        if record.run_id + SUFFIX != info.name:
            raise UnreadableRecord(where, f"its run_id {record.run_id[:60]!r} is not its file name")  # type: ignore[arg-type]
        for kind, field_, name in (("usecase", record.usecase, usecase), ("package", record.package, package),
                                   ("task_name", record.task_name, task)):
            if field_ and field_ != name:
                raise UnreadableRecord(where, f"its {kind} {field_[:60]!r} is not its folder's {name!r}")  # type: ignore[arg-type]
        return record

    def run_objects(self, usecase: str, package: str, task: str) -> list[BlobInfo]:
        """The record objects of a task, one per run (the final one, else the start one), by name."""
        return self.listing(usecase, package, task)[0]

    def listing(self, usecase: str, package: str, task: str) -> tuple[list[BlobInfo], list[str]]:
        """:meth:`run_objects`, and the names of the task's sub-folders."""
        key = self.task_key(usecase, package, task)
        try:
            finals, folders = self.blobs.listdir(key)
            started = self.blobs.listdir(f"{key}/{STARTED}")[0] if STARTED in folders else []
        except BlobError as exc:
            raise UnreadableRecord(self.blobs.locate(key), _one_line(exc.strerror or str(exc))) from exc  # type: ignore[arg-type]
        done = {b.name for b in finals if _is_record(b)}
        runs = [b for b in finals if _is_record(b)] + [b for b in started if _is_record(b) and b.name not in done]
        return sorted(runs, key=lambda b: b.name), folders

    def run_files(self, usecase: str, package: str, task: str) -> list[Where]:
        """Where each run's record is (temporary files left out), in name order."""
        return [self.blobs.locate(b.key) for b in self.run_objects(usecase, package, task)]

    def _scan(self, usecase: str, package: str, task: str
              ) -> tuple[list[Listed], list[tuple[BlobInfo, UnreadableRecord]]]:
        readable: list[Listed] = []
        damaged: list[tuple[BlobInfo, UnreadableRecord]] = []
        objects = self.run_objects(usecase, package, task)
        for info, got in zip(objects, self._load_many(objects, usecase, package, task)):
            if isinstance(got, UnreadableRecord):
                damaged.append((info, got))
            else:
                readable.append((got, info))
        return readable, damaged

    def _load_many(self, objects: list[BlobInfo], usecase: str, package: str, task: str
                   ) -> list[Union[RunRecord, UnreadableRecord]]:
        def load(info: BlobInfo) -> Union[RunRecord, UnreadableRecord]:
            try:
                return self._load_listed(info, usecase, package, task)
            except UnreadableRecord as exc:
                return exc

        threads = getattr(self.blobs, "parallel_reads", 1)
        if threads > 1 and len(objects) > 1:  # an object store: one request per record, so many at once
            with ThreadPoolExecutor(threads) as pool:
                return list(pool.map(load, objects))
        return [load(info) for info in objects]

    @staticmethod
    def rows_worker(job: tuple[str, str, list[BlobInfo], tuple[str, str, str]]
                    ) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]:
        """The index's rows of a batch of a local store's objects, read in a worker process
        (:meth:`.index.RecordIndex._rows`)."""
        root, key, batch, task = job
        return _rows_of(key, batch, RecordStore(Path(root))._load_many(batch, *task))

    def list_runs(self, usecase: str, package: str, task: str) -> list[RunRecord]:
        """Every readable record of a task, newest first (:func:`run_order`).

        An unreadable object is skipped with an :class:`UnreadableRecordWarning` naming it.
        """
        readable, damaged = self._scan(usecase, package, task)
        for _, exc in damaged:
            warnings.warn(f"skipping {exc}", UnreadableRecordWarning, stacklevel=2)
        return _newest_first([r for r, _ in readable])

    def latest_runs(self, usecase: str, package: str, task: str, count: int = 1,
                    before: Optional[RunRecord] = None) -> list[RunRecord]:
        """The ``count`` newest runs of a task (with ``before``: of those ordered before it),
        newest first; fewer when the task has fewer.

        Never answers with older runs while an object that may be one of these cannot be
        read: a damaged object (or a record without a start time) is placed by its
        modification time, and when that is not clearly before the start of the
        ``count``-th run, :class:`LatestUnknown` names it. Damaged objects clearly older
        are skipped with an :class:`UnreadableRecordWarning`.
        """
        if self.index is not None:
            try:
                return self._latest_indexed(self.index, usecase, package, task, count, before)
            except (Stale, sqlite3.Error, OSError):
                pass  # the records themselves answer
        readable, damaged = self._scan(usecase, package, task)
        candidates = [(r, b) for r, b in readable if before is None or run_order(r) < run_order(before)]
        candidates.sort(key=lambda rb: run_order(rb[0]), reverse=True)
        chosen = candidates[:count]
        floor = _started(chosen[-1][0]) if len(chosen) == count else None
        if before is not None:
            what = f"the run before run {before.run_id}"
        else:
            what = "the latest run" if count == 1 else f"one of the {count} latest runs"
        task_path = f"{usecase}/{package}/{task}"
        unplaced = [(b, f"has no start time (run {r.run_id})") for r, b in candidates[count:]
                    if r.started_at is None]
        for info, why in [*((b, f"is unreadable: {e.reason}") for b, e in damaged), *unplaced]:
            if _may_be_newer(info, floor):
                raise LatestUnknown(what, task_path, self.blobs.locate(info.key), why)
        for _, exc in damaged:
            warnings.warn(f"skipping {exc}", UnreadableRecordWarning, stacklevel=2)
        return [r for r, _ in chosen]

    def _latest_indexed(self, index: RecordIndex, usecase: str, package: str, task: str, count: int,
                        before: Optional[RunRecord]) -> list[RunRecord]:
        """:meth:`latest_runs` from the index, every record it names loaded and checked."""
        edge = (started_key(before), before.run_id) if before is not None else None
        rows, damaged = index.newest(usecase, package, task, count, edge)
        chosen = []
        for run_id, key, started, _ in rows:
            try:
                record = self._load_listed(BlobInfo(key, 0, _OLDEST), usecase, package, task)
            except UnreadableRecord:
                raise Stale(key) from None
            if record.run_id != run_id or started_key(record) != started:
                raise Stale(key)
            chosen.append(record)
        floor = _started(chosen[-1]) if len(chosen) == count else None
        what = (f"the run before run {before.run_id}" if before is not None else
                "the latest run" if count == 1 else f"one of the {count} latest runs")
        for key, _, _ in damaged:  # still damaged? (restored: the index is stale)
            if self._readable(key, usecase, package, task):
                raise Stale(key)
        suspects = [(key, modified, f"is unreadable: {reason}") for key, modified, reason in damaged]
        suspects += [(key, modified, f"has no start time (run {run_id})") for key, modified, run_id in
                     index.unplaced_after(usecase, package, task, [r.run_id for r in chosen])]
        for key, modified, why in suspects:
            if _may_be_newer(BlobInfo(key, 0, datetime.fromtimestamp(modified, timezone.utc)), floor):
                raise LatestUnknown(what, f"{usecase}/{package}/{task}", self.blobs.locate(key), why)
        for key, _, reason in damaged:
            warnings.warn(f"skipping unreadable run record {self.blobs.locate(key)}: {reason}",
                          UnreadableRecordWarning, stacklevel=3)
        return chosen

    def _find_indexed(self, index: RecordIndex, usecase: str, package: str, task: str,
                      prefix: Optional[str]) -> Optional[RunRecord]:
        """:meth:`find` through the index when it gives one checked answer (None: ask the records)."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", UnreadableRecordWarning)  # a damaged one: the records say it
                if prefix is None:
                    newest = self._latest_indexed(index, usecase, package, task, 1, None)
                    return newest[0] if newest else None
                if not prefix or "/" in prefix or "\\" in prefix:
                    return None
                matches = index.by_prefix(usecase, package, task, prefix)
                if len(matches) != 1 or not (matches[0][0] == prefix or len(matches[0][0]) > len(prefix)):
                    return None
                record = self._load_listed(BlobInfo(matches[0][1], 0, _OLDEST), usecase, package, task)
                return record if record.run_id == matches[0][0] else None
        except (Stale, LatestUnknown, UnreadableRecordWarning, UnreadableRecord, sqlite3.Error, OSError):
            return None

    def _readable(self, key: str, usecase: str, package: str, task: str) -> bool:
        try:
            self._load_listed(BlobInfo(key, 0, _OLDEST), usecase, package, task)
        except UnreadableRecord:
            return False
        return True

    def summaries(self, tasks: list[tuple[str, str, str]], *, status: Optional[str] = None,
                  since: Optional[datetime] = None, limit: Optional[int] = None) -> Optional[list[dict[str, Any]]]:
        """Run summaries (``RunSummary.to_dict``) from the index, newest first; None without one.

        Up to :data:`CHECKED` of them are confirmed against their records (else None: read the
        records); a ``running`` run is loaded to show whether it is abandoned; damaged objects
        are skipped with a warning, as listing does."""
        if self.index is None:
            return None
        unfinished = status in ("running", "abandoned")  # told apart only by the record
        try:
            rows, damaged = self.index.summaries(tasks, status=status, since=since,
                                                 limit=None if unfinished else limit)
            for key, _ in damaged:
                u, p, t = key.split("/")[:3]
                if self._readable(key, u, p, t):
                    return None
            out = []
            for row, key in rows:
                if len(rows) <= CHECKED or row["status"] == "running":
                    u, p, t = key.split("/")[:3]
                    shown = _summary_dict(self._load_listed(BlobInfo(key, 0, _OLDEST), u, p, t))
                    if {**shown, "status": row["status"]} != row:
                        return None
                    row = shown
                if status is None or row["status"] == status:
                    out.append(row)
        except (Stale, LineageError, sqlite3.Error, OSError, ValueError):
            return None
        for key, reason in damaged:
            warnings.warn(f"skipping unreadable run record {self.blobs.locate(key)}: {reason}",
                          UnreadableRecordWarning, stacklevel=3)
        return out[:limit] if unfinished and limit is not None else out

    def find(self, usecase: str, package: str, task: str, run_id_prefix: Optional[str] = None) -> RunRecord:
        """The record whose run id starts with ``run_id_prefix`` (None: the newest run).

        Raises :class:`RecordNotFound`, :class:`AmbiguousRunId` or :class:`UnreadableRecord`.
        """
        task_path = f"{usecase}/{package}/{task}"
        folder = self.task_dir(usecase, package, task)
        if self.index is not None:
            found = self._find_indexed(self.index, usecase, package, task, run_id_prefix)
            if found is not None:
                return found
        if run_id_prefix is None:
            runs = self.list_runs(usecase, package, task)
            if not runs:
                raise RecordNotFound(task_path, None, folder)  # type: ignore[arg-type]
            return runs[0]
        if not run_id_prefix or "/" in run_id_prefix or "\\" in run_id_prefix:
            raise RecordNotFound(task_path, run_id_prefix, folder)  # type: ignore[arg-type]
        objects = self.run_objects(usecase, package, task)
        exact = [b for b in objects if b.name == run_id_prefix + SUFFIX]
        matches = exact or [b for b in objects if b.name.startswith(run_id_prefix)]
        if not matches:
            raise RecordNotFound(task_path, run_id_prefix, folder)  # type: ignore[arg-type]
        if len(matches) > 1:
            raise AmbiguousRunId(task_path, run_id_prefix, [b.name[: -len(SUFFIX)] for b in matches])
        return self._load_listed(matches[0], usecase, package, task)

    def iter_tasks(self) -> list[tuple[str, str, str]]:
        """Every ``(usecase, package, task)`` with at least one record, sorted."""
        found: list[tuple[str, str, str]] = []
        for usecase in self._folders(""):
            for package in self._folders(usecase):
                for task in self._folders(f"{usecase}/{package}"):
                    if self._holds_records(f"{usecase}/{package}/{task}"):
                        found.append((usecase, package, task))
        return sorted(found)

    def _holds_records(self, key: str) -> bool:
        first = getattr(self.blobs, "holds_any", None)  # a local folder: stop at the first record
        if first is not None:
            return bool(first(key, SUFFIX, STARTED))
        files, folders = self.blobs.listdir(key)
        return any(_is_record(b) for b in files) or STARTED in folders

    def _folders(self, prefix: str) -> list[str]:
        """The sub-folders of ``prefix`` that can be a usecase (``prefix`` empty), package or task:
        every valid name, dot and underscore names included (a task may be called ``.hidden``);
        the store's own folders beside the usecases (``.index``, ``.known``: no usecase may have
        their names) are never listed further, which on an object store would be a request per
        known location. ``_started`` and ``_order`` lie inside a task."""
        kind = "package" if prefix else "usecase"
        return [name for name in self.blobs.listdir(prefix)[1] if _is_name(kind, name)]


FileStore = RecordStore  # the name before backends; kept for callers and old scripts


def _summary_dict(record: RunRecord) -> dict[str, Any]:
    return RunSummary.of(record).to_dict()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _newest_first(records: list[RunRecord]) -> list[RunRecord]:
    return sorted(records, key=run_order, reverse=True)


def _may_be_newer(info: BlobInfo, floor: Optional[datetime]) -> bool:
    """Can the run that wrote ``info`` have started after ``floor`` (None: the runs asked
    for are not all there, so any object may be one of them)? A run writes its record after
    it starts, so a modification time clearly before ``floor`` rules it out."""
    if floor is None or floor == _OLDEST:
        return True
    return info.modified >= floor - CLOCK_SLACK


def _is_name(kind: str, name: str) -> bool:
    try:
        validate_name(kind, name)
    except LineageError:
        return False
    return True


def _is_record(info: BlobInfo) -> bool:
    return info.name.endswith(SUFFIX) and not info.name.startswith(".")


def open_store(usecase_dir: Union[str, Path], lineage_dir: Union[str, Path, None] = None, *,
               index: bool = False) -> RecordStore:
    """The store of a usecase folder; ``lineage_dir`` (a path or a URL) is relative to it unless
    absolute or a URL. The usecase folder itself may be a URL. ``index``: answer ``latest``,
    ``list`` and ``search`` through the SQLite index (:mod:`.index`)."""
    return RecordStore(join(usecase_dir, lineage_dir), index=index)
