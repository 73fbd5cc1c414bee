"""Hashing rows-v1 lines on a second core: one persistent worker process.

The caller's process builds the canonical lines chunk by chunk (Arrow compute)
and hands some chunks to a worker process (:mod:`ubunye.hashing.lanes_worker`),
which hashes them and answers ``(rows, a, b)``; the caller hashes the other
chunks meanwhile and adds all the sums modulo 2^64. Lane sums do not depend on
the order of the lines, so the result is exactly the single-process one.

How the worker is started, and why: with :mod:`subprocess` (fork + exec of
``sys.executable`` on the worker *file*), not with ``multiprocessing``. The
exec makes it as safe as ``spawn`` in a process that has threads (a pyspark
driver, Arrow's thread pool): nothing of the parent's memory or locks is used
in the child. Unlike ``spawn``/``forkserver`` it does not re-import the
caller's ``__main__`` (a notebook or a script without a main guard), pickles
nothing and starts no resource tracker; the worker imports only the standard
library and numpy. It runs in its own session, so a Ctrl-C in a terminal
reaches only the caller, which then discards the worker.

Data path: each chunk's offsets and line bytes are written with one
``os.pwritev`` into one of a few anonymous memory files (``memfd``, or an
unlinked temporary file off Linux) passed to the worker at start; only a
small request goes through the control pipe, so the caller never blocks on a
pipe while the worker is busy; the worker reads a chunk with one
``os.preadv`` (a copy, but no ``mmap`` whose file could shrink under it). At
most :data:`MAX_IN_FLIGHT` chunks are queued at the worker; when it is full
the caller hashes the chunk itself, which balances the two cores without any
tuning. Memory: the slot files and the worker's buffers hold up to three
chunks of lines (about 13 MB each for 200-byte lines) while the worker lives;
anything above :data:`~ubunye.hashing.lanes_worker.KEEP_BYTES` per slot is
freed after each call.

Failures: a worker that reports an error, dies (end of file on its reply
pipe), answers something unexpected or does not answer within a timeout is
killed and a :class:`HashWorkerError` naming it is raised; no partial sum is
ever returned. An interrupted call (KeyboardInterrupt included) discards the
worker. The worker is started lazily, reused across calls (measured start-up:
about 0.12 CPU-seconds, 0.17-0.33 s wall on the loaded 2-core development
machine, mostly numpy's import) and stopped at exit.
"""
from __future__ import annotations

import atexit
import logging
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ubunye.hashing import lanes_worker
from ubunye.hashing.digest import LaneSums, Totals

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

log = logging.getLogger(__name__)

AUTO_MIN_ROWS = 200_000
"""Auto mode uses the worker only for inputs of at least this many rows."""
AUTO_WORKERS = 2
MAX_IN_FLIGHT = 2
START_TIMEOUT_S = 60.0
"""How long a new worker may take to report ready before the caller gives up on it."""
RESULT_TIMEOUT_S = 120.0
"""How long the caller waits for one answer (plus time for the bytes queued, see :meth:`LaneWorker.drain`)."""
BYTES_PER_S_FLOOR = 2_000_000


class HashWorkerError(RuntimeError):
    """The rows-v1 hashing worker process failed; the sums are not known."""


def in_spark_worker() -> bool:
    """True inside a Spark Python worker (a task of ``mapInArrow``, a UDF ...).

    Looked up without importing pyspark: the worker modules are loaded, or a
    task context is set.
    """
    mods = sys.modules
    if "pyspark.worker" in mods or "pyspark.daemon" in mods:
        return True
    main_spec = getattr(mods.get("__main__"), "__spec__", None)
    if getattr(main_spec, "name", "") in ("pyspark.worker", "pyspark.daemon"):
        return True
    from ubunye.hashing.registry import in_worker

    return in_worker()  # a task context set: asked of the Spark layer's registered probe


