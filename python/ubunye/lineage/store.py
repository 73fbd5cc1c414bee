"""The run-record store: one JSON file per run, written atomically.

Layout: ``<root>/<usecase>/<package>/<task>/<run_id>.json`` where ``root`` is the
lineage folder (default ``<usecase_dir>/.ubunye/lineage``). A write goes to a
temporary file in the same folder, is flushed and synced, then renamed over the
final name, so a reader (or a process killed mid-write) never sees half a
record. Imports nothing heavy.

Newest means latest ``started_at``. Listing skips a damaged file with a warning
naming it, but :meth:`FileStore.latest_runs` (what ``compare`` and ``verify`` take
by default) never does: a damaged file is placed by its modification time, which
is never earlier than the start of the run that wrote it, and when it may be one of
the runs asked for, :class:`LatestUnknown` names it instead of answering with
older runs.
"""
from __future__ import annotations

import os
import tempfile
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Optional, Union

from ubunye.lineage.errors import LineageError
from ubunye.lineage.errors import (
    AmbiguousRunId,
    RecordNotFound,
    RecordWriteError,
    UnreadableRecord,
)
from ubunye.lineage.record import RunRecord
from ubunye.userfiles import UserFileError, load_json
from ubunye._names import validate_name  # the one name check, shared with the engine (re-exported)

DEFAULT_LINEAGE_DIR = Path(".ubunye") / "lineage"
SUFFIX = ".json"
_TEMP_SUFFIX = ".tmp"
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)
# How much earlier than a run's start its file's modification time may read (coarse
# file-system clocks, a file server's clock): a damaged file written up to this long
# before a run started may still be newer than it.
CLOCK_SLACK = timedelta(seconds=2)


class UnreadableRecordWarning(UserWarning):
    """A record file was skipped because it could not be read."""


def _started(record: RunRecord) -> datetime:
    text = record.started_at
    if not isinstance(text, str) or not text:  # a wrongly typed field sorts oldest
        return _OLDEST
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return _OLDEST
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def run_order(record: RunRecord) -> tuple[datetime, str]:
    """The one order of runs: start time, then run id (two runs started at one instant
    still have one order, so neither is the other's run before)."""
    return _started(record), record.run_id


