"""Crash consistency of the record stores (issue 42).

POSIX: every file-system operation the store makes while writing records is recorded (``os.open``,
``os.mkdir``, ``os.link``, ``os.unlink``, ``os.fsync``, ``os.close``, and the writes and flushes of
the file objects ``os.fdopen`` gives). After each operation the states a power loss could leave are
built: file contents not yet synced by an ``fsync`` of that file are lost (the file reads empty), and
a name created or removed in a folder not yet synced by an ``fsync`` of that folder may be lost or
kept, each alone or all together. Each state is written out to a folder and read with the store's
own readers (listing, ``load``, ``latest_runs``, the index): every record is absent or whole (its
seal checks), no record name points at an incomplete file, and a record whose ``write`` returned is
there. Removing the fsync of the file, or of the folder, makes these tests fail.

Object stores: each request the store makes (over obstore's ``memory://`` store) fails once in turn,
before it reaches the store or after it landed (its answer lost); the write's error is one line,
the readers show every record absent or whole, and writing again leaves one record per run.
"""
from __future__ import annotations

import errno
import os
import stat
import warnings
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

from ubunye.lineage.errors import RecordUnsigned, RecordWriteError, UnreadableRecord
from ubunye.lineage.attestation import dsse, envelopes
from ubunye.lineage.record import RunRecord, Step
from ubunye.lineage.store import LatestUnknown, RecordStore, UnreadableRecordWarning
from ubunye.lineage.store.posix import PosixBlobs
from ubunye.lineage.store import index as index_module

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
TASKS = (("shop", "orders", "clean"), ("shop", "orders", "load"))

Tree = tuple[dict[int, dict[str, int]], dict[int, bytes]]  # folders' entries by inode; files' bytes by inode


def _record(task: tuple[str, str, str], run_id: str, hour: int, status: str = "success") -> RunRecord:
    return RunRecord(run_id=run_id, task_path="/".join(task), usecase=task[0], package=task[1], task_name=task[2],
                     started_at=(T0 + timedelta(hours=hour)).isoformat(), status=status,
                     outputs=[Step("out", "output", "parquet", "/lake/out", 3, "sha256:s", "sha256:d", "rows-v1")])


