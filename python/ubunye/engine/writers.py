"""One writer per output: a run holds a lock beside each local output from before its ``running``
record until its final record is written.

Why so long: records are ordered by their start (``run_order``), so two runs writing one output
must also write it in that order, or the newest record would describe rows that an older run
then replaced. Runs of one output are therefore serialised whole: a second run waits (before its
``running`` record, so its start is after the first run's end) until the first has ended its
record; then it reads, writes and records in turn. Both engines pass here
(:meth:`ubunye.engine.execution.TaskExecution.start` and ``finish``), whatever writes the files.

The lock is ``.<name>.ubunye-lock`` beside the output (where the output's real path puts it, so two
spellings or a symlink of one folder share one lock), an ``flock`` held on it: the kernel drops it
when its process dies (a killed run's lock is taken over at once; the file it leaves names its
pid, host and run id and is replaced). The file is removed when the lock is given back; a taker
that finds its file removed meanwhile takes the new one (the inode is checked after locking).

Local paths only (plain paths and ``file:``): an object store, HDFS, a table or jdbc output is not
locked here (docs/safety.md says what holds there). A second run of one output in the same
process (a notebook left open, then ``run_task``) cannot wait for itself: it fails at once.
"""
from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import socket
import stat
import threading
from pathlib import Path
from typing import Any, Iterable, Optional

from ubunye.engine.errors import EngineError
from ubunye.locations import local_path

LOCK_SUFFIX = ".ubunye-lock"
_HELD: dict[str, str] = {}  # lock path -> run id, held by this process
_GUARD = threading.Lock()
log = logging.getLogger("ubunye.engine")


class OutputLockError(EngineError):
    """An output's lock that cannot be taken: its file cannot be made or is not a plain file of its
    own (a link, a FIFO), or another run of this same process holds it (it cannot be waited for).
    The run ends ``error`` with a record saying so, and writes nothing."""

    def __init__(self, spec: Any, reason: str) -> None:
        from ubunye.masking import mask

        super().__init__(mask(f"output {spec.name!r} ({spec.location}): {reason}"))


OutputBusy = OutputLockError  # the name of a second writer in this process


def lock_path(location: Optional[str]) -> Optional[Path]:
    """The lock file of an output at ``location`` (None: not a local path)."""
    local = local_path(location) if location else None
    if local is None:
        return None
    real = Path(os.path.realpath(local))
    return real.parent / f".{real.name}{LOCK_SUFFIX}"


def take_locks(run_id: str, specs: Iterable[Any]) -> tuple[Optional["OutputLocks"], Optional[OutputLockError]]:
    """The run's locks, or why they cannot be taken (the run records that, then ends)."""
    try:
        return OutputLocks(run_id).take(specs), None
    except OutputLockError as exc:
        return None, exc


class OutputLocks:
    """The locks of one run's local outputs, taken in one order (no two runs wait on each other)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.held: list[tuple[Path, int, list[Path]]] = []  # lock, fd, folders made for it

    def take(self, specs: Iterable[Any]) -> "OutputLocks":
        wanted = {}
        for spec in specs:
            path = lock_path(spec.path) if spec.format not in ("table", "jdbc") else None
            if path is not None:
                wanted.setdefault(str(path), (spec, path))
        try:
            for key in sorted(wanted):
                spec, path = wanted[key]
                with _GUARD:
                    other = _HELD.get(key)
                    if other is not None:
                        raise OutputLockError(spec, f"is being written by run {other} in this process; one "
                                                    "writer per output: end that run first")
                    _HELD[key] = self.run_id
                try:
                    made = _make_parent(path.parent)
                    self.held.append((path, _lock(path, spec, self.run_id), made))
                except OSError as exc:
                    with _GUARD:
                        _HELD.pop(key, None)
                    raise OutputLockError(spec, f"cannot take its writer lock {path}: "
                                                f"{exc.strerror or exc}") from None
                except BaseException:
                    with _GUARD:
                        _HELD.pop(key, None)
                    raise
        except BaseException:
            self.release()
            raise
        return self

    def release(self) -> None:
        """Give every lock back (and remove its file, and the folders made for it when empty)."""
        while self.held:
            path, fd, made = self.held.pop()
            try:
                if _same_file(fd, path):
                    os.unlink(path)
            except OSError:
                pass
            finally:
                os.close(fd)  # the lock goes with it
                with _GUARD:
                    _HELD.pop(str(path), None)
            for folder in reversed(made):
                try:
                    folder.rmdir()  # only when the run wrote nothing there
                except OSError:
                    break


def _make_parent(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the ones made, outermost first."""
    missing = []
    here = folder
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    folder.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))



def _lock(path: Path, spec: Any, run_id: str) -> int:
    """An fd of ``path`` holding its lock (waiting for another run's end if need be)."""
    while True:
        path.parent.mkdir(parents=True, exist_ok=True)  # a holder that failed may have removed it
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:  # never truncate another file's data
                raise OSError(errno.EEXIST, "it is not a plain file of its own (a FIFO, a device, a hard link)")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log.warning("output %r (%s) is being written by %s; waiting for it to end (one writer per output)",
                            spec.name, spec.location, _holder(fd))
                fcntl.flock(fd, fcntl.LOCK_EX)  # a signal ends the wait (the run's handler raises)
            if _same_file(fd, path):
                holder = json.dumps({"run_id": run_id, "pid": os.getpid(), "host": socket.gethostname()})
                os.ftruncate(fd, 0)
                os.pwrite(fd, holder.encode("utf-8"), 0)
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # its holder removed the file as it ended: lock the one there now


def _same_file(fd: int, path: Path) -> bool:
    try:
        there = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _holder(fd: int) -> str:
    """Who holds the lock, as its file says (a run id, pid and host), for the waiting line."""
    try:
        found = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        run_id, pid, host = found["run_id"], found["pid"], found["host"]
    except (OSError, ValueError, KeyError, TypeError):
        return "another run"
    # The lock file is anybody's who may write the output's folder: only a well-formed holder is
    # named (never a line break, a terminal control or a text of any length on the waiting line).
    if not (_shown(run_id) and _shown(host) and type(pid) is int and 0 < pid < 2 ** 32):
        return "another run"
    return f"run {run_id} (pid {pid} on {host})"


def _shown(name: Any) -> bool:
    """A name fit for the waiting line: a text of at most 128 printable characters (no line break,
    no terminal or direction control)."""
    return isinstance(name, str) and 0 < len(name) <= 128 and name.isprintable()