class LatestUnknown(LineageError):
    """The runs asked for cannot be told: a file that may be one of them cannot be placed."""

    def __init__(self, what: str, task_path: str, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{what} of {task_path} may be {path}, which {reason}")


class FileStore:
    """Run records as files under one lineage folder ``root``."""

    def __init__(self, root: Union[str, Path]) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"FileStore({str(self.root)!r})"

    # --- paths -------------------------------------------------------------
    def task_dir(self, usecase: str, package: str, task: str) -> Path:
        """The folder holding one task's records (names validated)."""
        return (
            self.root
            / validate_name("usecase", usecase)
            / validate_name("package", package)
            / validate_name("task", task)
        )

    def path_for(self, usecase: str, package: str, task: str, run_id: str) -> Path:
        """Where the record of ``run_id`` lives."""
        return self.task_dir(usecase, package, task) / (validate_name("run id", run_id) + SUFFIX)

    def record_path(self, record: RunRecord) -> Path:
        """Where ``record`` is (or will be) stored."""
        return self.path_for(record.usecase, record.package, record.task_name, record.run_id)

    # --- writing -----------------------------------------------------------
    def write(self, record: RunRecord) -> Path:
        """Write ``record`` atomically (replacing an earlier version of the same run).

        Raises :class:`RecordWriteError` naming the path and the reason.
        """
        path = self.record_path(record)
        try:
            data = record.to_json().encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:  # e.g. a circular structure
            raise RecordWriteError(path, f"the record is not JSON: {exc}") from exc
        temp: Optional[str] = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{record.run_id}.", suffix=_TEMP_SUFFIX, dir=path.parent)
            with os.fdopen(fd, "wb") as handle:
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), 0o644)  # mkstemp makes 0600; records are shared
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
            temp = None
            _sync_folder(path.parent)
        except OSError as exc:
            raise RecordWriteError(path, exc.strerror or str(exc)) from exc
        finally:
            if temp is not None:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
        return path

    # --- reading -----------------------------------------------------------
    def load(self, path: Union[str, Path]) -> RunRecord:
        """Read one record file; raises :class:`UnreadableRecord` naming it."""
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

    def _load_listed(self, path: Path, usecase: str, package: str, task: str) -> RunRecord:
        """A record file of the store: it must also be the run its name and folder say."""
        record = self.load(path)
        if record.run_id != path.stem:
            raise UnreadableRecord(path, f"its run_id {record.run_id[:60]!r} is not its file name")
        for kind, field_, name in (("usecase", record.usecase, usecase), ("package", record.package, package),
                                   ("task_name", record.task_name, task)):
            if field_ and field_ != name:
                raise UnreadableRecord(path, f"its {kind} {field_[:60]!r} is not its folder's {name!r}")
        return record

    def _scan(self, usecase: str, package: str, task: str
              ) -> tuple[list[tuple[RunRecord, Path]], list[tuple[Path, UnreadableRecord]]]:
        """Every record file of a task: the readable ones and the damaged ones."""
        readable: list[tuple[RunRecord, Path]] = []
        damaged: list[tuple[Path, UnreadableRecord]] = []
        for path in self.run_files(usecase, package, task):
            try:
                readable.append((self._load_listed(path, usecase, package, task), path))
            except UnreadableRecord as exc:
                damaged.append((path, exc))
        return readable, damaged

    def run_files(self, usecase: str, package: str, task: str) -> list[Path]:
        """The record files of a task (temporary files left out), in name order."""
        folder = self.task_dir(usecase, package, task)
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if _is_record_file(p))

    def list_runs(self, usecase: str, package: str, task: str) -> list[RunRecord]:
        """Every readable record of a task, newest first by ``started_at``.

        An unreadable file is skipped with an :class:`UnreadableRecordWarning` naming it.
        """
        readable, damaged = self._scan(usecase, package, task)
        for _, exc in damaged:
            warnings.warn(f"skipping {exc}", UnreadableRecordWarning, stacklevel=2)
        return _newest_first([r for r, _ in readable])

    def latest_runs(self, usecase: str, package: str, task: str, count: int = 1,
                    before: Optional[RunRecord] = None) -> list[RunRecord]:
        """The ``count`` newest runs of a task (with ``before``: of those started before it),
        newest first; fewer when the task has fewer.

        Never answers with older runs while a file that may be one of these cannot be
        read: a damaged file (or a record without a start time) is placed by its
        modification time, and when that is not clearly before the start of the
        ``count``-th run, :class:`LatestUnknown` names it. Damaged files clearly older
        are skipped with an :class:`UnreadableRecordWarning`.
        """
        readable, damaged = self._scan(usecase, package, task)
        candidates = [(r, p) for r, p in readable if before is None or run_order(r) < run_order(before)]
        candidates.sort(key=lambda rp: run_order(rp[0]), reverse=True)
        chosen = candidates[:count]
        floor = _started(chosen[-1][0]) if len(chosen) == count else None
        if before is not None:
            what = f"the run before run {before.run_id}"
        else:
            what = "the latest run" if count == 1 else f"one of the {count} latest runs"
        task_path = f"{usecase}/{package}/{task}"
        unplaced = [(p, f"has no start time (run {r.run_id})") for r, p in candidates[count:]
                    if r.started_at is None]
        for path, why in [*((p, f"is unreadable: {e.reason}") for p, e in damaged), *unplaced]:
            if _may_be_newer(path, floor):
                raise LatestUnknown(what, task_path, path, why)
        for _, exc in damaged:
            warnings.warn(f"skipping {exc}", UnreadableRecordWarning, stacklevel=2)
        return [r for r, _ in chosen]

    def find(self, usecase: str, package: str, task: str, run_id_prefix: Optional[str] = None) -> RunRecord:
        """The record whose run id starts with ``run_id_prefix`` (None: the newest run).

        Raises :class:`RecordNotFound`, :class:`AmbiguousRunId` or :class:`UnreadableRecord`.
        """
        task_path = f"{usecase}/{package}/{task}"
        folder = self.task_dir(usecase, package, task)
        if run_id_prefix is None:
            runs = self.list_runs(usecase, package, task)
            if not runs:
                raise RecordNotFound(task_path, None, folder)
            return runs[0]
        if not run_id_prefix or "/" in run_id_prefix or "\\" in run_id_prefix:
            raise RecordNotFound(task_path, run_id_prefix, folder)
        files = self.run_files(usecase, package, task)
        exact = [p for p in files if p.stem == run_id_prefix]
        matches = exact or [p for p in files if p.stem.startswith(run_id_prefix)]
        if not matches:
            raise RecordNotFound(task_path, run_id_prefix, folder)
        if len(matches) > 1:
            raise AmbiguousRunId(task_path, run_id_prefix, [p.stem for p in matches])
        return self._load_listed(matches[0], usecase, package, task)

    def iter_tasks(self) -> list[tuple[str, str, str]]:
        """Every ``(usecase, package, task)`` with at least one record file, sorted."""
        found: list[tuple[str, str, str]] = []
        if not self.root.is_dir():
            return found
        for usecase in _subdirs(self.root):
            for package in _subdirs(usecase):
                for task in _subdirs(package):
                    if any(_is_record_file(p) for p in task.iterdir()):
                        found.append((usecase.name, package.name, task.name))
        return sorted(found)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _newest_first(records: list[RunRecord]) -> list[RunRecord]:
    return sorted(records, key=run_order, reverse=True)


def _may_be_newer(path: Path, floor: Optional[datetime]) -> bool:
    """Can the run that wrote ``path`` have started after ``floor`` (None: the runs asked
    for are not all there, so any file may be one of them)? A run writes its file after it
    starts, so a modification time clearly before ``floor`` rules it out."""
    if floor is None or floor == _OLDEST:
        return True
    try:
        written = datetime.fromtimestamp(path.stat().st_mtime_ns / 1e9, timezone.utc)
    except (OSError, OverflowError, ValueError):
        return True
    return written >= floor - CLOCK_SLACK


def _is_record_file(path: Path) -> bool:
    return path.suffix == SUFFIX and not path.name.startswith(".") and path.is_file()


def _subdirs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _sync_folder(folder: Path) -> None:
    """Make the rename durable where the platform allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def open_store(usecase_dir: Union[str, Path], lineage_dir: Union[str, Path, None] = None) -> FileStore:
    """The store of a usecase folder; ``lineage_dir`` is relative to it unless absolute."""
    folder = Path(lineage_dir) if lineage_dir is not None else DEFAULT_LINEAGE_DIR
    return FileStore(folder if folder.is_absolute() else Path(usecase_dir) / folder)