# --- the POSIX crash model ------------------------------------------------------------------
class Disk:
    """Records the store's file operations under ``base`` and what a power loss after each could leave."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.base_ino = base.stat().st_ino
        folders, files = self._live()
        self.synced_entries: dict[int, dict[str, int]] = {d: dict(e) for d, e in folders.items()}
        self.synced_bytes: dict[int, bytes] = dict(files)
        self.seen: dict[int, bytes] = dict(files)  # every file's last bytes (a removed name's too)
        self.is_folder: set[int] = set(folders)
        self.steps: list[tuple[str, Tree, dict[int, dict[str, int]], dict[int, bytes], int]] = []
        self.written: list[RunRecord] = []  # records whose write returned
        self.fsyncs = 0
        self.failing_fsync = 0  # this fsync (1: the first) fails with EIO, syncing nothing
        self._busy = False

    def _live(self) -> Tree:
        folders: dict[int, dict[str, int]] = {}
        files: dict[int, bytes] = {}
        todo = [self.base]
        while todo:
            folder = todo.pop()
            entries: dict[str, int] = {}
            for entry in os.scandir(folder):
                st = entry.stat(follow_symlinks=False)
                entries[entry.name] = st.st_ino
                if entry.is_dir(follow_symlinks=False):
                    todo.append(Path(entry.path))
                else:
                    files[st.st_ino] = Path(entry.path).read_bytes()
            folders[folder.stat().st_ino] = entries
        return folders, files

    def step(self, label: str) -> None:
        folders, files = self._live()
        self.is_folder.update(folders)
        self.seen.update(files)
        self.steps.append((label, (folders, files), {d: dict(e) for d, e in self.synced_entries.items()},
                           dict(self.synced_bytes), len(self.written)))

    def fsync(self, fd: int) -> None:
        self._record_fsync(fd)

    def _record_fsync(self, fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            self.synced_entries[st.st_ino] = {e.name: e.stat(follow_symlinks=False).st_ino
                                              for e in os.scandir(f"/proc/self/fd/{fd}")}
        else:
            self.synced_bytes[st.st_ino] = Path(f"/proc/self/fd/{fd}").read_bytes()

    @contextmanager
    def recording(self, monkeypatch: pytest.MonkeyPatch) -> Iterator["Disk"]:
        real = {name: getattr(os, name) for name in
                ("open", "close", "write", "fsync", "link", "rename", "replace", "unlink", "mkdir", "fdopen")}
        disk = self

        def wrap(name: str) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                if disk._busy:
                    return real[name](*args, **kwargs)
                disk._busy = True
                try:
                    if name == "fsync":
                        disk.fsyncs += 1
                        if disk.fsyncs == disk.failing_fsync:
                            raise OSError(errno.EIO, "Input/output error")
                        disk.fsync(args[0])
                    try:
                        result = real[name](*args, **kwargs)
                    finally:
                        disk.step(name)
                    return File(result, disk) if name == "fdopen" else result
                finally:
                    disk._busy = False
            return call

        with monkeypatch.context() as patch:
            for name in real:
                patch.setattr(os, name, wrap(name))
            yield self

    def crashes(self) -> Iterator[tuple[str, dict[Path, bytes], set[Path], list[RunRecord]]]:
        """Each state a power loss could leave: (what, files by path, folders, records already written)."""
        for number, (label, (folders, _), entries, data, done) in enumerate(self.steps):
            changes = [(d, name) for d in set(folders) | set(entries)
                       for name in set(folders.get(d, {})) | set(entries.get(d, {}))
                       if folders.get(d, {}).get(name) != entries.get(d, {}).get(name)]
            for keep_all in (False, True):
                for flipped in [None, *changes]:
                    def chosen(d: int) -> dict[str, int]:
                        now, was = folders.get(d, {}), entries.get(d, {})
                        out = dict(now if keep_all else was)
                        if flipped is not None and flipped[0] == d:
                            take = (was if keep_all else now).get(flipped[1])
                            if take is None:
                                out.pop(flipped[1], None)
                            else:
                                out[flipped[1]] = take
                        return out
                    files: dict[Path, bytes] = {}
                    dirs: set[Path] = set()
                    todo = [(self.base_ino, Path("."))]
                    while todo:
                        ino, where = todo.pop()
                        for name, child in chosen(ino).items():
                            if child in self.is_folder:
                                dirs.add(where / name)
                                todo.append((child, where / name))
                            else:
                                files[where / name] = data.get(child, b"")  # not synced: lost
                    yield f"after {label} #{number}", files, dirs, self.written[:done]


class File:
    """A file object of ``os.fdopen`` whose writes and flushes are steps."""

    def __init__(self, handle: Any, disk: Disk) -> None:
        self._handle, self._disk = handle, disk

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _do(self, name: str, *args: Any) -> Any:
        result = getattr(self._handle, name)(*args)
        self._disk.step(name)
        return result

    def write(self, data: bytes) -> int:
        return self._do("write", data)

    def flush(self) -> None:
        self._do("flush")

    def close(self) -> None:
        self._do("close")


def _materialize(root: Path, files: dict[Path, bytes], dirs: set[Path]) -> None:
    root.mkdir()
    for folder in sorted(dirs):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for path, data in files.items():
        (root / path).write_bytes(data)


def _check(store_dir: Path, written: list[RunRecord], done: list[RunRecord], what: str,
           volume: bool = False) -> None:
    """The store's readers on one crash state: every record absent or whole, the written ones there.
    ``volume`` (no link: a record is written at its name): an incomplete one is never passed over."""
    by_run = {(r.task_name, r.run_id, r.status): r for r in written}
    damaged: set[str] = set()  # tasks holding an incomplete record (volume mode only)
    for path in store_dir.rglob("*") if store_dir.is_dir() else []:
        if path.parent.name == "_signed" and not path.name.startswith("."):
            try:  # an envelope (at its run id or its chain place): absent or whole, but where not linked
                dsse.parse(path.read_bytes())
            except dsse.EnvelopeError:
                if not volume:
                    raise
            continue
        if path.suffix != ".json" or path.name.startswith(".") or ".index" in path.parts:
            continue
        try:
            record = RecordStore(store_dir).load(path)  # no name points at an incomplete file
        except UnreadableRecord:
            if not volume:
                raise
            task = path.parent.parent if path.parent.name == "_started" else path.parent
            assert not any(store_dir / "/".join(r.task_path.split("/")) / ("_started" if r.status == "running"
                           else "") / f"{r.run_id}.json" == path for r in done), f"{what}: {path} written, damaged"
            damaged.add(task.name)
            for indexed in (False, True):
                with pytest.raises(LatestUnknown):  # never passed over
                    RecordStore(store_dir, index=indexed).latest_runs(*TASKS[[t[2] for t in TASKS].index(task.name)])
            continue
        assert by_run.get((record.task_name, record.run_id, record.status)) == record, (what, path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnreadableRecordWarning)
        for indexed in (False, True):
            store = RecordStore(store_dir, index=indexed)
            for task in [t for t in TASKS if t[2] not in damaged]:
                runs = store.list_runs(*task)
                assert all(by_run[(r.task_name, r.run_id, r.status)] == r for r in runs), what
                assert store.latest_runs(*task, 1) == runs[:1], what
                final = {(r.run_id, r.status) for r in done if r.task_name == task[2] and r.status != "running"}
                started = {r.run_id for r in done if r.task_name == task[2] and r.status == "running"}
                assert final <= {(r.run_id, r.status) for r in runs}, f"{what}: a written record was lost"
                assert started <= {r.run_id for r in runs}, f"{what}: a written start record was lost"
            assert set(store.iter_tasks()) >= {(r.usecase, r.package, r.task_name) for r in done}, what
            there = [t for t in TASKS if (store_dir / "/".join(t)).is_dir() and t[2] not in damaged]
            listed = sorted(r.run_id for t in there for r in RecordStore(store_dir).list_runs(*t))
            if indexed and listed:  # the index answers (None: it fell back to the records)
                summaries = store.summaries(there)
                assert summaries is not None and (store_dir / ".index" / "records.sqlite3").is_file(), what
                assert sorted(x["run_id"] for x in summaries) == listed, what


RUNS = [_record(TASKS[0], "r-1", 0, "running"), _record(TASKS[0], "r-1", 0),
        _record(TASKS[1], "r-9", 1), _record(TASKS[0], "r-2", 2, "running"), _record(TASKS[0], "r-2", 2)]


def _crash_every_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_dir: Path,
                      records: list[RunRecord], failing_fsync: int = 0, volume: bool = False) -> int:
    """Write ``records`` recording the operations, then check each state a power loss after each
    could leave; with ``failing_fsync``, that fsync fails (a write that then raises promised nothing).
    The number of states checked."""
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)  # the index answers: it is checked too
    disk = Disk(tmp_path / "base")
    disk.failing_fsync = failing_fsync
    store = RecordStore(PosixBlobs(store_dir, volume=volume))
    with disk.recording(monkeypatch):
        for record in records:
            try:
                store.write(record)
            except RecordWriteError as exc:
                assert failing_fsync and "Input/output error" in str(exc), exc
                continue
            disk.written.append(record)
            disk.step("its return")  # from here on, the record must survive
    assert failing_fsync or len(disk.steps) > 5 * len(records)  # the operations were seen
    assert disk.fsyncs >= failing_fsync
    seen: set[Any] = set()
    for n, (what, files, dirs, done) in enumerate(disk.crashes()):
        key = (tuple(sorted(files.items())), tuple(sorted(dirs)), len(done))
        if key in seen:
            continue
        seen.add(key)
        crash = tmp_path / f"crash-{n}"
        _materialize(crash, files, dirs)
        _check(crash / store_dir.relative_to(disk.base), records, done, what, volume)
    return len(seen)


def test_a_power_loss_after_any_operation_leaves_records_absent_or_whole(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A new store (its folders made by the first write), then records beside others."""
    (tmp_path / "base").mkdir()
    states = _crash_every_step(tmp_path, monkeypatch, tmp_path / "base" / "lineage" / "store", RUNS)
    assert states > 20