def resolve_workers(workers: Optional[int], rows_known: Optional[int]) -> int:
    """The number of processes to hash with: ``workers`` as given, or the auto choice.

    Auto (``None``): 1 inside a Spark Python worker, on a single CPU, without
    ``os.pwritev`` (Windows), after a worker failed to start (see
    :func:`disable_auto`) or when ``rows_known`` is below
    :data:`AUTO_MIN_ROWS`; otherwise ``min(2, cpu count)``. ``rows_known=None``
    (an iterator) is decided later by the caller, as rows arrive.
    """
    if workers is not None:
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be None or an int >= 1, not {workers!r}")
        if workers > 1 and not hasattr(os, "pwritev"):
            raise ValueError(f"workers={workers} needs os.pwritev and pass_fds (POSIX); use workers=1 here")
        return workers
    if _auto_off or in_spark_worker() or not hasattr(os, "pwritev"):
        return 1
    cpus = os.cpu_count() or 1
    if cpus < 2 or (rows_known is not None and rows_known < AUTO_MIN_ROWS):
        return 1
    return min(AUTO_WORKERS, cpus)


def _memory_file() -> int:
    if hasattr(os, "memfd_create"):
        return os.memfd_create("ubunye-rows-v1")  # close-on-exec; handed over by pass_fds
    fd, path = tempfile.mkstemp(prefix="ubunye-rows-v1-")
    os.unlink(path)
    return fd


