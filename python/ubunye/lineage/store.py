"""The run-record store: one JSON file per run, written atomically.

Layout: ``<root>/<usecase>/<package>/<task>/<run_id>.json`` where ``root`` is the
lineage folder (default ``<usecase_dir>/.ubunye/lineage``). A write goes to a
temporary file in the same folder, is flushed and synced, then renamed over the
final name, so a reader (or a process killed mid-write) never sees half a
record. Imports nothing heavy.
"""
from __future__ import annotations

import json
import os
import tempfile
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Union

from ubunye.lineage.errors import (
    AmbiguousRunId,
    RecordNotFound,
    RecordWriteError,
    UnreadableRecord,
)
from ubunye.lineage.record import RunRecord
from ubunye._names import validate_name  # the one name check, shared with the engine (re-exported)

DEFAULT_LINEAGE_DIR = Path(".ubunye") / "lineage"
SUFFIX = ".json"
_TEMP_SUFFIX = ".tmp"
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)


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
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UnreadableRecord(path, getattr(exc, "strerror", None) or str(exc)) from exc
        try:
            return RunRecord.from_dict(json.loads(text))
        except (ValueError, TypeError, AttributeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UnreadableRecord(path, reason) from exc

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
        records: list[RunRecord] = []
        for path in self.run_files(usecase, package, task):
            try:
                records.append(self.load(path))
            except UnreadableRecord as exc:
                warnings.warn(f"skipping {exc}", UnreadableRecordWarning, stacklevel=2)
        records.sort(key=lambda r: (_started(r), r.run_id), reverse=True)
        return records

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
        return self.load(matches[0])

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