def test_a_record_written_into_existing_folders_survives_a_power_loss(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The store and task folders already there (and synced): only the record's own operations."""
    store_dir = tmp_path / "base" / "store"
    for task in TASKS:
        (store_dir / "/".join(task) / "_started").mkdir(parents=True)
    states = _crash_every_step(tmp_path, monkeypatch, store_dir, RUNS[-2:])
    assert states > 5


@pytest.mark.parametrize("dropped", ["file", "folder"])
def test_the_model_sees_a_skipped_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dropped: str) -> None:
    """The crash model fails a store whose fsync of the record file (a name pointing at an empty
    file), or of its folder (a written record lost), does nothing."""
    store_dir = tmp_path / "base" / "store"
    (store_dir / "/".join(TASKS[0]) / "_started").mkdir(parents=True)
    def skipping(disk: Disk, fd: int) -> None:  # that fsync made nothing durable
        if stat.S_ISDIR(os.fstat(fd).st_mode) != (dropped == "folder"):
            disk._record_fsync(fd)

    monkeypatch.setattr(Disk, "fsync", skipping)
    with pytest.raises((AssertionError, UnreadableRecord)) as caught:
        _crash_every_step(tmp_path, monkeypatch, store_dir, RUNS[:2])
    assert ("a written" in str(caught.value)) == (dropped == "folder")