class LaneWorker:
    """One worker process, its control and reply pipes and its slot files."""

    def __init__(self, slots: int = MAX_IN_FLIGHT + 1) -> None:
        self.owner = os.getpid()
        self.ready = False
        self.broken: Optional[str] = None
        self.rows_done = 0  # rows whose sums the worker has answered
        self._free = list(range(slots))
        self._pending: dict[int, tuple[int, int, bool]] = {}  # slot -> (rows, bytes, sketch) sent
        fds: list[int] = []
        try:
            ctl_r, self._ctl = os.pipe()
            fds += [ctl_r, self._ctl]
            self._rep, rep_w = os.pipe()
            fds += [self._rep, rep_w]
            self._slots = [_memory_file() for _ in range(slots)]
            fds += self._slots
            script = Path(lanes_worker.__file__)
            if not script.is_file():
                raise HashWorkerError(f"the worker script {script} is not a file")
            try:
                self.proc = subprocess.Popen(
                    [sys.executable, str(script), str(ctl_r), str(rep_w), *map(str, self._slots)],
                    pass_fds=[ctl_r, rep_w, *self._slots],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    start_new_session=True,
                    close_fds=True,
                )
            except OSError as exc:
                raise HashWorkerError(f"cannot start the rows-v1 hashing worker with {sys.executable!r}: {exc}") from exc
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        os.close(ctl_r)
        os.close(rep_w)
        self.pid = self.proc.pid
        self._poll = select.poll() if hasattr(select, "poll") else None  # (select() fails on fds >= 1024)
        if self._poll is not None:
            self._poll.register(self._rep, select.POLLIN)

    def _readable(self, timeout: float) -> bool:
        """True when a reply (or end of file) is waiting, within ``timeout`` seconds."""
        if self._poll is not None:
            return bool(self._poll.poll(int(timeout * 1000)))
        readable, _, _ = select.select([self._rep], [], [], timeout)
        return bool(readable)

    # -- sending ------------------------------------------------------------
    def can_take(self) -> bool:
        """True if a chunk may be sent now (the worker is ready and not full)."""
        return not self.broken and self.ready and bool(self._free)

    def submit(self, lines: "pa.Array", sketch: bool = False) -> None:
        """Queue the chunk ``lines`` (a string/binary array without nulls) at the worker
        (``sketch``: its answer also carries the chunk's sketch cells)."""
        import numpy as np
        import pyarrow as pa

        n = len(lines)
        width = 8 if pa.types.is_large_string(lines.type) or pa.types.is_large_binary(lines.type) else 4
        _, off_buf, data_buf = lines.buffers()
        offsets = memoryview(off_buf)[lines.offset * width:(lines.offset + n + 1) * width]
        ends = np.frombuffer(offsets, dtype=f"<i{width}")
        base, end = int(ends[0]), int(ends[-1])
        data = memoryview(data_buf)[base:end] if data_buf is not None else memoryview(b"")
        slot = self._free.pop()
        try:
            written = os.pwritev(self._slots[slot], [offsets, data], 0)
            if written != len(offsets) + len(data):
                raise HashWorkerError(f"short write to the rows-v1 worker slot ({written} bytes)")
            request = lanes_worker.REQUEST.pack(b"K" if sketch else b"H", slot, width, n, len(offsets), len(data), base)
            os.write(self._ctl, request)
        except BrokenPipeError:
            self._free.append(slot)
            self._fail(f"rows-v1 hashing worker (pid {self.pid}) is gone ({self._exit_text()})")
        except OSError as exc:  # e.g. no memory left for the slot file
            self._free.append(slot)
            self._fail(f"cannot hand {n} lines to the rows-v1 hashing worker (pid {self.pid}): {exc}")
        except BaseException:
            self._free.append(slot)
            raise
        self._pending[slot] = (n, len(offsets) + len(data), sketch)

    # -- receiving ----------------------------------------------------------
    def drain(self) -> Totals:
        """Wait for every queued chunk; the sum of their results."""
        total = Totals()
        while self._pending:
            total = total + self._collect(block=True)
        return total

    def take_done(self) -> Totals:
        """The sum of the results that have already arrived (without waiting).

        Also notices the worker's start-up message (then :attr:`ready` is True).
        """
        return self._collect(block=False)

    def _collect(self, block: bool) -> Totals:
        total = Totals()
        while True:
            expect_start = not self.ready
            if not self._pending and not expect_start:
                return total
            if expect_start:
                timeout = START_TIMEOUT_S if block else 0.0
            else:
                queued = sum(size for _, size, _ in self._pending.values())
                timeout = (RESULT_TIMEOUT_S + queued / BYTES_PER_S_FLOOR) if block else 0.0
            if not self._readable(timeout):
                if not block:
                    return total
                what = "start" if expect_start else "answer"
                self._fail(f"rows-v1 hashing worker (pid {self.pid}) did not {what} within {timeout:.1f} s")
            total = total + self._read_reply()
            block = False  # more replies may be waiting; read them without blocking

    def _read_reply(self) -> Totals:
        head = lanes_worker._read_exact(self._rep, lanes_worker.REPLY.size) if not self.broken else b""
        if len(head) != lanes_worker.REPLY.size:
            when = f"with {len(self._pending)} chunk(s) unanswered" if self.ready else "before it was ready"
            self._fail(f"rows-v1 hashing worker (pid {self.pid}) exited ({self._exit_text()}) {when}")
        tag, slot, rows, a, b = lanes_worker.REPLY.unpack(head)
        if tag == b"S":
            self.ready = True
            return Totals()
        if tag == b"E":
            message = lanes_worker._read_exact(self._rep, rows).decode("utf-8", "replace")
            self._fail(f"rows-v1 hashing worker (pid {self.pid}) failed: {message}")
        if tag != b"R" or slot not in self._pending or self._pending[slot][0] != rows:
            self._fail(f"rows-v1 hashing worker (pid {self.pid}) answered {tag!r} for slot {slot} "
                       f"with {rows} rows; expected one of {self._pending}")
        cells = None
        if self._pending[slot][2]:
            size = lanes_worker.SKETCH_CELLS * 32
            raw = lanes_worker._read_exact(self._rep, size)
            if len(raw) != size:
                self._fail(f"rows-v1 hashing worker (pid {self.pid}) sent {len(raw)} of {size} sketch bytes")
            import numpy as np

            cells = np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(lanes_worker.SKETCH_CELLS, 4)
        del self._pending[slot]
        self._free.append(slot)
        self.rows_done += rows
        return Totals(LaneSums(rows, a, b), cells)

    def trim(self) -> None:
        """Free slot files grown past :data:`~ubunye.hashing.lanes_worker.KEEP_BYTES` (nothing queued)."""
        if self._pending:
            return
        for fd in self._slots:
            if os.fstat(fd).st_size > lanes_worker.KEEP_BYTES:
                os.ftruncate(fd, 0)

    # -- ending -------------------------------------------------------------
    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit code {code}"

    def _fail(self, message: str) -> None:
        self.broken = message
        self.close(kill=True)
        raise HashWorkerError(message)

    def close(self, kill: bool = False) -> None:
        """Stop the worker (politely unless ``kill``) and close every descriptor."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        fds = (self._ctl, self._rep, *self._slots)
        if os.getpid() != self.owner:  # a forked child: the worker is the parent's; drop our copies only
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            return
        if not kill:
            try:
                os.write(self._ctl, lanes_worker.REQUEST.pack(b"Q", 0, 0, 0, 0, 0, 0))
            except OSError:
                pass
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5.0)

    @property
    def usable(self) -> bool:
        return not self.broken and not getattr(self, "_closed", False) and self.proc.poll() is None


_lock = threading.Lock()
_worker: Optional[LaneWorker] = None
_auto_off: Optional[str] = None  # why auto mode stays in one process (a failed start), if it does


def acquire_worker(start: bool = True) -> Optional[LaneWorker]:
    """The shared worker, reserved for the caller (``release_worker`` gives it back).

    None if another thread of this process is using it (the caller then hashes
    alone) or, with ``start=False``, if none is running. A worker inherited
    through ``fork`` is left alone and a new one is started.
    """
    global _worker
    if not _lock.acquire(blocking=False):
        return None
    try:
        if _worker is not None and (_worker.owner != os.getpid() or not _worker.usable):
            _worker.close(kill=True)  # only closes the descriptors in a forked child
            _worker = None
        if _worker is None and start:
            _worker = LaneWorker()
        if _worker is None:
            _lock.release()
        return _worker
    except BaseException:
        _lock.release()
        raise


def release_worker(worker: LaneWorker, ok: bool) -> None:
    """Give the worker back; if the call did not end cleanly it is discarded."""
    global _worker
    try:
        if not ok or worker._pending or not worker.usable:
            worker.close(kill=True)
            if _worker is worker:
                _worker = None
        else:
            worker.trim()
    finally:
        _lock.release()


def current_worker_pid() -> Optional[int]:
    """The pid of the running shared worker, if any (for tests and diagnostics)."""
    w = _worker
    return w.pid if w is not None and w.usable else None


def shutdown() -> None:
    """Stop the shared worker (registered with :mod:`atexit`).

    If another thread is still hashing with it after a few seconds, the
    worker is killed anyway (that call then raises :class:`HashWorkerError`).
    """
    global _worker
    locked = _lock.acquire(timeout=5.0)
    try:
        worker, _worker = _worker, None
        if worker is not None:
            worker.close(kill=not locked)
    finally:
        if locked:
            _lock.release()


def disable_auto(reason: str) -> None:
    """Make auto mode hash in one process from now on (the worker could not start here)."""
    global _auto_off
    _auto_off = reason
    log.warning("rows-v1: hashing in one process from now on: %s", reason)


def warm_up(timeout: float = START_TIMEOUT_S) -> float:
    """Start the shared worker and wait until it is ready; the seconds it took."""
    start = time.perf_counter()
    worker = acquire_worker()
    if worker is None:
        raise HashWorkerError("the rows-v1 hashing worker is in use by another thread")
    ok = False
    try:
        deadline = time.monotonic() + timeout
        while not worker.ready:
            if time.monotonic() > deadline:
                worker._fail(f"rows-v1 hashing worker (pid {worker.pid}) did not start within {timeout:.0f} s")
            worker._collect(block=True)
        ok = True
    finally:
        release_worker(worker, ok)
    return time.perf_counter() - start


atexit.register(shutdown)