# --- object stores: each request fails once in turn ----------------------------------------------
class FailOnce:
    """obstore whose ``fail_at``-th request fails once: before it reaches the store, or after it
    landed (``landed``: its answer lost)."""

    def __init__(self, obstore: Any, fail_at: int, landed: bool, error: str = "GenericError 503") -> None:
        self._obstore, self.exceptions, self.store = obstore, obstore.exceptions, obstore.store
        self.fail_at, self.landed, self.count, self.error = fail_at, landed, 0, error.split(" ", 1)
        self.reading = False  # the checks' own requests: neither counted nor failed
        self.failed = ""  # the request that failed

    def _request(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self.count += not self.reading
        if self.reading or self.count != self.fail_at:
            return getattr(self._obstore, name)(*args, **kwargs)
        self.failed = name
        if self.landed:
            getattr(self._obstore, name)(*args, **kwargs)
        kind, code = self.error
        raise getattr(self.exceptions, kind)(f"{name}: {code}\n  connection reset Debug source: x")

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in ("put", "get", "head", "list_with_delimiter", "list"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._request(name, *args, **kwargs)


def _object_check(store: RecordStore, written: list[RunRecord], done: list[RunRecord], what: str) -> None:
    """Every record object absent or whole, one listed run per run id, the written ones there."""
    by_run = {(r.task_name, r.run_id, r.status): r for r in written}
    with warnings.catch_warnings(), _reading(store):
        warnings.simplefilter("error", UnreadableRecordWarning)
        for task in TASKS:
            runs = store.list_runs(*task)
            assert all(by_run[(r.task_name, r.run_id, r.status)] == r for r in runs), what
            assert len({r.run_id for r in runs}) == len(runs), f"{what}: two records of one run"
            assert store.latest_runs(*task, 1) == runs[:1], what
            wanted = {r.run_id for r in done if r.task_name == task[2]}
            assert wanted <= {r.run_id for r in runs}, f"{what}: a written record was lost"
            assert all(r.status != "running" for r in runs if any(d.run_id == r.run_id and d.status != "running"
                                                                 for d in done)), what
            summaries = store.summaries([task])
            if summaries is not None:
                assert sorted(s["run_id"] for s in summaries) == sorted(r.run_id for r in runs), what


@contextmanager
def _reading(store: RecordStore) -> Iterator[None]:
    fail: FailOnce = store.blobs._obs  # type: ignore[attr-defined]
    fail.reading = True
    try:
        yield
    finally:
        fail.reading = False


def _object_store(obstore: Any, fail: Optional[FailOnce]) -> RecordStore:
    from ubunye.lineage.store.objects import ObjectBlobs

    blobs = ObjectBlobs("memory:///")
    if fail is not None:
        blobs._obs = fail
    return RecordStore(blobs, index=True)


@pytest.mark.parametrize("error", ["GenericError 503 Service Unavailable", "GenericError 409 Conflict",
                                   "PreconditionError 412 Precondition Failed"])
def test_an_object_store_request_failing_once_leaves_records_absent_or_whole(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          error: str) -> None:
    obstore = pytest.importorskip("obstore")
    monkeypatch.setattr(index_module, "INDEX_FROM", 1)
    counter = FailOnce(obstore, 0, False)
    store = _object_store(obstore, counter)
    for record in RUNS:
        store.write(record)
    requests = counter.count  # the writes' requests, when none fails
    assert requests >= 2 * len(RUNS)  # a marker, then the record
    for fail_at in range(1, requests + 1):
        for landed in (False, True):
            what = f"request {fail_at} failing ({error}){' after it landed' if landed else ''}"
            envelopes._published.clear()  # the signer's key is written again (as by the first writes)
            monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{fail_at}-{landed}"))
            fail = FailOnce(obstore, fail_at, landed, error)
            store = _object_store(obstore, fail)
            done: list[RunRecord] = []
            for record in RUNS:
                try:
                    store.write(record)
                except RecordUnsigned as exc:  # a request of the signing failed: the record is kept, unsigned
                    assert "\n" not in str(exc), what
                    assert str(exc).startswith(f"run record {store.record_path(record)} was written unsigned: "), what
                except RecordWriteError as exc:
                    assert not (landed and fail.failed == "put"), f"{what}: a create that landed reported as failed"
                    assert "\n" not in str(exc) and "Debug source" not in str(exc), what
                    assert str(exc).startswith(f"could not write run record {store.record_path(record)}: "), what
                    _object_check(store, RUNS, done, what)
                    store.write(record)  # written again: once
                done.append(record)
                _object_check(store, RUNS, done, what)
            assert fail.count > fail_at, what  # the failure happened within the writes


@pytest.mark.parametrize("failing", range(1, 8))
def test_a_write_whose_fsync_fails_promises_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    failing: int) -> None:
    """Each fsync of a first record's write into a new store (its folders, the file, its folder) failing
    with EIO in turn: the write fails, or its record survives any power loss; none is ever damaged."""
    (tmp_path / "base").mkdir()
    _crash_every_step(tmp_path, monkeypatch, tmp_path / "base" / "store", RUNS[:1], failing_fsync=failing)


def test_a_failed_fsync_fails_a_volume_write_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Volume mode (no link) passes over an fsync the mount does not support (EINVAL), never an EIO."""
    def fsync(_: int) -> None:
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError) as failed:
        PosixBlobs(tmp_path, volume=True).put_new("a.json", b"x")
    assert failed.value.errno == errno.EIO


def test_volume_mode_never_passes_over_a_record_cut_by_a_power_loss(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``/Volumes`` (FUSE: no link, no rename) writes a record at its name: a power loss can leave it
    incomplete there. Then the newest runs are never answered past it (``LatestUnknown``), and a
    record whose write returned is whole."""
    (tmp_path / "base").mkdir()
    assert _crash_every_step(tmp_path, monkeypatch, tmp_path / "base" / "store", RUNS, volume=True) > 20
